"""Bad input to show() and show_attention() raises ValueError, whatever its type or size, and the message quotes
the input cut to the core's length (src/text.rs QUOTE_MAX): a 400-digit number or a 1,000-character name is not
echoed whole, a list where a name belongs is not a TypeError, a number beyond float64 is not an OverflowError.
The config's messages are the core's (tests/python/test_core.py compares them with the page's compute()); the
element options' are the core's too (src/options.rs), quoting the value as Python writes it (``_config.quote``, cut as
the core cuts); the presets' are Python's; all are checked here."""

import re
from pathlib import Path

import numpy as np
import pytest

import attention_viz as av
from attention_viz import _config
from conftest import load

REPO = Path(__file__).resolve().parent.parent.parent
X = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
I2 = [[1.0, 0.0], [0.0, 1.0]]
W = dict(embeddings=X, w_q=I2, w_k=I2, w_v=I2)
BIG = 10**400
LONG = "x" * 1000


def test_quote_length_is_the_cores():
    (rust,) = re.findall(r"pub const QUOTE_MAX: usize = (\d+);", (REPO / "src/text.rs").read_text(encoding="utf-8"))
    assert _config.QUOTE_MAX == int(rust)


def test_quote_and_cut_cut_as_the_core_does():
    n = _config.QUOTE_MAX
    assert _config.cut("7" * n) == "7" * n
    assert _config.cut("7" * (n + 1)) == "7" * (n - 1) + "…"
    assert _config.quote("a" * n) == repr("a" * n)
    assert _config.quote("a" * (n + 1)) == "'" + "a" * (n - 1) + "…'"
    # Cut after escaping, as the core cuts: an unprintable text stays short too.
    assert _config.quote("\x01" * n) == "'" + repr("\x01" * n)[1 : n] + "…'"
    assert _config.quote(BIG) == "1" + "0" * (n - 2) + "…"
    assert _config.quote(-(10**5000)) == "-1" + "0" * (n - 3) + "…"  # past str()'s 4,300 digits
    assert _config.quote(7 * 10**50_000).startswith("7000")
    assert _config.quote(2**1_000_000) == "a whole number of about 301,030 digits"  # its digits would take seconds
    assert _config.dquote('a"b') == '"a\\"b"'
    assert _config.dquote("é" * (n + 5)) == '"' + "é" * (n - 1) + '…"'


