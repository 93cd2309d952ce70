# Workbench targets. On a fresh machine: `make setup theory` (install, then the main job), `make test`.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
TSX := ./node_modules/.bin/tsx
SEEDS ?= 0,1,2,3,4
JUPYTER := JUPYTER_PATH="$(CURDIR)/.jupyter/share/jupyter" PYDEVD_DISABLE_FILE_VALIDATION=1 /usr/bin/jupyter

.PHONY: help setup test typecheck theory figures notebooks clean-runs

help:
	@echo "make setup      install Debian packages, npm packages and the tslab kernel (idempotent)"
	@echo "make theory     CO-RL theory: runs -> results/theory/*.csv -> results/figures/theory_*"
	@echo "make figures    regenerate every figure from the committed tables in results/"
	@echo "make notebooks  execute notebooks/*.ipynb headless into results/notebooks/"
	@echo "make test       typecheck, then the test suite (ends with 'N passed, N failed')"
	@echo "make clean-runs delete runs/ (raw run directories; results/ is kept)"

setup:
	bash bin/setup

typecheck:
	./node_modules/.bin/tsc --noEmit

test: typecheck
	./node_modules/.bin/mocha

theory:
	$(TSX) src/cli/theory.ts --seeds $(SEEDS) --out runs/theory
	$(TSX) analysis/theory.ts runs/theory results/theory
	$(TSX) analysis/make-figures.ts theory

figures:
	$(TSX) analysis/make-figures.ts

notebooks:
	$(JUPYTER) nbconvert --to notebook --execute --output-dir results/notebooks notebooks/*.ipynb

clean-runs:
	rm -rf runs
