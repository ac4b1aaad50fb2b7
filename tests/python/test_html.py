"""Figure's HTML: the picture (an <img> whose SVG holds the right numbers), the element with its
config escaped, the engine (the build, deflated), the page save_html writes."""

import base64
import json
import re
import xml.etree.ElementTree as ET
import zlib
from html.parser import HTMLParser
from importlib import resources

import numpy as np
import pytest

import attention_viz as av
from conftest import golden, load

SVG = "{http://www.w3.org/2000/svg}"


class Tags(HTMLParser):
    """Every start tag with its attributes, and each script's text, as a browser's tokenizer sees them."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.tags, self.scripts, self._in = [], [], None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self._in = []

    def handle_endtag(self, tag):
        if tag == "script" and self._in is not None:
            self.scripts.append("".join(self._in))
            self._in = None

    def handle_data(self, data):
        if self._in is not None:
            self._in.append(data)



# RFC 1924's base85 digits, whose decoder (Python's own) reads the core's text85 once its digits are these.
RFC1924 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~"


def from_text85(text):
    """text85's bytes, read by Python's base85 decoder (not the package's code): the core's alphabet mapped to RFC 1924's."""
    digits = av._core.facts()["text85"]
    assert len(digits) == 85 and set(text) <= set(digits)
    return base64.b85decode(text.translate(str.maketrans(digits, RFC1924)))


def engine_parts(text):
    """The engine's two payloads (scripts/python-assets.mjs), inflated: (the .wasm's bytes, the build's script)."""
    digits = re.escape(av._core.facts()["text85"])
    # String literals, not attributes (a picture's data: URI is of text85's characters too).
    payloads = [zlib.decompress(from_text85(b), -15) for b in re.findall(f'(?<!=)"([{digits}]{{10000,}})"', text)]
    (wasm,) = [p for p in payloads if p.startswith(b"\0asm")]
    (js,) = [p.decode("utf-8") for p in payloads if not p.startswith(b"\0asm")]
    return wasm, js


def picture_svg(html_text):
    imgs = [a for t, a in Tags(html_text).tags if t == "img"]
    assert len(imgs) == 1
    src = imgs[0]["src"]
    assert src.startswith("data:image/svg+xml;base64,")
    root = ET.fromstring(base64.b64decode(src.split(",", 1)[1]).decode("utf-8"))
    assert root.tag == SVG + "svg"
    return root, imgs[0]


def luminance(hex_colour):
    """WCAG relative luminance of "#rrggbb"."""
    c = np.array([int(hex_colour[i:i + 2], 16) for i in (1, 3, 5)]) / 255
    lin = np.where(c <= 0.03928, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return float(lin @ [0.2126, 0.7152, 0.0722])


def texts(root):
    # plotters writes each text on a line of its own inside its element.
    return ["".join(t.itertext()).strip("\n") for t in root.iter(SVG + "text")]


def test_repr_html_holds_picture_element_and_script(seed_values):
    f = av.show(preset="seed-001")
    out = f._repr_html_()
    assert out.count("<img") == 1
    assert out.count("<attention-viz ") == 1
    tags = Tags(out)
    root, img = picture_svg(out)
    assert img["alt"] and "Self-attention over 4 tokens" in img["alt"]
    got = texts(root)
    s = seed_values["seed_000_001"]
    for row in s["weights"] + s["attention"]:
        for x in row:
            assert format(x, ".2g") in got, format(x, ".2g")
    for token in ("word_1", "word_4"):
        assert token in got
    # The build, once, guarded, with nothing in it that would end the <script> early.
    (build,) = [t for t in tags.scripts if t.startswith("if (!window.AttentionViz) {")]
    wasm, js = engine_parts(build)
    assert "globalThis.AttentionViz=" in js and 'customElements.define("attention-viz"' in js
    assert wasm == resources.files("attention_viz").joinpath("static/attention_viz_bg.wasm").read_bytes()
    assert not re.search(r"</script", build, re.I)
    assert len(tags.scripts) == 2  # the build and the reveal of the live figure
    el = [a for t, a in tags.tags if t == "attention-viz"][0]
    assert json.loads(el["config"]) == f.config


def test_hostile_tokens_stay_text():
    tokens = ["</script><b>", 'a"b', "c&d", "<img src=x onerror=alert(1)>"]
    f = av.show(preset="seed-001", tokens=tokens)
    out = f.to_html()
    tags = Tags(out)
    names = [t for t, _ in tags.tags]
    assert names.count("img") == 1 and "b" not in names
    assert names.count("script") == 2
    el = [a for t, a in tags.tags if t == "attention-viz"][0]
    assert json.loads(el["config"])["tokens"] == tokens
    root, _ = picture_svg(out)
    got = texts(root)
    for t in tokens:
        # Whole, or cut with an ellipsis: a label that is only the token's start, unmarked, is not it.
        assert any(t in g or g.endswith("…") and len(g) > 1 and t.startswith(g[:-1]) for g in got), t


# Every character XML 1.0 cannot hold, Python's lone surrogates, and the ones markup gives meaning to.
HOSTILE = ["a\x00b", "\x01", "\x08\x0b\x0c", "\x1b[31m", "\x1f", "\ufffe", "\uffff", "x\ud800", "\udfff", "<&>\"'",
           "tab\there", "]]><!--"]
UNFIT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def svgs_in(text):
    """Every SVG data URI in an HTML text, decoded."""
    return [base64.b64decode(b).decode("utf-8") for b in re.findall(r"data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)", text)]


@pytest.mark.parametrize("make", [
    lambda t: av.show(embeddings=np.eye(len(t)), tokens=t, views="weights,context"),
    lambda t: av.show(decoder_state=[1.0, 0.5], annotations=np.ones((len(t), 2)), tokens=t),
    lambda t: av.show_attention(np.ones((2, 2, len(t), len(t))) / len(t), tokens=t, key_tokens=t[::-1]),
], ids=["self", "cross", "weights"])
def test_hostile_tokens_give_valid_svg(make, tmp_path):
    f = make(HOSTILE)
    docs = [f.picture_svg(), *svgs_in(f.picture())]
    f.save_html(tmp_path / "fig.html", title="t\x01\ud800<")
    page = (tmp_path / "fig.html").read_text(encoding="utf-8")
    docs += svgs_in(page)
    assert len(docs) == 3
    for doc in docs:
        root = ET.fromstring(doc)  # raises on any character XML forbids
        assert root.tag == SVG + "svg"
        got = texts(root)
        # Markup stays text; what XML cannot hold is drawn as U+FFFD.
        assert any(g.startswith("<&>\"") for g in got), got
        assert any("\ufffd" in g for g in got), got
        assert "tab\there" in got
    assert not UNFIT.search(page)
    root, img = picture_svg(f.picture())
    assert not UNFIT.search(img["alt"]) and "a\ufffdb" in img["alt"]


def test_options_are_attributes(seed_values):
    f = av.show(preset="seed-003", views="weights,context", palette="purple", fmt=".3g", height=150,
                editable=False, theme="dark", contrast="more")
    el = [a for t, a in Tags(f.to_html()).tags if t == "attention-viz"][0]
    assert {k: el[k] for k in f.options} == f.options
    root, _ = picture_svg(f.to_html())
    assert "929" not in texts(root)  # .3g picture: weights 0.119 …
    assert "0.119" in texts(root) and "0.881" in texts(root)
    # palette="purple": every cell and colour-bar step of both panels is an entry of seaborn's light_palette("purple"),
    # its lightest for the panel's least value and its darkest for the greatest, as sns.heatmap maps them.
    purple = load("seaborn-goldens.json")["light_palettes"]["purple"]["hex"]
    s = seed_values["seed_003"]["stable_softmax"]
    for title, values in (("weights = softmax(scores)", s["weights"]), ("context vector", s["context_vector"])):
        # The panel's rects: its background, its grid's backing, its cells row by row, then its colour bar's steps.
        fills = [r.get("fill") for r in panel(root, title).iter(SVG + "rect")][2:]
        assert fills and all(c in purple for c in fills), (title, fills)
        cells = fills[:len(values)]
        assert cells[int(np.argmin(values))] == purple[0] and cells[int(np.argmax(values))] == purple[-1], (title, cells)
    # theme="dark": a dark picture with light text.
    background = root.find(SVG + "rect").get("fill")
    title = [t for t in root.iter(SVG + "text") if "".join(t.itertext()).strip() == "context vector"][0].get("fill")
    assert luminance(background) < 0.05 and luminance(title) > 0.7, (background, title)


def test_cross_picture_numbers(seed_values):
    s = seed_values["seed_003"]["stable_softmax"]
    root, img = picture_svg(av.show(preset="seed-003")._repr_html_())
    got = texts(root)
    for x in s["weights"] + s["context_vector"]:
        assert format(x, ".2g") in got
    assert "h_1" in got and "Encoder" in img["alt"]


def test_weights_picture_selected_head_and_grid():
    a = np.random.default_rng(1).random((2, 3, 5, 5))
    a /= a.sum(-1, keepdims=True)
    f = av.show_attention(a, tokens=list("abcde"), layer=1, head=2)
    root, img = picture_svg(f.to_html())
    got = texts(root)
    for x in a[1, 2].ravel():
        assert format(x, ".2g") in got
    assert any("layer 1, head 2" in t for t in got)
    assert any("2 layers × 3 heads" in t for t in got)
    # Every head in one image, as the element's grid draws them: 3 thumbnails wide, 2 high, with gaps between.
    (grid,) = [i for i in root.iter(SVG + "image")]
    width, height = float(grid.get("width")), float(grid.get("height"))
    assert width > 3 * 14 and height > 2 * 14 and abs(width / height - 1.5) < 0.1, (width, height)
    assert "layer 1, head 2" in img["alt"]


def test_big_heatmap_is_a_raster():
    a = np.random.default_rng(2).random((128, 128))
    svg = av.show_attention(a / a.sum(-1, keepdims=True)).picture_svg()
    root = ET.fromstring(svg)
    assert len(list(root.iter(SVG + "rect"))) < 50
    # The grid and the colour bar as PNGs of the canvas's own pixels.
    assert len([i for i in root.iter(SVG + "image") if i.get("href", "").startswith("data:image/png;base64,")]) == 2
    assert len(svg) < 200_000


def panel(root, title):
    """The picture's panel (a heatmap: an <svg> inside the picture's) whose title is `title`."""
    (g,) = [g for g in root.findall(SVG + "svg") if title in texts(g)]
    return g


def seaborn_figure(name):
    (fig,) = [f for f in load("seaborn-goldens.json")["figures"] if f["name"] == name]
    return fig


def test_signed_context_uses_diverging_colours():
    # seaborn's own colours for this context: sns.heatmap(context, cmap="vlag", center=0)
    # (tests/goldens/gen_seaborn_goldens.py, figure "signed_context").
    fig = seaborn_figure("signed_context")
    x = [[1.0, -2.0], [-1.5, 0.5], [0.3, 0.2]]
    f = av.show(embeddings=x)
    np.testing.assert_allclose(av.compute(f.config)["context"], golden(fig["data"]), rtol=1e-12)
    root, _ = picture_svg(f.to_html())
    fills = [r.get("fill") for r in panel(root, "context = weights·V").iter(SVG + "rect")]
    want = [c for row in fig["facecolors"] for c in row]
    # The cells, one after another (after the panel's background, before its colour bar).
    (at,) = [i for i in range(len(fills)) if fills[i:i + len(want)] == want]
    cells = fills[at:at + len(want)]
    # Which is the diverging map: negative values blue, positive red.
    ctx = golden(fig["data"]).ravel()
    rgb = [bytes.fromhex(c[1:]) for c in cells]
    assert all((c[2] > c[0]) == (v < 0) for c, v in zip(rgb, ctx)), list(zip(cells, ctx))


def test_save_html_writes_a_standalone_page(tmp_path):
    f = av.show(preset="seed-002")
    path = f.save_html(tmp_path / "fig.html")
    text = (tmp_path / "fig.html").read_text(encoding="utf-8")
    assert path == str(tmp_path / "fig.html")
    assert text.startswith("<!doctype html>") and "<meta charset=\"utf-8\">" in text
    assert text.count("<attention-viz ") == 1 and text.count("<img") == 1
    assert "globalThis.AttentionViz=" in engine_parts(text)[1]
    assert "http://" not in text.replace("http://www.w3.org/2000/svg", "") and "https://" not in text


def test_repr_mentions_mechanism():
    assert "self" in repr(av.show(preset="seed-001"))
    assert "weights" in repr(av.show_attention(np.eye(3)))


def test_contrast_more_writes_black_or_white():
    seaborn = picture_svg(av.show(preset="seed-001").to_html())[0]
    more = picture_svg(av.show(preset="seed-001", contrast="more").to_html())[0]
    def number(text):
        try:
            return float(text) == float(text)
        except ValueError:
            return False
    # The numbers in the cells: centred on the cell's middle (the colour bar's ticks are start-anchored, the column
    # labels hang below their line).
    fills = lambda root: {t.get("fill") for t in root.iter(SVG + "text") if t.get("text-anchor") == "middle"
                          and t.get("dy") == "0.5ex" and number("".join(t.itertext()).strip())}
    assert "#262626" in fills(seaborn)
    assert fills(more) <= {"#000000", "#ffffff"} and "#000000" in fills(more)
