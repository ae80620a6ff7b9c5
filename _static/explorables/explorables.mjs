// The explorables' shared runtime (issue 42; the contract is the docstring of
// _ext/course_site/explorables.py). An ES module that each explorable's module imports, on the
// pages that declare one. register(name, {title, height, mount}) puts a <figure
// class="explorable" data-explorable="name"> after every cell tagged explorable-<name> and
// mounts the explorable in it when it comes near the screen (its height is kept from the start,
// so nothing below it moves when it is drawn). The static figure above it stays: the PDF, the
// notebooks and a reader without JavaScript have that one.
let d3;  // d3.js, beside this module, once the first figure nears the screen (loadD3)
let d3Loading;

/** d3.js (a classic script that defines window.d3), fetched once, when the first figure is
 * mounted, not with the page: its 20 KiB stay out of the first screen's downloads. */
const loadD3 = () => d3Loading ??= new Promise((resolve, reject) => {
  const script = document.createElement("script");
  script.src = new URL("d3.js", import.meta.url).href;
  script.onload = () => resolve(d3 = globalThis.d3);
  script.onerror = () => reject(new Error(`explorables: ${script.src} did not load`));
  document.head.append(script);
});

/** A number as shown: rounded to significant digits, with thousands separators. */
export const fmt = (v, digits = 3) =>
  v.toLocaleString("en-US", {maximumSignificantDigits: digits});

/** A share as a percentage, to 3 significant digits, or more where 3 would round a share
 * below 1 up to "100" (a bound of 0.99995 reads 99.995%, not 100%). */
export const pct = share => {
  let digits = 3;
  while (share < 1 && digits < 9 && fmt(100 * share, digits) === "100") digits++;
  return `${fmt(100 * share, digits)}%`;
};

let uid = 0;
const el = (tag, attrs = {}, text = null) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== null) node.textContent = text;
  return node;
};

/** What an explorable's mount(ui) gets: builders of controls, charts and read-outs. */
class UI {
  constructor(figure, name) {
    this.figure = figure;
    this.name = name;
    this.handlers = [];
    this.controls = figure.appendChild(el("div", {class: "explorable-controls"}));
    this.charts = figure.appendChild(el("div", {class: "explorable-charts"}));
  }

  /** A labelled range input over a list of values (a log grid, integers...), with its value
   *  shown as text beside it and spoken as text (aria-valuetext). */
  slider({key, label, values, value, format = String}) {
    const id = `explorable-${this.name}-${key}-${++uid}`;
    let index = values.indexOf(value);
    if (index < 0) throw new Error(`${key}: ${value} is not one of its values`);
    const input = el("input", {type: "range", id, min: 0, max: values.length - 1, step: 1,
                               value: index, "data-key": key});
    const output = el("output", {for: id, "data-key": key});
    this.controls.append(el("label", {for: id}, label), input, output);
    const show = () => {
      const v = values[+input.value];
      output.textContent = format(v);
      output.dataset.value = String(v);
      input.setAttribute("aria-valuetext", format(v));
    };
    show();
    input.addEventListener("input", () => { show(); this.update(); });
    return {get value() { return values[+input.value]; }, input};
  }

  /** A chart: an SVG with axes, a title for screen readers and a legend in HTML text. */
  chart({title, x, y, xLabel, yLabel, legend = []}) {
    const box = this.charts.appendChild(el("div", {class: "explorable-chart"}));
    const svg = d3.select(box).append("svg").attr("role", "img")
      .attr("aria-label", title).attr("data-chart", title);
    const g = {box, svg, title, x, y, xLabel, yLabel};
    g.axes = svg.append("g");
    g.layers = svg.append("g");
    if (legend.length) {
      const list = box.appendChild(el("div", {class: "legend"}));
      for (const [cls, text] of legend) {
        const item = list.appendChild(el("span"));
        const shape = cls.startsWith("a")
          ? `<rect x="1" y="1" width="20" height="8" class="${cls}"></rect>`
          : `<line x1="1" y1="5" x2="21" y2="5" class="${cls}"></line>`;
        item.innerHTML = `<svg width="22" height="10" aria-hidden="true">${shape}</svg>`;
        item.append(text);
      }
    }
    return g;
  }

