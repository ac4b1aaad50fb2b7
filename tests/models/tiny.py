"""Tiny random-init transformers models of every architecture ``layer_config`` reads, and what transformers computes
for one of their layers: shared by tests/models/ (``make test-models``) and tests/goldens/gen_real_layers.py.

Each case is built from its config (no download): hidden 16 (Phi 32), 4 heads, 2 K/V heads where the architecture
has grouped-query attention, 2 layers, every parameter from a seeded normal (biases too; norm weights around 1,
Gemma's around 0, since Gemma multiplies by 1 + weight), ``attn_implementation="eager"``, run on 6 seeded token ids.
``Float64Mode`` runs transformers in float64 end to end: its float32 upcasts (softmax's dtype=torch.float32, RoPE's
``.float()``, RMSNorm's ``.to(torch.float32)``, there for half precision) stay float64.
"""

from __future__ import annotations

import numpy as np
import torch
import transformers
from torch.overrides import TorchFunctionMode

N_TOKENS, VOCAB, SEED = 6, 50, 1234


class Float64Mode(TorchFunctionMode):
    """Inside it, every cast to float32 is a cast to float64: transformers' upcasts for half precision stay float64."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        if func is torch.Tensor.float:
            return args[0].to(torch.float64)
        wide = lambda a: torch.float64 if a is torch.float32 else a  # noqa: E731
        return func(*(wide(a) for a in args), **{k: wide(v) for k, v in kwargs.items()})


def gqa(**extra):
    return {**dict(hidden_size=16, num_attention_heads=4, num_key_value_heads=2, num_hidden_layers=2,
                   intermediate_size=32, vocab_size=VOCAB, max_position_embeddings=64), **extra}


def llama3_rope():
    return {"rope_type": "llama3", "rope_theta": 10000.0, "factor": 8.0, "low_freq_factor": 1.0,
            "high_freq_factor": 4.0, "original_max_position_embeddings": 16}


GEMMA3 = gqa(head_dim=8, query_pre_attn_scalar=8, sliding_window=3, layer_types=["sliding_attention", "full_attention"])

# (case name, config class, model class, its config's keyword arguments, the layer read)
CASES = [
    ("llama", "LlamaConfig", "LlamaModel", gqa(), 1),
    ("llama3", "LlamaConfig", "LlamaForCausalLM", gqa(head_dim=8, rope_parameters=llama3_rope()), 1),
    ("llama-yarn", "LlamaConfig", "LlamaModel",
     gqa(rope_parameters={"rope_type": "yarn", "rope_theta": 10000.0, "factor": 4.0,
                          "original_max_position_embeddings": 16}), 0),
    ("llama-dynamic", "LlamaConfig", "LlamaModel",
     gqa(max_position_embeddings=4, rope_parameters={"rope_type": "dynamic", "rope_theta": 10000.0, "factor": 2.0}), 1),
    ("mistral", "MistralConfig", "MistralModel", gqa(sliding_window=3), 1),
    ("qwen2", "Qwen2Config", "Qwen2Model", gqa(use_sliding_window=True, sliding_window=4, max_window_layers=1), 1),
    ("qwen3", "Qwen3Config", "Qwen3ForCausalLM", gqa(head_dim=8), 1),
    ("phi", "PhiConfig", "PhiModel",
     dict(hidden_size=32, num_attention_heads=4, num_hidden_layers=2, intermediate_size=32, vocab_size=VOCAB,
          max_position_embeddings=64, rope_parameters={"rope_type": "default", "rope_theta": 10000.0,
                                                       "partial_rotary_factor": 0.5}), 1),
    ("gemma2-sliding", "Gemma2Config", "Gemma2Model",
     gqa(head_dim=8, query_pre_attn_scalar=12, attn_logit_softcapping=2.0, sliding_window=3), 0),
    ("gemma2-global", "Gemma2Config", "Gemma2Model",
     gqa(head_dim=8, query_pre_attn_scalar=12, attn_logit_softcapping=2.0, sliding_window=3), 1),
    ("gemma3-sliding", "Gemma3TextConfig", "Gemma3ForCausalLM", GEMMA3, 0),
    ("gemma3-global", "Gemma3TextConfig", "Gemma3ForCausalLM", GEMMA3, 1),
    ("gpt2", "GPT2Config", "GPT2Model",
     dict(n_embd=16, n_head=4, n_layer=2, n_positions=64, vocab_size=VOCAB, bos_token_id=0, eos_token_id=0), 1),
    ("bert", "BertConfig", "BertModel",
     dict(hidden_size=16, num_attention_heads=4, num_hidden_layers=2, intermediate_size=32, vocab_size=VOCAB,
          max_position_embeddings=64), 1),
]


def build(config_class: str, model_class: str, kwargs: dict, dtype, seed: int):
    """A random-init model: every parameter from a seeded normal (norm weights around 1, Gemma's around 0)."""
    config = getattr(transformers, config_class)(**kwargs)
    config._attn_implementation = "eager"
    torch.manual_seed(seed)
    model = getattr(transformers, model_class)(config).eval()
    with torch.no_grad():
        for name, p in model.named_parameters():
            noise = torch.randn(p.shape, generator=torch.Generator().manual_seed(seed + hash_name(name)))
            base = 1.0 if "norm" in name.lower() and name.endswith("weight") and "gemma" not in config_class.lower() \
                else 0.0
            p.copy_(base + 0.5 * noise)
    return model.to(dtype)


def hash_name(name: str) -> int:
    return sum((i + 1) * ord(c) for i, c in enumerate(name)) % 100_003


def output_module(model, case_model: str, layer: int):
    """The module whose output is the layer's attention output, and how to take it from the module's output."""
    for name, module in model.named_modules():
        if "Bert" in case_model and name.endswith(f"layer.{layer}.attention.output.dense"):
            return module, lambda out: out
        if "GPT2" in case_model and name.endswith(f"h.{layer}.attn"):
            return module, lambda out: out[0]
        if name.endswith(f"layers.{layer}.self_attn"):
            return module, lambda out: out[0]
    raise LookupError(case_model)


def transformers_run(model, case_model: str, layer: int, ids):
    """(weights heads × n × n, output n × d_out) as transformers computed them."""
    module, take = output_module(model, case_model, layer)
    got = {}

    def keep(module, args, out):  # returns None: the module's output stays
        got.setdefault("out", take(out))

    handle = module.register_forward_hook(keep)
    try:
        with torch.no_grad():
            outputs = model(input_ids=ids, output_attentions=True)
    finally:
        handle.remove()
    weights = outputs.attentions[layer][0].to(torch.float64).numpy()
    return weights, got["out"][0].to(torch.float64).numpy()


def token_ids(seed: int):
    """1 × N_TOKENS seeded token ids."""
    return torch.from_numpy(np.random.default_rng(seed).integers(0, VOCAB, size=(1, N_TOKENS)))


def model_of(name: str, dtype, **overrides):
    """The model of case ``name`` (its seed's), with config ``overrides``; and its layer and ids."""
    for k, (case, config_class, model_class, kwargs, layer) in enumerate(CASES):
        if case == name:
            model = build(config_class, model_class, {**kwargs, **overrides}, dtype, SEED + k)
            return model, layer, token_ids(SEED + k)
    raise KeyError(name)
