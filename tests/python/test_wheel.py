"""The installed package is the wheel's: NumPy and wasmtime its only requirements, the single-file build and the
core's .wasm (the page's own) inside, the version Cargo.toml's."""

import re
from importlib import metadata, resources
from pathlib import Path

import attention_viz as av

ROOT = Path(__file__).resolve().parents[2]


def test_runs_from_the_installed_wheel_not_the_source_tree():
    assert not Path(av.__file__).resolve().is_relative_to(ROOT / "python")


def test_version_is_cargo_toml_s():
    version = re.search(r'(?m)^version = "([^"]+)"', (ROOT / "Cargo.toml").read_text()).group(1)
    assert av.__version__ == version == metadata.version("attention-viz")


def test_numpy_and_wasmtime_are_the_only_requirements():
    reqs = metadata.requires("attention-viz")
    required = sorted(r for r in reqs if "extra ==" not in r)
    assert len(required) == 2 and required[0].startswith("numpy") and required[1].startswith("wasmtime")
    extras = [r for r in reqs if "extra ==" in r]
    assert extras and all(r.startswith("anywidget") and re.search(r"extra == ['\"]widget['\"]", r) for r in extras)


def test_static_build_and_assets_are_inside():
    static = resources.files("attention_viz").joinpath("static")
    build = static.joinpath("attention-viz.inline.js").read_text(encoding="utf-8")
    assert build == (ROOT / "dist" / "attention-viz.inline.js").read_text(encoding="utf-8")
    # The core Python runs is the single-file build's .wasm, byte for byte (test_html: the engine's), with the C-ABI
    # exports that the module build's .wasm, which pages fetch, leaves out (scripts/dist.mjs).
    core = static.joinpath("attention_viz_bg.wasm").read_bytes()
    page = (ROOT / "dist" / "pkg" / "attention_viz_bg.wasm").read_bytes()
    assert core[:4] == b"\0asm" and b"av_alloc" in core and b"av_picture" in core
    assert b"av_alloc" not in page and b"viz_draw" in page
    assert sorted(av.presets()) == ["seed-000", "seed-001", "seed-002", "seed-003"]
    assert not static.joinpath("assets.json").is_file()
    # The notebooks' engine: that build, deflated (scripts/python-assets.mjs), a loader around it.
    engine = static.joinpath("attention-viz.engine.js").read_text(encoding="utf-8")
    assert engine.startswith("/*! attention-viz engine for notebooks") and len(engine) < len(build) / 2


def test_readme_s_sizes_of_the_build_and_the_engine_are_true():
    static = resources.files("attention_viz").joinpath("static")
    build = len(static.joinpath("attention-viz.inline.js").read_bytes())
    engine = len(static.joinpath("attention-viz.engine.js").read_bytes())
    readme = (ROOT / "python" / "README.md").read_text(encoding="utf-8")
    assert "800 KB" not in readme and "over a megabyte" not in readme
    # "deflated, about 0.7 MB (the build itself is about 1.6 MB": each within 0.05 MB of what is in the wheel.
    # The sizes are written by `node scripts/doc-sizes.mjs` from dist/sizes.json, between size markers.
    said = re.search(r"deflated, about <!-- size:engine -->([\d.]+) MB<!-- /size --> \(the build itself is about "
                     r"<!-- size:inline-raw -->([\d.]+) MB", readme)
    assert said, "the README no longer says the engine's and the build's sizes"
    assert abs(float(said.group(1)) * 1e6 - engine) < 50_000, engine
    assert abs(float(said.group(2)) * 1e6 - build) < 50_000, build
