"""The course's shared code, organised by topic.

Chapters do not import this package directly: they ``import helpers`` (``chapters/helpers.py``),
which re-exports the public names listed in its ``__all__``. The modules are:

* :mod:`dpcourse.validation` -- the input checks every public function uses;
* :mod:`dpcourse.data` -- the datasets and their public domains;
* :mod:`dpcourse.randomness` -- seeded generators for teaching, a secure source for releases;
* :mod:`dpcourse.mechanisms` -- Laplace, randomized response, exact discrete Laplace;
* :mod:`dpcourse.gaussian` -- the Gaussian mechanism and its exact calibration;
* :mod:`dpcourse.selection` -- the exponential mechanism;
* :mod:`dpcourse.accounting` -- the privacy accountant, Rényi DP and zCDP;
* :mod:`dpcourse.attacks` -- what an adversary can achieve, in theory and by simulation;
* :mod:`dpcourse.auditing` -- statistical lower bounds on a mechanism's ε;
* :mod:`dpcourse.events` -- an event table with many rows per person.
"""
