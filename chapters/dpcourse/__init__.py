"""The course's shared code, organised by topic.

Chapters do not import this package directly: they ``import helpers`` (``chapters/helpers.py``),
which re-exports the public names that each module lists in its ``__all__``. One module per
topic, and one per mechanism family: a mechanism's privacy guarantees (in every definition the
course uses) sit beside the mechanism, and :mod:`dpcourse.accounting` only composes them.
The modules are:

* :mod:`dpcourse.validation` -- the input checks every public function uses;
* :mod:`dpcourse.data` -- the datasets and their public domains;
* :mod:`dpcourse.events` -- an event table with many rows per person;
* :mod:`dpcourse.randomness` -- seeded generators for teaching, a secure source for releases;
* :mod:`dpcourse.mechanisms` -- Laplace, randomized response, exact discrete Laplace;
* :mod:`dpcourse.gaussian` -- the Gaussian mechanism, its exact calibration and its Rényi DP;
* :mod:`dpcourse.selection` -- the exponential mechanism, noisy max's exact probabilities and a
  private quantile's scores;
* :mod:`dpcourse.conversions` -- Rényi DP and zCDP, converted to (ε, δ) and back;
* :mod:`dpcourse.accounting` -- the privacy accountant, which composes the above;
* :mod:`dpcourse.attacks` -- what an adversary can achieve, in theory and by simulation;
* :mod:`dpcourse.auditing` -- statistical lower bounds on a mechanism's ε;
* :mod:`dpcourse.formatting` -- numbers for the prose, tables for the outputs.
"""
