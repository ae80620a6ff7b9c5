// sphinx-book-theme 1.3 opens the notebook source in a new tab, where the browser shows it as
// JSON (sphinx-book-theme#918). Give every link to a .ipynb source a `download` attribute so
// that clicking it saves the notebook under its own name.
document.addEventListener("DOMContentLoaded", () => {
  for (const link of document.querySelectorAll("a[href]")) {
    const url = new URL(link.href, document.baseURI);
    if (url.origin === window.location.origin && url.pathname.endsWith(".ipynb")) {
      link.setAttribute("download", url.pathname.split("/").pop());
      link.removeAttribute("target");
    }
  }
});
