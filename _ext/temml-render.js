// Renders formulas for the course's build (_ext/build_math.py): one JSON request per line on
// stdin, {"latex": ..., "display": true|false}, one JSON answer per line on stdout,
// {"mathml": ...} or {"error": ...}. Temml comes from npm (the path of its CommonJS build,
// dist/temml.cjs, is the first argument) and writes MathML Core only: no HTML, no stylesheet
// of its own beyond the few rules build_math.py serves, nothing for a script to typeset.
"use strict";
const readline = require("readline");
const temml = require(process.argv[2]);

const lines = readline.createInterface({ input: process.stdin, terminal: false });
lines.on("line", (line) => {
  let answer;
  try {
    const request = JSON.parse(line);
    answer = {
      mathml: temml.renderToString(request.latex, {
        displayMode: Boolean(request.display),
        throwOnError: true, // an error is an answer, never a red "temml-error" node on the page
        strict: true,       // input that is not LaTeX (e.g. accented letters in math) too
        trust: false,
        annotate: false,    // no <semantics>/<annotation> copy of the TeX: fewer elements
        // inline formulas: one <mrow> per piece that ends in a relation or an operator, the
        // places where TeX breaks a formula across lines (course.css lets them wrap there)
        wrap: request.display ? "none" : "tex",
        xml: false,         // HTML pages: no xmlns on <math>
      }),
    };
  } catch (e) {
    answer = { error: String(e.message || e) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
});
