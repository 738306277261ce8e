# The course's entry points.  `make help` lists them.
#
#   make lab                 set up .venv if needed, then open JupyterLab on the course
#   make test                set up .venv if needed, then run the whole test suite
#   make test SLOW=false     skip the tests that run real nbgrader / execute notebooks
#
# Torch is installed first and pinned (TORCH_VERSION), so that the `torch>=2.4`
# requirement of the package never pulls a different build.  On a machine whose
# default index serves only CUDA builds, pass the CPU index, for example
#   make lab TORCH_PIP_ARGS="--index-url https://download.pytorch.org/whl/cpu"

PYTHON ?= python3
# A shared environment (a JupyterHub's, installed by its administrator) is used as it is, never written:
# `export TORCH_LEDGER_ENV=/opt/torch-ledger` (or make ... TORCH_LEDGER_ENV=...).  Without it, make builds
# .venv here (about 2 GB: torch, nbgrader, JupyterLab).
TORCH_LEDGER_ENV ?=
# Without it, and without a .venv here, a `python3` on PATH that already has torch, nbgrader and the course package
# (a hub's environment put first on PATH by its spawner) is that shared environment: make uses it as it is.
FOUND_ENV := $(if $(TORCH_LEDGER_ENV)$(wildcard .venv/bin/python),,$(shell cd / && $(PYTHON) -c "import importlib.util as u, sys; print(sys.prefix if all(u.find_spec(m) for m in ('torch', 'nbgrader', 'autograder')) else '')" 2>/dev/null))
SHARED_ENV := $(or $(TORCH_LEDGER_ENV),$(FOUND_ENV))
VENV ?= $(if $(SHARED_ENV),$(SHARED_ENV),.venv)
BIN := $(VENV)/bin
TORCH_VERSION ?= 2.13.0
TORCH_PIP_ARGS ?=
SLOW ?= true
BROWSER ?= true
# pytest workers for `make test`: one per core.  The suite keeps both cores busy with one worker each (99 % of
# the machine's CPU); a third worker on two cores made every test slower and the whole run 12 % more CPU.
WORKERS ?= $(shell nproc 2>/dev/null || echo 2)
# pytest workers for `make check`: one per core (its tests never wait; each worker imports torch once).
CHECK_WORKERS ?= $(shell nproc 2>/dev/null || echo 2)
PYTEST_ARGS ?=
PORT ?= 8888

export PATH := $(abspath $(BIN)):$(PATH)

# A full run judges the bug catalogues through real nbgrader; SLOW=false judges them in process instead.
MARKERS :=
ifeq ($(SLOW),false)
MARKERS += not slow
else
MARKERS += not inprocess
endif
ifeq ($(BROWSER),false)
MARKERS += $(if $(strip $(MARKERS)),and) not browser
endif
MARK_ARGS := $(if $(strip $(MARKERS)),-m "$(strip $(MARKERS))")

.DEFAULT_GOAL := help
.PHONY: help venv lab test lint release lessons clean

help:  ## list the targets
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-14s %s\n", $$1, $$2}'

$(VENV)/.installed: pyproject.toml
	@if [ -n "$$JUPYTERHUB_USER" ] && [ ! -x $(BIN)/python ]; then \
		echo "make will not build $(VENV) under JupyterHub (about 2 GB in your course folder): use the hub's environment." \
		     "Put its bin/ first on PATH or set TORCH_LEDGER_ENV (the README, 'Grading on a JupyterHub'); ask the hub's" \
		     "administrator if there is none."; exit 2; fi
	@test -x $(BIN)/python || echo "creating $(VENV) in $(CURDIR) (about 2 GB); set TORCH_LEDGER_ENV to use a shared environment instead"
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q "torch==$(TORCH_VERSION)" $(TORCH_PIP_ARGS)
	$(BIN)/python -m pip install -q -e ".[dev]"
	# jsonschema's optional IRI checker builds ~35 Earley parsers when it is imported (2 s in every
	# process that imports nbformat: nbgrader, JupyterLab, each grading worker); no notebook or Jupyter
	# schema uses the IRI formats, and jsonschema runs without it.
	$(BIN)/python -m pip uninstall -q -y rfc3987-syntax
	$(BIN)/python -c "import torch, nbgrader, autograder; print('torch', torch.__version__, '| nbgrader', nbgrader.__version__)"
	touch $@

ifeq ($(strip $(SHARED_ENV)),)
venv: $(VENV)/.installed  ## create .venv (torch first, pinned) and install the course package
else
venv:  ## with a shared environment (TORCH_LEDGER_ENV, or python3 on PATH): check it, never install into it
	@$(BIN)/python -c "import torch, nbgrader, autograder" 2>/dev/null || { \
		echo "the shared environment $(SHARED_ENV): its python cannot import torch, nbgrader and autograder;" \
		     "ask its administrator to install the course package into it (see the README, 'Grading on a JupyterHub')"; exit 2; }
endif

# JupyterLab refuses to run as root without --allow-root; many learners run the course in a
# container as root.  LAB_ARGS passes more options (for example LAB_ARGS=--no-browser).
LAB_ARGS ?=
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root)

lab: venv  ## open JupyterLab on the course's start page (http://localhost:$(PORT))
	$(BIN)/jupyter lab --ServerApp.root_dir=$(CURDIR) --port=$(PORT) $(ALLOW_ROOT) $(LAB_ARGS) course/00-start.ipynb

test: export MPLBACKEND := Agg
test: venv  ## run the whole test suite (SLOW=false / BROWSER=false to narrow it)
	$(BIN)/python -m pytest -n $(WORKERS) --dist loadscope --no-loadscope-reorder $(MARK_ARGS) $(PYTEST_ARGS)

