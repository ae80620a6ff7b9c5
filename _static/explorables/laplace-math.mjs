// The numbers of the explorable "laplace" (laplace.mjs), no DOM:
// tests/site/test_explorables.py runs them under Node.js and compares them with the course's
// Python.

/** Density of Lap(loc, scale) at y. */
export const density = (y, loc, scale) => Math.exp(-Math.abs(y - loc) / scale) / (2 * scale);

/** Privacy loss ln(p_D(y) / p_D'(y)) when f(D) = 0 and f(D') = -sensitivity. */
export const privacyLoss = (y, sensitivity, epsilon) =>
  epsilon * (Math.abs(y + sensitivity) - Math.abs(y)) / sensitivity;

/** Share of outputs misjudged by the attacker who guesses the dataset whose true answer is
 *  nearer the output, D and D' equally likely: P(Lap(Δ/ε) > Δ/2) = e^(-ε/2)/2. */
export const misjudged = (epsilon, sensitivity) => {
  const scale = sensitivity / epsilon;
  return 0.5 * Math.exp(-(sensitivity / 2) / scale);
};

/** The least error any test can have between two ε-DP neighbours (from even odds). */
export const leastError = epsilon => 1 / (1 + Math.exp(epsilon));
