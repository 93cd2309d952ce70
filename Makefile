# Workbench targets. On a fresh machine: `make setup reproduce-table2` (install, then the main job), `make test`.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
TSX := ./node_modules/.bin/tsx
SEEDS ?= 0,1,2,3,4
JUPYTER := JUPYTER_PATH="$(CURDIR)/.jupyter/share/jupyter" PYDEVD_DISABLE_FILE_VALIDATION=1 /usr/bin/jupyter

PROFILE ?= quick
# where runs execute: local (the job pool, one process per core) or slurm (one array job; docs/sweeps.md). Every
# campaign target takes them: reproduce-table2, -long, -evolm, -evolm-controls, -corl, -rubicon, -sensitivity,
# evolm-oracle, regime-map, sensitivity-pilot, coldstart, corl-agents. Slurm only: SBATCH_ARGS (flags to sbatch),
# CONCURRENCY (most array tasks at once), POLL_SECONDS (between squeue polls, default 30), SQUEUE_PATIENCE (seconds a
# failing squeue is retried before the wait stops with an error, default 600). Local only: WORKERS=no runs each Table 2
# run as its own process (default: each core's runs in turn in one long-lived worker; docs/sweeps.md)
EXECUTOR ?= local
SBATCH_ARGS ?=
EXECUTOR_FLAGS = --executor $(EXECUTOR) $(if $(SBATCH_ARGS),--sbatch-args "$(SBATCH_ARGS)") \
  $(if $(CONCURRENCY),--concurrency $(CONCURRENCY)) $(if $(POLL_SECONDS),--poll-seconds $(POLL_SECONDS)) \
  $(if $(SQUEUE_PATIENCE),--squeue-patience $(SQUEUE_PATIENCE)) $(if $(WORKERS),--workers $(WORKERS))

.PHONY: verify-results reproduce-long corl-agents reproduce-corl reproduce-evolm reproduce-evolm-controls reproduce-rubicon rubicon-preregister table2-report

.PHONY: coldstart-q coldstart-q-report
.PHONY: sensitivity2-pilot reproduce-table2 scalar-rm help setup test typecheck format lint theory figures notebooks lab docs clean-runs data coldstart bench-steps bench-quick rate-calibration quick-reference verify-quick mutation coldstart-save-partial coldstart-report rlvr world-criteria bench verifier verifier-competent verifier-drift serve-rewards serve-llm bench-rewards test-slurm regime-map
COLDSTART_MODELS ?= transformer-S gru-S transformer-M gru-M
RLVR_SEEDS ?= 0 1

