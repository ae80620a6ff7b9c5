// Prunes the theme's stylesheet for the course's build (_ext/course_site/icons.py) with
// PurgeCSS (npm, pinned in package.json). Standard input: JSON {"css": the stylesheet, "words":
// every word of the site's pages and scripts}. Standard output: the stylesheet without the
// selectors that need a class, an id, an element or an attribute none of those words names;
// @font-face and @keyframes rules stay (PurgeCSS's defaults).
import {PurgeCSS} from "purgecss";

let input = "";
for await (const chunk of process.stdin) input += chunk;
const {css, words} = JSON.parse(input);
const [result] = await new PurgeCSS().purge({
  content: [{raw: words.join(" "), extension: "txt"}],
  css: [{raw: css}],
});
process.stdout.write(result.css);
