"""The static picture: the figure's main views as one SVG, drawn in pure Python.

Notebooks opened without trust (and GitHub's and nbviewer's renderings) run no scripts and
JupyterLab's sanitizer keeps ``<img>`` but drops ``<svg>`` and custom elements, so the
picture travels as ``<img src="data:image/svg+xml;base64,…">``. It draws what seaborn's
``heatmap(annot=True, fmt=".2g", linewidths=1)`` draws — the element's style: the core's
own colormap tables (exported at wheel build time, ``static/assets.json``), seaborn's
normalisation (colour-bar widening, ``center=0`` re-centring for signed values) and its
annotation colour by relative luminance. Big grids go in as a PNG (one pixel per cell)
inside the SVG, so the picture stays small at n = 512.
"""

from __future__ import annotations

import base64
import html
import json
import math
import re
import struct
import zlib
from functools import lru_cache
from importlib import resources

import numpy as np

from . import _numpy

TEXT_DARK, TEXT_LIGHT = "#262626", "#ffffff"
LUMINANCE_THRESHOLD = 0.408
THEMES = {  # background (and cell gaps), text, muted text: the element's light and dark colours
    "light": ("#ffffff", "#1f2328", "#59636e"),
    "dark": ("#161b22", "#e6edf3", "#9198a1"),
}
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif"
MAX_WIDTH = 960  # the picture's width in CSS pixels at most; panels wrap below it
ANNOTATE_MIN_CELL = 18  # cells narrower than this (px) show colour only, as the element's note says
RASTER_CELLS = 4096  # above this many cells a heatmap is a PNG instead of one <rect> per cell


@lru_cache(maxsize=1)
def assets() -> dict:
    try:
        text = resources.files(__package__).joinpath("static/assets.json").read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):  # a source checkout without `make wheel`: rocket only as a fallback
        return {"palettes": {}, "presets": {}}
    return json.loads(text)


def _lut(name: str) -> np.ndarray | None:
    pal = assets()["palettes"]
    for key in (name, name.lower(), name.removeprefix("light:"), "light:" + name):
        if key in pal:
            return np.asarray(pal[key], dtype=np.float64)
    return None


# ---------------------------------------------------------------------------
# Colour: seaborn's rules (the same ones src/heatmap/palette.rs follows)
# ---------------------------------------------------------------------------

def _nonsingular(lo: float, hi: float) -> tuple[float, float]:
    """matplotlib's ``transforms._nonsingular(vmin, vmax, expander=0.1)``: the colour bar's range."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return -0.1, 0.1
    if hi < lo:
        lo, hi = hi, lo
    maxabs = max(abs(lo), abs(hi))
    if maxabs < (1e6 / 1e-15) * np.finfo(float).tiny:
        return -0.1, 0.1
    if hi - lo <= maxabs * 1e-15:
        if hi == 0 and lo == 0:
            return -0.1, 0.1
        return lo - 0.1 * abs(lo), hi + 0.1 * abs(hi)
    return lo, hi


def _index(x: np.ndarray, n: int) -> np.ndarray:
    """matplotlib's lookup: ``int(x * N)``, 1 → the last entry, clamped."""
    xa = np.nan_to_num(x, nan=0.0) * n
    xa = np.where(xa == n, n - 1, xa)
    return np.clip(np.floor(np.clip(xa, -1, n)), 0, n - 1).astype(int)


def _recentred(lut: np.ndarray, vmin: float, vmax: float) -> np.ndarray:
    """seaborn's ``heatmap(center=0)``: the map over the data's part of a symmetric range."""
    vrange = max(vmax, -vmin)
    lo, hi = -vrange, vrange
    norm = (lambda v: 0.0) if lo == hi else (lambda v: (v - lo) / (hi - lo))
    cc = np.linspace(norm(vmin), norm(vmax), len(lut))
    return lut[_index(cc, len(lut))]