help:
	@echo "make setup      install Debian packages, npm packages and the tslab kernel (idempotent)"
	@echo "make theory     CO-RL theory: runs -> results/theory/*.csv -> results/figures/theory_*"
	@echo "make data       regenerate the fixed evaluation sets and their checksums (data/eval/)"
	@echo "make coldstart  SFT cold start of $(COLDSTART_MODELS) -> data/checkpoints/, then results/coldstart/report.csv"
	@echo "make coldstart-report  re-evaluate cold starts (MODELS=transformer-M ...) -> results/coldstart/report.csv"
	@echo "make coldstart-q  the S cold start fine-tuned to also write rubrics from the question alone (results/coldstart/question-preregistration.md); make coldstart-q-report measures it"
	@echo "make coldstart-save-partial  keep unfinished cold starts' resumable state in data/checkpoints/partial/ (commit it; make coldstart resumes from it)"
	@echo "make rlvr       RLVR from the transformer-S cold start, seeds $(RLVR_SEEDS) in parallel -> results/rlvr/"
	@echo "make reproduce-table2  Table 2 (PROFILE=quick|full; quick -> results/quick/, full -> results/table2.csv) and RLCER figures (EXECUTOR=local|slurm)"
	@echo "   EXECUTOR=slurm  a campaign target as one Slurm array job (SBATCH_ARGS, CONCURRENCY: docs/sweeps.md)"
	@echo "make reproduce-long  RLVR vs RLCER over 300 steps, 3 seeds (PROFILE long) -> results/rlcer/long.csv, figure rlcer_long"
	@echo "make table2-report  tables and figures of a Table 2 profile from its finished runs (quick: compared with results/quick)"
	@echo "make verify-quick  recompute the committed quick tables from the committed run records (results/runs/table2/quick)"
	@echo "make verify-results  recompute every committed table that has run records (Table 2 quick and full, rate calibration, Rubicon, CO-RL, the regime map)"
	@echo "make quick-reference  adopt the last quick Table 2 outputs (runs/results/quick) as the committed results/quick"
	@echo "make reproduce-corl  CO-RL Table 1 analogue, error overlap, theory vs experiment (PROFILE=quick|full); PROFILE=table8: its Table 8 at size M -> results/corl/table8"
	@echo "make reproduce-evolm  EvoLM ablations (K, no format reward, each pair source alone) -> ablations.csv"
	@echo "make reproduce-evolm-controls  EvoLM controls (judge-only teacher/untrained rubrics, two models) -> ablations.csv"
	@echo "make reproduce-rubicon  Rubicon aggregators x schedules, filtering, hacking curves (PROFILE=quick|full)"
	@echo "make rubicon-preregister  cold-start trade-off of Rubicon's competing pair -> results/rubicon/preregistration.csv"
	@echo "make corl-agents  cold starts of the CO-RL partners (gru-S, transformer-S seed 1), one per core"
	@echo "make scalar-rm  train the static scalar reward model on cold-start rollouts -> data/checkpoints/scalar-rm-S.json"
	@echo "make verifier   distil the verifier from teacher labels on cold-start rollouts -> results/verifier/accuracy.csv"
	@echo "make verifier-competent  the competent (column-aligned) verifier -> data/checkpoints/verifier-competent-S.json, results/verifier/competent.csv"
	@echo "make verifier-drift  both verifiers on RL-trained policies' and hot samples' pairs -> results/verifier/drift.csv"
	@echo "make world-criteria  the pre-registered world criteria -> results/world/criteria.csv"
	@echo "make bench      every tfjs backend vs the PyTorch reference (update step, sampling, ratios), then the reward service's load test"
	@echo "make rate-calibration  the pre-registered rubricator and EvoLM generator rates (30 steps each) -> rate_calibration.csv, generator_rate_calibration.csv"
	@echo "make bench-steps  one step of every campaign method (SFT, RLVR, RLCER, fixed teacher, EvoLM, positive controls, CO-RL) and its ratio to RLVR -> results/bench/steps.csv"
	@echo "make bench-quick  the quick profile afresh, timed: its wall and CPU seconds split into step parts, the rest of each run, start-up and the report -> results/bench/quick.csv"
	@echo "make serve-rewards  the reward service for OpenRLHF/verl/TRL on 127.0.0.1:5057 (SERVE_ARGS='--reward rlcer'; docs/reward-service.md)"
	@echo "make serve-llm  an OpenAI-compatible chat endpoint on 127.0.0.1:8089 over local llama.cpp (LLM_ARGS='--model f.gguf'; default: a random-weight tiny model)"
	@echo "make bench-rewards  bounded loopback load test of the reward service: throughput, latency percentiles"
	@echo "make figures    regenerate every figure from the committed tables in results/, and the gallery results/figures/index.html (GALLERY_SCREENSHOT=f.png: a screenshot of it)"
	@echo "make notebooks  execute notebooks/*.ipynb headless into results/notebooks/"
	@echo "make lab        the notebooks, tslab kernel, 127.0.0.1:$(LAB_PORT) (JupyterLab, else the classic notebook)"
	@echo "make docs       the tables of README.md and docs/*.md, rendered from the committed CSVs (analysis/docs.ts)"
	@echo "make typecheck  tsc --noEmit over src/, analysis/ and test/"
	@echo "make format     Biome rewrites src/, test/, analysis/ at width 120 (biome.json); make lint checks it (CI)"
	@echo "make test       typecheck, then the test suite (ends with 'N passed, N failed')"
	@echo "make test-slurm the Slurm executor for real: single-node cluster, a tiny array sweep, one failure resubmitted"
	@echo "make regime-map the pre-registered regime map (sweeps/regimes.json, 189 runs; EXECUTOR=local|slurm) -> results/regimes/"
	@echo "make mutation   StrykerJS over the reward and evaluation code -> results/mutation/ (incremental; FORCE=1 all: ~35 min, busy 2 cores)"
	@echo "make sparse-regime  the sparse-outcome regime's criterion on the cold start alone -> results/sensitivity/regime_criterion.csv"
	@echo "make sparse-criterion  the clean instrument's sparse regime: SFT budgets of one wide cold-start run, the criterion on them alone -> results/sensitivity2/sparse-criterion.csv"
	@echo "make sparse-compounding  the pass beside the product of the known-step probabilities -> results/sensitivity2/compounding.csv"
	@echo "make sparse-criterion-forced  its amendment 2: the per-step threshold read teacher-forced, on amendment 1's cold starts"
	@echo "make sparse-criterion-careful  its amendment 1: the same criterion on a careful-style cold start's budgets"
	@echo "make sensitivity-pilot  RLVR and process_oracle, 3 seeds, both regimes, 60 and 300 steps -> results/sensitivity/pilot.csv, power.csv"
	@echo "make sensitivity2-pilot  the clean instrument's pilot, 7 arms x 6 seeds, S, 60 steps -> results/sensitivity2/pilot.csv, power.csv, trajectory*.csv"
	@echo "make verifier-dose-preregister  the dose campaign's pre-registration and sweeps from the pilot; make verifier-dose-campaign runs them"
	@echo "make verifier-dose-pilot  the verifier dose-response pilot: runs, paired spreads per level, seeds rule -> results/verifier-dose/"
	@echo "make sensitivity2-preregister  the clean instrument's pre-registration (default regime) and its sweeps; make sensitivity2-campaign runs them"
	@echo "make sensitivity-preregister  the pre-registration and the campaign's sweeps from the pilot's SDs (docs/sensitivity.md)"
	@echo "make reproduce-sensitivity  the pre-registered confirmatory campaign (resumable) -> results/sensitivity/confirm/"
	@echo "make trace-split  what the campaign's records say about trace error, split (wrong step / repeat) -> results/sensitivity/confirm/trace_split_*.csv"
	@echo "make evolm-oracle  EvoLM's exact-judge rows (judge-only teacher rubrics, EvoLM) at Table 2's full profile, S"
	@echo "make example-trl  TRL's GRPOTrainer trains a tiny model through the reward service (RLCER); docs/reward-service.md"
	@echo "make settings-doc  every environment variable the code reads -> docs/settings.md"
	@echo "make clean-runs delete runs/ (raw run directories; results/ is kept)"

setup:
	bash bin/setup

typecheck:
	./node_modules/.bin/tsc --noEmit

# Biome (pinned in package.json, biome.json): `make format` rewrites src/, test/ and analysis/ at width 120;
# `make lint` checks the format and the lint rules without writing (CI runs it; a warning fails it too)
format:
	./node_modules/.bin/biome format --write .
	./node_modules/.bin/biome lint --write .

lint:
	./node_modules/.bin/biome ci --error-on-warnings .

test: typecheck
	./node_modules/.bin/mocha 'test/**/*.test.ts'

# installs Debian's slurm-wlm and munge if missing (needs root), runs a tiny sweep as an array job, shuts down
test-slurm:
	bash bin/test-slurm

# the pre-registered regime map (results/regimes/preregistration.md): every run of sweeps/regimes.json on the
# executor, then table.csv, claims.csv, power.csv (each claim's power) and pooled.csv (each comparison across its
# cells) from the run records; a rerun finishes only what is missing
regime-map:
	$(TSX) src/cli/sweep.ts submit --config sweeps/regimes.json $(EXECUTOR_FLAGS) --wait yes
	$(TSX) src/cli/sweep.ts table --config sweeps/regimes.json --out results/regimes

