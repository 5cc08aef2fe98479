# Two commands do all the set-up on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml constraints.txt | cksum | cut -d' ' -f1)
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test bench system-deps venv clean

$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[test]'
	rm -f $(VENV)/.installed-*
	touch $@

venv: $(STAMP)

system-deps:
	./scripts/system-deps.sh

run: $(STAMP)
	$(BIN)/uvicorn app.main:app --host $(HOST) --port $(PORT) --loop asyncio

test: $(STAMP) system-deps
	$(BIN)/python -m pytest $(PYTEST_ARGS)

bench: $(STAMP) system-deps
	$(BIN)/python -m bench $(BENCH_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
