// Explorable "randomized-response" (local-dp): the keep probability of k-ary randomized
// response against ε (k = 2 is randomized response), and the error of its count estimate
// against the number of people n, beside the central Laplace mechanism's.
// Its numbers come from randomized-response-math.mjs.
import {fmt, register} from "./explorables.mjs";
import {grrProbabilities, krrSd, centralSd} from "./randomized-response-math.mjs";

const EPS = [0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4, 5];
const NS = [100, 300, 1000, 3000, 10000, 30000, 100000, 300000, 1000000];

register("randomized-response", {
  title: "randomized response: keep probability and error",
  height: 820,
  mount(ui) {
    const eps = ui.slider({key: "epsilon", label: "privacy ε", values: EPS, value: 1,
                           format: v => fmt(v)});
    const k = ui.slider({key: "k", label: "values k", values: [2, 3, 4, 6, 8, 14, 20, 50, 100],
                         value: 14});
    const n = ui.slider({key: "n", label: "people n", values: NS, value: 30000,
                         format: v => fmt(v, 6)});
    const keep = ui.chart({title: "Keep probability against ε",
      x: {domain: [0, 5]}, y: {domain: [0, 1]}, xLabel: "ε", yLabel: "probability",
      legend: [["s1", "p: report the true value (k values)"], ["s2", "k = 2 (randomized response)"],
               ["s3", "r: each other value"]]});
    const error = ui.chart({title: "Error of a count against n",
      x: {domain: [100, 1e6], log: true, tickFormat: "~s"}, y: {domain: [0.5, 1e5], log: true,
      tickFormat: "~s"}, xLabel: "people n", yLabel: "standard deviation (people)",
      legend: [["s1", "local (k-RR)"], ["s2", "central (Laplace)"]]});
    const out = ui.readout([
      ["p", "keep probability p"], ["r", "probability r of each other value"],
      ["local", "local error (sd of a count)"], ["central", "central error (sd)"],
      ["ratio", "local / central"]]);
    ui.onUpdate(() => {
      const e = eps.value, kk = k.value, nn = n.value;
      const grid = Array.from({length: 101}, (_, i) => 0.05 * i);
      ui.draw(keep, [
        {points: grid.map(x => [x, grrProbabilities(x, kk)[0]]), cls: "s1"},
        {points: grid.map(x => [x, grrProbabilities(x, 2)[0]]), cls: "s2"},
        {points: grid.map(x => [x, grrProbabilities(x, kk)[1]]), cls: "s3"},
        {kind: "dots", points: [[e, grrProbabilities(e, kk)[0]]]}]);
      const ns = Array.from({length: 41}, (_, i) => 10 ** (2 + i / 10));
      ui.draw(error, [
        {points: ns.map(x => [x, krrSd(x, kk, e)]), cls: "s1"},
        {points: ns.map(x => [x, centralSd(e)]), cls: "s2"},
        {kind: "dots", points: [[nn, krrSd(nn, kk, e)]]}]);
      const [p, r] = grrProbabilities(e, kk);
      const local = krrSd(nn, kk, e), central = centralSd(e);
      out.set("p", p, fmt(p, 4));
      out.set("r", r, fmt(r, 4));
      out.set("local", local, fmt(local));
      out.set("central", central, fmt(central));
      out.set("ratio", local / central, fmt(local / central));
      keep.svg.attr("aria-label", `Keep probability against ε for k = ${kk}: ${fmt(p, 4)} ` +
        `at ε = ${fmt(e)}.`);
      error.svg.attr("aria-label", `Error of a count against n: local ${fmt(local)} people at ` +
        `n = ${fmt(nn, 6)}, growing like √n; central ${fmt(central)} whatever n.`);
    });
  },
});