# mutation testing (not part of `make test`: slow): StrykerJS with the mocha runner and
# per-test coverage over the fast hand-computed tests, one process at low priority; see docs/testing-mutation.md
# incremental: mutants whose code and covering tests are unchanged since the last report keep its result (the
# committed results/mutation/mutation.json seeds runs/mutation/incremental.json); FORCE=1 tests every mutant again
# the question-reading cold start (results/coldstart/question-preregistration.md): the S cold start fine-tuned so
# that half its rubric examples read the question alone, then measured beside the original
COLDSTART_Q_STEPS ?= 300
coldstart-q:
	$(TSX) src/cli/coldstart.ts --arch transformer --size S --seed 1 --steps $(COLDSTART_Q_STEPS) \
	  --init data/checkpoints/coldstart-transformer-S.json --out runs/coldstart/transformer-S-q \
	  --checkpoint data/checkpoints/coldstart-transformer-S-q.json \
	  --config data/configs/coldstart-q.json
coldstart-q-report:
	$(TSX) src/cli/coldstart-report.ts --models transformer-S,transformer-S-q --rubric-reads question \
	  --out results/coldstart/question.csv
	$(TSX) src/cli/coldstart-report.ts --models transformer-S,transformer-S-q --out results/coldstart/question-cot.csv

mutation:
	mkdir -p runs/mutation
	if [ ! -f runs/mutation/incremental.json ] && [ -f results/mutation/mutation.json ]; then \
	  cp results/mutation/mutation.json runs/mutation/incremental.json; fi
	nice -n 10 ./node_modules/.bin/stryker run stryker/stryker.config.json $(if $(FORCE),--force,)
	FORCE=$(FORCE) node stryker/static-pass.mjs results/mutation
	node stryker/score.mjs results/mutation

theory:
	$(TSX) src/cli/theory.ts --seeds $(SEEDS) --out runs/theory
	$(TSX) analysis/theory.ts runs/theory results/theory
	$(TSX) analysis/make-figures.ts theory

# every figure, then the gallery (results/figures/index.html) opened in Chromium: fails on a console error, an empty
# plot or a plot wider than the page. GALLERY_SCREENSHOT=file.png also keeps a screenshot of the page's top, to look
# at: it is not committed (a browser's fonts and rasterising differ by machine; docs/notebooks.md)
figures:
	$(TSX) analysis/make-figures.ts
	$(TSX) analysis/gallery.ts results/figures $(if $(GALLERY_SCREENSHOT),--screenshot $(GALLERY_SCREENSHOT))

# the generated tables of README.md and docs/*.md (between <!-- table: ... --> and <!-- /table -->); test/docs.test.ts
# fails while one is stale
docs:
	$(TSX) analysis/docs.ts

