# broadcast.monitoring — build and test. A fresh machine needs only Python 3.11 and pip.
# `make test` runs every suite; CI (.ci/run) calls exactly that.

PYTHON      ?= python3.11
VENV        := .venv
BIN         := $(VENV)/bin
BUILD       := build
# Ansible finds the collection at <path>/ansible_collections/broadcast/monitoring.
COLLECTIONS := $(abspath $(BUILD)/collections)
LINKED      := $(COLLECTIONS)/ansible_collections/broadcast/monitoring
# ansible-test wants a real copy at such a path (it resolves symlinks), outside this git
# work tree (inside it, git would hide the ignored copy from ansible-test).
SANITY_ROOT := $(HOME)/.cache/broadcast.monitoring/sanity-$(notdir $(CURDIR))
SANITY_COPY := $(SANITY_ROOT)/ansible_collections/broadcast/monitoring
GET_PIP     := $(HOME)/.ansible/test/cache/get_pip_24_2.py
# The simulator (simulator/, the bm-simulator distribution) is installed editable in the venv;
# SIMULATOR first on PYTHONPATH makes every suite, and every child process a test starts, run this
# tree's copy even when the venv is shared between work trees.
SIMULATOR   := $(CURDIR)/simulator/src
PYTEST      := PYTHONPATH=$(COLLECTIONS):$(SIMULATOR) ANSIBLE_COLLECTIONS_PATH=$(COLLECTIONS) $(BIN)/python -m pytest

INSTALLED   := $(abspath $(BUILD)/installed)

.PHONY: demo test venv link units simulator functional reliability suites sanity lint artifact bench bench-cost clean

test: units simulator suites sanity lint galaxy-importer artifact docs-lint docs changelog-lint ee molecule eda

$(BIN)/.installed: requirements/dev.in requirements/constraints.txt
	$(shell command -v $(PYTHON) >/dev/null 2>&1 && echo $(PYTHON) || echo python3) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements/dev.in -c requirements/constraints.txt
	touch $@

# The simulator as users install it (pip install ./simulator), editable: its command bm-simulator.
$(BIN)/.installed-simulator: $(BIN)/.installed simulator/pyproject.toml
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e ./simulator -c requirements/constraints.txt
	touch $@

venv: $(BIN)/.installed $(BIN)/.installed-simulator

link:
	@mkdir -p $(dir $(LINKED))
	@ln -sfn $(CURDIR) $(LINKED)

units: venv link
	$(PYTEST) tests/unit

# The simulator's own tests (its pyproject.toml puts simulator/src first on the path).
simulator: venv
	$(BIN)/python -m pytest simulator/tests

functional: venv link
	$(PYTEST) tests/functional

# Faults, bad input, secrets, check mode and idempotency at scale; writes docs/reliability.md.
reliability: venv link
	BM_WRITE_REPORT=1 $(PYTEST) tests/reliability

# The functional suite in two shards (tests/functional/shards.py), the reliability suite and the
# ansible-core version matrix (`make matrix`), side by side: each is mostly one ansible-playbook at
# a time, so on two cores the four take little longer than the longest alone. `make functional`
# runs the functional suite whole.
suites: venv link fleet-status-tools
	@mkdir -p $(BUILD)/logs
	@echo "functional (2 shards) and reliability suites (logs in $(BUILD)/logs)"
	@BM_SHARD=1/2 $(PYTEST) tests/functional > $(BUILD)/logs/functional-1.log 2>&1 & f1=$$!; \
	BM_SHARD=2/2 $(PYTEST) tests/functional > $(BUILD)/logs/functional-2.log 2>&1 & f2=$$!; \
	$(PYTEST) tests/reliability > $(BUILD)/logs/reliability.log 2>&1 & r=$$!; \
	$(MATRIX_RUN) > $(BUILD)/logs/matrix.log 2>&1 & m=$$!; \
	wait $$f1; s1=$$?; wait $$f2; s2=$$?; wait $$r; rs=$$?; wait $$m; ms=$$?; \
	for suite in functional-1:$$s1 functional-2:$$s2 reliability:$$rs matrix:$$ms; do \
	  name=$${suite%%:*}; code=$${suite##*:}; echo "--- $$name: exit $$code"; \
	  if [ $$code -eq 0 ]; then tail -n 3 $(BUILD)/logs/$$name.log; else cat $(BUILD)/logs/$$name.log; fi; \
	done; \
	test $$s1 -eq 0 && test $$s2 -eq 0 && test $$rs -eq 0 && test $$ms -eq 0

# The real readers of the fleet status files (tests/functional/test_fleet_status.py): headless
# Chromium renders fleet-status.html, promtool checks fleet-status.prom and the guide's alert rule.
# Debian packages, installed as root with apt-get when missing; else the tests say why they skip.
.PHONY: fleet-status-tools
fleet-status-tools:
	@if command -v chromium >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium prometheus; \
	else echo "the fleet status tests need headless Chromium and promtool: install Debian's chromium and prometheus packages (as root: apt-get install chromium prometheus); tests/functional/test_fleet_status.py skips what needs them"; fi

# ansible-test's shellcheck test is skipped silently without shellcheck: install it (Debian
# package, as root with apt-get) when it is missing, else say so.
.PHONY: shellcheck
shellcheck:
	@command -v shellcheck >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    (apt-get install -y -q shellcheck || (apt-get update -q && apt-get install -y -q shellcheck)) >/dev/null; \
	  else echo "shellcheck is missing and cannot be installed here: ansible-test sanity skips its shellcheck test"; fi; }

