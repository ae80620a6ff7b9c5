// Phones: an inline formula is MathML that breaks only between its pieces (course.css), so a
// piece wider than its line would be cut at the edge of the screen. Mark such formulas;
// course.css lets them scroll sideways in their own box, with a shadow on the side that has
// more to show, and the box takes keyboard focus so that it can be scrolled without a mouse.
// (Display formulas need no script: their box scrolls whenever they are wider than it. The
// formulas are rendered when the site is built; this only measures them, once the page has
// been laid out, and reads every width before it changes a class, so it never makes the
// browser lay the page out again in between. When it is done, <html data-wide-math="measured">.)
(() => {
  const mark = () => {
    const verdicts = [...document.querySelectorAll(".bd-content span.math")].map(span => {
      const line = span.parentElement.closest("p, li, dd, td, th, div") || document.body;
      const math = span.querySelector(":scope > math");
      let widest = 0;
      for (const piece of math ? (math.children.length ? math.children : [math]) : []) {
        widest = Math.max(widest, piece.getBoundingClientRect().width);
      }
      return [span, widest > line.clientWidth + 1];
    });
    for (const [span, wide] of verdicts) {
      if (span.classList.contains("course-wide-math") !== wide) {
        span.classList.toggle("course-wide-math", wide);
        if (wide) span.setAttribute("tabindex", "0");
        else span.removeAttribute("tabindex");
      }
    }
    document.documentElement.dataset.wideMath = "measured";
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
