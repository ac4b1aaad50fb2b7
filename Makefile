# attention-viz — build, serve, test. Every target installs what it needs first.
PORT ?= 8000
WASM := target/wasm32-unknown-unknown/release/attention_viz.wasm

.PHONY: setup build serve test test-native test-wasm test-types test-e2e test-python python-tests test-models models-tests bench dist clean screenshots wheel python-wheel

# www/pkg/: the core, its wasm-bindgen glue and the shipped models' file (scripts/models.mjs; not in the .wasm).
build:
	@scripts/setup.sh build
	cargo build --release --target wasm32-unknown-unknown
	wasm-bindgen --target web --omit-default-module-path --out-dir www/pkg $(WASM)
	node scripts/models.mjs www/pkg/attention_viz_models.bin

# The pages as a site serves them: dist/'s built, minified modules, each preset's picture first (scripts/serve.mjs --built).
serve: dist
	node scripts/serve.mjs --port $(PORT) --built

# scripts/test.mjs: the build (make dist, then make python-wheel: the notebook tests install the wheel; each bundle is
# built once; .venv is made beside the compile), then every suite below even when one fails, then a summary (per suite:
# pass/fail/skip counts, wall time); exits 1 if any failed.
test:
	@scripts/setup.sh build
	@node scripts/test.mjs

# Every test binary (--no-fail-fast), the ignored test too: induction retrained and checked against models/induction.json
# bit for bit. The native test files are one binary, tests/all.rs (one link instead of twenty, and its tests share the
# cores instead of one binary's after another); one file alone: `cargo test --test all config::`. Optimised (opt-level 2) but with debug assertions and overflow checks (the test profile is dev's): one
# build instead of a debug and a release one, and the fuzz runs in ~10 s instead of ~10 min unoptimised under load.
# No debug info (CARGO_PROFILE_TEST_DEBUG=0) here and in test-wasm: it only lengthens compiling and linking; a failed
# assertion still names its file and line.
test-native:
	@scripts/setup.sh numpy
	CARGO_PROFILE_TEST_OPT_LEVEL=2 CARGO_PROFILE_TEST_DEBUG=0 cargo test --no-fail-fast -- --include-ignored

# wasm-bindgen-test-runner gives the page 20 s and ChromeDriver 5 s by default, limits a loaded machine passes: the
# tests wait for their result, not for it to come fast (WASM_BINDGEN_TEST_TIMEOUT also raises its start-up and page-load
# limits).
WASM_TEST_WAIT := WASM_BINDGEN_TEST_TIMEOUT=1800 WASM_BINDGEN_TEST_DRIVER_TIMEOUT=600
test-wasm:
	@scripts/setup.sh browser
	CARGO_PROFILE_TEST_DEBUG=0 $(WASM_TEST_WAIT) cargo test --target wasm32-unknown-unknown --test web

# Two test files at a time, the longest started first so no long one runs alone at the end: on a 2-core machine with
# another busy process beside it, the browsers then get their share of the cores (19 → 16 min before the files were
# trimmed). Every other file follows in name order.
E2E_FIRST := $(addprefix tests/e2e/,pages.test.mjs learned.test.mjs learn.test.mjs persist.test.mjs heads.test.mjs element.test.mjs embed.test.mjs hostile.test.mjs)
E2E := $(filter $(wildcard tests/e2e/*.test.mjs),$(E2E_FIRST)) $(filter-out $(E2E_FIRST),$(sort $(wildcard tests/e2e/*.test.mjs)))
test-e2e:
	@scripts/setup.sh test
	node --test --test-concurrency=2 $(E2E)

# tsc (strict) on a typed use of dist/ as an installed package; a named import from attention-viz/inline must fail.
test-types:
	@scripts/setup.sh build
	node --test tests/types/

bench: build
	@scripts/setup.sh bench
	node bench/run.mjs

# dist/: the drop-in bundle, the single-file build and the npm package files.
# The figure core (Cargo.toml's features: the default build without `full`) is built here, not by make build:
# scripts/dist.mjs ships it as pkg/attention_viz_figure.wasm, which the module build's figures run first (www/ runs the
# whole core alone). Its own target folder: both builds write the same .wasm name, so in one folder each would rebuild
# the other's.
dist: build
	@scripts/setup.sh test
	cargo build --release --target wasm32-unknown-unknown --no-default-features --target-dir target/figure-core
	node scripts/dist.mjs

# The Python package (python/): dist-python/attention_viz-<version>-py3-none-any.whl, the single-file build inside
# (not in dist/: that folder is the npm package).
wheel: dist
	$(MAKE) --no-print-directory python-wheel

# The wheel from the dist/ already built (scripts/test.mjs builds dist/ while .venv is made beside it).
python-wheel:
	@scripts/setup.sh python
	.venv/bin/python scripts/wheel.py

# tests/python/ against the built wheel installed into .venv (not the source tree: pytest runs outside python/).
test-python: wheel
	$(MAKE) --no-print-directory python-tests

# The built wheel (make wheel), named by Cargo.toml's version.
WHEEL = dist-python/attention_viz-$$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)-py3-none-any.whl
python-tests:
	@scripts/setup.sh python
	.venv/bin/python -m pip install -q --no-deps --force-reinstall --disable-pip-version-check $(WHEEL)
	cd tests/python && ../../.venv/bin/python -m pytest -q -p no:cacheprovider

# Opt-in, never part of make test: layer_config and show_layer on live random-init transformers models of every
# architecture they read (tests/models/), compute() against transformers' own weights and output. torch and
# transformers are large, so they get their own venv (MODELS_VENV, made here when missing; an existing one with them,
# e.g. MODELS_VENV=/path/to/venv, is used as it is). The built wheel goes into it, with its dependencies the first
# time, then replaced by this build's even when its version is unchanged.
MODELS_VENV ?= .venv-models
test-models: wheel
	$(MAKE) --no-print-directory models-tests

models-tests:
	@test -x $(MODELS_VENV)/bin/python || python3 -m venv $(MODELS_VENV)
	$(MODELS_VENV)/bin/python -m pip install -q --disable-pip-version-check torch transformers numpy pytest
	$(MODELS_VENV)/bin/python -m pip install -q --disable-pip-version-check $(WHEEL)
	$(MODELS_VENV)/bin/python -m pip install -q --no-deps --force-reinstall --disable-pip-version-check $(WHEEL)
	cd tests/models && $(abspath $(MODELS_VENV))/bin/python -m pytest -q -p no:cacheprovider

clean:
	rm -rf target www/pkg dist python/attention_viz/static python/LICENSE

# Full-page PNGs of index.html and www/embed.html (1280/768/390 px, light and dark) and the printed index as PDF, in shots/.
screenshots: build
	@scripts/setup.sh test
	node scripts/screenshots.mjs
