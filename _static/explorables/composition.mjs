// Explorable "composition" (privacy-accounting): one budget (ε, δ) split across k Gaussian
// counts. The noise each count gets by basic, advanced and exact accounting, over k; and the
// ε(δ) each accounting charges for the exact calibration's noise. Its numbers come from
// composition-math.mjs.
import {fmt, register} from "./explorables.mjs";
import {chargedEpsilon, epsilonCurves, noisePerQuery} from "./composition-math.mjs";

const SUP = {"-": "⁻", 0: "⁰", 1: "¹", 2: "²", 3: "³", 4: "⁴", 5: "⁵", 6: "⁶", 7: "⁷", 8: "⁸",
             9: "⁹"};
const power = v => `10${String(Math.round(Math.log10(v))).replace(/./g, c => SUP[c])}`;
const K_VALUES = [1, 2, 3, 5, 10, 20, 30, 50, 100, 200, 300, 500, 1000, 2000, 3000, 5000,
                  10000];
const DELTAS = Array.from({length: 23}, (_, i) => 10 ** (-12 + i / 2));  // 1e-12 ... 1e-1
// a log axis's domain: whole powers of ten around the values above 0 (a log axis has no 0:
// at a large δ, small k and much noise, the exact ε is 0)
const logDomain = values => {
  const positive = values.filter(v => v > 0);
  return [10 ** Math.floor(Math.log10(Math.min(...positive))),
          10 ** Math.ceil(Math.log10(Math.max(...positive)))];
};
const drawable = points => points.filter(p => p[1] > 0);
const NAMES = [["basic", "s3", "basic composition"], ["advanced", "s2", "advanced composition"],
               ["exact", "s1", "exact accounting"]];
const count = n => n.toLocaleString("en-US");

register("composition", {
  title: "one budget split across k Gaussian counts",
  height: 860,
  mount(ui) {
    const k = ui.slider({key: "k", label: "number of counts k", values: K_VALUES, value: 1000,
      format: count});
    const eps = ui.slider({key: "epsilon", label: "total budget ε",
      values: [0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5, 8], value: 1});
    const del = ui.slider({key: "delta", label: "total δ",
      values: [1e-10, 1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3], value: 1e-5, format: power});
    const noise = ui.chart({title: "Noise per count against the number of counts",
      x: {domain: [1, 10000], log: true, tickFormat: "~s"},
      y: {domain: [0.1, 1e6], log: true, tickFormat: "~s"},
      xLabel: "number of counts k", yLabel: "noise sd per count σ",
      legend: NAMES.map(([, cls, text]) => [cls, text])});
    const charge = ui.chart({title: "ε charged for the exact calibration's noise",
      x: {domain: [1e-12, 0.1], log: true, tickFormat: "~e"},
      y: {domain: [0.1, 1000], log: true, tickFormat: "~g"},
      xLabel: "δ", yLabel: "ε charged"});
    const out = ui.readout([
      ["sigmaBasic", "σ per count, basic composition"],
      ["sigmaAdvanced", "σ per count, advanced composition"],
      ["sigmaExact", "σ per count, exact accounting"],
      ["epsBasic", "ε that basic composition charges for the exact σ"],
      ["epsAdvanced", "ε that advanced composition charges for the exact σ"],
      ["epsExact", "ε that exact accounting charges for it: the budget"]]);
    let cached = null;  // the noise over k, computed again only when ε or δ moves
    ui.onUpdate(() => {
      const e = eps.value, d = del.value, n = k.value;
      if (!cached || cached.e !== e || cached.d !== d) {
        cached = {e, d, rows: K_VALUES.map(m => ({k: m, ...noisePerQuery(e, d, m)}))};
      }
      const here = cached.rows.find(row => row.k === n);
      const curves = epsilonCurves(here.exact, n, DELTAS);
      const at = chargedEpsilon(here.exact, d, n);
      noise.y.domain = logDomain(cached.rows.flatMap(r => [r.basic, r.advanced, r.exact]));
      ui.draw(noise, [
        ...NAMES.map(([name, cls]) => ({cls, points: cached.rows.map(r => [r.k, r[name]])})),
        {kind: "dots", points: NAMES.map(([name]) => [n, here[name]])}]);
      charge.y.domain = logDomain(curves.flatMap(r => [r.basic, r.advanced, r.exact]));
      ui.draw(charge, [
        ...NAMES.map(([name, cls]) => ({cls,
                                        points: drawable(curves.map(r => [r.delta, r[name]]))})),
        {kind: "vline", x: d, cls: "s3"},
        {kind: "dots", points: drawable(NAMES.map(([name]) => [d, at[name]]))}]);
      for (const [name] of NAMES) {
        const part = name[0].toUpperCase() + name.slice(1);
        out.set(`sigma${part}`, here[name], fmt(here[name], 4));
        out.set(`eps${part}`, at[name], fmt(at[name], 4));
      }
      noise.svg.attr("aria-label", `Noise per count for ε = ${fmt(e)} and δ = ${power(d)} in ` +
        `all: at k = ${count(n)}, σ = ${fmt(here.basic, 4)} by basic composition, ` +
        `${fmt(here.advanced, 4)} by advanced composition, ${fmt(here.exact, 4)} exactly.`);
      charge.svg.attr("aria-label", `ε charged at each δ for ${count(n)} counts with ` +
        `σ = ${fmt(here.exact, 4)}: at δ = ${power(d)}, ${fmt(at.basic, 4)} by basic ` +
        `composition, ${fmt(at.advanced, 4)} by advanced, ${fmt(at.exact, 4)} exactly.`);
    });
  },
});
