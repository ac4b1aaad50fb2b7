# attention-viz — build, serve, test. Every target installs what it needs first.
PORT ?= 8000
WASM := target/wasm32-unknown-unknown/release/attention_viz.wasm

.PHONY: setup build serve test test-native test-wasm test-types test-e2e bench dist clean screenshots

build:
	@scripts/setup.sh build
	cargo build --release --target wasm32-unknown-unknown
	wasm-bindgen --target web --out-dir www/pkg $(WASM)

serve: build
	node scripts/serve.mjs --port $(PORT)

test: dist
	$(MAKE) --no-print-directory test-native test-wasm test-types test-e2e

test-native:
	ATTENTION_VIZ_REQUIRE_NUMPY=1 cargo test

test-wasm:
	cargo test --target wasm32-unknown-unknown --test web

test-e2e:
	node --test tests/e2e/

# tsc (strict) on a typed use of dist/ as an installed package; a named import from attention-viz/inline must fail.
test-types:
	node --test tests/types/

bench: build
	@scripts/setup.sh test
	node bench/run.mjs

# dist/: the drop-in bundle, the single-file build and the npm package files.
dist: build
	@scripts/setup.sh test
	node scripts/dist.mjs

clean:
	rm -rf target www/pkg dist

# Full-page PNGs of index.html and www/embed.html (1280/768/390 px, light and dark) and the printed index as PDF, in shots/.
screenshots: build
	@scripts/setup.sh test
	node scripts/screenshots.mjs
