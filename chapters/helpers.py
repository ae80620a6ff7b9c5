"""Shared code for the course *Differential Privacy by Running Code*.

Every chapter does ``import helpers``; this module is that one import. It holds only what two
or more chapters use (a test enforces it), and re-exports it from the small package
``dpcourse/`` beside it, where the code is organised by topic:

* data (:mod:`dpcourse.data`): :func:`load_adult`, :func:`load_health`, :data:`IGOR_INDEX`,
  :data:`ADULT_CATEGORIES` (the public category lists of UCI Adult);
* randomness (:mod:`dpcourse.randomness`): :func:`make_rng`, the seeded generator every
  notebook passes around for reproducible teaching, and :class:`SecureRandom`, the
  operating system's entropy for real releases;
* pure ε-DP mechanisms (:mod:`dpcourse.mechanisms`): :func:`laplace_mechanism`,
  :func:`randomized_response` (with :func:`randomized_response_keep_probability` and
  :func:`estimate_proportion`), :func:`discrete_laplace_noise`;
* the Gaussian mechanism (:mod:`dpcourse.gaussian`): :func:`gaussian_mechanism`,
  :func:`gaussian_delta`, :func:`gaussian_epsilon`, :func:`gaussian_sigma`;
* selection (:mod:`dpcourse.selection`): :func:`exponential_mechanism`,
  :func:`exponential_mechanism_probabilities`;
* accounting (:mod:`dpcourse.accounting`): :class:`PrivacyAccountant`,
  :class:`BudgetExceededError`, :func:`rdp_to_dp`, :func:`zcdp_to_dp` and its inverse
  :func:`dp_to_zcdp`, :func:`gaussian_rdp_epsilon`, :func:`subsampled_gaussian_rdp`, and the
  2020 US Census persons budget :data:`CENSUS_2020_PERSONS_RHO` at :data:`CENSUS_2020_DELTA`;
* attacks (:mod:`dpcourse.attacks`): :func:`hypothesis_test_bound`, the best any attacker can
  do, and :func:`differencing_attack_success` (the Igor attack under Laplace noise);
* auditing (:mod:`dpcourse.auditing`): :func:`audit_epsilon`;
* formatting (:mod:`dpcourse.formatting`): :func:`scientific`, tiny numbers for the prose;
* event tables (:mod:`dpcourse.events`): :func:`event_table`, many rows per person for
  user-level privacy and the engines of Part VI.

Every public function validates its inputs and raises :class:`ValueError` or
:class:`TypeError` with a message that names the offending parameter.
"""

from __future__ import annotations

import pandas as pd

from dpcourse.accounting import (CENSUS_2020_DELTA, CENSUS_2020_PERSONS_RHO, BudgetExceededError,
                                 PrivacyAccountant, dp_to_zcdp, gaussian_rdp_epsilon, rdp_to_dp,
                                 subsampled_gaussian_rdp, zcdp_to_dp)
from dpcourse.attacks import differencing_attack_success, hypothesis_test_bound
from dpcourse.auditing import AuditResult, audit_epsilon
from dpcourse.data import ADULT_CATEGORIES, DATA_DIR, IGOR_INDEX, load_adult, load_health
from dpcourse.events import event_table
from dpcourse.formatting import scientific
from dpcourse.gaussian import gaussian_delta, gaussian_epsilon, gaussian_mechanism, gaussian_sigma
from dpcourse.mechanisms import (discrete_laplace_noise, estimate_proportion, laplace_mechanism,
                                 randomized_response, randomized_response_keep_probability)
from dpcourse.randomness import DEFAULT_SEED, SecureRandom, make_rng
from dpcourse.selection import exponential_mechanism, exponential_mechanism_probabilities

__all__ = [
    "ADULT_CATEGORIES",
    "CENSUS_2020_DELTA",
    "CENSUS_2020_PERSONS_RHO",
    "DATA_DIR",
    "DEFAULT_SEED",
    "IGOR_INDEX",
    "AuditResult",
    "BudgetExceededError",
    "PrivacyAccountant",
    "SecureRandom",
    "audit_epsilon",
    "differencing_attack_success",
    "discrete_laplace_noise",
    "dp_to_zcdp",
    "estimate_proportion",
    "event_table",
    "exponential_mechanism",
    "exponential_mechanism_probabilities",
    "gaussian_delta",
    "gaussian_epsilon",
    "gaussian_mechanism",
    "gaussian_rdp_epsilon",
    "gaussian_sigma",
    "hypothesis_test_bound",
    "laplace_mechanism",
    "load_adult",
    "load_health",
    "make_rng",
    "randomized_response",
    "randomized_response_keep_probability",
    "rdp_to_dp",
    "scientific",
    "subsampled_gaussian_rdp",
    "zcdp_to_dp",
]

# One place for display settings, so that stored notebook outputs do not depend on the
# reader's defaults (nbval compares the printed tables).
pd.set_option("display.width", 100)
pd.set_option("display.max_columns", 20)
pd.set_option("display.max_rows", 30)
pd.set_option("display.precision", 4)