# executed copies in results/notebooks/, their code cells numbered in execution order (tslab reports no counts) and
# their charts loading the one shared plotly bundle, results/figures/plotly.min.js, instead of inlining it (each
# chart carries a static PNG beside the interactive chart: docs/notebooks.md)
notebooks:
	$(JUPYTER) nbconvert --to notebook --execute --output-dir results/notebooks notebooks/*.ipynb
	$(TSX) analysis/notebook.ts finish results/notebooks/*.ipynb

# the notebooks in a browser with the tslab kernel, served on 127.0.0.1 only (token-protected; docs/notebooks.md),
# opening on the quickstart (notebooks/00-quickstart.ipynb: its URL is the one the server prints).
# JupyterLab where `jupyter lab` exists; it is not a Debian package and PyPI is out of reach offline, so otherwise the
# classic Jupyter Notebook (Debian's python3-notebook, from make setup) serves them with the same kernel
LAB_PORT ?= 8888
lab:
	if $(JUPYTER) lab --version >/dev/null 2>&1; then \
	  $(JUPYTER) lab --ip=127.0.0.1 --port=$(LAB_PORT) --no-browser $(if $(filter 0,$(shell id -u)),--allow-root) \
	    --ServerApp.root_dir=notebooks --ServerApp.default_url=/lab/tree/00-quickstart.ipynb; \
	else \
	  echo "make lab: JupyterLab is not installed here (not packaged by Debian, no PyPI offline): the classic notebook"; \
	  JUPYTER_PATH="$(CURDIR)/.jupyter/share/jupyter" PYDEVD_DISABLE_FILE_VALIDATION=1 /usr/bin/python3 -m notebook \
	    --ip=127.0.0.1 --port=$(LAB_PORT) --no-browser $(if $(filter 0,$(shell id -u)),--allow-root) \
	    --notebook-dir=notebooks --NotebookApp.default_url=/notebooks/00-quickstart.ipynb; \
	fi

data:
	$(TSX) src/cli/make-data.ts

# both cores: one model per process; an interrupted target resumes each run from its last checkpoint. EXECUTOR=slurm:
# one array task per model (src/cli/coldstarts.ts), a finished run (done.json) skipped
coldstart:
	if [ "$(EXECUTOR)" = local ]; then \
	  echo $(COLDSTART_MODELS) | tr ' ' '\n' | xargs -P 2 -I{} sh -c 'm={}; $(TSX) src/cli/coldstart.ts --arch $${m%-*} --size $${m##*-} --resume yes'; \
	else $(TSX) src/cli/coldstarts.ts --models "$(COLDSTART_MODELS)" $(EXECUTOR_FLAGS); fi
	$(MAKE) coldstart-report

# the CO-RL partners of transformer-S: a GRU (different family) and a second transformer seed (same family), one per core
# (EXECUTOR=slurm: one array task each, src/cli/coldstarts.ts --corl-agents yes)
corl-agents:
	if [ "$(EXECUTOR)" = local ]; then \
	  printf '%s\n' "--arch gru --size S --out runs/coldstart/gru-S-seed0-v2 --resume yes" "--arch transformer --size S --seed 1 --checkpoint data/checkpoints/coldstart-transformer-S-seed1.json --out runs/coldstart/transformer-S-seed1 --resume yes" | xargs -P 2 -I{} sh -c '$(TSX) src/cli/coldstart.ts {}'; \
	else $(TSX) src/cli/coldstarts.ts --corl-agents yes $(EXECUTOR_FLAGS); fi

# copy unfinished cold starts' resumable state to data/checkpoints/partial/ for committing (make coldstart resumes from it)
coldstart-save-partial:
	for m in $(COLDSTART_MODELS); do $(TSX) src/cli/coldstart.ts --arch $${m%-*} --size $${m##*-} --save-partial yes; done

coldstart-report:
	$(TSX) src/cli/coldstart-report.ts $(if $(MODELS),--models $(MODELS))

# both cores: one seed per process
rlvr:
	echo $(RLVR_SEEDS) | tr ' ' '\n' | xargs -P 2 -I{} $(TSX) src/cli/rlvr.ts --seed {} --out runs/rlvr/seed-{}
	$(TSX) analysis/rlvr.ts runs/rlvr results/rlvr
	$(TSX) analysis/make-figures.ts rlvr

# both cores: one run per process; finished runs are kept, so an interrupted target resumes where it stopped
reproduce-table2:
	$(TSX) src/cli/table2.ts --profile $(PROFILE) $(EXECUTOR_FLAGS)
	$(MAKE) table2-report

# the tables and figures of a Table 2 profile from its finished runs. The full profile writes the committed results/;
# the others write under runs/results/<profile> (untracked) and are checked against the references kept per processor
# in results/references/<profile>/ (analysis/reference-check.ts; docs/testing.md): byte for byte against this
# processor's own fresh reference, else a tolerance check against another processor's (tables' structure exact, every
# run's first steps equal); the last line says which, and exit 1 when the check fails
T2_OUT = $(if $(filter full,$(PROFILE)),results,runs/results/$(PROFILE))
T2_OTHERS := corl/,rubicon/,figures/corl_,figures/rubicon_
table2-report:
	$(TSX) analysis/table2.ts $(PROFILE) runs/table2 $(T2_OUT)
	RESULTS=$(T2_OUT) FIGURES=$(T2_OUT)/figures $(TSX) analysis/make-figures.ts rlcer
	$(if $(filter full,$(PROFILE)),,$(if $(wildcard results/references/$(PROFILE)),$(TSX) analysis/reference-check.ts check --profile $(PROFILE) --tables $(T2_OUT) --runs runs/table2/$(PROFILE)))

# the long horizon: RLVR, RLCER, RLCER w/o evolving, fixed teacher rubrics, 300 steps x 3 seeds at S (one run per core;
# finished runs are kept and archived) -> results/rlcer/long.csv and the rlcer_long figure
reproduce-long:
	$(TSX) src/cli/table2.ts --profile long $(EXECUTOR_FLAGS)
	$(TSX) analysis/long.ts runs/table2 results
	$(TSX) analysis/make-figures.ts rlcer

# adopt the last quick Table 2 outputs (runs/results/quick) as this processor's reference in
# results/references/quick/<processor key>/ (a new generation, which marks the other processors' stale, when its tables
# moved), and as the published results/quick with the records of the runs they come from (results/runs/table2/quick:
# `make verify-quick` recomputes the tables from them)
quick-reference:
	$(TSX) analysis/reference-check.ts adopt --profile quick --tables runs/results/quick --runs runs/table2/quick
	cp -r runs/results/quick/. results/quick/
	$(TSX) src/util/machine.ts --json > results/quick-processor.json
	$(TSX) src/cli/archive-runs.ts runs/table2/quick results/runs/table2/quick

# recompute the committed quick tables from the committed run records and compare them byte for byte
verify-quick:
	rm -rf runs/verify/quick
	$(TSX) analysis/table2.ts quick results/runs/table2 runs/verify/quick
	$(TSX) analysis/compare-results.ts runs/verify/quick results/quick --ignore $(T2_OTHERS),figures/

# recompute every committed table that has committed run records, byte for byte: the quick and full Table 2 (from
# results/runs/table2), the rubricator and generator rate calibrations (from results/runs/rate-calibration), Rubicon's full
# tables (from results/runs/rubicon). The power file beside each claims table (*power.csv; regimes: pooled.csv too)
# is checked with it. CI runs it.
T2_TABLES := table2.csv,ablations.csv,table2_claims.csv,table2_power.csv,table2_reported.csv,rlcer/curves.csv,rlcer/eval_curves.csv,rlcer/hints.csv,rlcer/update_parity.csv,rlcer/claim_parity.csv,evolm/rubric_evolution.csv
LONG_TABLES = long.csv,long_final.csv,long_claims.csv,long_power.csv,long_parity.csv
CONFIRM_TABLES = records.csv,table.csv,claims.csv,power.csv,pooled.csv,parity.csv,parity_by_arm.csv
TRACE_SPLIT_TABLES = trace_split_records.csv,trace_split_rollouts.csv,trace_split_proxy.csv
TRAJECTORY_TABLES := trajectory.csv,trajectory_summary.csv
PILOT2_TABLES := pilot_records.csv,pilot.csv,power.csv,pilot_parity.csv,committed_spread.csv
EVOLM_SPREAD_TABLES := oracle_spread.csv,oracle_spread_split.csv
CORL_T8_TABLES = table1.csv,pairs.csv,error_overlap.csv,theory_vs_experiment.csv,claims.csv,power.csv,curves.csv,table8_reported.csv
CORL_TABLES = table1.csv,pairs.csv,error_overlap.csv,theory_vs_experiment.csv,theory_rules.csv,phase.csv,matched_budget.csv,claims.csv,power.csv,curves.csv,table1_reported.csv
verify-results: verify-quick
	rm -rf runs/verify/full runs/verify/rate-calibration
	$(TSX) analysis/table2.ts full runs/none runs/verify/full > /dev/null
	$(TSX) analysis/compare-results.ts runs/verify/full results --only $(T2_TABLES)
	$(TSX) src/cli/rate-calibration.ts --report yes --out runs/verify/rate-calibration > /dev/null
	$(TSX) analysis/compare-results.ts runs/verify/rate-calibration results/rlcer --only rate_calibration.csv,rate_choice.json
	$(TSX) analysis/compare-results.ts runs/verify/rate-calibration results/evolm --only generator_rate_calibration.csv,generator_rate_choice.json
	rm -rf runs/verify/rubicon
	$(TSX) analysis/rubicon.ts full /nonexistent runs/verify/rubicon > /dev/null
	$(TSX) analysis/compare-results.ts runs/verify/rubicon results/rubicon --only claims.csv,power.csv,hacking.csv,seesaw.csv,table.csv
	rm -rf runs/verify/corl
	$(TSX) analysis/table1.ts full /nonexistent runs/verify/corl > /dev/null
	$(TSX) analysis/compare-results.ts runs/verify/corl results/corl --only $(CORL_TABLES)
	$(if $(wildcard results/runs/corl/table8),$(TSX) analysis/table1.ts table8 /nonexistent runs/verify/corl/table8 > /dev/null)
	$(if $(wildcard results/runs/corl/table8),$(TSX) analysis/compare-results.ts runs/verify/corl/table8 results/corl/table8 --only $(CORL_T8_TABLES))
	$(if $(wildcard results/runs/table2/long),rm -rf runs/verify/long && $(TSX) analysis/long.ts runs/none runs/verify/long > /dev/null)
	$(if $(wildcard results/runs/table2/long),$(TSX) analysis/compare-results.ts runs/verify/long/rlcer results/rlcer --only $(LONG_TABLES))
	rm -rf runs/verify/regimes
	$(TSX) src/cli/sweep.ts table --config sweeps/regimes.json --root /nonexistent --out runs/verify/regimes > /dev/null
	$(TSX) analysis/compare-results.ts runs/verify/regimes results/regimes --only table.csv,claims.csv,power.csv,pooled.csv
	rm -rf runs/verify/sensitivity && mkdir -p runs/verify/sensitivity/sweeps
	cp results/sensitivity/regime_criterion.csv runs/verify/sensitivity/
	$(TSX) analysis/sensitivity.ts pilot --root /nonexistent --out runs/verify/sensitivity > /dev/null
	$(TSX) analysis/sensitivity.ts preregister --root /nonexistent --out runs/verify/sensitivity --sweeps runs/verify/sensitivity/sweeps > /dev/null
	$(TSX) analysis/compare-results.ts runs/verify/sensitivity results/sensitivity --only pilot_records.csv,pilot.csv,power.csv,pilot_parity.csv,committed_spread.csv,preregistration.md
	$(TSX) analysis/compare-results.ts runs/verify/sensitivity/sweeps sweeps --only sensitivity-S-baseline.json,sensitivity-S-sparse.json,sensitivity-M-baseline.json
	$(if $(wildcard results/sensitivity/amendment-1.md),cp results/sensitivity/regime_criterion_wide.csv runs/verify/sensitivity/ && $(TSX) analysis/sensitivity.ts amend --root /nonexistent --out runs/verify/sensitivity --sweeps runs/verify/sensitivity/sweeps > /dev/null)
	$(if $(wildcard results/sensitivity/amendment-1.md),$(TSX) analysis/compare-results.ts runs/verify/sensitivity results/sensitivity --only amendment-1.md)
	$(if $(wildcard results/sensitivity/amendment-1.md),$(TSX) analysis/compare-results.ts runs/verify/sensitivity/sweeps sweeps --only sensitivity-S-sparse-amended.json)
	$(if $(wildcard results/sensitivity/confirm),rm -rf runs/verify/confirm && $(TSX) analysis/sensitivity.ts confirm --root /nonexistent --out runs/verify/confirm > /dev/null)
	$(if $(wildcard results/sensitivity/confirm),$(TSX) analysis/compare-results.ts runs/verify/confirm results/sensitivity/confirm --only $(CONFIRM_TABLES))
	$(if $(wildcard results/sensitivity/confirm/trace_split_records.csv),rm -rf runs/verify/trace-split && $(TSX) analysis/trace-split.ts --out runs/verify/trace-split > /dev/null)
	$(if $(wildcard results/sensitivity/confirm/trace_split_records.csv),$(TSX) analysis/compare-results.ts runs/verify/trace-split results/sensitivity/confirm --only $(TRACE_SPLIT_TABLES))
	rm -rf runs/verify/sensitivity2 && mkdir -p runs/verify/sensitivity2
	$(TSX) analysis/equal-groups.ts results/runs/sensitivity2/equal-groups runs/verify/sensitivity2/equal-groups.csv > /dev/null
	$(TSX) analysis/compare-results.ts runs/verify/sensitivity2 results/sensitivity2 --only equal-groups.csv
	$(if $(wildcard results/sensitivity2/pilot.csv),$(TSX) analysis/sensitivity.ts pilot --config sweeps/sensitivity2-pilot.json --root /nonexistent --out runs/verify/sensitivity2 > /dev/null)
	$(if $(wildcard results/sensitivity2/pilot.csv),$(TSX) analysis/compare-results.ts runs/verify/sensitivity2 results/sensitivity2 --only $(PILOT2_TABLES))
	$(if $(wildcard results/sensitivity2/trajectory.csv),$(TSX) analysis/trajectory.ts --out runs/verify/sensitivity2 > /dev/null)
	$(if $(wildcard results/sensitivity2/trajectory.csv),$(TSX) analysis/compare-results.ts runs/verify/sensitivity2 results/sensitivity2 --only $(TRAJECTORY_TABLES))
	$(if $(wildcard results/sensitivity2/preregistration.md),$(TSX) analysis/sensitivity2.ts preregister --out runs/verify/sensitivity2 --sweeps runs/verify/sensitivity2/sweeps > /dev/null)
	$(if $(wildcard results/sensitivity2/preregistration.md),$(TSX) analysis/compare-results.ts runs/verify/sensitivity2 results/sensitivity2 --only preregistration.md)
	$(if $(wildcard results/sensitivity2/preregistration.md),$(TSX) analysis/compare-results.ts runs/verify/sensitivity2/sweeps sweeps --only $(CAMPAIGN2_SWEEPS))
	$(TSX) analysis/sparse-compounding.ts --out runs/verify/sensitivity2 > /dev/null
	$(TSX) analysis/compare-results.ts runs/verify/sensitivity2 results/sensitivity2 --only compounding.csv
	$(if $(wildcard results/verifier-dose/pilot.csv),rm -rf runs/verify/verifier-dose && $(TSX) analysis/verifier-dose.ts pilot --root /nonexistent --out runs/verify/verifier-dose > /dev/null)
	$(if $(wildcard results/verifier-dose/pilot.csv),$(TSX) analysis/compare-results.ts runs/verify/verifier-dose results/verifier-dose --only pilot_records.csv,pilot.csv,power.csv,levels.csv,parity.csv)
	$(if $(wildcard results/verifier-dose/preregistration.md),$(TSX) analysis/verifier-dose.ts preregister --out runs/verify/verifier-dose --sweeps runs/verify/verifier-dose/sweeps > /dev/null)
	$(if $(wildcard results/verifier-dose/preregistration.md),$(TSX) analysis/compare-results.ts runs/verify/verifier-dose results/verifier-dose --only preregistration.md)
	$(if $(wildcard results/verifier-dose/preregistration.md),$(TSX) analysis/compare-results.ts runs/verify/verifier-dose/sweeps sweeps --only $(DOSE_SWEEPS))
	rm -rf runs/verify/evolm-spread
	$(TSX) analysis/evolm-spread.ts --out runs/verify/evolm-spread > /dev/null
	$(TSX) analysis/compare-results.ts runs/verify/evolm-spread results/evolm --only $(EVOLM_SPREAD_TABLES)

# CO-RL's Table 1 analogue (needs make corl-agents first); same profiles and resumption as Table 2
reproduce-corl:
	$(TSX) src/cli/corl.ts --profile $(PROFILE) $(if $(AVAILABLE),--available yes) $(EXECUTOR_FLAGS)
	$(TSX) src/cli/corl-ensemble.ts --profile $(PROFILE)
	$(TSX) analysis/table1.ts $(PROFILE)
	RESULTS=$(if $(filter full table8,$(PROFILE)),results,results/$(PROFILE)) FIGURES=$(if $(filter full table8,$(PROFILE)),results/figures,results/$(PROFILE)/figures) $(TSX) analysis/make-figures.ts corl

# EvoLM's ablations (alternation period, no format reward, each pair source alone) beside the evolm row -> ablations.csv
reproduce-evolm:
	$(TSX) src/cli/table2.ts --profile $(PROFILE) --methods evolm-ablations $(EXECUTOR_FLAGS)
	$(MAKE) table2-report

# EvoLM's controls (judge-only rows with teacher or frozen cold-start rubrics, separate generator weights) -> ablations.csv
reproduce-evolm-controls:
	$(TSX) src/cli/table2.ts --profile $(PROFILE) --methods evolm-controls $(EXECUTOR_FLAGS)
	$(MAKE) table2-report

# Rubicon: aggregators x schedules, the filter comparison, the hacking curves (same profiles and resumption)
reproduce-rubicon:
	$(TSX) src/cli/rubicon.ts --profile $(PROFILE) $(EXECUTOR_FLAGS)
	$(TSX) analysis/rubicon.ts $(PROFILE)
	RESULTS=$(if $(filter full,$(PROFILE)),results,results/$(PROFILE)) FIGURES=$(if $(filter full,$(PROFILE)),results/figures,results/$(PROFILE)/figures) $(TSX) analysis/make-figures.ts rubicon

# Rubicon's competing pair, pre-registered from the cold start only (rule: results/rubicon/preregistration-rule.md;
# a few CPU-minutes), before any run on it
rubicon-preregister:
	$(TSX) src/cli/rubicon-preregister.ts

scalar-rm:
	$(TSX) src/cli/scalar-rm.ts --size S

verifier:
	$(TSX) src/cli/verifier.ts

# the competent verifier (docs/verifier.md): the column-aligned verifier distilled from teacher labels on the cold
# start's rollouts and their perturbed copies, selected on held-out pairs alone -> data/checkpoints/verifier-competent-S.json,
# results/verifier/competent.csv (beside the learned verifier, on its own held-out pairs)
verifier-competent:
	$(TSX) src/cli/verifier-competent.ts

# its drift check: RL-trained policies (RLVR, RLCER, EvoLM: 60 steps at S, seed 0, kept in runs/verifier-drift/), the
# process-reward runs' logged rollouts after step 250 and the cold start sampled hot -> results/verifier/drift.csv
VERIFIER_DRIFT_LOGGED = $(shell for s in 0 1 2; do printf 'process_oracle=results/runs/sensitivity/pilot/S/process_oracle/baseline/seed-%s/rollouts.jsonl.gz@250,' $$s; done)
verifier-drift:
	for m in rlvr rlcer evolm; do test -f runs/verifier-drift/$$m/done.json || $(TSX) src/cli/table2-run.ts \
	  --method $$m --profile quick --size S --seed 0 --steps 60 --checkpoint-every 60 --out runs/verifier-drift/$$m; done
	$(TSX) src/cli/verifier-competent.ts --drift yes --logged '$(VERIFIER_DRIFT_LOGGED)'

world-criteria:
	$(TSX) src/cli/world-criteria.ts

# Every tfjs backend present and the PyTorch of bin/setup-torch, one thread each, alternating runs; BENCH_ARGS='--runs 9'.
# the pre-registered rubricator rate (results/rlcer/rate_calibration_rule.md): RLVR and 5 candidates, one per core
rate-calibration:
	mkdir -p runs/rate-calibration; printf '%s\n' rlvr 0.5 1 2 5 10 evolm-ref evolm-0.5 evolm-1 evolm-2 evolm-5 evolm-10 | xargs -P 2 -I{} sh -c 'test -f results/runs/rate-calibration/{}/done.json || $(TSX) src/cli/rate-calibration.ts --run {} > runs/rate-calibration/{}.log 2>&1'
	$(TSX) src/cli/rate-calibration.ts --report yes

# the real steps (SFT, RLVR, RLCER) on every backend present, one process at a time
bench-steps:
	$(TSX) src/cli/bench-steps.ts

bench-quick:
	$(TSX) src/cli/bench-quick.ts

bench:
	python=$$(bash bin/setup-torch | tail -1); TORCH_PYTHON=$$python $(TSX) src/cli/bench.ts $(BENCH_ARGS)
	$(TSX) src/cli/bench-rewards.ts --requests 1000 $(REWARD_BENCH_ARGS)

# the reward service (docs/reward-service.md); SERVE_ARGS='--port 5057 --reward rlcer --group-size 8'
serve-rewards:
	$(TSX) src/cli/serve-rewards.ts $(SERVE_ARGS)

serve-llm:
	$(TSX) src/cli/serve-llm.ts $(LLM_ARGS)

bench-rewards:
	$(TSX) src/cli/bench-rewards.ts $(BENCH_ARGS)

clean-runs:
	rm -rf runs

# ---- the sensitivity pilot and campaign (docs/sensitivity.md; results/sensitivity/preregistration.md) ----
.PHONY: verifier-dose-preregister verifier-dose-campaign sparse-compounding sparse-criterion-forced verifier-dose-pilot sensitivity2-preregister sensitivity2-campaign sparse-criterion sparse-criterion-careful coldstart-wide sparse-regime-wide sensitivity-amend sparse-regime sensitivity-pilot sensitivity-preregister reproduce-sensitivity trace-split evolm-oracle
# the sparse-outcome regime's criterion on the cold start alone -> results/sensitivity/regime_criterion.csv
sparse-regime:
	$(TSX) src/cli/sparse-regime.ts
# RLVR and process_oracle, 3 seeds, both regimes, 300 steps read at 60 and 300 -> pilot.csv, power.csv
sensitivity-pilot:
	$(TSX) src/cli/sweep.ts submit --config sweeps/sensitivity-pilot.json $(EXECUTOR_FLAGS) --wait yes
	$(TSX) analysis/sensitivity.ts pilot
# the clean instrument's pilot in the default regime (docs/sensitivity.md, "The clean instrument"): its runs, the
# paired spreads that size the campaign, and every arm's early trajectory before (the first campaign's records) and after
sensitivity2-pilot:
	$(TSX) src/cli/sweep.ts submit --config sweeps/sensitivity2-pilot.json $(EXECUTOR_FLAGS) --wait yes
	$(TSX) analysis/sensitivity.ts pilot --config sweeps/sensitivity2-pilot.json --out results/sensitivity2
	$(TSX) analysis/trajectory.ts
# the clean instrument's pre-registration (default regime) and its campaign's sweeps, from the clean pilot's SDs and the
# first campaign's where the pilot has no horizon (committed before the campaign's first run); then the campaign
CAMPAIGN2_SWEEPS = sensitivity2-S-baseline.json,sensitivity2-M-baseline.json
# the verifier dose-response pilot (docs/verifier.md): its runs, then per level RLCER - RLVR and EvoLM - judge-only,
# the seeds rule on their spread and each level's verifier accuracy -> results/verifier-dose/
verifier-dose-pilot:
	$(TSX) src/cli/sweep.ts submit --config sweeps/verifier-dose-pilot.json $(EXECUTOR_FLAGS) --wait yes
	$(TSX) analysis/verifier-dose.ts pilot
# its pre-registration and sweeps from the pilot's tables (committed before the campaign's first run), then the campaign
DOSE_SWEEPS = verifier-dose-S.json,verifier-dose-S300.json
verifier-dose-preregister:
	$(TSX) analysis/verifier-dose.ts preregister
verifier-dose-campaign:
	$(TSX) src/cli/sweep.ts submit --config sweeps/verifier-dose-S.json $(EXECUTOR_FLAGS) --wait yes
	$(TSX) src/cli/sweep.ts submit --config sweeps/verifier-dose-S300.json $(EXECUTOR_FLAGS) --wait yes
sensitivity2-preregister:
	$(TSX) analysis/sensitivity2.ts preregister
sensitivity2-campaign:
	$(TSX) src/cli/sweep.ts submit --config sweeps/sensitivity2-S-baseline.json $(EXECUTOR_FLAGS) --wait yes
	$(TSX) src/cli/sweep.ts submit --config sweeps/sensitivity2-M-baseline.json $(EXECUTOR_FLAGS) --wait yes
# the pre-registration and the campaign's sweeps, from the pilot's SDs (committed before the campaign's first run)
sensitivity-preregister:
	$(TSX) analysis/sensitivity.ts preregister
# amendment 1 (results/sensitivity/amendment-1.md): the sparse regime's criterion read off the wide cold start, then
# the amendment and the amended sparse sweep
sparse-regime-wide:
	$(TSX) src/cli/sparse-regime.ts --rule amended --checkpoint data/checkpoints/coldstart-transformer-S-wide.json \
	  --out results/sensitivity/regime_criterion_wide.csv
sensitivity-amend:
	$(TSX) analysis/sensitivity.ts amend
# the confirmatory campaign as pre-registered: S (both regimes), then M; resumable, records archived as they finish
# (two sweeps side by side, one run each at a time: S-baseline then M on one core, the longer S-sparse on the other),
# then the analysis -> results/sensitivity/confirm
# (amendment 1: the sparse sweep is sensitivity-S-sparse-amended.json, with the cold start as a reference; kernels pinned to 2)
reproduce-sensitivity:
	(WORKBENCH_KERNELS=2 $(TSX) src/cli/sweep.ts submit --config sweeps/sensitivity-S-baseline.json $(EXECUTOR_FLAGS) --jobs 1 --wait yes && \
	  WORKBENCH_KERNELS=2 $(TSX) src/cli/sweep.ts submit --config sweeps/sensitivity-M-baseline.json $(EXECUTOR_FLAGS) --jobs 1 --wait yes) & \
	  WORKBENCH_KERNELS=2 $(TSX) src/cli/sweep.ts submit --config sweeps/sensitivity-S-sparse-amended.json $(EXECUTOR_FLAGS) --jobs 1 --wait yes; \
	  wait $$!
	$(TSX) analysis/sensitivity.ts confirm

# trace error, split (docs/sensitivity.md): what the campaign's records hold of each flaw, the positive controls'
# logged training rollouts split, and every arm's paired repeat share beside its trace error (exploratory)
trace-split:
	$(TSX) analysis/trace-split.ts
# the sparse regime's cold start (results/sensitivity/amendment-1.md): transformer-S, the committed cold start's SFT
# budget (4,500 steps, batch 64) on a mixture whose difficulties reach every column the sparse candidates need
coldstart-wide:
	$(TSX) src/cli/coldstart.ts --arch transformer --size S --seed 0 --resume yes --out runs/coldstart/transformer-S-wide \
	  --checkpoint data/checkpoints/coldstart-transformer-S-wide.json --config data/configs/coldstart-wide.json
# the clean instrument's sparse regime (results/sensitivity2/sparse-criterion.md): one SFT run of the wide cold start's
# settings, resumed at each candidate budget and checkpointed there (runs/coldstart/wide-budget-<steps>.json; Adam's
# state restored, so it is one run), then the criterion on those cold starts alone -> sparse-criterion.csv, and the
# chosen budget's checkpoint -> data/checkpoints/coldstart-transformer-S-wide-<steps>.json (--coldstart wide-<steps>)
SPARSE2_BUDGETS ?= 2000 2250 2500 2750 3000 3250 3500 3750 4000 4250 4500
sparse-criterion:
	for b in $(SPARSE2_BUDGETS); do [ -f runs/coldstart/wide-budget-$$b.json ] || \
	  $(TSX) src/cli/coldstart.ts --arch transformer --size S --seed 0 --resume yes --steps $$b \
	  --out runs/coldstart/transformer-S-wide-budget --checkpoint runs/coldstart/wide-budget-$$b.json \
	  --config data/configs/coldstart-wide.json; done
	$(TSX) src/cli/sparse-criterion.ts --budgets $$(echo $(SPARSE2_BUDGETS) | tr ' ' ,) \
	  --chosen-out 'data/checkpoints/coldstart-transformer-S-wide-{budget}.json'
# amendment 1 of the clean instrument's sparse regime (results/sensitivity2/sparse-criterion-careful.md): the same
# measure, criterion and rule on one SFT run of a careful mixture (systematic and verified traces only, no planted
# teacher error; data/configs/coldstart-careful.json) -> sparse-criterion-careful.csv, and the chosen budget's
# checkpoint -> data/checkpoints/coldstart-transformer-S-careful-<steps>.json (--coldstart careful-<steps>)
SPARSE2_CAREFUL_BUDGETS ?= 1000 1250 1500 1750 2000 2250 2500 2750 3000 3250 3500 3750 4000 4250 4500
sparse-criterion-careful:
	for b in $(SPARSE2_CAREFUL_BUDGETS); do [ -f runs/coldstart/careful-budget-$$b.json ] || \
	  $(TSX) src/cli/coldstart.ts --arch transformer --size S --seed 0 --resume yes --steps $$b \
	  --out runs/coldstart/transformer-S-careful-budget --checkpoint runs/coldstart/careful-budget-$$b.json \
	  --config data/configs/coldstart-careful.json; done
	$(TSX) src/cli/sparse-criterion.ts --budgets $$(echo $(SPARSE2_CAREFUL_BUDGETS) | tr ' ' ,) \
	  --checkpoints 'runs/coldstart/careful-budget-{budget}.json' --out results/sensitivity2/sparse-criterion-careful.csv \
	  --chosen-out 'data/checkpoints/coldstart-transformer-S-careful-{budget}.json'
# amendment 2 (results/sensitivity2/sparse-criterion-forced.md): amendment 1's cold starts, the per-step threshold read
# teacher-forced (each step given the right trace before it) -> sparse-criterion-forced.csv, and the chosen budget's
# checkpoint -> data/checkpoints/coldstart-transformer-S-careful-<steps>.json
sparse-criterion-forced:
	$(TSX) src/cli/sparse-criterion.ts --budgets $$(echo $(SPARSE2_CAREFUL_BUDGETS) | tr ' ' ,) --step-measure forced \
	  --checkpoints 'runs/coldstart/careful-budget-{budget}.json' --out results/sensitivity2/sparse-criterion-forced.csv \
	  --chosen-out 'data/checkpoints/coldstart-transformer-S-careful-{budget}.json'
# amendment 2's compounding check: the pass beside the product of the known-step probabilities -> compounding.csv
sparse-compounding:
	$(TSX) analysis/sparse-compounding.ts
# EvoLM's exact-judge rows at Table 2's full profile, S, 3 seeds, on kernel generation 1 (the committed EvoLM rows')
evolm-oracle:
	WORKBENCH_KERNELS=1 $(TSX) src/cli/table2.ts --profile full --methods evolm-oracle --sizes S $(EXECUTOR_FLAGS)

# TRL's GRPOTrainer trains a tiny random model through the reward service (RLCER, groups of num_generations):
# python/examples/trl_grpo.py in the Python clients' environment (.venv-clients, made by make setup);
# EXAMPLE_ARGS='--url http://127.0.0.1:5057' uses a running service. docs/reward-service.md
.PHONY: example-trl settings-doc
example-trl:
	bash bin/setup-python-clients
	TRL_EXPERIMENTAL_SILENCE=1 .venv-clients/bin/python python/examples/trl_grpo.py $(EXAMPLE_ARGS)

# every environment variable the code reads, in one table (analysis/settings.ts -> docs/settings.md)
settings-doc:
	$(TSX) analysis/settings.ts