  /** Draw a chart's layers: {kind: "line"|"area"|"dots"|"vline", points|x, cls}. */
  draw(g, layers) {
    const width = Math.max(240, Math.min(640, g.box.clientWidth || 320));
    const height = Math.round(Math.min(260, width * 0.62));
    const m = {top: 10, right: 12, bottom: 40, left: 62};
    g.svg.attr("viewBox", `0 0 ${width} ${height}`);
    const sx = (g.x.log ? d3.scaleLog() : d3.scaleLinear()).domain(g.x.domain)
      .range([m.left, width - m.right]);
    const sy = (g.y.log ? d3.scaleLog() : d3.scaleLinear()).domain(g.y.domain)
      .range([height - m.bottom, m.top]);
    const ticks = Math.max(3, Math.floor(width / 90));
    g.axes.selectAll("*").remove();
    g.axes.append("g").attr("transform", `translate(0,${height - m.bottom})`)
      .call(d3.axisBottom(sx).ticks(ticks, g.x.tickFormat || undefined));
    g.axes.append("g").attr("transform", `translate(${m.left},0)`)
      .call(d3.axisLeft(sy).ticks(5, g.y.tickFormat || undefined));
    g.axes.append("text").attr("x", (m.left + width - m.right) / 2).attr("y", height - 6)
      .attr("text-anchor", "middle").text(g.xLabel);
    g.axes.append("text").attr("transform", `translate(12,${(height - m.bottom + m.top) / 2})` +
      " rotate(-90)").attr("text-anchor", "middle").text(g.yLabel);
    g.layers.selectAll("*").remove();
    const clip = (v, s) => Math.max(Math.min(...s.range()), Math.min(Math.max(...s.range()), v));
    const px = p => clip(sx(p[0]), sx), py = p => clip(sy(p[1]), sy);
    for (const layer of layers) {
      const kind = layer.kind || "line";
      if (kind === "line") {
        g.layers.append("path").attr("class", layer.cls)
          .attr("d", d3.line().x(px).y(py)(layer.points));
      } else if (kind === "area") {
        g.layers.append("path").attr("class", layer.cls)
          .attr("d", d3.area().x(px).y0(sy(g.y.domain[0])).y1(py)(layer.points));
      } else if (kind === "band") {  // between two y values: points [x, y0, y1]
        g.layers.append("path").attr("class", layer.cls).attr("d", d3.area().x(px)
          .y0(p => clip(sy(p[1]), sy)).y1(p => clip(sy(p[2]), sy))(layer.points));
      } else if (kind === "dots") {
        for (const p of layer.points) {
          g.layers.append("circle").attr("class", layer.cls || "dot")
            .attr("cx", px(p)).attr("cy", py(p)).attr("r", 4.5);
        }
      } else if (kind === "vline") {
        g.layers.append("line").attr("class", layer.cls).attr("x1", sx(layer.x))
          .attr("x2", sx(layer.x)).attr("y1", sy.range()[0]).attr("y2", sy.range()[1]);
      }
    }
  }

  /** A list of named numbers shown as text: set(key, value, text). */
  readout(items) {
    const dl = this.figure.appendChild(el("dl", {class: "explorable-readout",
                                                 "aria-live": "polite"}));
    const outputs = {};
    for (const [key, label] of items) {
      dl.append(el("dt", {}, label));
      const dd = dl.appendChild(el("dd"));
      outputs[key] = dd.appendChild(el("output", {"data-key": key}));
    }
    return {
      set(key, value, text) {
        outputs[key].textContent = text;
        outputs[key].dataset.value = String(value);
      },
    };
  }

  onUpdate(handler) { this.handlers.push(handler); }

  update() {
    for (const handler of this.handlers) handler();
    this.figure.dataset.updates = String(+(this.figure.dataset.updates || 0) + 1);
  }
}

const mount = (figure, name, api) => {
  const ui = new UI(figure, name);
  api.mount(ui);
  ui.update();
  figure.style.removeProperty("--explorable-height");
  figure.dataset.ready = "true";
  let width = figure.clientWidth;
  new ResizeObserver(() => {
    if (figure.clientWidth !== width) { width = figure.clientWidth; ui.update(); }
  }).observe(figure);
};

export const register = (name, api) => {
  const cells = document.querySelectorAll(`.cell.tag_explorable-${name}`);
  const near = new IntersectionObserver(entries => {
    for (const entry of entries) {
      if (entry.isIntersecting) {
        near.unobserve(entry.target);
        loadD3().then(() => mount(entry.target, name, api));
      }
    }
  }, {rootMargin: "400px 0px"});
  for (const cell of cells) {
    const figure = el("figure", {class: "explorable", "data-explorable": name});
    figure.style.setProperty("--explorable-height", `${api.height || 520}px`);
    figure.append(el("figcaption", {}, `Explore: ${api.title}`));
    cell.after(figure);
    near.observe(figure);
  }
};