# Sanity runs in per-test virtual environments; the pip bootstrap they need is seeded
# locally (tools/get_pip_offline.py) because ansible-test's download host is unreachable.
sanity: venv shellcheck get-pip
	rm -rf $(SANITY_ROOT) && mkdir -p $(SANITY_COPY)
	tar -C $(CURDIR) --exclude=./$(VENV) --exclude=./$(BUILD) --exclude=./.git --exclude=./.hypothesis --exclude=./tests/output --exclude='*.egg-info' -cf - . \
	  | tar -C $(SANITY_COPY) -xf -
	cd $(SANITY_COPY) && $(CURDIR)/$(BIN)/ansible-test sanity --venv --python 3.11 --color no

lint: venv link
	PATH=$(CURDIR)/$(BIN):$$PATH ANSIBLE_COLLECTIONS_PATH=$(COLLECTIONS) ansible-lint --offline

# Build the collection as Galaxy would, install the tarball, and run functional tests
# against the installed copy: a file missing from the artifact fails here.
artifact: venv
	rm -rf $(BUILD)/dist $(INSTALLED) && mkdir -p $(BUILD)/dist
	$(BIN)/ansible-galaxy collection build --output-path $(BUILD)/dist .
	$(BIN)/ansible-galaxy collection install --offline -p $(INSTALLED) $(BUILD)/dist/broadcast-monitoring-*.tar.gz
	ANSIBLE_COLLECTIONS_PATH=$(INSTALLED) $(BIN)/ansible-doc broadcast.monitoring.ts_input > /dev/null
	BM_COLLECTIONS_PATH=$(INSTALLED) $(BIN)/python -m pytest tests/functional/test_ts_input.py tests/functional/test_fm_tuner.py \
	  tests/functional/test_role_backup.py

# A simulated fleet configured, audited and backed up end to end (README, "Demo").
demo: venv link
	tools/demo.sh

# Benchmarks are not part of `make test`. The fleet benchmark (tests/benchmarks) writes
# docs/performance.{json,md,png}; options pass through, e.g. `make bench BENCH_ARGS=--quick`.
# The distributed one (tests/benchmarks/distributed.py: one controller against AWX-style slices
# through ansible-runner's streaming pipeline, 1,000 devices) writes docs/performance-distributed.json
# and its section of docs/performance.md; e.g. DISTRIBUTED_ARGS="--devices 100 --slices 2".
# The cost benchmark (tests/benchmarks/cost.py, issue 44) runs first: CPU per device of the
# idempotent site.yml against one set_fact task over the same hosts, paired, at 10 to 1,000
# devices; it exits 2 when a run fails or changes a device. Alone: `make bench-cost`, and
# `make bench-cost COST_ARGS=--quick` (10 and 50 devices, a minute, results under build/bench).
BENCH_ARGS ?=
COST_ARGS ?=
DISTRIBUTED_ARGS ?=
bench: venv link
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements/bench.in \
	  -c requirements/constraints.txt -c requirements/constraints-docs.txt -c requirements/constraints-bench.txt
	$(BIN)/python -m tests.benchmarks.cost $(COST_ARGS)
	PYTHONPATH=$(SIMULATOR) $(BIN)/python -m tests.benchmarks.simulator_latency
	$(BIN)/python -m tests.benchmarks $(BENCH_ARGS)
	$(BIN)/python -m tests.benchmarks.distributed $(DISTRIBUTED_ARGS)

