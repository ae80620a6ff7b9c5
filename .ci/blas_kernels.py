"""Run one command under each OpenBLAS kernel this CPU can run (``make nbval-kernels``).

numpy's OpenBLAS is built with ``DYNAMIC_ARCH``: it picks its kernels from the CPU, and
``OPENBLAS_CORETYPE`` forces another. Kernels differ in the order of their floating-point
operations, so a stored output that changes with the kernel is one that a reader's laptop,
Binder or a CI runner may not reproduce.

A kernel is run only if this CPU can execute it: a probe process multiplies two matrices under
it with ``OPENBLAS_VERBOSE=2``. It is skipped, with the reason, if the probe dies (an
instruction the CPU lacks: AVX-512 on a CPU without it), if OpenBLAS says it has no such core,
or if OpenBLAS runs another core instead (it falls back silently when the CPU lacks a feature).

usage: python .ci/blas_kernels.py KERNEL [KERNEL ...] -- COMMAND [ARG ...]

It prints a table of the kernels (passed, failed, or skipped and why) and exits non-zero if the
command failed under any kernel it ran.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

#: Names OpenBLAS prints for a kernel it was asked for under another name (its Prescott kernel
#: reports itself as Katmai, the first name of the same code).
ALIASES = {"prescott": {"prescott", "katmai"}}
PROBE = "import numpy as np; a = np.ones((64, 64)); print(float((a @ a).sum()))"


def probe(kernel: str) -> str | None:
    """``None`` if this CPU runs ``kernel``, or the reason it cannot."""
    env = dict(os.environ, OPENBLAS_CORETYPE=kernel, OPENBLAS_VERBOSE="2")
    run = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True,
                         text=True, timeout=120)
    said = run.stdout + run.stderr
    if run.returncode != 0:
        return f"the probe died (exit status {run.returncode}): the CPU lacks its instructions"
    if re.search(r"Core not found", said):
        return "OpenBLAS has no such core for this CPU"
    core = re.search(r"Core: (\w+)", said)
    if core is None:
        return "OpenBLAS did not name the core it runs"
    ran = core[1].lower()
    if ran not in ALIASES.get(kernel.lower(), {kernel.lower()}):
        return f"OpenBLAS runs its {core[1]} kernel instead (the CPU lacks a feature)"
    return None


def main(argv: list[str]) -> int:
    if "--" not in argv or argv.index("--") == 0 or argv[-1] == "--":
        print(__doc__.split("usage: ")[1].split("\n")[0])
        return 2
    split = argv.index("--")
    kernels, command = argv[:split], argv[split + 1:]
    rows, failed = [], False
    for kernel in kernels:
        reason = probe(kernel)
        if reason is not None:
            rows.append((kernel, "skipped", reason))
            continue
        print(f"== {' '.join(command)} under OPENBLAS_CORETYPE={kernel}", flush=True)
        start = time.monotonic()
        status = subprocess.run(command, env=dict(os.environ, OPENBLAS_CORETYPE=kernel)).returncode
        failed |= status != 0
        rows.append((kernel, "passed" if status == 0 else f"FAILED (exit {status})",
                     f"{time.monotonic() - start:.0f} s"))
    print("\n| OpenBLAS kernel | result | time or reason |\n|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    if all(result == "skipped" for _, result, _ in rows):
        print("no kernel could run on this CPU")
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
