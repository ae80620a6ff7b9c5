// Phones: KaTeX breaks an inline formula only after a relation or an operator, so a piece
// wider than its line would be cut at the edge of the screen. Mark such formulas; course.css
// lets them scroll sideways in their own box, with a shadow on the side that has more to show.
// (The formulas are rendered when the site is built; this only measures them, once the page
// has been laid out, and reads every width before it changes a class, so it never makes the
// browser lay the page out again in between.)
(() => {
  const mark = () => {
    const verdicts = [...document.querySelectorAll(".bd-content span.math")].map(math => {
      const line = math.parentElement.closest("p, li, dd, td, th, div") || document.body;
      let widest = 0;
      for (const base of math.querySelectorAll(".katex-html > .base")) {
        widest = Math.max(widest, base.offsetWidth);
      }
      return [math, widest > line.clientWidth + 1];
    });
    for (const [math, wide] of verdicts) {
      if (math.classList.contains("course-wide-math") !== wide) {
        math.classList.toggle("course-wide-math", wide);
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
