// Explorable "differencing-attack" (composition): the differencing attack on Igor under Laplace
// noise, as helpers.differencing_attack_success runs it: two counts whose true difference is 1
// (Igor obese) or 0 (not), each asked k times with Lap(1/ε) noise; the attacker averages each
// count's answers and guesses "obese" when the averages differ by more than a threshold t.
// Its success rate against ε, exactly, with t movable. It opens at 300 answers of ε = 0.1,
// where t matters: at k = 1 the averaged difference has sd 20 and every t scores about 51%.
// Its numbers come from differencing-attack-math.mjs.
import {fmt, pct, register} from "./explorables.mjs";
import {attackSuccess, differenceDensity, bound} from "./differencing-attack-math.mjs";

const EPS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5];
const T = Array.from({length: 31}, (_, i) => Math.round(-10 + i) / 10);

register("differencing-attack", {
  title: "the differencing attack on Igor under Laplace noise",
  height: 800,
  mount(ui) {
    const eps = ui.slider({key: "epsilon", label: "ε per answer", values: EPS, value: 0.1});
    const k = ui.slider({key: "repeats", label: "answers per count k",
      values: [1, 2, 3, 5, 10, 30, 100, 300, 1000], value: 300});
    const t = ui.slider({key: "threshold", label: "attacker's threshold t", values: T,
      value: 0.5, format: v => v.toFixed(1)});
    const curve = ui.chart({title: "Attack success against ε per answer",
      x: {domain: [0.01, 5], log: true, tickFormat: "~g"}, y: {domain: [0.25, 1]},
      xLabel: "ε per answer", yLabel: "success rate",
      legend: [["s1", "attack, threshold t"], ["s2", "DP bound e^(kε)/(1 + e^(kε))"],
               ["s3", "coin flip"]]});
    const seen = ui.chart({title: "What the attacker sees", x: {domain: [-3, 4]},
      y: {domain: [0, 1]}, xLabel: "averaged difference of the two counts", yLabel: "density",
      legend: [["s1", "Igor obese (true difference 1)"], ["s2", "not obese (0)"],
               ["a1", "obese, judged not"], ["a2", "not obese, judged obese"]]});
    const out = ui.readout([
      ["success", "attack success"], ["bound", "DP bound"], ["total", "privacy loss between the worlds, kε"],
      ["sd", "sd of the averaged difference, 2b/√k"]]);
    ui.onUpdate(() => {
      const e = eps.value, kk = k.value, tt = t.value;
      const grid = Array.from({length: 81}, (_, i) => 0.01 * 500 ** (i / 80));
      ui.draw(curve, [
        {points: grid.map(x => [x, attackSuccess(x, tt, kk)]), cls: "s1"},
        {points: grid.map(x => [x, bound(x, kk)]), cls: "s2"},
        {points: [[0.01, 0.5], [5, 0.5]], cls: "s3"},
        {kind: "dots", points: [[e, attackSuccess(e, tt, kk)]]}]);
      const zs = Array.from({length: 281}, (_, i) => -3 + 0.025 * i);
      zs.push(0, 1, tt);
      zs.sort((u, v) => u - v);
      const one = zs.map(z => [z, differenceDensity(z - 1, e, kk)]);
      const zero = zs.map(z => [z, differenceDensity(z, e, kk)]);
      seen.y.domain = [0, 1.08 * differenceDensity(0, e, kk)];
      ui.draw(seen, [
        {kind: "area", cls: "a1", points: one.filter(p => p[0] <= tt)},
        {kind: "area", cls: "a2", points: zero.filter(p => p[0] >= tt)},
        {points: one, cls: "s1"}, {points: zero, cls: "s2"}, {kind: "vline", x: tt, cls: "s3"}]);
      const success = attackSuccess(e, tt, kk), dp = bound(e, kk);
      const sd = 2 * (1 / e) / Math.sqrt(kk);
      out.set("success", success, pct(success));
      out.set("bound", dp, pct(dp));
      out.set("total", kk * e, fmt(kk * e));
      out.set("sd", sd, fmt(sd));
      curve.svg.attr("aria-label", `Attack success against ε per answer, k = ${kk}, ` +
        `threshold ${tt.toFixed(1)}: ${pct(success)} at ε = ${fmt(e)}, ` +
        `bound ${pct(dp)}.`);
      seen.svg.attr("aria-label", "What the attacker sees: the averaged difference in the " +
        `two worlds, standard deviation ${fmt(sd)}, cut at ${tt.toFixed(1)}.`);
    });
  },
});
