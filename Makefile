# Developer entry points. `make test` is the README's test command and what CI runs.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: test lint envs sysdeps unit fuzz reference bench clean

test: lint envs sysdeps ## everything CI runs: lint, type check, the real environments, the whole suite
	$(BIN)/python -m pytest -ra

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -qq --upgrade pip
	$(BIN)/python -m pip install -qq -e '.[test]'
	touch $@

lint: $(BIN)/.installed ## ruff (lint + format) and mypy --strict on the package
	$(BIN)/ruff check ipex_doctor tests benchmarks checks tools
	$(BIN)/ruff format --check ipex_doctor tests benchmarks checks tools
	$(BIN)/mypy

envs: $(BIN)/.installed ## build (or reuse) the real test environments, see tests/testenvs.py
	$(BIN)/python tests/testenvs.py

# Debian packages the tests use when present: headless Chromium renders the HTML report;
# libze1 is the Level Zero loader whose real zeInit the Intel GPU ladder reports; qemu-user runs
# an examined interpreter on an emulated CPU class this machine lacks (no AVX2).
SYSDEPS := chromium-headless-shell libze1 qemu-user
sysdeps: ## install the Debian packages the tests use (as root with apt), else say what is missing
	@missing=$$(for p in $(SYSDEPS); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	else \
	  echo "missing Debian packages: $$missing (sudo apt-get install $$missing);" \
	       "the tests that need them are skipped, and fail when CI is set"; \
	fi

unit: $(BIN)/.installed ## the tests that need no real environment (seconds)
	$(BIN)/python -m pytest -ra -m "not envs and not slow"

# The property tests with fresh random draws and 25 times their examples (the suite itself
# repeats the same draws on every run): run it before a release and turn what it finds into
# an explicit case.
fuzz: $(BIN)/.installed ## look for new counterexamples to the property tests (minutes)
	IPEX_DOCTOR_FUZZ=25 $(BIN)/python -m pytest -q -m "not envs and not slow" \
	  $$(grep -rl --include='*.py' '@given' tests)

bench: envs ## the benchmarks of benchmarks/, against their floors
	$(BIN)/python benchmarks/light_commands.py
	$(BIN)/python benchmarks/check_overhead.py

clean:
	rm -rf $(VENV) build dist .mypy_cache .ruff_cache .pytest_cache
