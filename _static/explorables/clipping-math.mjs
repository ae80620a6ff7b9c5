// The clipping explorable's numbers, no DOM: the mean age (or hours per week) of the people of
// Adult born in Canada, released as (noisy clipped sum) / (noisy count) as in
// chapters/unknown-ranges.ipynb: values clipped to [0, U], Lap(U / eps1) on the sum,
// Lap(1 / eps2) on the count, eps1 = eps2 = epsilon / 2. The bias of clipping is exact; the
// noise's standard deviation is the first-order (delta-method) one,
//   sd = sqrt(2 (U / eps1)^2 + 2 (S_U / n / eps2)^2) / n,   S_U the clipped sum,
// which tests/site/test_explorables_noise_and_budget.py checks against the chapter's simulation.

/** The group's values (sorted), as chapters/unknown-ranges.ipynb reads them from Adult, and
 * the public bound of each (a human lifetime, the hours in a week). */
export const GROUPS = {
  age: {
    bound: 125,
    unit: "years",
    values: [
      17, 17, 18, 19, 20, 20, 22, 23, 23, 23, 24, 24, 24, 25, 25, 25, 25, 25, 26, 26, 27, 27, 28,
      28, 28, 29, 29, 29, 29, 30, 30, 30, 31, 31, 32, 32, 32, 33, 33, 33, 33, 34, 35, 36, 36, 36,
      36, 37, 37, 37, 37, 38, 38, 38, 38, 39, 40, 40, 40, 40, 41, 41, 41, 42, 43, 44, 44, 45, 45,
      45, 45, 45, 45, 46, 46, 47, 47, 48, 49, 49, 50, 50, 50, 51, 51, 51, 51, 52, 52, 52, 53, 53,
      53, 53, 54, 55, 56, 56, 56, 56, 57, 58, 58, 61, 62, 62, 62, 64, 64, 65, 66, 67, 67, 68, 71,
      72, 72, 73, 73, 76, 80,
    ],
  },
  hours: {
    bound: 168,
    unit: "hours",
    values: [
      8, 8, 10, 10, 10, 12, 14, 16, 20, 20, 20, 20, 24, 24, 25, 25, 30, 30, 30, 30, 30, 30, 30, 32,
      32, 32, 35, 35, 35, 35, 35, 36, 36, 36, 38, ...Array(48).fill(40), 42, 45, 45, 45, 45, 45, 46,
      48, ...Array(11).fill(50), 52, 55, 57, 58, 59, ...Array(8).fill(60), 62, 65, 65, 70, 70, 72,
    ],
  },
};

function clippedSum(values, upper) {
  return values.reduce((sum, x) => sum + Math.min(x, upper), 0);
}

/** Bias, noise sd and RMSE of the released mean at clipping bound `upper`, total `epsilon`. */
export function errorAt(values, upper, epsilon) {
  const n = values.length;
  const half = epsilon / 2;
  const clippedMean = clippedSum(values, upper) / n;
  const bias = clippedMean - clippedSum(values, Infinity) / n;
  const sd = Math.sqrt(2 * (upper / half) ** 2 + 2 * (clippedMean / half) ** 2) / n;
  return { upper, bias, sd, rmse: Math.sqrt(bias * bias + sd * sd) };
}

/** The same at every bound on a grid from `from` to `to` in steps of `step`. */
export function errorCurves(values, epsilon, from, to, step) {
  const count = Math.floor((to - from) / step + 1e-9) + 1;
  return Array.from({ length: count }, (_, i) => errorAt(values, from + i * step, epsilon));
}

/** What clipping at `upper` buys and costs, against the public bound. */
export function tradeOff(group, upper, epsilon) {
  const here = errorAt(group.values, upper, epsilon);
  const publicBound = errorAt(group.values, group.bound, epsilon);
  return { ...here, noiseSaved: publicBound.sd - here.sd, publicRmse: publicBound.rmse };
}
