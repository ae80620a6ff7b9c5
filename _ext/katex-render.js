// Renders formulas for the course's build (_ext/build_math.py): one JSON request per line on
// stdin, {"latex": ..., "display": true|false}, one JSON answer per line on stdout,
// {"html": ...} or {"error": ...}. KaTeX comes from npm (the path is the first argument).
// Its output holds the formula's MathML, which screen readers read, beside the HTML.
"use strict";
const readline = require("readline");
const katex = require(process.argv[2]);

const lines = readline.createInterface({ input: process.stdin, terminal: false });
lines.on("line", (line) => {
  let answer;
  try {
    const request = JSON.parse(line);
    answer = {
      html: katex.renderToString(request.latex, {
        displayMode: Boolean(request.display),
        output: "htmlAndMathml",
        throwOnError: true, // an error is an answer, never a red formula on the page
        strict: "error",    // input that is not LaTeX (e.g. accented letters in math) too
        trust: false,
      }),
    };
  } catch (e) {
    answer = { error: String(e.message || e) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
});
