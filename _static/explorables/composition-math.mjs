// The composition explorable's numbers, no DOM: a budget (epsilon, delta) split across k
// Gaussian counts (sensitivity 1), the noise each count gets under basic, advanced and exact
// accounting, and the epsilon(delta) curve each accounting charges for the same noise.
// It follows chapters/privacy-accounting.ipynb (basic at delta/k per count; exact: k Gaussians
// compose into one with sensitivity sqrt(k)) and chapters/six-calibrations-on-adult.ipynb
// (advanced composition with the best of 19 splits of delta); the tests compare it with
// dpcourse under Node (tests/site/test_explorables_noise_and_budget.py).
import { gaussianEpsilon, gaussianSigma } from "./gaussian-dp.mjs";

/** Shares of delta given to delta' in advanced composition: 0.05, 0.10, ..., 0.95. */
export const SPLITS = Array.from({ length: 19 }, (_, i) => (i + 1) / 20);

/** epsilon' of k (epsilon0, .)-DP releases by advanced composition (Dwork and Roth, Thm 3.20). */
export function advancedEpsilon(epsilon0, k, deltaPrime) {
  return Math.sqrt(2 * k * Math.log(1 / deltaPrime)) * epsilon0
    + k * epsilon0 * Math.expm1(epsilon0);
}

// the epsilon0 whose advanced composition over k releases is `total` (it increases in epsilon0)
function advancedPerRelease(total, k, deltaPrime) {
  let lo = 0;
  let hi = total;
  for (let i = 0; i < 200; i += 1) {
    const mid = (lo + hi) / 2;
    if (mid <= lo || mid >= hi) break;
    if (advancedEpsilon(mid, k, deltaPrime) > total) hi = mid;
    else lo = mid;
  }
  return lo;
}

/** Noise sd per count for a total (epsilon, delta) over k counts, by each accounting. */
export function noisePerQuery(epsilon, delta, k) {
  let advanced = Infinity;
  for (const share of SPLITS) {
    const deltaPrime = share * delta;
    const epsilon0 = advancedPerRelease(epsilon, k, deltaPrime);
    advanced = Math.min(advanced, gaussianSigma(epsilon0, (delta - deltaPrime) / k));
  }
  return {
    basic: gaussianSigma(epsilon / k, delta / k),
    advanced,
    exact: gaussianSigma(epsilon, delta, Math.sqrt(k)),
  };
}

/** The epsilon each accounting charges at `delta` for k counts, each with noise sigma. */
export function chargedEpsilon(sigma, delta, k) {
  let advanced = Infinity;
  for (const share of SPLITS) {
    const epsilon0 = gaussianEpsilon(sigma, ((1 - share) * delta) / k);
    advanced = Math.min(advanced, advancedEpsilon(epsilon0, k, share * delta));
  }
  return {
    basic: k * gaussianEpsilon(sigma, delta / k),
    advanced,
    exact: gaussianEpsilon(sigma, delta, Math.sqrt(k)),
  };
}

/** The three epsilon(delta) curves for k counts with noise sigma, at `deltas`. */
export function epsilonCurves(sigma, k, deltas) {
  return deltas.map((delta) => ({ delta, ...chargedEpsilon(sigma, delta, k) }));
}
