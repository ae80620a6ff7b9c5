// Explorable "clipping" (unknown-ranges): the bias of a clipping bound U against the noise it
// saves, for the mean age and the mean hours per week of the people of Adult born in Canada.
// Its numbers come from clipping-math.mjs.
import {fmt, register} from "./explorables.mjs";
import {GROUPS, errorCurves, tradeOff} from "./clipping-math.mjs";

const bounds = top => Array.from({length: top - 9}, (_, i) => i + 10);  // 10, 11, ..., top

register("clipping", {
  title: "the bias of a clipping bound against the noise it saves",
  height: 960,
  mount(ui) {
    const eps = ui.slider({key: "epsilon",
      label: "privacy ε (ε/2 on the sum, ε/2 on the count)",
      values: [0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5], value: 1});
    const parts = [["age", "age", 65], ["hours", "hours per week", 60]].map(([name, what, u]) => {
      const group = GROUPS[name];
      const slider = ui.slider({key: `U-${name}`, label: `clipping bound U, ${what}`,
        values: bounds(group.bound), value: u});
      const chart = ui.chart({title: `Error of the mean ${what} against the clipping bound`,
        x: {domain: [10, group.bound]}, y: {domain: [0.01, 100], log: true, tickFormat: "~g"},
        xLabel: `clipping bound U (${group.unit})`, yLabel: `error (${group.unit})`,
        legend: [["s1", "root-mean-square error"], ["s2", "|bias| (clipping)"],
                 ["s3", "noise sd"]]});
      return {name, what, group, slider, chart};
    });
    const out = ui.readout(parts.flatMap(({name, what}) => [
      [`bias-${name}`, `mean ${what}: bias of clipping`],
      [`sd-${name}`, `mean ${what}: noise sd`],
      [`saved-${name}`, `mean ${what}: noise sd saved against the public bound`],
      [`rmse-${name}`, `mean ${what}: root-mean-square error`],
      [`public-${name}`, `mean ${what}: root-mean-square error at the public bound`]]));
    ui.onUpdate(() => {
      const e = eps.value;
      for (const {name, what, group, slider, chart} of parts) {
        const u = slider.value;
        const rows = errorCurves(group.values, e, 10, group.bound, 1);
        const here = tradeOff(group, u, e);
        const values = rows.flatMap(r => [r.rmse, r.sd]);
        chart.y.domain = [10 ** Math.floor(Math.log10(Math.min(...values))),
                          10 ** Math.ceil(Math.log10(Math.max(...values)))];
        ui.draw(chart, [
          {cls: "s1", points: rows.map(r => [r.upper, r.rmse])},
          {cls: "s2", points: rows.filter(r => -r.bias >= chart.y.domain[0])  // on the chart
            .map(r => [r.upper, -r.bias])},
          {cls: "s3", points: rows.map(r => [r.upper, r.sd])},
          {kind: "vline", x: u, cls: "s3"},
          {kind: "dots", points: [[u, here.rmse], [u, here.sd],
                                  ...(-here.bias >= chart.y.domain[0] ? [[u, -here.bias]] : [])]}]);
        out.set(`bias-${name}`, here.bias, fmt(here.bias));
        out.set(`sd-${name}`, here.sd, fmt(here.sd));
        out.set(`saved-${name}`, here.noiseSaved, fmt(here.noiseSaved));
        out.set(`rmse-${name}`, here.rmse, fmt(here.rmse));
        out.set(`public-${name}`, here.publicRmse, fmt(here.publicRmse));
        chart.svg.attr("aria-label", `Mean ${what} at ε = ${fmt(e)}, clipped at U = ${u}: ` +
          `bias ${fmt(here.bias)}, noise sd ${fmt(here.sd)}, root-mean-square error ` +
          `${fmt(here.rmse)} ${group.unit}, against ${fmt(here.publicRmse)} at the public ` +
          `bound ${group.bound}.`);
      }
    });
  },
});
