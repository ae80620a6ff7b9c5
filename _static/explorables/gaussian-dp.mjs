// The Gaussian mechanism's exact privacy profile in JavaScript, no DOM: the numbers of the
// composition and Gaussian-against-Laplace explorables. Each function mirrors one of
// chapters/dpcourse/gaussian.py (same algorithm, same brackets), and
// tests/site/test_explorables_noise_and_budget.py compares them under Node with the Python ones.

const LN2 = Math.LN2;
const LOG_SQRT_PI = 0.5 * Math.log(Math.PI);

// log erfc(x) for x >= 0, to a relative error of about 1e-14 in erfc: a series for erf
// below 2 (its terms are all positive: no cancellation), a continued fraction above, where
// erfc(x) = exp(-x^2)/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))), kept in log space.
function logErfc(x) {
  if (x < 2) {
    const x2 = x * x;
    let term = x;
    let sum = x;
    for (let n = 1; n < 200; n += 1) {
      term *= (2 * x2) / (2 * n + 1);
      sum += term;
      if (term < sum * 1e-17) break;
    }
    const erf = (2 / Math.sqrt(Math.PI)) * Math.exp(-x2) * sum;
    return Math.log1p(-erf);
  }
  // modified Lentz for b0 + a1/(b1 + a2/(b2 + ...)), b_j = x, a_j = j/2
  const tiny = 1e-300;
  let f = x;
  let c = x;
  let d = 0;
  for (let j = 1; j < 5000; j += 1) {
    const a = j / 2;
    d = x + a * d;
    d = d === 0 ? tiny : 1 / d;
    c = x + a / c;
    if (c === 0) c = tiny;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return -x * x - LOG_SQRT_PI - Math.log(f);
}

/** log Phi(z), the standard normal CDF in log space (scipy.special.log_ndtr). */
export function logNdtr(z) {
  if (z === Infinity) return 0;
  if (z === -Infinity) return -Infinity;
  const t = -z * Math.SQRT1_2;
  if (t <= 0) return Math.log1p(-0.5 * Math.exp(logErfc(-t)));
  return logErfc(t) - LN2;
}

/** log delta(epsilon) of the Gaussian mechanism (dpcourse.gaussian._log_delta). */
export function logDelta(sigma, epsilon, l2 = 1) {
  const a = l2 / (2 * sigma);
  const b = (epsilon * sigma) / l2;
  const first = logNdtr(a - b);
  const second = epsilon + logNdtr(-a - b);
  return first + Math.log(-Math.expm1(Math.min(second - first, 0)));
}

/** The exact delta at epsilon (Balle and Wang 2018, Thm 8): dpcourse's gaussian_delta. */
export function gaussianDelta(sigma, epsilon, l2 = 1) {
  return Math.exp(logDelta(sigma, epsilon, l2));
}

/** Smallest epsilon with delta(epsilon) <= delta: dpcourse's gaussian_epsilon, the same
 * bisection (a doubling bracket, then 80 halvings, rounded up). */
export function gaussianEpsilon(sigma, delta, l2 = 1) {
  const target = Math.log(delta);
  if (logDelta(sigma, 0, l2) <= target) return 0;
  let lo = 0;
  let hi = 1;
  while (logDelta(sigma, hi, l2) > target) hi *= 2;
  for (let i = 0; i < 80; i += 1) {
    const mid = (lo + hi) / 2;
    if (logDelta(sigma, mid, l2) > target) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** Smallest sigma with delta(epsilon) <= delta: dpcourse's gaussian_sigma (analytic), found by
 * bisection on log sigma down to adjacent doubles, then rounded up. */
export function gaussianSigma(epsilon, delta, l2 = 1) {
  const target = Math.log(delta);
  const excess = (logSigma) => logDelta(Math.exp(logSigma), epsilon, l2) - target;
  let lo = Math.log(l2) - 1;
  let hi = Math.log(l2) + 1;
  while (excess(lo) <= 0) lo -= 1;
  while (excess(hi) > 0) hi += 1;
  for (let i = 0; i < 200; i += 1) {
    const mid = (lo + hi) / 2;
    if (mid <= lo || mid >= hi) break;
    if (excess(mid) > 0) lo = mid;
    else hi = mid;
  }
  let sigma = Math.exp(hi);
  while (logDelta(sigma, epsilon, l2) > target) sigma *= 1 + Number.EPSILON;
  return sigma;
}