bench-cost: venv link
	$(BIN)/python -m tests.benchmarks.cost $(COST_ARGS)

clean:
	rm -rf $(BUILD) tests/output

# --- Documentation, changelog, execution environment, ansible-core range (issue 10) -------
# The docs/changelog/EE/runner tools come from requirements/docs.in, installed with `venv`.
DOCS        := $(BUILD)/docs
EE_CONTEXT  := $(BUILD)/ee
MATRIX      := 2.16 2.17 2.18 2.19 2.20 2.21

.PHONY: docs docs-lint changelog changelog-lint ee test-matrix

venv: $(BIN)/.installed-docs

$(BIN)/.installed-docs: $(BIN)/.installed requirements/docs.in requirements/constraints-docs.txt
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements/docs.in \
	  -c requirements/constraints.txt -c requirements/constraints-docs.txt
	touch $@

# Module and role documentation (argument specs, EXAMPLES, RETURN) and docs/docsite links.
docs-lint: venv link
	PATH=$(CURDIR)/$(BIN):$$PATH ANSIBLE_COLLECTIONS_PATH=$(COLLECTIONS) $(BIN)/antsibull-docs lint-collection-docs --plugin-docs .

# HTML site: module and role pages from their own docs plus the guides in docs/docsite/rst.
# Offline: DOCS_OFFLINE empties intersphinx (docs/site/conf.py). Output: build/docs/html.
docs: venv link
	rm -rf $(DOCS) && mkdir -p $(DOCS)/rst && chmod 755 $(DOCS) && chmod og-w $(DOCS)/rst
	cp docs/site/rst/index.rst $(DOCS)/rst/
	cp CHANGELOG.rst $(DOCS)/rst/changelog.rst  # the landing page links it as "Release notes"
	PATH=$(CURDIR)/$(BIN):$$PATH ANSIBLE_COLLECTIONS_PATH=$(COLLECTIONS) $(BIN)/antsibull-docs \
	  --config-file docs/site/antsibull-docs.cfg collection --use-current --fail-on-error \
	  --dest-dir $(DOCS)/rst broadcast.monitoring
	DOCS_OFFLINE=1 $(BIN)/sphinx-build -q -W --keep-going -b html -c docs/site $(DOCS)/rst $(DOCS)/html
	@echo "docs: $(DOCS)/html/index.html"

# Fragments are valid, and CHANGELOG.rst is what changelogs/ generates (unreleased 0.1.0).
changelog-lint: venv
	$(BIN)/antsibull-changelog lint
	$(BIN)/python tools/changelog.py --check

changelog: venv
	$(BIN)/python tools/changelog.py

# Execution environment build context (Containerfile + requirements); no container engine. The
# check: every pip and ansible-galaxy step of the Containerfile runs with the python_interpreter
# of execution-environment.yml, whose version the pinned ansible-core admits (tools/check_ee.py).
ee: venv
	rm -rf $(EE_CONTEXT) && mkdir -p $(BUILD)/dist
	$(BIN)/ansible-galaxy collection build --force --output-path $(BUILD)/dist .
	$(BIN)/ansible-builder create -f execution-environment.yml -c $(EE_CONTEXT) --output-filename Containerfile
	! test -e $(EE_CONTEXT)/_build/requirements.txt  # the modules need no Python package beyond ansible-core
	ls $(EE_CONTEXT)/_build/collections/broadcast-monitoring-*.tar.gz
	$(BIN)/python tools/check_ee.py execution-environment.yml $(EE_CONTEXT)/Containerfile

