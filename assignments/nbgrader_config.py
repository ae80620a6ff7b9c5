# nbgrader's configuration for the course directory assignments/ (and the temporary ones the
# tests build): see the instructors' page (instructors.md).
c = get_config()  # noqa: F821  (nbgrader provides it)

c.CourseDirectory.course_id = "dp-by-running-code"
# A cell that runs longer than this is interrupted and the rest of the notebook still runs: an
# endless loop at the top level of a solution cell costs that problem only. (Inside a test,
# dpgrader.call stops a student's function much sooner.)
c.Execute.timeout = 60
c.Execute.interrupt_on_timeout = True
# The problems' hidden tests and reference solutions live in the source only.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
