#!/usr/bin/env bash
# Installs what the project needs, skipping whatever is already there.
#   scripts/setup.sh build   — Rust wasm32 target and wasm-bindgen-cli (to build and serve)
#   scripts/setup.sh test    — the above, plus Chromium + ChromeDriver and the npm packages (to test)
#   scripts/setup.sh bench   — the test set, plus the anchors make bench measures beside ours (CircuitsVis, tfjs-backend-wasm)
#   scripts/setup.sh python  — the virtual environment .venv/ of tests/requirements-python.txt (wheel, notebooks, MkDocs)
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_BINDGEN_VERSION=0.2.130
want=${1:-build}
say() { echo "setup: $*" >&2; }

if ! command -v cargo >/dev/null; then
  say "cargo is missing: install Rust with rustup first (https://rustup.rs)"; exit 1
fi
if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"; rustup target add wasm32-unknown-unknown
fi
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WASM_BINDGEN_VERSION" ]; then
  say "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (a few minutes, once)"
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
fi
if ! command -v node >/dev/null; then
  say "installing Node.js"; apt-get update -qq && apt-get install -y -qq nodejs npm
fi

# The unbundled page (make serve) imports fflate from node_modules/ (www/arrays.js reads .npz files with it).
need_npm() { [ ! -d node_modules/playwright-core ] || [ ! -d node_modules/fflate ] || [ package-lock.json -nt node_modules/.package-lock.json ]; }
if [ "$want" = build ] && need_npm; then
  say "installing npm packages from package-lock.json"; npm ci --no-audit --no-fund --loglevel=error
fi

if [ "$want" = test ] || [ "$want" = bench ]; then
  if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    say "installing Debian's chromium and chromium-driver"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
  fi
  if ! python3 -c "import numpy, scipy" 2>/dev/null; then
    say "installing NumPy and SciPy (tests run the exported NumPy snippets)"
    python3 -m pip install -q -r tests/requirements.txt
  fi
  if need_npm; then
    say "installing npm packages from package-lock.json"; npm ci --no-audit --no-fund --loglevel=error
  fi
fi

# make bench only: the anchors measured beside our numbers (not needed by any test, so CI never fetches them).
if [ "$want" = bench ]; then
  # bench/page.mjs's anchor: CircuitsVis's one-pattern page needs only the IIFE bundle inside its wheel (no torch).
  if [ ! -f bench-cache/circuitsvis-1.43.3-py3-none-any.whl ]; then
    say "downloading circuitsvis 1.43.3 from PyPI into bench-cache/ (the page benchmark's anchor)"
    python3 -m pip download -q --no-deps --disable-pip-version-check circuitsvis==1.43.3 -d bench-cache \
      || say "could not download circuitsvis: bench/page.mjs will run without its anchor"
  fi
  # bench/core.mjs's browser anchor (issue 26), kept out of the root package.json: the package never uses it.
  if [ ! -f bench/.tools/node_modules/@tensorflow/tfjs-backend-wasm/dist/tf-backend-wasm.min.js ]; then
    say "installing tfjs-core and tfjs-backend-wasm 4.22.0 into bench/.tools/ (the core bench's anchor)"
    mkdir -p bench/.tools
    npm install --prefix bench/.tools --no-save --no-audit --no-fund --loglevel=error \
      @tensorflow/tfjs-core@4.22.0 @tensorflow/tfjs-backend-wasm@4.22.0
  fi
fi

if [ "$want" = python ]; then
  stamp=.venv/.requirements-python.txt
  if [ ! -x .venv/bin/python ] || ! cmp -s tests/requirements-python.txt "$stamp"; then
    say "making the virtual environment .venv/ (tests/requirements-python.txt)"
    python3 -m venv .venv
    # --no-compile: pip would byte-compile every installed module (about a third of its CPU time); Python compiles
    # the few the tests import on first use, into the same __pycache__ folders.
    .venv/bin/python -m pip install -q --no-compile --disable-pip-version-check -r tests/requirements-python.txt
    cp tests/requirements-python.txt "$stamp"
  fi
fi