# Each: the call, a part of the message, and the quoted input as it must appear (cut). A Python int beyond float64
# reaches the core as what a JavaScript number holding it is, Infinity (compute() sends it as the text "Infinity");
# the element options' and presets' messages quote the value as Python writes it.
CUT_INT = "1" + "0" * 38 + "…"
CUT_TEXT = "'" + "x" * 39 + "…'"
CORE_TEXT = '"' + "x" * 39 + '…"'
INF = 'the text "Infinity"'
CASES = {
    "heads, a big int": (lambda: av.show(**W, heads=BIG), "heads must be a whole number", INF),
    "heads of a preset": (lambda: av.show(preset="seed-001", heads=BIG), "heads must be a whole number", INF),
    "heads beside arrays": (lambda: av.show(embeddings=np.eye(2), heads=BIG), "heads must be a whole number", INF),
    "head": (lambda: av.show(**W, head=BIG), "head must be a whole number", INF),
    "query": (lambda: av.show(embeddings=X, query=BIG), "query must be a token index", INF),
    "temperature": (lambda: av.show(embeddings=X, temperature=BIG), "temperature must be a positive number", INF),
    "temperature < 0": (lambda: av.show(embeddings=X, temperature=-BIG), "temperature must be a positive number",
                        'the text "-Infinity"'),
    "scale": (lambda: av.show(embeddings=X, scale=BIG), "scale must be", INF),
    "scale text": (lambda: av.show(embeddings=X, scale=LONG), "scale must be", CORE_TEXT),
    "embedding value": (lambda: av.show(embeddings=[[BIG, 1], [1, 1]]), "embeddings row 0, column 0 is Infinity",
                        "finite number"),
    "w_o value": (lambda: av.show(**W, w_o=[[BIG, 0], [0, 1]]), "w_o row 0, column 0 is Infinity", "finite number"),
    "mask value": (lambda: av.show(embeddings=X, mask=[[1, BIG, 1]] * 3), "mask row 0, column 1 is", INF),
    "valid_lens value": (lambda: av.show(embeddings=X, valid_lens=[BIG, 1, 1]), "valid_lens entry 0 is", INF),
    "embedding text": (lambda: av.show(embeddings=[[LONG, 1], [1, 1]]), "is the text", CORE_TEXT),
    "mechanism": (lambda: av.show(embeddings=X, mechanism=LONG), "mechanism must be", CORE_TEXT),
    "mask name": (lambda: av.show(embeddings=X, mask=LONG), "mask must be", CORE_TEXT),
    "scoring list": (lambda: av.show(embeddings=X, scoring=[LONG]), "scoring must be", "a list of 1 items"),
    "unknown field": (lambda: av.show(embeddings=X, **{LONG: 1}), "unknown config field", CORE_TEXT),
    "unknown argument": (lambda: av.show_attention(np.eye(2), **{LONG: 1}), "unknown argument", '"' + "x" * 39 + '…"'),
    "preset name": (lambda: av.show(preset=LONG), "unknown preset", CUT_TEXT),
    "preset list": (lambda: av.show(preset=["seed-001"]), "preset must be a preset's name", "['seed-001']"),
    "preset dict": (lambda: av.show(preset={"seed-001": 1}), "preset must be a preset's name", "{'seed-001': 1}"),
    "preset int": (lambda: av.show(preset=BIG), "preset must be a preset's name", CUT_INT),
    "layer": (lambda: av.show_attention(np.ones((2, 2)) / 2, layer=BIG), "layer must be a whole number", INF),
    "tokens text": (lambda: av.show_attention(np.ones((2, 2)) / 2, tokens=LONG), "tokens must be a list", CORE_TEXT),
    "height": (lambda: av.show(embeddings=X, height=BIG), "height must be a positive number", CUT_INT),
    "height text": (lambda: av.show(embeddings=X, height="9" * 1000), "height must be a positive number",
                    "'" + "9" * 39 + "…'"),
    "fmt": (lambda: av.show(embeddings=X, fmt=LONG), "is not one of seaborn's format specs", CORE_TEXT),
    "palette": (lambda: av.show(embeddings=X, palette=BIG), "palette must be a text", CUT_INT),
    "theme": (lambda: av.show(embeddings=X, theme=LONG), "theme must be", CUT_TEXT),
    "contrast": (lambda: av.show(embeddings=X, contrast=[LONG]), "contrast must be", "['" + "x" * 37 + "…"),
    "editable": (lambda: av.show(embeddings=X, editable=LONG), "editable must be True or False", CUT_TEXT),
    "views": (lambda: av.show(embeddings=X, views=[LONG, ""]), "views must name", "['" + "x" * 37 + "…"),
    "views int": (lambda: av.show(embeddings=X, views=BIG), "views must name", CUT_INT),
    "views bool": (lambda: av.show(embeddings=X, views=True), "views must name", "True"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input_raises_value_error_with_the_input_cut(name):
    call, message, shown = CASES[name]
    with pytest.raises(Exception) as e:
        call()
    assert type(e.value) is ValueError, f"{type(e.value).__name__}: {str(e.value)[:200]}"
    text = str(e.value)
    assert message in text, text
    assert shown in text, text
    # Nothing the caller wrote is echoed beyond the cut: no run of its characters longer than QUOTE_MAX.
    assert not re.search(r"[0-9x]{%d}" % (_config.QUOTE_MAX + 1), text), text
    assert len(text) < 400, len(text)


# The malformed configs the core's and the page's tests share (tests/fixtures/malformed-configs.json), each with a part
# of the message it must get. Python takes a config as a dict or keyword arguments: the fixture's configs that are
# not objects cannot be given to it.
FIXTURE = [c for c in load("malformed-configs.json")["cases"] if isinstance(c["config"], dict)]


@pytest.mark.parametrize("case", FIXTURE, ids=[c["name"] for c in FIXTURE])
def test_every_malformed_config_of_the_fixture_gets_its_message(case):
    for call in (lambda: av.compute(case["config"]), lambda: av.show(**case["config"])):
        with pytest.raises(ValueError) as e:
            call()
        assert case["error"] in str(e.value)


# A config field given as None goes to the core as JSON null, as the page's compute() sends null: the same words for
# the same config (`{"__proto__": None}` is an unknown field, `embeddings=None` is null rather than missing).
KNOWN = ("known fields are mechanism, embeddings, w_q, w_k, w_v, tokens, scale, query, decoder_state, annotations, "
         "heads, head, w_o, scoring, w_a, u_a, v_a, temperature, mask, valid_lens, masked_row, position, kv_heads, "
         "window, sinks, decode_step, tiles, b_q, b_k, b_v, b_o, q_norm, k_norm, softcap, attention, key_tokens, layer")
NULL_FIELDS = [
    ({"__proto__": None}, f'unknown config field "__proto__"; {KNOWN}'),
    ({"embeddings": X, "bogus": None}, f'unknown config field "bogus"; {KNOWN}'),
    ({"embeddings": None}, "embeddings must be a list of rows, got null"),
    ({"embeddings": X, "tokens": None}, "tokens must be a list of names, got null"),
    ({"embeddings": X, "w_q": None}, "w_q, w_k and w_v go together: w_k and w_v missing"),
]


@pytest.mark.parametrize("config,message", NULL_FIELDS, ids=[next(iter(c)) if len(c) == 1 else list(c)[-1]
                                                             for c, _ in NULL_FIELDS])
def test_a_field_given_as_none_gets_the_pages_message_for_null(config, message):
    for call in (lambda: av.compute(config), lambda: av.compute(**config), lambda: av.show(**config)):
        with pytest.raises(ValueError) as e:
            call()
        assert str(e.value) == message


def test_none_where_the_core_takes_null_as_the_default_is_the_default_as_in_the_page():
    # The core reads null as "not given" for these (the page's compute() accepts {mask: null} too).
    plain = av.compute(embeddings=X)
    for field in ("mask", "temperature", "valid_lens"):
        got = av.compute(embeddings=X, **{field: None})
        assert np.array_equal(got["weights"], plain["weights"]), field
    assert av.show(embeddings=X, mask=None).config == {"embeddings": X, "mask": None}
    # show_attention's own arguments left at None are not given.
    fig = av.show_attention(np.array(I2), tokens=None, key_tokens=None, layer=None, head=None, query=None)
    assert fig.config == {"mechanism": "weights", "attention": I2}


MIXED = ('attention (mechanism "weights") and annotations (mechanism "cross") are both given: set mechanism to the one '
         'the figure shows')


def test_a_bool_among_numbers_and_a_lone_surrogate_get_the_pages_words():
    # NumPy reads [[0, True]] as floats; the page refuses the true, and Python must say the same.
    for call in (lambda c: av.compute(c), lambda c: av.show(**c)):
        with pytest.raises(ValueError) as e:
            call({"embeddings": [[0, True], [1, 2]]})
        assert str(e.value) == "embeddings row 0, column 1 is true, not a number"
        with pytest.raises(ValueError) as e:
            call({"embeddings": [[1, "\ud800"]]})
        assert str(e.value) == 'embeddings row 0, column 1 is the text "\ufffd", not a number'


def test_a_list_over_the_limits_is_refused_first_by_its_declared_size_as_in_the_page():
    # The page reads a list's length and its first row's before anything else; a config with two faults gets that
    # one's words from Python too (a list, not only an array, declares its shape).
    cases = [
        ({"decoder_state": [[1, 2], [3]], "annotations": list(range(4097))},
         "annotations has 4097 rows; at most 4096 are supported"),
        ({"embeddings": [[1.0]], "W_Q": 1, "w_o": [[1.0]] * 4097}, "w_o has 4097 rows; at most 4096 are supported"),
    ]
    for config, message in cases:
        with pytest.raises(ValueError) as e:
            av.compute(config)
        assert str(e.value).startswith(message), str(e.value)


def test_weights_and_cross_fields_without_a_mechanism_are_judged_by_the_core_alone():
    # Which mechanism a config shows is the core's rule, asked by every path: show()'s shape check and full check,
    # compute(), and a Figure's repr (a hand-made Figure is not checked until it is drawn).
    mixed = dict(attention=I2, annotations=I2, decoder_state=[1.0, 0.0])
    for call in (lambda: av.show(**mixed), lambda: av.show(**{k: np.array(v) for k, v in mixed.items()}),
                 lambda: av.compute(mixed)):
        with pytest.raises(ValueError) as e:
            call()
        assert str(e.value) == MIXED
    assert repr(av.Figure(mixed)) == f"<attention_viz.Figure refused ({MIXED})>"
    cross = dict(mechanism="cross", annotations=I2, decoder_state=[1.0, 0.0])
    assert repr(av.Figure(cross, {"theme": "dark"})) == "<attention_viz.Figure cross theme='dark'>"
    assert repr(av.Figure(dict(annotations=I2, decoder_state=[1.0, 0.0]))) == "<attention_viz.Figure cross>"


# A NumPy masked array: the config has no place for its mask, so one with masked entries is refused (drawing the data
# under the mask would show numbers the caller hid); one with nothing masked is its data.
MASKED_X = np.ma.masked_array(np.array(X), mask=[[False, True], [False, False], [False, False]])
MASKED_A = np.ma.masked_array([[0.5, 0.5], [0.2, 0.8]], mask=[[False, True], [True, False]])
MASKED_EMBEDDINGS = ("embeddings is a NumPy masked array with 1 masked entry, and attention-viz does not read a NumPy "
                     "mask: fill them with numbers, e.g. np.ma.filled(embeddings, 0), and give the keys a query must "
                     "not see as the mask or valid_lens field")
MASKED_ATTENTION = ("attention is a NumPy masked array with 2 masked entries, and attention-viz does not read a NumPy "
                    "mask: fill them with the weights to show, e.g. np.ma.filled(attention, 0)")


def test_a_masked_array_with_masked_entries_is_refused_naming_the_field_and_the_way_to_pass_a_mask():
    # Given whole, with projections, or as a list of masked rows (one of them holding the masked entry).
    for call in (lambda: av.compute(embeddings=MASKED_X), lambda: av.compute({"embeddings": MASKED_X}),
                 lambda: av.show(embeddings=MASKED_X), lambda: av.show(embeddings=MASKED_X, w_q=I2, w_k=I2, w_v=I2),
                 lambda: av.compute(embeddings=list(MASKED_X))):
        with pytest.raises(ValueError) as e:
            call()
        assert str(e.value) == MASKED_EMBEDDINGS
    w_q = np.ma.masked_array(np.array(I2), mask=[[True, False], [False, False]])
    with pytest.raises(ValueError) as e:
        av.compute(embeddings=X, w_q=w_q, w_k=I2, w_v=I2)
    assert str(e.value) == MASKED_EMBEDDINGS.replace("embeddings", "w_q")
    for call in (lambda: av.show_attention(MASKED_A), lambda: av.show_attention([MASKED_A[None]]),
                 lambda: av.compute(mechanism="weights", attention=MASKED_A)):
        with pytest.raises(ValueError) as e:
            call()
        assert str(e.value) == MASKED_ATTENTION


def test_a_masked_array_with_nothing_masked_is_its_data():
    x = np.ma.masked_array(np.array(X), mask=False)
    assert np.array_equal(av.compute(embeddings=x)["weights"], av.compute(embeddings=X)["weights"])
    assert av.show(embeddings=x).config == av.show(embeddings=X).config
    a = np.ma.masked_array([[0.5, 0.5], [0.2, 0.8]])
    assert av.show_attention(a).config == av.show_attention(np.array([[0.5, 0.5], [0.2, 0.8]])).config
    assert av.show_attention(np.ma.masked_array(a, dtype=np.float32)).config["attention"] == [[0.5, 0.5], [0.2, 0.8]]


class _Counted(list):
    """A list that counts how many of its items are read (one by one, by iterating, or by slicing)."""

    reads = 0

    def __getitem__(self, i):
        _Counted.reads += 1
        return super().__getitem__(i)

    def __iter__(self):
        _Counted.reads += 1
        return super().__iter__()


# A list longer than any a config holds outside its matrices (the core's long_list.longest), where a field takes a
# number, two, a word or a short list: refused unread, in the words the core gives the list itself (the reference:
# the list sent whole to the core, as plain JSON); converting and sending a million of them takes seconds.
LONG_FIELDS = {
    "sinks": lambda L: {"sinks": L},
    "window": lambda L: {"window": L},
    "window[0]": lambda L: {"window": [L, 0]},
    "tiles": lambda L: {"tiles": L},
    "position": lambda L: {"position": L},
    "position.slopes": lambda L: {"position": {"kind": "alibi", "slopes": L}},
    "decode_step": lambda L: {"mask": "causal", "decode_step": L},
    "kv_heads": lambda L: {"kv_heads": L},
    "valid_lens": lambda L: {"valid_lens": L},
    "tokens": lambda L: {"tokens": L},
    "query": lambda L: {"query": L},
    "mask row 1": lambda L: {"mask": [[1, 1, 1], L, [1, 1, 1]]},
}


@pytest.mark.parametrize("name", list(LONG_FIELDS))
@pytest.mark.parametrize("kind", ["list", "array"])
def test_a_list_no_field_can_hold_is_refused_unread_in_the_cores_words_for_it(name, kind):
    from attention_viz import _core

    n = 200_000
    fields = {**W, **LONG_FIELDS[name](list(range(n)))}
    plain = _config.plain({k: np.asarray(v) if k in W else v for k, v in fields.items()})
    with pytest.raises(ValueError) as whole:
        _core.call("av_check", {"config": plain, "flat": []})
    assert str(n) in str(whole.value)
    _Counted.reads = 0
    given = _Counted(range(n)) if kind == "list" else np.arange(n)
    for call in (lambda: av.compute(**W, **LONG_FIELDS[name](given)), lambda: av.show(**W, **LONG_FIELDS[name](given))):
        with pytest.raises(ValueError) as e:
            call()
        assert str(e.value) == str(whole.value)
    assert _Counted.reads == 0
