// Phones: an inline formula wider than its line cannot wrap (MathJax 3 does not break lines),
// so it would be cut at the edge of the screen. Mark such formulas; course.css lets them
// scroll sideways in their own box, with a shadow on the side that has more to show.
(() => {
  const mark = () => {
    for (const math of document.querySelectorAll(".bd-content mjx-container:not([display='true'])")) {
      const line = math.closest("p, li, dd, td, th, div") || document.body;
      math.classList.toggle("course-wide-math", math.scrollWidth > line.clientWidth + 1);
    }
  };
  const whenTypeset = () => {
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
      MathJax.startup.promise.then(mark);
    }
  };
  window.addEventListener("load", whenTypeset);
  window.addEventListener("resize", mark);
})();
