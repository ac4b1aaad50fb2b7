"""Python values into the config: every array kind a notebook has, and every ValueError message."""

import math

import numpy as np
import pytest

import attention_viz as av
from attention_viz import _config

X = [[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1]]
W = [[2, 0, 2], [2, 0, 0], [2, 1, 2]]


class FakeTensor:
    """What torch.Tensor offers: .detach().cpu().numpy() (never imported here)."""

    def __init__(self, array):
        self.array = np.asarray(array)
        self.calls = []

    def detach(self):
        self.calls.append("detach")
        return self

    def cpu(self):
        self.calls.append("cpu")
        return self

    def numpy(self):
        self.calls.append("numpy")
        return self.array


class ArrayLike:
    """Anything with __array__ (jax, pandas, xarray…)."""

    def __init__(self, array):
        self.array = np.asarray(array)

    def __array__(self, dtype=None, copy=None):
        return self.array if dtype is None else self.array.astype(dtype)


def test_lists_numpy_float32_scalars_agree():
    a = av.show(embeddings=X, w_q=W, w_k=W, w_v=W).config
    b = av.show(embeddings=np.array(X), w_q=np.array(W, dtype=np.float32), w_k=np.array(W, dtype=np.int8),
                w_v=np.array(W, dtype=np.float64)).config
    assert a["embeddings"] == b["embeddings"] == X
    for key in ("w_q", "w_k", "w_v"):
        assert np.array_equal(a[key], b[key])
    assert all(isinstance(v, float) for row in b["w_q"] for v in row)  # float32 → plain float
    assert all(type(v) is int for row in b["w_k"] for v in row)


def test_float32_values_are_their_shortest_decimals():
    x = np.array([[0.1, 0.2], [0.3, 1 / 3]], dtype=np.float32)
    cfg = av.show(embeddings=x).config
    assert cfg["embeddings"] == [[0.1, 0.2], [0.3, 0.33333334]]
    # …which are the same float32 numbers.
    assert np.array_equal(np.asarray(cfg["embeddings"], dtype=np.float32), x)
    h = av.show_attention(np.array([[0.25, 0.75]], dtype=np.float16)).config
    assert h["attention"] == [[0.25, 0.75]]


def test_numpy_scalars_in_fields():
    cfg = av.show(embeddings=X, w_q=W, w_k=W, w_v=W, query=np.int64(2), temperature=np.float32(0.5),
                  valid_lens=[np.int32(4), np.int64(3), 2, np.uint8(1)], scale=np.float64(2.5)).config
    assert cfg["query"] == 2 and type(cfg["query"]) is int
    assert cfg["temperature"] == 0.5 and type(cfg["temperature"]) is float
    assert cfg["valid_lens"] == [4, 3, 2, 1]
    assert cfg["scale"] == 2.5
    # Whole floats are fine for whole-number fields.
    assert av.show(embeddings=X, query=np.float64(1.0)).config["query"] == 1


def test_torch_like_tensor():
    t = FakeTensor(X)
    cfg = av.show(embeddings=t).config
    assert cfg["embeddings"] == X
    assert t.calls == ["detach", "cpu", "numpy"]


def test_array_interface_object():
    cfg = av.show(embeddings=ArrayLike(np.array(X, dtype=np.float32)), tokens=np.array(["a", "b", "c", "d"])).config
    assert cfg["embeddings"] == X
    assert cfg["tokens"] == ["a", "b", "c", "d"]


def test_list_of_arrays_and_tensors():
    cfg = av.show(embeddings=[np.array(r) for r in X]).config
    assert cfg["embeddings"] == X
    cfg = av.show(embeddings=[FakeTensor(r) for r in X]).config
    assert cfg["embeddings"] == X


def test_config_is_plain_json():
    import json
    cfg = av.show(embeddings=np.array(X, dtype=np.float32), w_q=W, w_k=W, w_v=W, mask="causal",
                  temperature=np.float64(2)).config
    assert json.loads(json.dumps(cfg, allow_nan=False)) == cfg


