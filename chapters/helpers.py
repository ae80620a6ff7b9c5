"""Shared code for the course *Differential Privacy by Running Code*.

Every chapter does ``import helpers``; this module is that one import. It re-exports the public
names of the small package ``dpcourse/`` beside it, module by module, each module listing its
public names once, in its ``__all__``. A public name is used by two or more chapters (a test
enforces it). The modules, one per topic and one per mechanism family:

* :mod:`dpcourse.data`: the two datasets and their public domains;
* :mod:`dpcourse.events`: an event table with many rows per person, and the bounding of each
  person's contribution to it (Part VI);
* :mod:`dpcourse.randomness`: :func:`make_rng` (seeded, for teaching) and
  :class:`SecureRandom` (the operating system's entropy, for real releases);
* :mod:`dpcourse.mechanisms`: pure ε-DP mechanisms: Laplace, randomized response, the exact
  discrete Laplace;
* :mod:`dpcourse.gaussian`: the Gaussian mechanism, its exact calibration and its Rényi DP
  (alone and Poisson-subsampled);
* :mod:`dpcourse.selection`: the exponential mechanism, report-noisy-max's exact output
  probabilities, and the scores of a private quantile;
* :mod:`dpcourse.conversions`: Rényi DP and zCDP to (ε, δ), and back;
* :mod:`dpcourse.pld`: privacy-loss distributions composed by FFT, and DP-SGD's ε from them
  (:func:`dpsgd_epsilon`; Rényi DP beside it as the looser bound);
* :mod:`dpcourse.accounting`: the privacy accountant (which composes what the mechanism
  modules provide), a read-counting table, and the 2020 US Census budgets;
* :mod:`dpcourse.attacks`: the best any attacker can do, and the differencing attack on Igor;
* :mod:`dpcourse.auditing`: statistical lower bounds on a mechanism's ε;
* :mod:`dpcourse.formatting`: tiny numbers for the prose, and pandas' display options.

Importing this module changes no global state: a chapter calls
:func:`set_display_options` itself. Every public function validates its inputs and raises
:class:`ValueError` or :class:`TypeError` with a message that names the offending parameter.
"""

from __future__ import annotations

import importlib as _importlib

from dpcourse.accounting import *  # noqa: F401,F403  (each module's __all__)
from dpcourse.attacks import *  # noqa: F401,F403
from dpcourse.auditing import *  # noqa: F401,F403
from dpcourse.conversions import *  # noqa: F401,F403
from dpcourse.data import *  # noqa: F401,F403
from dpcourse.events import *  # noqa: F401,F403
from dpcourse.formatting import *  # noqa: F401,F403
from dpcourse.gaussian import *  # noqa: F401,F403
from dpcourse.mechanisms import *  # noqa: F401,F403
from dpcourse.pld import *  # noqa: F401,F403
from dpcourse.randomness import *  # noqa: F401,F403
from dpcourse.selection import *  # noqa: F401,F403

#: The modules re-exported above; ``dpcourse.validation`` holds input checks and exports none.
_MODULES = ("accounting", "attacks", "auditing", "conversions", "data", "events", "formatting",
            "gaussian", "mechanisms", "pld", "randomness", "selection")

__all__ = sorted(name for module in _MODULES
                 for name in _importlib.import_module(f"dpcourse.{module}").__all__)
