#!/usr/bin/env bash
# Installs what the project needs, skipping whatever is already there. Each make target names the set it needs:
#   scripts/setup.sh build   — Rust's wasm32 target, wasm-bindgen-cli (its test runner too) and the npm packages
#   scripts/setup.sh numpy   — NumPy and SciPy for python3 (the native tests run NumPy beside the core)
#   scripts/setup.sh browser — the build set, plus Debian's Chromium and ChromeDriver (the wasm tests)
#   scripts/setup.sh test    — all of the above (the end-to-end tests; make dist)
#   scripts/setup.sh bench   — the test set, plus the anchors make bench measures beside ours (CircuitsVis, tfjs-backend-wasm)
#   scripts/setup.sh python  — the virtual environment .venv/ of tests/requirements-python.txt (wheel, notebooks, MkDocs)
# make test runs several targets at once, each calling this first: the installs into the machine (apt, python3's pip,
# cargo, npm) take one lock, so a second call waits for the first and then finds everything there; .venv (which
# changes nothing outside the clone) has a lock of its own, so it is made beside the others.
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_BINDGEN_VERSION=0.2.130
want=${1:-build}
say() { echo "setup: $*" >&2; }

case "$want" in
  build | numpy | browser | test | bench) lock=machine ;;
  python) lock=venv ;;
  *) say "no set '$want' (build, numpy, browser, test, bench, python)"; exit 2 ;;
esac
exec 9>"${TMPDIR:-/tmp}/attention-viz-setup-$lock.lock"
flock 9

rust() {
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
}

# The unbundled page (make serve) imports fflate from node_modules/ (www/arrays.js reads .npz files with it).
npm_packages() {
  if ! command -v node >/dev/null; then
    say "installing Node.js"; apt-get update -qq && apt-get install -y -qq nodejs npm
  fi
  if [ ! -d node_modules/playwright-core ] || [ ! -d node_modules/fflate ] \
    || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    say "installing npm packages from package-lock.json"; npm ci --no-audit --no-fund --loglevel=error
  fi
}

browser() {
  if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    say "installing Debian's chromium and chromium-driver"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
  fi
}

numpy() {
  if ! python3 -c "import numpy, scipy" 2>/dev/null; then
    say "installing NumPy and SciPy for python3 (tests run NumPy beside the core)"
    python3 -m pip install -q --disable-pip-version-check -r tests/requirements.txt
  fi
}

# make bench only: the anchors measured beside our numbers (not needed by any test, so CI never fetches them).
anchors() {
  # bench/page.mjs's anchor: CircuitsVis's one-pattern page needs only the IIFE bundle inside its wheel (no torch).
  if [ ! -f bench-cache/circuitsvis-1.43.3-py3-none-any.whl ]; then
    say "downloading circuitsvis 1.43.3 from PyPI into bench-cache/ (the page benchmark's anchor)"
    python3 -m pip download -q --no-deps --disable-pip-version-check circuitsvis==1.43.3 -d bench-cache \
      || say "could not download circuitsvis: bench/page.mjs will run without its anchor"
  fi
  # bench/core.mjs's browser anchor, kept out of the root package.json: the package never uses it.
  if [ ! -f bench/.tools/node_modules/@tensorflow/tfjs-backend-wasm/dist/tf-backend-wasm.min.js ]; then
    say "installing tfjs-core and tfjs-backend-wasm 4.22.0 into bench/.tools/ (the core bench's anchor)"
    mkdir -p bench/.tools
    npm install --prefix bench/.tools --no-save --no-audit --no-fund --loglevel=error \
      @tensorflow/tfjs-core@4.22.0 @tensorflow/tfjs-backend-wasm@4.22.0
  fi
}

venv() {
  local stamp=.venv/.requirements-python.txt
  if [ ! -x .venv/bin/python ] || ! cmp -s tests/requirements-python.txt "$stamp"; then
    say "making the virtual environment .venv/ (tests/requirements-python.txt)"
    python3 -m venv .venv
    # --no-compile: pip would byte-compile every installed module (about a third of its CPU time); Python compiles
    # the few the tests import on first use, into the same __pycache__ folders.
    .venv/bin/python -m pip install -q --no-compile --disable-pip-version-check -r tests/requirements-python.txt
    cp tests/requirements-python.txt "$stamp"
  fi
}

case "$want" in
  build) rust; npm_packages ;;
  numpy) numpy ;;
  browser) rust; npm_packages; browser ;;
  test) rust; npm_packages; browser; numpy ;;
  bench) rust; npm_packages; browser; numpy; anchors ;;
  python) venv ;;
esac
