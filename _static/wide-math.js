// Phones: an inline formula is MathML, one box that a line never breaks, so a formula wider
// than its line would be cut at the edge of the screen. Mark such formulas; course.css lets
// them scroll sideways in their own box, with a shadow on the side that has more to show.
// (Display formulas need no script: their box always scrolls when they are wider than it.
// The formulas are rendered when the site is built; this only measures them, once the page
// has been laid out, and reads every width before it changes a class, so it never makes the
// browser lay the page out again in between.)
(() => {
  const mark = () => {
    const verdicts = [...document.querySelectorAll(".bd-content span.math")].map(span => {
      const line = span.parentElement.closest("p, li, dd, td, th, div") || document.body;
      const math = span.querySelector(":scope > math");
      const width = math ? math.getBoundingClientRect().width : 0;
      return [span, width > line.clientWidth + 1];
    });
    for (const [span, wide] of verdicts) {
      if (span.classList.contains("course-wide-math") !== wide) {
        span.classList.toggle("course-wide-math", wide);
      }
    }
  };
  const later = () => (window.requestIdleCallback || window.setTimeout)(mark);
  if (document.readyState === "complete") later();
  else window.addEventListener("load", later);
  let resized = null;
  window.addEventListener("resize", () => {
    clearTimeout(resized);
    resized = setTimeout(mark, 200);
  });
})();