@pytest.mark.parametrize("value,message", [
    ([[1.0, 0.0], [float("nan"), 1.0]], "embeddings row 1, column 0 is NaN"),
    (np.array([[1.0, 0.0, 2.0], [0.0, np.inf, 1.0], [1, 2, 3]]), "embeddings row 1, column 1 is Infinity"),
    (np.array([[1.0, -np.inf]]), "embeddings row 0, column 1 is -Infinity"),
    ([[1, 0, 0], [0, 1], [1, 1, 0]], "embeddings row 1 has 2 values, expected 3"),
    ([[1, 0], [0, "x"]], 'embeddings row 1, column 1 is the text "x", not a number'),
    ([[1, 0], [0, None]], "embeddings row 1, column 1 is null, not a number"),
    ([1, 2, 3], "embeddings row 0 must be a list of numbers, got 1"),
    (np.zeros((2, 2), dtype=complex), "embeddings has complex values"),
    (np.zeros((0, 3)), "embeddings is empty"),
])
def test_array_messages(value, message):
    with pytest.raises(ValueError) as e:
        av.show(embeddings=value)
    assert message in str(e.value)


@pytest.mark.parametrize("fields,message", [
    (dict(w_q=[[1, 0]] * 2, w_k=W, w_v=W),
     "w_q has 2 rows, expected 3: one row per embedding dimension"),
    (dict(w_q=W, w_k=[[1, 0]] * 3, w_v=W), "w_k has 2 columns but w_q has 3"),
    (dict(w_q=W, w_k=W), "w_q, w_k and w_v go together: w_v missing"),
    (dict(tokens=["a", "b"]), "tokens has 2 names but embeddings has 4 rows"),
    (dict(w_q=W, w_k=W, w_v=W, heads=2), "w_q has 3 columns, which 2 heads cannot split evenly"),
    (dict(heads=2), "several heads need w_q, w_k and w_v"),
    (dict(heads=1.5), "heads must be a whole number"),
    (dict(w_q=W, w_k=W, w_v=W, head=1), "head must be a whole number from 0 to 0"),
    (dict(w_q=W, w_k=W, w_v=W, w_o=[[1]] * 2), "w_o has 2 rows, expected 3"),
    (dict(query=4), "query 4 is out of range: there are 4 tokens, numbered 0 to 3"),
    (dict(temperature=0), "temperature must be a positive number"),
    (dict(temperature=float("nan")), "temperature must be a positive number"),
    (dict(scale=-1), "scale must be a positive number"),
    (dict(mask="casual"), 'mask must be "none", "causal" or a 4 × 4 matrix of 0/1 or true/false (1 = may attend), got the text "casual"'),
    (dict(mask=[[1, 0], [0, 1]]), "mask has 2 rows, expected 4"),
    (dict(mask=[[1, 0, 0, 2]] * 4), "mask row 0, column 3 is 2: each entry must be 0 or 1"),
    (dict(valid_lens=[1, 2]), "valid_lens has 2 values, expected 4"),
    (dict(valid_lens=[1, -1, 2, 3]), "valid_lens entry 1 is -1: each must be a whole number ≥ 0"),
    (dict(masked_row="zeros"), 'masked_row must be "zero", "uniform" or "nan", got the text "zeros"'),
    (dict(scoring="luong"), 'scoring must be "dot", "general", "additive" or "cosine", got the text "luong"'),
    (dict(scoring="general"), "w_a is missing: general scoring needs w_a"),
    (dict(scoring="general", w_a=[[1, 0], [0, 1]]), "w_a row 0 has 2 values, expected 3"),
    (dict(w_a=W), 'w_a belongs to general or additive scoring, but scoring is "dot"'),
    (dict(scoring="additive", w_a=[[1, 0]] * 3, u_a=[[1, 0]] * 3, v_a=[1, 2, 3]),
     "v_a has 3 values, expected 2 (d_a, the columns of w_a)"),
    (dict(decoder_state=[1, 2, 3]), "embeddings belongs to self-attention, but mechanism is \"cross\""),
    (dict(mechanism="self", decoder_state=[1, 2, 3]), "decoder_state belongs to cross-attention, but mechanism is \"self\""),
    (dict(mechanism="slef"), 'mechanism must be "self", "cross" or "weights", got the text "slef"'),
])
def test_self_messages(fields, message):
    with pytest.raises(ValueError) as e:
        av.show(embeddings=X, **fields)
    assert message in str(e.value)