# --- The ansible-core version matrix (issues 10, 41) ---------------------------------------
# tools/test_matrix.py, with each ansible-core release line requires_ansible admits (one venv each
# in build/matrix, pinned in requirements/matrix/; 2.19 is the project's .venv), against a small
# simulated fleet each: site.yml twice, audit (0 writes), backup, restore, validate, a module in
# check and diff mode, in both execution modes from 2.19 on, and ansible-doc of every plugin and
# role; with MATRIX_UNITS / MATRIX_SANITY, ansible-test units / sanity (--venv) with those lines.
# The README's version table must be what the run proves (`make matrix-readme` writes it).
# Part of `make test` through `make suites`; its steps run MATRIX_JOBS at a time.
# 2.20 and later need Python 3.12 or later: MATRIX_PYTHONS lists those found (pyenv's, then
# PATH's), else `make matrix-python` builds CPython 3.13 from Debian's source package into
# build/python3.13 (about 4 minutes on 2 cores; 2.20 then runs on 3.13 as well, which the README
# check reports).
MATRIX_UNITS  ?= 2.19,2.21
MATRIX_SANITY ?= 2.21
MATRIX_JOBS   ?= 3
MATRIX_ARGS   ?=
PY313_PREFIX  := $(abspath $(BUILD)/python3.13)
PY313_BUILT   := $(PY313_PREFIX)/bin/python3.13
PY_SRC        := $(abspath $(BUILD)/python-src)
MATRIX_PYTHONS = $(shell for p in $(HOME)/.pyenv/versions/3.1[2-9].*/bin/python3.1[2-9] \
  $$(command -v python3.14 python3.13 python3.12 2>/dev/null) $(PY313_BUILT); do \
  test -x "$$p" && "$$p" -c 'import sys, ssl; sys.exit(sys.version_info < (3, 12))' 2>/dev/null && printf '%s:' "$$p"; done)
MATRIX_TOOL    = $(BIN)/python tools/test_matrix.py --pythons "$(MATRIX_PYTHONS)" --jobs $(MATRIX_JOBS)
MATRIX_RUN     = $(MATRIX_TOOL) --readme check --units "$(MATRIX_UNITS)" --sanity "$(MATRIX_SANITY)" $(MATRIX_ARGS) $(MATRIX)
.PHONY: matrix matrix-readme matrix-latest matrix-python get-pip
suites: matrix-python get-pip shellcheck
matrix: venv link matrix-python get-pip shellcheck
	$(MATRIX_RUN)

matrix-readme: venv link matrix-python
	$(MATRIX_TOOL) --readme write $(MATRIX)

test-matrix: matrix

# The same steps with the newest ansible-core on PyPI, whatever it is when run (build/matrix/latest,
# on the newest Python found): run it when a new ansible-core appears. Not in `make test`: its
# answer changes with PyPI.
matrix-latest: venv link matrix-python get-pip
	$(MATRIX_TOOL) --latest $(MATRIX_ARGS)

# A Python >= 3.12 for 2.20 and later, built only where none is found (a private apt source list:
# the machine's own Debian mirror, trixie's deb-src; the system's apt configuration is not touched).
matrix-python:
	@test -n "$(MATRIX_PYTHONS)" || $(MAKE) --no-print-directory $(PY313_BUILT)

$(PY313_BUILT):
	rm -rf $(PY_SRC) && mkdir -p $(PY_SRC)/lists/partial
	printf 'Types: deb-src\nURIs: %s\nSuites: trixie\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
	  "$$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/debian.sources | head -n 1)" > $(PY_SRC)/trixie-src.sources
	cd $(PY_SRC) && APT="-q -o Dir::Etc::sourcelist=$(PY_SRC)/trixie-src.sources -o Dir::Etc::sourceparts=/dev/null \
	  -o Dir::State::Lists=$(PY_SRC)/lists -o Dir::Cache=$(PY_SRC)/cache" && \
	  apt-get $$APT update && apt-get $$APT source --download-only python3.13
	tar -C $(PY_SRC) -xf $(PY_SRC)/python3.13_*.orig.tar.xz
	cd $(PY_SRC)/Python-3.13.* && ./configure --prefix=$(PY313_PREFIX) > configure.log && \
	  $(MAKE) -j2 > make.log 2>&1 && $(MAKE) install > install.log 2>&1
	$(PY313_BUILT) -c 'import ssl, sqlite3, ctypes, lzma, bz2'

