"""``make assignments [VARIANT=n] [CHAPTERS="a b"]``: the nbgrader source and the student release.

For each chapter with problems in ``assignments/problems/<chapter>/``:

1. writes the instructor's source notebook ``<course>/source/<chapter>/<chapter>.ipynb``
   (reference solutions and hidden tests in it, the variant's constants in its setup cells),
   with ``dpgrader.py``, the course's ``dpcourse/`` and the data the problems declare beside it;
2. runs nbgrader's ``generate_assignment``, which writes the student release
   ``<course>/release/<chapter>/`` (no solution, no hidden test) and records the assignment,
   its cells and points in the gradebook ``<course>/gradebook.db``.

``<course>`` is nbgrader's course directory: ``assignments/`` unless ``--course`` says otherwise
(the tests build into a temporary one). It also checks the release: a solution or a hidden test
left in a student notebook stops the build.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from problems import (BEGIN_HIDDEN, BEGIN_SOLUTION, HERE, ROOT, chapter_notebook,
                      load_problems)

SUPPORT = ("dpgrader.py",)


def nbgrader(course: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """Run nbgrader in the course directory (where its ``nbgrader_config.py`` is).

    With ``check`` (the default) a failure stops the command with nbgrader's output; without,
    the caller reads the result (``make grade``: one notebook that cannot be graded must not
    stop the batch)."""
    bin_dir = Path(sys.executable).parent  # nbgrader runs `alembic` from the PATH
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    result = subprocess.run([str(bin_dir / "nbgrader"), *args, "--log-level=WARN"], cwd=course,
                            capture_output=True, text=True, env=env)
    if "because there are submissions associated with it" in result.stdout + result.stderr:
        raise SystemExit(
            f"nbgrader {' '.join(args)}: the gradebook {course / 'gradebook.db'} already holds "
            "graded submissions of this assignment, and nbgrader will not change the cells of a "
            "graded assignment. Keep the assignment as it was generated, or move the gradebook "
            "and submitted/, autograded/ away (they hold the grades) and run it again.")
    if check and result.returncode != 0:
        raise SystemExit(f"nbgrader {' '.join(args)} failed:\n{result.stdout}{result.stderr}")
    return result


def write_source(course: Path, chapter: str, problems: list, variant: int) -> Path:
    folder = course / "source" / chapter
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    nb = chapter_notebook(chapter, problems, variant)
    (folder / f"{chapter}.ipynb").write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n",
                                             encoding="utf-8")
    for name in SUPPORT:
        shutil.copy(HERE / name, folder / name)
    shutil.copytree(ROOT / "chapters" / "dpcourse", folder / "dpcourse",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for p in problems:
        for data in p.meta.get("data") or []:
            (folder / "data").mkdir(exist_ok=True)
            shutil.copy(ROOT / "data" / data, folder / "data" / data)
    return folder


def check_release(course: Path, chapter: str) -> None:
    """No solution and no hidden test in the student notebook."""
    nb = json.loads((course / "release" / chapter / f"{chapter}.ipynb").read_text("utf-8"))
    for cell in nb["cells"]:
        source = "".join(cell["source"])
        for marker in (BEGIN_SOLUTION, BEGIN_HIDDEN):
            if marker in source:
                raise SystemExit(f"release/{chapter}: a cell still holds {marker!r}")


def build(course: Path, variant: int, chapters: list[str] | None) -> list[str]:
    problems = load_problems(chapters)
    by_chapter: dict[str, list] = {}
    for p in problems:
        by_chapter.setdefault(p.chapter, []).append(p)
    course.mkdir(parents=True, exist_ok=True)
    if course.resolve() != HERE.resolve():
        shutil.copy(HERE / "nbgrader_config.py", course / "nbgrader_config.py")
    for chapter, items in by_chapter.items():
        write_source(course, chapter, items, variant)
        nbgrader(course, "generate_assignment", chapter, "--force")
        check_release(course, chapter)
    (course / "variant.txt").write_text(f"{variant}\n", encoding="utf-8")
    return list(by_chapter)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", type=int, default=int(os.environ.get("VARIANT") or 0),
                        help="0: the course's constants; n > 0: variant n's constants and seeds")
    parser.add_argument("--course", type=Path, default=HERE, help="nbgrader's course directory")
    parser.add_argument("--chapters", nargs="*", help="only these chapters")
    args = parser.parse_args(argv)
    if args.variant < 0:
        parser.error("--variant must be >= 0")
    done = build(args.course, args.variant, args.chapters or None)
    print(f"variant {args.variant}: {len(done)} assignments in {args.course / 'release'} "
          f"(gradebook {args.course / 'gradebook.db'})")


if __name__ == "__main__":
    main()