@pytest.mark.parametrize("fields,message", [
    (dict(decoder_state=[1, 2], annotations=[[1, 2, 3]]), "annotations row 0 has 3 values, expected 2"),
    (dict(decoder_state=[[1, 2]], annotations=[[1, 2]]), "decoder_state, column 0 is a list of 2 items, not a number"),
    (dict(annotations=[[1, 2]]), "decoder_state is missing"),
    (dict(decoder_state=[1, 2], annotations=[[1, 2]], mask=[1, 0]), "mask has 2 values, expected 1 (one per key)"),
    (dict(decoder_state=[1, 2], annotations=[[1, 2]], heads=2), "heads belongs to self-attention"),
    (dict(decoder_state=[1, 2], annotations=[[1, 2]], tokens=["a", "b"]), "tokens has 2 names but annotations has 1 rows"),
])
def test_cross_messages(fields, message):
    with pytest.raises(ValueError) as e:
        av.show(**fields)
    assert message in str(e.value)


def test_unknown_field_suggests():
    # A name nearest a config field is named by the core's config check; one nearest an element option, by its options'
    # check (src/options.rs).
    with pytest.raises(ValueError, match=r'unknown config field "embedings" \(did you mean "embeddings"\?\)'):
        av.show(embedings=X)
    with pytest.raises(ValueError, match=r'did you mean "palette"\?'):
        av.show(embeddings=X, pallete="rocket")
    with pytest.raises(ValueError, match='unknown config field "zzzzzzzz"; known fields are mechanism'):
        av.show(embeddings=X, zzzzzzzz=1)


@pytest.mark.parametrize("name,message", [
    # Two edits from each of seed-000 … seed-003: the first of them is offered.
    ("seed-04", 'unknown preset \'seed-04\' (did you mean "seed-000"?); presets are seed-000, seed-001, seed-002, seed-003'),
    ("seed-001x", 'unknown preset \'seed-001x\' (did you mean "seed-001"?); presets are seed-000, seed-001, seed-002, seed-003'),
    # Nothing near: no suggestion, only the list.
    ("zzz", "unknown preset 'zzz'; presets are seed-000, seed-001, seed-002, seed-003"),
])
def test_unknown_preset(name, message):
    with pytest.raises(ValueError) as e:
        av.show(preset=name)
    assert str(e.value) == message


@pytest.mark.parametrize("options,message", [
    (dict(theme="night"), "theme must be 'auto', 'light', 'dark', got 'night'"),
    (dict(contrast="high"), 'contrast "high" is not one of "seaborn"'),
    (dict(height=-3), "height must be a positive number of CSS pixels, got -3"),
    (dict(height=10), "height must be from 40 to 4000 CSS pixels, got 10"),
    (dict(editable="no"), "editable must be True or False, got 'no'"),
    (dict(fmt="2g"), 'fmt "2g" is not one of seaborn\'s format specs'),
    (dict(fmt=".2x"), 'fmt ".2x" is not one of seaborn\'s format specs'),
    (dict(palette=""), 'palette "" is not a palette'),
    (dict(views=["weights", ""]), "views must name heatmaps or panels"),
])
def test_option_messages(options, message):
    with pytest.raises(ValueError) as e:
        av.show(embeddings=X, **options)
    assert message in str(e.value)


