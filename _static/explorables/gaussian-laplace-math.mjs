// The Gaussian-against-Laplace explorable's numbers, no DOM: the noise per query of d counting
// queries that one person can all change (Delta_1 = d, Delta_2 = sqrt(d)) at a budget epsilon,
// for the Laplace mechanism (pure epsilon-DP) and the analytic Gaussian at (epsilon, delta), as in
// chapters/laplace-or-gaussian-workload.ipynb. Compared with dpcourse under Node by
// tests/site/test_explorables_noise_and_budget.py.
import { gaussianSigma } from "./gaussian-dp.mjs";

/** Standard deviation of Lap(d / epsilon): sqrt(2) d / epsilon. */
export function laplaceSd(epsilon, d) {
  return (Math.SQRT2 * d) / epsilon;
}

/** Noise per query of both mechanisms at d queries. The analytic sigma is proportional to
 * Delta_2, so sigma(sqrt(d)) = sqrt(d) sigma(1): one calibration serves every d. */
export function noiseAt(epsilon, delta, d, unitSigma = gaussianSigma(epsilon, delta)) {
  return { d, laplace: laplaceSd(epsilon, d), gaussian: unitSigma * Math.sqrt(d) };
}

/** Both curves over d = 1, ..., dMax. */
export function noiseCurves(epsilon, delta, dMax) {
  const unitSigma = gaussianSigma(epsilon, delta);
  return Array.from({ length: dMax }, (_, i) => noiseAt(epsilon, delta, i + 1, unitSigma));
}

/** The smallest d from which the Gaussian has less noise than Laplace, for good:
 * sqrt(d) sigma_1 < sqrt(2) d / epsilon  <=>  d > (epsilon sigma_1)^2 / 2. */
export function crossover(epsilon, delta) {
  const unitSigma = gaussianSigma(epsilon, delta);
  let d = Math.max(1, Math.floor((epsilon * unitSigma) ** 2 / 2));
  while (!(unitSigma * Math.sqrt(d) < laplaceSd(epsilon, d))) d += 1;
  while (d > 1 && unitSigma * Math.sqrt(d - 1) < laplaceSd(epsilon, d - 1)) d -= 1;
  return d;
}
