// The numbers of the explorable "differencing-attack" (differencing-attack.mjs), no DOM:
// tests/site/test_explorables.py runs them under Node.js and compares them with the course's
// Python.

// S, a sum of m independent Lap(1), is G1 - G2 with G1, G2 ~ Gamma(m, 1). Given G2,
// P(G1 > G2 + x) is a Poisson(G2 + x) probability; averaging over G2 gives, for x >= 0,
// P(S > x) = sum_{j<m} Poisson(j; x) P(Y <= m-1-j) and the density
// f(x) = sum_{j<m} Poisson(j; |x|) P(Y = m-1-j), Y ~ NegativeBinomial(m, 1/2).
const negBinomial = new Map();
const nb = m => {  // [pmf, cdf] of Y for 0..m-1, from logarithms (2^-m underflows)
  if (!negBinomial.has(m)) {
    const pmf = new Float64Array(m), cdf = new Float64Array(m);
    let logp = -m * Math.LN2, total = 0;
    for (let i = 0; i < m; i++) {
      if (i > 0) logp += Math.log((m + i - 1) / i) - Math.LN2;
      pmf[i] = Math.exp(logp);
      total += pmf[i];
      cdf[i] = total;
    }
    negBinomial.set(m, [pmf, cdf]);
  }
  return negBinomial.get(m);
};
const poissonSum = (x, m, weights) => {  // sum_{j<m} Poisson(j; x) weights[m-1-j]
  if (x === 0) return weights[m - 1];
  let logp = -x, total = 0;
  for (let j = 0; j < m; j++) {
    if (j > 0) logp += Math.log(x / j);
    total += Math.exp(logp) * weights[m - 1 - j];
  }
  return total;
};

/** P(S > x) for S a sum of m independent Lap(1). */
export const laplaceSumSf = (x, m) => x >= 0 ? poissonSum(x, m, nb(m)[1])
  : 1 - poissonSum(-x, m, nb(m)[1]);

/** Density of S, a sum of m independent Lap(1), at x. */
export const laplaceSumPdf = (x, m) => poissonSum(Math.abs(x), m, nb(m)[0]);

/** Success rate of the attack, half the trials on each table: the averaged difference is
 *  truth + (b/k)·S with b = 1/ε and S a sum of 2k Lap(1). */
export const attackSuccess = (epsilon, threshold, repeats = 1) => {
  const unit = repeats * epsilon;  // S per unit of the averaged difference: k/b
  const right1 = laplaceSumSf((threshold - 1) * unit, 2 * repeats);
  const right0 = 1 - laplaceSumSf(threshold * unit, 2 * repeats);
  return 0.5 * right1 + 0.5 * right0;
};

/** Density of the attacker's averaged difference, around its true value. */
export const differenceDensity = (z, epsilon, repeats = 1) =>
  repeats * epsilon * laplaceSumPdf(z * repeats * epsilon, 2 * repeats);

/** No test beats e^(kε)/(1 + e^(kε)): k answers of an ε-DP count are kε-DP. */
export const bound = (epsilon, repeats = 1) => 1 / (1 + Math.exp(-repeats * epsilon));