def test_options_become_attributes():
    f = av.show(preset="seed-003", views=["weights", "context"], palette="purple", fmt=".3g", height=np.int64(150),
                editable=False, theme="dark", contrast="more")
    assert f.options == {"views": "weights,context", "palette": "purple", "fmt": ".3g", "height": "150",
                         "editable": "false", "theme": "dark", "contrast": "more"}


def test_presets_and_overrides(seed_values):
    # The preset's inputs are the seed document's (tests/fixtures/seed-values.json), not the core's own copy of them.
    s = seed_values["seed_000_001"]
    f = av.show(preset="seed-001")
    assert [f.config[k] for k in ("embeddings", "w_q", "w_k", "w_v")] == [s["words"], s["W_Q"], s["W_K"], s["W_V"]]
    assert f.config["tokens"] == ["word_1", "word_2", "word_3", "word_4"]
    g = av.show(preset="seed-001", temperature=2, query=np.int64(3))
    assert g.config["temperature"] == 2.0 and g.config["query"] == 3
    # A new mechanism's inputs replace the preset's.
    h = av.show(preset="seed-001", decoder_state=[1, 2], annotations=[[1, 2], [3, 4]])
    assert "embeddings" not in h.config and h.config["decoder_state"] == [1, 2]
    assert sorted(av.presets()) == ["seed-000", "seed-001", "seed-002", "seed-003"]


# ---------------------------------------------------------------------------
# show_attention
# ---------------------------------------------------------------------------

def softmaxed(shape, seed=0):
    a = np.random.default_rng(seed).random(shape)
    return a / a.sum(-1, keepdims=True)


@pytest.mark.parametrize("shape", [(5, 5), (3, 5, 5), (2, 3, 5, 5), (4, 6)])
def test_show_attention_shapes(shape):
    a = softmaxed(shape)
    f = av.show_attention(a)
    assert f.config["mechanism"] == "weights"
    assert np.array_equal(np.asarray(f.config["attention"]), a)


def test_hugging_face_tuple_is_stacked():
    layers = [softmaxed((1, 3, 5, 5), seed=i) for i in range(4)]
    f = av.show_attention(tuple(FakeTensor(a) for a in layers), tokens=list("abcde"))
    got = np.asarray(f.config["attention"])
    assert got.shape == (4, 3, 5, 5)
    assert np.array_equal(got, np.stack([a[0] for a in layers]))
    assert f.config["tokens"] == list("abcde")
    # A list of per-layer heads × n × n arrays, too.
    f = av.show_attention([a[0] for a in layers])
    assert np.asarray(f.config["attention"]).shape == (4, 3, 5, 5)


def test_hugging_face_batch_needs_one_sentence():
    layers = tuple(softmaxed((2, 3, 5, 5), seed=i) for i in range(2))
    with pytest.raises(ValueError, match=r"batch of 2 sentences .*pick one"):
        av.show_attention(layers)


@pytest.mark.parametrize("call,message", [
    (lambda: av.show_attention(np.array([[0.5, -0.1], [0.2, 0.8]])),
     "attention[0, 1] is -0.1: attention weights must be ≥ 0"),
    (lambda: av.show_attention(np.array([[[0.5, np.nan], [0.2, 0.8]]])), "attention[0, 0, 1] is NaN"),
    (lambda: av.show_attention(np.ones(4)), "it must be n × m, heads × n × m or layers × heads × n × m"),
    (lambda: av.show_attention(np.ones((2, 2)), tokens=["a"]), "tokens has 1 names but attention has 2 rows"),
    (lambda: av.show_attention(np.ones((2, 3)), key_tokens=["a"]), "key_tokens has 1 names but attention's keys"),
    (lambda: av.show_attention(np.ones((2, 3, 3)), head=2), "head must be a whole number from 0 to 1"),
    (lambda: av.show_attention(np.ones((2, 2, 3, 3)), layer=5), "layer must be a whole number from 0 to 1"),
    (lambda: av.show_attention([np.ones((1, 2, 3, 3)), np.ones((1, 2, 4, 4))]), "the layers' attentions differ in shape"),
    (lambda: av.show_attention(np.ones((2, 2)), theme="neon"), "theme must be"),
    (lambda: av.show_attention(np.ones((2, 2)), tokns=["a", "b"]), 'did you mean "tokens"?'),
    (lambda: av.show(attention=np.ones((2, 2)), w_q=W), "w_q belongs to computed attention"),
])
def test_show_attention_messages(call, message):
    with pytest.raises(ValueError) as e:
        call()
    assert message in str(e.value)


