# The two commands most people need:
#   make book   build the website into _build/html (creates .venv with pinned dependencies)
#   make test   run every test: unit, data, notebook hygiene, nbval, build, browser
# Others:
#   make notebooks [NB=chapters/differencing-attacks.ipynb]  re-execute notebooks in place
#   make nbval [NB=...]   check that stored outputs reproduce
#   make benchmark        measure the performance budget into benchmarks/report.{md,json}
#   make data             rebuild data/*.csv from the UCI source
#   make clean            remove _build/
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
NB ?= chapters/*.ipynb
BUILD_PATH ?= .

# Reproducibility: hash order, single-threaded BLAS, fixed timezone.
export PYTHONHASHSEED := 0
export OPENBLAS_NUM_THREADS := 1
export OMP_NUM_THREADS := 1
export MKL_NUM_THREADS := 1
export TZ := UTC
export PYDEVD_DISABLE_FILE_VALIDATION := 1

.PHONY: venv book test unit nbval browser notebooks benchmark data clean

venv: $(VENV)/.installed

$(VENV)/.installed: requirements.txt requirements-dev.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt
	touch $@

book: venv
	$(BIN)/jupyter-book build . --path-output $(BUILD_PATH) -W -n --keep-going

test: venv
	$(MAKE) unit
	$(MAKE) nbval
	$(MAKE) book
	$(BIN)/python -m pytest tests -m "site or browser or bundle"

unit: venv
	$(BIN)/python -m pytest tests -m "not site and not browser and not bundle" \
	    --cov=chapters --cov-branch --cov-report=term-missing --cov-fail-under=95

nbval: venv
	$(BIN)/python -m pytest --nbval $(NB) --nbval-sanitize-with tests/sanitize.cfg \
	    --nbval-current-env

browser: venv
	$(BIN)/python -m pytest tests -m browser

notebooks: venv
	$(BIN)/jupyter nbconvert --to notebook --execute --inplace \
	    --ExecutePreprocessor.timeout=600 --ExecutePreprocessor.kernel_name=python3 \
	    --ExecutePreprocessor.record_timing=False $(NB)

benchmark: venv
	$(BIN)/python benchmarks/run.py

data: venv
	$(BIN)/python data/build_data.py

clean:
	rm -rf _build