def _luminance(rgb: np.ndarray) -> np.ndarray:
    lin = np.where(rgb <= 0.03928, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    return lin @ np.array([0.2126, 0.7152, 0.0722])


def _hex(rgb) -> str:
    # matplotlib's to_hex: round half to even, as np.round does.
    r, g, b = (int(v) for v in np.clip(np.round(np.asarray(rgb) * 255), 0, 255))
    return f"#{r:02x}{g:02x}{b:02x}"


def colours(values: np.ndarray, default: str, palette: str | None, full: bool = False, contrast: str | None = None):
    """(fill colours, text colours, finite mask) for a matrix, as the element colours it."""
    finite = np.isfinite(values)
    vals = values[finite]
    vmin, vmax = (float(vals.min()), float(vals.max())) if vals.size else (0.0, 0.0)
    lut = _lut(palette) if palette else None
    diverging = (palette or "").lower().startswith(("diverging", "vlag")) if lut is not None else (vmin < 0 < vmax)
    if lut is None:
        lut = _lut("vlag" if diverging else default)
    if lut is None:  # no assets: a grey ramp keeps the picture readable
        lut = np.linspace(0.05, 0.95, 256)[:, None].repeat(3, axis=1)
    if diverging:
        lut = _recentred(lut, vmin, vmax)
    lo, hi = _nonsingular(vmin, vmax)
    x = (values - lo) / (hi - lo)
    rgb = lut[_index(np.where(finite, x, 0.0), len(lut))]
    if contrast == "more":
        # Black or white, whichever contrasts more with the drawn (8-bit) colour: 4.5:1 at worst.
        lum = _luminance(np.round(rgb * 255) / 255)
        text = np.where((1.05) / (lum + 0.05) > (lum + 0.05) / 0.05, TEXT_LIGHT, "#000000")
    else:
        text = np.where(_luminance(rgb) > LUMINANCE_THRESHOLD, TEXT_DARK, TEXT_LIGHT)
    if full:
        return rgb, text, finite, lut, (lo, hi)
    return rgb, text, finite


# ---------------------------------------------------------------------------
# PNG (for big grids), without any imaging library
# ---------------------------------------------------------------------------

def png(rgb: np.ndarray) -> bytes:
    """An 8-bit RGB PNG of an h × w × 3 float image in [0, 1]."""
    h, w, _ = rgb.shape
    data = np.clip(np.round(rgb * 255), 0, 255).astype(np.uint8)
    raw = b"".join(b"\x00" + data[i].tobytes() for i in range(h))

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


# ---------------------------------------------------------------------------
# Heatmaps
# ---------------------------------------------------------------------------

# What XML 1.0 forbids even as a character reference (C0 controls but tab, newline and carriage return; U+FFFE,
# U+FFFF), and lone surrogates, which no UTF-8 can encode: only a config's texts (token names) bring them, and one makes
# the whole SVG unreadable (a viewer shows the alt text instead). Each becomes U+FFFD, as the core's SVG export does.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def xml_text(text) -> str:
    """``text`` with every character XML cannot hold replaced by U+FFFD."""
    return _NOT_XML.sub("\ufffd", str(text))


def _esc(text) -> str:
    return html.escape(xml_text(text), quote=True)


def _tw(text: str, px: float) -> float:
    return len(text) * px * 0.6  # the element's estimate of a sans-serif line (0.6 em a character)


def _cut(text: str, px: float, width: float) -> str:
    keep = max(1, int(width / (0.6 * px)))
    return text if len(text) <= keep else text[: max(1, keep - 1)] + "…"


def _ticks(lo: float, hi: float, most: int = 5) -> list[float]:
    """Round tick values inside [lo, hi] (steps of 1, 2, 2.5 or 5 × 10^k), like a colour bar's."""
    span = hi - lo
    if not (span > 0 and math.isfinite(span)):
        return [lo]
    raw = span / most
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step - 1e-9) * step
    return [round(first + i * step, 12) for i in range(most + 2) if first + i * step <= hi + step * 1e-9]


