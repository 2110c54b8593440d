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
PYTEST      := PYTHONPATH=$(COLLECTIONS) ANSIBLE_COLLECTIONS_PATH=$(COLLECTIONS) $(BIN)/python -m pytest

INSTALLED   := $(abspath $(BUILD)/installed)

.PHONY: test venv link units simulator functional sanity lint artifact bench clean

test: units simulator functional sanity lint artifact

$(BIN)/.installed: requirements/dev.in requirements/constraints.txt requirements.txt
	$(shell command -v $(PYTHON) >/dev/null 2>&1 && echo $(PYTHON) || echo python3) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements/dev.in -c requirements/constraints.txt
	touch $@

venv: $(BIN)/.installed

link:
	@mkdir -p $(dir $(LINKED))
	@ln -sfn $(CURDIR) $(LINKED)

units: venv link
	$(PYTEST) tests/unit

simulator: venv link
	$(PYTEST) tests/simulator

functional: venv link
	$(PYTEST) tests/functional

# Sanity runs in per-test virtual environments; the pip bootstrap they need is seeded
# locally (tools/get_pip_offline.py) because ansible-test's download host is unreachable.
sanity: venv
	@mkdir -p $(dir $(GET_PIP))
	@test -s $(GET_PIP) || cp tools/get_pip_offline.py $(GET_PIP)
	rm -rf $(SANITY_ROOT) && mkdir -p $(SANITY_COPY)
	tar -C $(CURDIR) --exclude=./$(VENV) --exclude=./$(BUILD) --exclude=./.git --exclude=./tests/output -cf - . \
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
	BM_COLLECTIONS_PATH=$(INSTALLED) $(BIN)/python -m pytest tests/functional/test_ts_input.py

# Benchmarks are not part of `make test`.
bench: venv
	$(BIN)/python -m tests.simulator.bench_latency

clean:
	rm -rf $(BUILD) tests/output
