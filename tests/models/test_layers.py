"""``layer_config`` and ``show_layer`` on live transformers models (``make test-models``; not part of ``make test``):
for every architecture of tiny.py, in float32 and float64, the core's compute() of the config layer_config gives must
be the layer's attention as transformers computed it, every head's weights (``output_attentions``) and the attention
module's output: float32 to 2e-5, float64 (transformers in float64 end to end: tiny.Float64Mode) to 1e-9. Also what
is refused: an architecture it does not read, padding, a batch, Phi's qk_layernorm."""

import contextlib

import numpy as np
import pytest
import torch
import transformers
from tiny import CASES, Float64Mode, model_of, transformers_run

import attention_viz as av

DTYPES = [(torch.float32, 2e-5), (torch.float64, 1e-9)]
PARAMS = [(c[0], d, b) for c in CASES for d, b in DTYPES]


def model_class(name):
    return next(c[2] for c in CASES if c[0] == name)


@pytest.mark.parametrize("name,dtype,bound", PARAMS, ids=[f"{n}-{str(d)[6:]}" for n, d, _ in PARAMS])
def test_compute_of_layer_config_is_the_layer(name, dtype, bound, capsys):
    model, layer, ids = model_of(name, dtype)
    with Float64Mode() if dtype == torch.float64 else contextlib.nullcontext():
        config = av.layer_config(model, ids, layer=layer)
        weights, output = transformers_run(model, model_class(name), layer, ids)
    trace = av.compute(config)
    got = np.stack([h["weights"] for h in trace["heads"]])
    assert got.shape == weights.shape
    with capsys.disabled():  # the numbers a note quotes: each case's largest difference from transformers
        print(f"\n  {name:<16} {str(dtype)[6:]:<8} layer {layer}: weights {np.abs(got - weights).max():.1e}, "
              f"output {np.abs(trace['output'] - output).max():.1e} (bound {bound:.0e})", end="")
    assert np.abs(got - weights).max() <= bound, f"weights {np.abs(got - weights).max():.1e}"
    assert np.abs(trace["output"] - output).max() <= bound, f"output {np.abs(trace['output'] - output).max():.1e}"


class Tokenizer:
    """A tokenizer's decode, enough for the tokens' names."""

    def decode(self, ids):
        return "".join(f"<{i}>" for i in ids)


def test_show_layer_is_the_editable_figure_of_layer_config():
    model, layer, ids = model_of("qwen2", torch.float32)
    config = av.layer_config(model, ids, layer=layer, tokenizer=Tokenizer())
    assert config["tokens"] == [f"<{i}>" for i in ids[0].tolist()]
    fig = av.show_layer(model, ids, layer=layer, head=3, tokenizer=Tokenizer(), palette="purple")
    assert isinstance(fig, av.Figure)
    want = av.show(**config, head=3, palette="purple")
    assert (fig.config, fig.options) == (want.config, want.options)
    assert "<attention-viz" in fig.to_html() and "editable" not in fig.options


def test_a_tokenizers_output_and_a_list_read_as_the_tensor():
    model, layer, ids = model_of("llama", torch.float32)
    batch = transformers.BatchEncoding({"input_ids": ids, "attention_mask": torch.ones_like(ids)})
    want = av.layer_config(model, ids, layer=layer)
    assert av.layer_config(model, batch, layer=layer) == want
    assert av.layer_config(model, ids[0].tolist(), layer=layer) == want


def test_the_model_keeps_its_mode_and_sdpa_reads_as_eager():
    """sdpa's layer 0 is read as eager's; a later layer's input rows are what sdpa's earlier layers gave (their
    rounding differs from eager's), the rest is the same."""
    model, _, ids = model_of("mistral", torch.float32)
    model.train()
    eager = [av.layer_config(model, ids, layer=layer) for layer in (0, 1)]
    assert model.training
    model.config._attn_implementation = "sdpa"
    sdpa = [av.layer_config(model, ids, layer=layer) for layer in (0, 1)]
    assert sdpa[0] == eager[0]
    rows = [np.asarray(c.pop("embeddings")) for c in (sdpa[1], eager[1])]
    assert sdpa[1] == eager[1]
    assert np.abs(rows[0] - rows[1]).max() <= 1e-5


def test_an_unknown_architecture_is_refused_by_name():
    config = transformers.GPTNeoXConfig(hidden_size=16, num_attention_heads=4, num_hidden_layers=1,
                                        intermediate_size=32, vocab_size=50)
    with pytest.raises(ValueError, match="^gpt_neox: layer_config does not read this architecture yet"):
        av.layer_config(transformers.GPTNeoXModel(config), [1, 2, 3])


@pytest.mark.parametrize("case,inputs,message", [
    ("llama", {"input_ids": [[1, 2, 3]], "attention_mask": [[0, 1, 1]]}, "^llama: the attention_mask hides"),
    ("llama", [[1, 2, 3], [4, 5, 6]], "batch of 2 sequences"),
    ("bert", [[1.5, 2.0]], "must be token ids"),
])
def test_inputs_the_config_cannot_express_are_refused(case, inputs, message):
    model, _, _ = model_of(case, torch.float32)
    with pytest.raises(ValueError, match=message):
        av.layer_config(model, inputs, layer=0)


def test_phi_qk_layernorm_and_a_layer_past_the_last_are_refused():
    model, _, ids = model_of("phi", torch.float32, qk_layernorm=True)
    with pytest.raises(ValueError, match="^phi: qk_layernorm"):
        av.layer_config(model, ids, layer=0)
    with pytest.raises(ValueError, match="layer must be a layer's index, 0 … 1, got 2"):
        av.layer_config(model, ids, layer=2)