def test_show_attention_options_and_fields():
    f = av.show_attention(np.ones((2, 3, 4)) / 4, tokens=["a", "b", "c"], key_tokens=list("wxyz"), head=1, fmt=".1f")
    assert f.config["key_tokens"] == list("wxyz") and f.config["head"] == 1
    assert f.options == {"fmt": ".1f"}
    assert math.isclose(sum(f.config["attention"][1][0]), 1.0)


class FakeModelOutput:
    """What a Hugging Face model returns: an object with ``.attentions`` (torch never imported here)."""

    def __init__(self, attentions):
        self.attentions = attentions


EAGER = 'attn_implementation="eager"'


@pytest.mark.parametrize("attentions", [(), [], (None, None)], ids=["transformers-5-sdpa", "list", "4.x-sdpa"])
def test_hugging_face_without_weights_says_what_to_do(attentions):
    # transformers 5's default attention (sdpa) returns outputs.attentions == (): the message says why and what to do,
    # given the tuple or the whole model output.
    for given in (attentions, FakeModelOutput(attentions)):
        with pytest.raises(ValueError) as e:
            av.show_attention(given)
        message = str(e.value)
        assert message.startswith("the model returned no attention weights")
        assert EAGER in message and "output_attentions=True" in message
        assert "got an array of shape" not in message


def test_hugging_face_output_without_output_attentions():
    for given in (None, FakeModelOutput(None)):
        with pytest.raises(ValueError) as e:
            av.show_attention(given)
        assert "attentions is None" in str(e.value) and "output_attentions=True" in str(e.value)


def test_hugging_face_whole_output_is_taken():
    layers = [softmaxed((1, 2, 3, 3), seed=i) for i in range(2)]
    f = av.show_attention(FakeModelOutput(tuple(FakeTensor(a) for a in layers)))
    assert np.array_equal(np.asarray(f.config["attention"]), np.stack([a[0] for a in layers]))


def test_shortest_decimals_are_numpys_str_without_the_strings():
    # _config.shortest_decimals replaced x.astype(str).astype(np.float64) (seconds for a model's stack): the same
    # float64 numbers, bit for bit, for random bit patterns (every exponent: the far ones take the strings' way),
    # values in (0, 1) like attention weights, and the edges (ties of the rounding, powers of ten, ±0, ±inf, NaN).
    from attention_viz._config import shortest_decimals
    rng = np.random.default_rng(0)
    edges = [0.1, 0.2, 0.3, 1 / 3, 2.5, 0.015625, 1e-45, 3.4e38, 1e22, 1e-13, 100, 1000, 0.001, -0.0, 0.0,
             np.inf, -np.inf, np.nan, 16777216, 65504, 6e-8]
    for dtype, bits in ((np.float32, np.uint32), (np.float16, np.uint16)):
        with np.errstate(all="ignore"):
            x = np.concatenate([rng.integers(0, np.iinfo(bits).max, 20000, dtype=np.uint64).astype(bits).view(dtype),
                                rng.random(20000).astype(dtype), (rng.random(20000) / 1024).astype(dtype),
                                np.array(edges).astype(dtype)]).reshape(-1, 3)
            want = x.astype(str).astype(np.float64)
        got = shortest_decimals(x)
        assert got.shape == x.shape
        same = (got.view(np.uint64) == want.view(np.uint64)) | (np.isnan(got) & np.isnan(want))
        assert same.all(), (x[~same][:5], got[~same][:5], want[~same][:5])