.PHONY: check
check: export MPLBACKEND := Agg
check: venv  ## the inner loop (under a minute): learner layer, one module's checks (MODULE=04), coordinator, worker, repo rules
	$(BIN)/python -m pytest -m check -n $(CHECK_WORKERS) --check-module $(if $(filter file,$(origin MODULE)),04,$(MODULE)) $(PYTEST_ARGS)

lint: venv  ## ruff over the package, the tests and the notebooks
	$(BIN)/ruff check .

MODULE ?= $(notdir $(patsubst %/,%,$(wildcard solutions/*/)))

release: venv  ## regenerate exercises/ from solutions/ with nbgrader (MODULE=01-tensors for one)
	@tmp=$$(mktemp -d); \
	for id in $(MODULE); do \
		COURSE_DB_URL=sqlite:///$$tmp/gradebook.db \
			$(BIN)/nbgrader generate_assignment $$id --force --log-level=WARN || exit 1; \
	done; rm -rf $$tmp

# Run every lesson top to bottom into OUT (for a static site, or to check the lessons in your own CI), with the
# course's kernel client: `jupyter nbconvert --execute` can sit out a cell's whole timeout (see the README).
OUT ?= build/lessons
lessons: export MPLBACKEND := Agg
lessons: venv  ## run every lesson top to bottom, outputs included, into OUT (default build/lessons)
	$(BIN)/python -m autograder execute-lessons --out $(OUT)

clean:  ## remove caches and nbgrader's working folders (keeps .venv)
	rm -rf .pytest_cache .ruff_cache submitted autograded feedback gradebook.db reports grades.csv
	find . -name __pycache__ -not -path './$(VENV)/*' -prune -exec rm -rf {} +

# --- cohort
# The instructors' cohort commands (python -m autograder ...), run on this course directory.
#   make collect ASSIGNMENT=01-tensors     (from nbgrader's exchange; FROM=~/Downloads/submissions.zip: an LMS download)
#   make grade ASSIGNMENT=01-tensors [WORKERS=8] [SANDBOX=auto|bwrap|off]
#   make feedback ASSIGNMENT=01-tensors ; make export ; make report ASSIGNMENT=01-tensors
ASSIGNMENT ?= 01-tensors
FROM ?=
SANDBOX ?= auto
COHORT_DIR ?= cohort
# WORKERS is honoured when given on the command line or in the environment; otherwise grade uses every core.
GRADE_WORKERS = $(if $(filter command line environment,$(origin WORKERS)),--workers $(WORKERS))
# PYTHONSAFEPATH: the environment's installed package, the one its nbgrader imports, never this folder's own
# autograder/ by accident (grade warns when the two differ).
AUTOGRADER := PYTHONSAFEPATH=1 $(BIN)/python -m autograder

.PHONY: collect grade feedback export similarity report demo-cohort bench-grade bench-checks

collect: venv  ## nbgrader's exchange -> submitted/, forged submissions refused (ASSIGNMENT=); FROM=download.zip: an LMS download
	$(AUTOGRADER) collect $(ASSIGNMENT) $(if $(FROM),--from "$(FROM)")

grade: venv  ## autograde every submission, sandboxed and parallel (ASSIGNMENT=, WORKERS=, SANDBOX=, FORCE=1)
	$(AUTOGRADER) grade $(ASSIGNMENT) $(GRADE_WORKERS) --sandbox $(SANDBOX) $(if $(FORCE),--force)

feedback: venv  ## per-student HTML feedback without test code (ASSIGNMENT=)
	$(AUTOGRADER) feedback $(ASSIGNMENT)

FORMAT ?= csv
export: venv  ## grades.csv (nbgrader export), or FORMAT=canvas|moodle ROSTER=lms-roster.csv [MATCH=column] [MISSING=zero]
	$(AUTOGRADER) export --format $(FORMAT) $(if $(ROSTER),--roster $(ROSTER)) $(if $(MATCH),--match "$(MATCH)") $(if $(MISSING),--missing $(MISSING))

similarity: venv  ## answers that look copied: an HTML page of unusually alike pairs (ASSIGNMENT=)
	$(AUTOGRADER) similarity $(ASSIGNMENT)

report: venv  ## cohort analytics: outcomes, frequent diagnoses, flags (ASSIGNMENT=)
	$(AUTOGRADER) report $(ASSIGNMENT)

demo-cohort: venv  ## a synthetic cohort in ./cohort taken through collect, grade, feedback, export, report
	$(AUTOGRADER) demo-cohort --dir $(COHORT_DIR) --module $(ASSIGNMENT) $(GRADE_WORKERS) --sandbox $(SANDBOX)

bench-checks: venv  ## each visible check cell's time per module (p50/p95/max), every exercise run with its solution
	MPLBACKEND=Agg $(AUTOGRADER) bench-checks --repeat 2 --out artifacts/bench-checks.json

bench-grade: venv  ## stock and course-configured serial nbgrader vs grade --workers 2 (sandbox on), 24 students; MODULES="01-tensors 04-five-line-step"
	$(AUTOGRADER) bench-grade $(foreach m,$(or $(MODULES),$(ASSIGNMENT)),--module $(m)) --students 24 --workers $(if $(filter command line environment,$(origin WORKERS)),$(WORKERS),2) --sandbox $(if $(filter command line environment,$(origin SANDBOX)),$(SANDBOX),bwrap) --out artifacts/bench-grade-{module}.json