# ansible-test downloads a pip bootstrap (get_pip_<pip version>.py) from a host we cannot reach:
# seed the offline stand-in (tools/get_pip_offline.py) for each version ansible-test asks for
# (2.16-2.19: pip 24.2; 2.20 and 2.21: pip 25.2; test_matrix.py adds any other it finds).
GET_PIPS := $(foreach pip,24_2 25_2,$(dir $(GET_PIP))get_pip_$(pip).py)
get-pip:
	@mkdir -p $(dir $(GET_PIP))
	@for file in $(GET_PIPS); do test -s $$file || cp tools/get_pip_offline.py $$file; done

# galaxy-importer 0.4.44 (its own venv: it pins its own ansible-lint) on the built tarball, with
# Automation Hub's checks (tools/galaxy-importer.cfg: ansible-lint on, offline); any ERROR or
# WARNING line fails. In `make test`, after the suites, when the machine is otherwise idle: the
# importer gives ansible-lint a fixed 180 s, which its ~30 s of CPU time meet there (measured:
# 29 s of CPU; 3 min 44 s of wall time on a shared machine with a load of 15, which timed out).
GI_VENV := $(BUILD)/galaxy-importer
.PHONY: galaxy-importer
galaxy-importer:
	test -e $(GI_VENV)/.installed || { $(PYTHON) -m venv $(GI_VENV) && \
	  $(GI_VENV)/bin/python -m pip install --quiet --disable-pip-version-check galaxy-importer==0.4.44 && \
	  touch $(GI_VENV)/.installed; }
	rm -rf $(BUILD)/dist-importer && mkdir -p $(BUILD)/dist-importer
	$(GI_VENV)/bin/ansible-galaxy collection build --output-path $(BUILD)/dist-importer .
	cd $(BUILD)/dist-importer && env -u PYTHONPATH PATH=$(abspath $(GI_VENV))/bin:$$PATH \
	  GALAXY_IMPORTER_CONFIG=$(CURDIR)/tools/galaxy-importer.cfg $(abspath $(GI_VENV))/bin/python -m galaxy_importer.main \
	  broadcast-monitoring-*.tar.gz > importer.log 2>&1; code=$$?; cat importer.log; \
	  test $$code -eq 0 && ! grep -E "ERROR|WARNING" importer.log

# --- Molecule scenarios of the roles (issue 7) ---------------------------------------------
# Every scenario in extensions/molecule/*/ (shared/ holds their common prepare and cleanup):
# each starts its own simulated fleet on its own loopback addresses and port, converges,
# checks idempotence, verifies and stops the fleet. prerun: false in each scenario and the
# collections path below keep molecule from copying the collection into ~/.ansible.
.PHONY: molecule
molecule: venv link
	PATH=$(CURDIR)/$(BIN):$$PATH PYTHONPATH=$(SIMULATOR) ANSIBLE_COLLECTIONS_PATH=$(COLLECTIONS) ANSIBLE_NOCOLOR=1 \
	  $(BIN)/molecule test --all

# --- Event-Driven Ansible (issue 34) -------------------------------------------------------
# ansible-rulebook (pinned) in its own venv, since its dependencies need not agree with the main
# venv's pins; it needs Java 17: Debian's openjdk-17-jre-headless, installed here only as root.
# tests/eda: the event source against the simulator (no Java), then one rulebook end to end
# (about a minute: a JVM, one poll cycle and one ansible-playbook run).
EDA_VENV    := $(BUILD)/eda-venv
.PHONY: eda eda-venv
$(EDA_VENV)/.installed: requirements/constraints.txt
	$(shell command -v $(PYTHON) >/dev/null 2>&1 && echo $(PYTHON) || echo python3) -m venv $(EDA_VENV)
	$(EDA_VENV)/bin/python -m pip install --quiet --disable-pip-version-check ansible-rulebook==1.3.2 \
	  "$$(grep '^ansible-core==' requirements/constraints.txt)"
	touch $@

eda-venv: $(EDA_VENV)/.installed
	@command -v java >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless; \
	  else echo "ansible-rulebook needs a Java 17 runtime: install openjdk-17-jre-headless (as root: apt-get install openjdk-17-jre-headless); tests/eda's end-to-end tests are skipped without it"; fi; }

eda: venv link eda-venv
	BM_EDA_BIN=$(abspath $(EDA_VENV))/bin $(PYTEST) tests/eda
