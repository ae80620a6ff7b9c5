// The numbers of the explorable "randomized-response" (randomized-response.mjs), no DOM:
// tests/site/test_explorables.py runs them under Node.js and compares them with the course's
// Python.

/** k-RR: the probability p of reporting the true value and r of each other value. */
export const grrProbabilities = (epsilon, k) => {
  const denominator = Math.exp(epsilon) + k - 1;
  return [Math.exp(epsilon) / denominator, 1 / denominator];
};

/** Root mean square over the k values of the standard deviation of the unbiased count
 *  estimate, when the k shares average 1/k (the chapter's krr_sd). */
export const krrSd = (n, k, epsilon) => {
  const [p, r] = grrProbabilities(epsilon, k);
  return Math.sqrt(n * r * (1 - r) / (p - r) ** 2 + n / k * (1 - p - r) / (p - r));
};

/** Standard deviation of a count's central Laplace noise under replace-one neighbours
 *  (a histogram's sensitivity 2): √2 · 2/ε. */
export const centralSd = epsilon => Math.SQRT2 * 2 / epsilon;
