# Two entry points, each self-contained on a fresh machine:
#   make test  - venv + dev install, then ruff, mypy --strict, pytest
#   make demo  - venv + local judge install, then `fairjudge compare` on the example set
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip

.PHONY: test lint typecheck pytest demo clean clean-store

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip

$(VENV)/.dev-installed: $(BIN)/python pyproject.toml
	$(PIP) install -q -e '.[dev]'
	touch $@

$(VENV)/.demo-installed: $(BIN)/python pyproject.toml
	$(PIP) install -q -e '.[local]'
	touch $@

lint: $(VENV)/.dev-installed
	$(BIN)/ruff check src tests benchmarks tools
	$(BIN)/ruff format --check src tests benchmarks tools

typecheck: $(VENV)/.dev-installed
	$(BIN)/mypy src/fairjudge

# One worker per core; --dist loadscope keeps each module's tests on one worker, so a
# module's shared fixtures (a fork server, a timed uninterrupted run) are made once.
#
# Ray (the Ray executor's tests) binds the machine's external address unless it runs in
# a network namespace that has only loopback. So as root, where `unshare -n` works,
# pytest runs in a fresh one with lo up: Ray, the test HTTP servers (127.0.0.1) and the
# headless browser all live on loopback, and no test can reach the network. Elsewhere
# pytest runs as before and the Ray tests skip, saying how to run them.
PYTEST := $(BIN)/pytest -q -n auto --dist loadscope
pytest: $(VENV)/.dev-installed
	@if [ "$$(id -u)" = 0 ] && command -v ip >/dev/null && unshare -n true 2>/dev/null; then \
		echo "pytest in a loopback-only network namespace (unshare -n)"; \
		RAY_DISABLE_USAGE_STATS=1 unshare -n sh -c 'ip link set lo up && exec $(PYTEST)'; \
	else \
		$(PYTEST); \
	fi

test: lint typecheck pytest

# The install is editable, so nothing compiles the sources ahead of time, and where
# PYTHONDONTWRITEBYTECODE is set every run would compile them again (0.15-0.2 s):
# compile what changed (fast when nothing did).
demo: $(VENV)/.demo-installed
	$(BIN)/python -m compileall -q src/fairjudge
	$(BIN)/fairjudge compare examples/demo_pairs.jsonl --rule soft \
		--out .fairjudge/demo_results.jsonl --html .fairjudge/demo_report.html

# The store (.fairjudge/) is the audit log of every paid judge call: `clean` keeps it.
clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
	@echo "kept .fairjudge/ (the store: cache and audit log); 'make clean-store' deletes it"

clean-store:
	@echo "deleting .fairjudge/: every stored judge call, the cache and the audit log"
	rm -rf .fairjudge
