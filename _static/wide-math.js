// Phones: KaTeX breaks an inline formula only after a relation or an operator, so a piece
// wider than its line would be cut at the edge of the screen. Mark such formulas; course.css
// lets them scroll sideways in their own box, with a shadow on the side that has more to show.
// (The formulas are rendered when the site is built; this only measures them.)
(() => {
  const mark = () => {
    for (const math of document.querySelectorAll(".bd-content span.math")) {
      const line = math.parentElement.closest("p, li, dd, td, th, div") || document.body;
      const widest = Math.max(0, ...[...math.querySelectorAll(".katex-html > .base")]
        .map(b => b.getBoundingClientRect().width));
      math.classList.toggle("course-wide-math", widest > line.clientWidth + 1);
    }
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mark);
  else mark();
  window.addEventListener("resize", mark);
})();
