// Explorable "laplace" (laplace-mechanism): the output densities of the Laplace mechanism on
// neighbours D and D', their privacy loss within [-ε, ε], and the share of outputs an attacker
// who guesses the nearer dataset misjudges.
// Its numbers come from laplace-math.mjs.
import {fmt, pct, register} from "./explorables.mjs";
import {density, privacyLoss, misjudged, leastError} from "./laplace-math.mjs";

const X = 12;  // the outputs drawn: f(D) - X ... f(D) + X

register("laplace", {
  title: "the Laplace mechanism on neighbours D and D′",
  height: 760,
  mount(ui) {
    const eps = ui.slider({key: "epsilon", label: "privacy ε",
      values: [0.05, 0.1, 0.2, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4, 5], value: 0.5});
    const sens = ui.slider({key: "sensitivity", label: "sensitivity Δf",
      values: [0.5, 1, 2, 3, 4, 5], value: 1});
    const dens = ui.chart({title: "Densities of M(D) and M(D′)",
      x: {domain: [-X, X]}, y: {domain: [0, 1]}, xLabel: "output y − f(D)",
      yLabel: "density",
      legend: [["s1", "M(D)"], ["s2", "M(D′), f(D′) = f(D) − Δf"],
               ["a1", "M(D) judged D′"], ["a2", "M(D′) judged D"]]});
    const loss = ui.chart({title: "Privacy loss ln p_D(y)/p_D′(y)",
      x: {domain: [-X, X]}, y: {domain: [-5.5, 5.5]}, xLabel: "output y − f(D)",
      yLabel: "privacy loss", legend: [["a3", "−ε … ε"]]});
    const out = ui.readout([
      ["scale", "Laplace scale b = Δf/ε"], ["sd", "standard deviation √2·b"],
      ["loss", "largest privacy loss"], ["misjudged", "outputs misjudged (nearer guess)"],
      ["least", "no test errs less than 1/(1 + e^ε)"]]);
    ui.onUpdate(() => {
      const e = eps.value, d = sens.value, b = d / e;
      const ys = [];
      for (let i = 0; i <= 480; i++) ys.push(-X + (2 * X * i) / 480);
      ys.push(0, -d, -d / 2);
      ys.sort((u, v) => u - v);
      const pD = ys.map(y => [y, density(y, 0, b)]);
      const pDp = ys.map(y => [y, density(y, -d, b)]);
      const cut = -d / 2;
      dens.y.domain = [0, 1.08 * density(0, 0, b)];
      ui.draw(dens, [
        {kind: "area", cls: "a1", points: pD.filter(p => p[0] <= cut)},
        {kind: "area", cls: "a2", points: pDp.filter(p => p[0] >= cut)},
        {points: pD, cls: "s1"}, {points: pDp, cls: "s2"}, {kind: "vline", x: cut, cls: "s3"}]);
      ui.draw(loss, [
        {kind: "band", cls: "a3", points: [[-X, -e, e], [X, -e, e]]},
        {points: ys.map(y => [y, privacyLoss(y, d, e)]), cls: "s1"}]);
      const share = misjudged(e, d);
      out.set("scale", b, fmt(b));
      out.set("sd", Math.SQRT2 * b, fmt(Math.SQRT2 * b));
      out.set("loss", e, fmt(e));
      out.set("misjudged", share, pct(share));
      out.set("least", leastError(e), pct(leastError(e)));
      dens.svg.attr("aria-label", `Densities of M(D) and M(D′): Laplace with scale ${fmt(b)}, ` +
        `centred ${fmt(d)} apart; ${pct(share)} of outputs fall on the wrong side of ` +
        "the midpoint.");
      loss.svg.attr("aria-label", `Privacy loss: between −${fmt(e)} and ${fmt(e)} at every ` +
        "output, flat outside the two true answers.");
    });
  },
});
