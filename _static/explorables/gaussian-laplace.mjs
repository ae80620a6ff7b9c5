// Explorable "gaussian-laplace" (approximate-dp): Gaussian against Laplace noise at equal
// privacy, over the number d of counts that one person can all change. Its numbers come from
// gaussian-laplace-math.mjs.
import {fmt, register} from "./explorables.mjs";
import {crossover, noiseAt} from "./gaussian-laplace-math.mjs";
import {gaussianSigma} from "./gaussian-dp.mjs";

const SUP = {"-": "⁻", 0: "⁰", 1: "¹", 2: "²", 3: "³", 4: "⁴", 5: "⁵", 6: "⁶", 7: "⁷", 8: "⁸",
             9: "⁹"};
const power = v => `10${String(Math.round(Math.log10(v))).replace(/./g, c => SUP[c])}`;
const D_MAX = 1000;
const GRID = Array.from({length: 61}, (_, i) => 10 ** (3 * i / 60));  // d from 1 to 1,000

register("gaussian-laplace", {
  title: "Gaussian against Laplace noise at equal privacy, over the number of counts",
  height: 640,
  mount(ui) {
    const eps = ui.slider({key: "epsilon", label: "privacy ε",
      values: [0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5], value: 1});
    const del = ui.slider({key: "delta", label: "the Gaussian's δ",
      values: [1e-10, 1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3], value: 1e-5, format: power});
    const dim = ui.slider({key: "d", label: "number of counts d",
      values: [1, 2, 3, 5, 7, 10, 20, 30, 50, 100, 172, 200, 300, 500, 1000], value: 172});
    const chart = ui.chart({title: "Noise per query against the number of counts",
      x: {domain: [1, D_MAX], log: true, tickFormat: "~s"},
      y: {domain: [0.1, 1e5], log: true, tickFormat: "~s"},
      xLabel: "number of counts d (one person in all)", yLabel: "noise sd per query",
      legend: [["s2", "Laplace, ε-DP (Δ₁ = d)"], ["s1", "Gaussian, (ε, δ)-DP (Δ₂ = √d)"],
               ["s3", "where the Gaussian starts to win"]]});
    const out = ui.readout([
      ["laplace", "Laplace noise sd per query, √2·d/ε"],
      ["gaussian", "Gaussian σ per query (analytic)"],
      ["ratio", "Gaussian σ / Laplace sd"],
      ["crossover", "the Gaussian has less noise from d ="]]);
    ui.onUpdate(() => {
      const e = eps.value, dl = del.value, d = dim.value;
      const unit = gaussianSigma(e, dl);
      const rows = GRID.map(x => noiseAt(e, dl, x, unit));
      const here = noiseAt(e, dl, d, unit);
      const cross = crossover(e, dl);
      const values = rows.flatMap(r => [r.laplace, r.gaussian]);
      chart.y.domain = [10 ** Math.floor(Math.log10(Math.min(...values))),
                        10 ** Math.ceil(Math.log10(Math.max(...values)))];
      ui.draw(chart, [
        {cls: "s2", points: rows.map(r => [r.d, r.laplace])},
        {cls: "s1", points: rows.map(r => [r.d, r.gaussian])},
        ...(cross <= D_MAX ? [{kind: "vline", x: cross, cls: "s3"}] : []),
        {kind: "dots", points: [[d, here.laplace], [d, here.gaussian]]}]);
      out.set("laplace", here.laplace, fmt(here.laplace, 4));
      out.set("gaussian", here.gaussian, fmt(here.gaussian, 4));
      out.set("ratio", here.gaussian / here.laplace, fmt(here.gaussian / here.laplace, 3));
      out.set("crossover", cross, cross.toLocaleString("en-US"));
      chart.svg.attr("aria-label", `Noise per query at ε = ${fmt(e)}: Laplace grows like d, ` +
        `the Gaussian at δ = ${power(dl)} like √d, and has less noise from ` +
        `d = ${cross.toLocaleString("en-US")}. At d = ${d}: Laplace ${fmt(here.laplace, 4)}, ` +
        `Gaussian ${fmt(here.gaussian, 4)}.`);
    });
  },
});