def _colorbar(lut: np.ndarray, lo: float, hi: float, height: float, fg: str, theme: str):
    """seaborn's colour bar beside a heatmap: the map from lo (bottom) to hi, with round ticks."""
    strip = lut[::-1][:, None, :]  # top = the last entry
    uri = "data:image/png;base64," + base64.b64encode(png(strip)).decode("ascii")
    out = [f'<image x="0" y="0" width="10" height="{height:.1f}" preserveAspectRatio="none" href="{uri}"/>']
    widest = 0.0
    for t in _ticks(lo, hi, 4 if height >= 80 else 2):
        y = height * (hi - t) / (hi - lo)
        label = format(t, "g").replace("-", "−")
        widest = max(widest, _tw(label, 9))
        out.append(f'<line x1="10" x2="13" y1="{y:.1f}" y2="{y:.1f}" stroke="{fg}" stroke-width="0.8"/>')
        out.append(f'<text x="15" y="{y:.1f}" font-size="9" fill="{fg}" dominant-baseline="central">{label}</text>')
    return "".join(out), 8 + 15 + widest + 4


class Panel:
    """One heatmap's SVG fragment, drawn at the origin, with its size."""

    def __init__(self, title, values, rows, cols, default, opts, theme, max_grid=560.0, annotate=True, colorbar=True):
        values = np.atleast_2d(np.asarray(values, dtype=np.float64))
        n, m = values.shape
        bg, fg, muted = THEMES[theme]
        fmt = opts.get("fmt", ".2g")
        cell = max(2.0, min(48.0, max_grid / max(n, m)))
        cell = float(math.floor(cell)) if cell >= 4 else cell
        label_px = max(7.0, min(12.0, cell * 0.8))
        step = max(1, math.ceil(label_px / cell))  # label every step-th token when cells are tiny
        row_w = min(120.0, max(_tw(str(r), label_px) for r in rows) + 6) if n else 0
        col_texts = [str(c) for c in cols]
        rotate = max((_tw(c, label_px) for c in col_texts), default=0) > cell * step - 2
        col_h = (min(120.0, max(_tw(c, label_px) for c in col_texts)) + 6) if rotate else label_px + 6
        title_px = 13.0
        grid_w, grid_h = cell * m, cell * n
        width = row_w + grid_w
        rgb, text, finite, lut, (lo, hi) = colours(values, default, opts.get("palette"), full=True,
                                                   contrast=opts.get("contrast"))
        bar = _colorbar(lut, lo, hi, grid_h, fg, theme) if colorbar else None
        width = row_w + grid_w + (bar[1] if bar else 0)
        room = max(width, 320)
        title_lines = [title] if _tw(title, title_px) <= room else [_cut(title, title_px, room)]
        top = 6 + title_px * 1.3 * len(title_lines) + 4
        title_w = max(_tw(t, title_px) for t in title_lines)
        self.width = max(width, title_w) + 4
        out = []
        cx = max(title_w / 2, row_w + grid_w / 2)  # centred over the grid, as the element's titles
        for i, line in enumerate(title_lines):
            out.append(f'<text x="{cx:.1f}" y="{6 + title_px * (i + 1):.1f}" font-size="{title_px:g}" '
                       f'font-weight="600" fill="{fg}" text-anchor="middle">{_esc(line)}</text>')
        if bar:
            out.append(f'<g transform="translate({row_w + grid_w + 8:.1f},{top:.1f})">{bar[0]}</g>')
        gx, gy = row_w, top
        if n * m > RASTER_CELLS or cell < 4:
            img = np.where(finite[..., None], rgb, 0.6)
            uri = "data:image/png;base64," + base64.b64encode(png(img)).decode("ascii")
            out.append(f'<image x="{gx:.1f}" y="{gy:.1f}" width="{grid_w:.1f}" height="{grid_h:.1f}" '
                       f'preserveAspectRatio="none" style="image-rendering:pixelated" href="{uri}"/>')
            annotate = False
        else:
            gap = 1.0 if cell >= 6 else 0.0  # linewidths=1, in the background colour
            for i in range(n):
                for j in range(m):
                    fill = _hex(rgb[i, j]) if finite[i, j] else "#bdbdbd"
                    out.append(f'<rect x="{gx + j * cell:.1f}" y="{gy + i * cell:.1f}" width="{cell - gap:.1f}" '
                               f'height="{cell - gap:.1f}" fill="{fill}"/>')
        annot_px = min(12.0, cell * 0.36)
        texts = {}
        if annotate:
            texts = {(i, j): _number(values[i, j], fmt) for i in range(n) for j in range(m)}
            widest = max((_tw(t, annot_px) for t in texts.values()), default=0)
            if widest > cell - 3:
                annot_px = max(8.0, annot_px * (cell - 3) / widest)
            annotate = cell >= ANNOTATE_MIN_CELL and max((_tw(t, annot_px) for t in texts.values()), default=0) <= cell - 2
        if annotate:
            for (i, j), t in texts.items():
                colour = text[i, j] if finite[i, j] else TEXT_DARK
                out.append(f'<text x="{gx + (j + 0.5) * cell - 0.5:.1f}" y="{gy + (i + 0.5) * cell - 0.5:.1f}" '
                           f'font-size="{annot_px:.1f}" fill="{colour}" text-anchor="middle" '
                           f'dominant-baseline="central">{_esc(t)}</text>')
        for i in range(0, n, step):
            out.append(f'<text x="{gx - 4:.1f}" y="{gy + (i + 0.5) * cell:.1f}" font-size="{label_px:.1f}" fill="{fg}" '
                       f'text-anchor="end" dominant-baseline="central">{_esc(_cut(str(rows[i]), label_px, row_w - 6))}</text>')
        for j in range(0, m, step):
            x = gx + (j + 0.5) * cell
            label = _esc(_cut(col_texts[j], label_px, col_h - 6 if rotate else cell * step))
            if rotate:
                out.append(f'<text transform="translate({x:.1f},{gy + grid_h + 4:.1f}) rotate(-90)" '
                           f'font-size="{label_px:.1f}" fill="{fg}" text-anchor="end" dominant-baseline="central">{label}</text>')
            else:
                out.append(f'<text x="{x:.1f}" y="{gy + grid_h + 4 + label_px:.1f}" font-size="{label_px:.1f}" '
                           f'fill="{fg}" text-anchor="middle">{label}</text>')
        note_h = 0.0
        if not annotate and n * m > 0:
            note = "numbers hidden: cells too small (the live figure shows them on hover)"
            out.append(f'<text x="{gx:.1f}" y="{gy + grid_h + col_h + 12:.1f}" font-size="10" fill="{muted}">'
                       f'{_esc(_cut(note, 10, max(grid_w, 160)))}</text>')
            note_h = 16.0
            self.width = max(self.width, row_w + min(_tw(note, 10), max(grid_w, 160)) + 4)
        self.height = top + grid_h + col_h + note_h + 4
        self.body = "".join(out)


def _number(x: float, fmt: str) -> str:
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    try:
        return format(int(round(x)) if fmt == "d" else x, fmt)
    except ValueError:
        return format(x, ".2g")


def _pool(a: np.ndarray, most: int) -> np.ndarray:
    """Block means so neither side exceeds ``most`` (a thumbnail needs no more cells than pixels)."""
    n, m = a.shape
    kn, km = max(1, math.ceil(n / most)), max(1, math.ceil(m / most))
    if kn == km == 1:
        return a
    padded = np.full((math.ceil(n / kn) * kn, math.ceil(m / km) * km), np.nan)
    padded[:n, :m] = a
    blocks = padded.reshape(padded.shape[0] // kn, kn, padded.shape[1] // km, km)
    with np.errstate(invalid="ignore"):
        return np.nanmean(blocks, axis=(1, 3))


def _thumbs(stack: np.ndarray, layer: int, head: int, theme: str, max_w: float):
    """The layers × heads grid of small heatmaps (BertViz's model view), colour only."""
    layers, heads, n, m = stack.shape
    bg, fg, muted = THEMES[theme]
    size = max(14.0, min(64.0, (max_w - 40) / heads - 4))
    if layers * heads > 400 or size < 14:
        return None
    pad, left, top = 4.0, 30.0, 34.0
    rocket = _lut("rocket")
    if rocket is None:
        rocket = np.linspace(0.05, 0.95, 256)[:, None].repeat(3, axis=1)
    # Upscaled thumbnails keep sharp cells; downscaled ones are smoothed (a blur of many cells reads better).
    pixelated = ' style="image-rendering:pixelated"' if max(n, m) <= size else ""
    out = [f'<text x="{left:.1f}" y="15" font-size="13" font-weight="600" fill="{fg}">'
           f'every head: {layers} layer{"s" * (layers > 1)} × {heads} head{"s" * (heads > 1)}</text>']
    for h in range(heads):
        out.append(f'<text x="{left + h * (size + pad) + size / 2:.1f}" y="{top - 2:.1f}" font-size="9" fill="{muted}" '
                   f'text-anchor="middle">{h}</text>')
    for l in range(layers):
        y = top + l * (size + pad)
        out.append(f'<text x="{left - 4:.1f}" y="{y + size / 2:.1f}" font-size="9" fill="{muted}" text-anchor="end" '
                   f'dominant-baseline="central">L{l}</text>')
        for h in range(heads):
            # As the element's grid: each head coloured from 0 to its own largest weight.
            small = _pool(stack[l, h], int(size))
            peak = float(np.nanmax(small)) if np.isfinite(small).any() else 0.0
            img = rocket[_index(np.nan_to_num(small / peak if peak > 0 else small * 0.0), len(rocket))]
            uri = "data:image/png;base64," + base64.b64encode(png(img)).decode("ascii")
            x = left + h * (size + pad)
            out.append(f'<image x="{x:.1f}" y="{y:.1f}" width="{size:.1f}" height="{size:.1f}" '
                       f'preserveAspectRatio="none"{pixelated} href="{uri}"/>')
            if (l, h) == (layer, head):
                out.append(f'<rect x="{x - 1.5:.1f}" y="{y - 1.5:.1f}" width="{size + 3:.1f}" height="{size + 3:.1f}" '
                           f'fill="none" stroke="#0969da" stroke-width="2"/>')
    w = left + heads * (size + pad)
    h = top + layers * (size + pad) + 4
    return out, w, h


# ---------------------------------------------------------------------------
# The picture
# ---------------------------------------------------------------------------

def panels(config: dict, opts: dict, theme: str):
    """The figure's main views as panels, and a one-line description of them for ``alt``."""
    trace = _numpy.compute(config)
    mech = config.get("mechanism") or ("weights" if "attention" in config else
                                       "cross" if "decoder_state" in config else "self")
    if mech == "weights":
        stack = trace["attention"]
        layers, heads, n, m = stack.shape
        layer, head = int(config.get("layer", 0)), int(config.get("head", 0))
        rows = config.get("tokens") or [f"t_{i + 1}" for i in range(n)]
        cols = config.get("key_tokens") or (rows if m == n else [f"k_{j + 1}" for j in range(m)])
        where = f"layer {layer}, head {head}" if layers * heads > 1 else "attention"
        main = Panel(f"{where}: weights ({n} × {m})", stack[layer, head], rows, cols, "rocket", opts, theme)
        out = [main]
        alt = (f"Attention weights of {where} ({n} queries × {m} keys; tokens {_few(rows)})"
               + (f", and a grid of all {layers} × {heads} heads" if layers * heads > 1 else ""))
        return out, alt, stack, (layer, head)
    if mech == "cross":
        m = len(config["annotations"])
        d = len(config["decoder_state"])
        rows = config.get("tokens") or [f"h_{j + 1}" for j in range(m)]
        # As the element draws them: the weights a row over the encoder states, the context a column.
        w = Panel("weights = softmax(scaled)", trace["weights"][None, :], ["h"], rows, "rocket", opts, theme)
        c = Panel("context vector", trace["context"][:, None], [str(i) for i in range(d)], ["0"], "Blue", opts, theme,
                  max_grid=min(560.0, 48.0 * d))
        alt = f"Encoder–decoder attention: weights over {m} encoder states ({_few(rows)}) and the context vector"
        return [w, c], alt, None, None
    n = len(config["embeddings"])
    rows = config.get("tokens") or [f"word_{i + 1}" for i in range(n)]
    heads = int(config.get("heads", 1))
    head = int(config.get("head", 0))
    note = f" (head {head})" if heads > 1 else ""
    wts = trace[f"heads.{head}.weights"]
    ctx = trace["context"]
    w = Panel(f"weights = softmax(scaled){note}", wts, rows, rows, "rocket", opts, theme, max_grid=420)
    title = f"context = concat(head 0 … head {heads - 1})" if heads > 1 else "context = weights·V"
    c = Panel(title, ctx, rows, [str(j) for j in range(ctx.shape[1])], "Blue", opts, theme, max_grid=420)
    alt = f"Self-attention over {n} tokens ({_few(rows)}): the weights{note} and the context"
    return [w, c], alt, None, None


def _few(names) -> str:
    names = [str(t) for t in names]
    return ", ".join(names) if len(names) <= 6 else ", ".join(names[:5]) + f", … ({len(names)} in all)"


def svg(config: dict, opts: dict | None = None) -> tuple[str, str]:
    """(the picture as an SVG document, its alt text)."""
    opts = opts or {}
    theme = "dark" if opts.get("theme") == "dark" else "light"
    bg, fg, muted = THEMES[theme]
    items, alt, stack, selected = panels(config, opts, theme)
    parts, x, y, row_h, width = [], 8.0, 8.0, 0.0, 0.0
    for p in items:
        if x > 8 and x + p.width > MAX_WIDTH:
            x, y, row_h = 8.0, y + row_h + 12, 0.0
        parts.append(f'<g transform="translate({x:.1f},{y:.1f})">{p.body}</g>')
        width = max(width, x + p.width)
        x += p.width + 28
        row_h = max(row_h, p.height)
    y += row_h
    if stack is not None and stack.shape[0] * stack.shape[1] > 1:
        grid = _thumbs(stack, *selected, theme, MAX_WIDTH)
        if grid is not None:
            body, gw, gh = grid
            parts.append(f'<g transform="translate(8,{y + 12:.1f})">{"".join(body)}</g>')
            width = max(width, 8 + gw)
            y += 12 + gh
    caption = "static picture · the interactive figure replaces it when scripts run"
    y += 14
    parts.append(f'<text x="8" y="{y:.1f}" font-size="10" fill="{muted}">{_esc(caption)}</text>')
    width, height = math.ceil(max(width, _tw(caption, 10) + 16) + 8), math.ceil(y + 8)
    doc = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="{_esc(FONT)}">'
           f'<title>{_esc(alt)}</title><rect width="100%" height="100%" fill="{bg}"/>' + "".join(parts) + "</svg>")
    return doc, alt


def img(config: dict, opts: dict | None = None, attrs: str = "") -> str:
    """The picture as an ``<img>`` with a data URI (what survives JupyterLab's sanitizer)."""
    doc, alt = svg(config, opts)
    uri = "data:image/svg+xml;base64," + base64.b64encode(doc.encode("utf-8")).decode("ascii")
    return f'<img src="{uri}" alt="{_esc(alt)}"{attrs}>'
