"""From a Hugging Face transformers model's layer to the config of its self-attention: ``layer_config`` and
``show_layer``.

The model runs once (eval, no gradients) on one sequence; hooks take what layer L's attention module was given (its
input rows, after the layer's norm; the mask; RoPE's positions and, from the rotary module, the inverse frequencies
and attention scaling as that forward used them). The weights, biases, heads, scaling, softcap and q/k norms are read
from the module. Every number is the model's own value widened to float64 (exactly: float32, float16 and bfloat16 all
fit). Nothing is computed or compared here: the core's ``compute()`` of the config gives the layer's weights and
output (tests/models/ and tests/real_layers.rs check it against transformers). torch is never imported by
attention_viz's import, only when a model is read (it is loaded then, since the model is torch's).

What the config cannot express yet (an unknown architecture, Phi's qk_layernorm, bidirectional Gemma, a padded
batch, cross-attention, another mask than the model used…) raises ``ValueError`` naming the model's ``model_type``.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass

import numpy as np

from ._api import show
from ._figure import Figure


@dataclass(frozen=True)
class _Arch:
    """How one family of transformers' architectures lays out a layer's self-attention."""

    attention: str  # the attention module's qualified name, as a regex whose group 1 is the layer's index
    kind: str  # "linear" (q_proj, k_proj, v_proj, o_proj or dense), "conv1d" (GPT-2's c_attn, c_proj), "bert"
    plus_one: bool = False  # Gemma's RMSNorm multiplies by (1 + weight)


_DECODER = r"(?:^|\.)layers\.(\d+)\.self_attn$"
ARCHITECTURES = {
    "llama": _Arch(_DECODER, "linear"),
    "mistral": _Arch(_DECODER, "linear"),
    "qwen2": _Arch(_DECODER, "linear"),
    "qwen3": _Arch(_DECODER, "linear"),
    "phi": _Arch(_DECODER, "linear"),
    "gemma2": _Arch(_DECODER, "linear", plus_one=True),
    "gemma3_text": _Arch(_DECODER, "linear", plus_one=True),
    "gpt2": _Arch(r"(?:^|\.)h\.(\d+)\.attn$", "conv1d"),
    "bert": _Arch(r"(?:^|\.)layer\.(\d+)\.attention$", "bert"),
}


def _model_type(model) -> str:
    config = getattr(model, "config", None)
    kind = getattr(config, "model_type", None)
    if not isinstance(kind, str) or not hasattr(model, "named_modules"):
        raise ValueError(f"layer_config reads a Hugging Face transformers model (a torch module with a config "
                         f"naming its model_type), got {type(model).__name__}")
    return kind


def _refuse(kind: str, what: str) -> ValueError:
    return ValueError(f"{kind}: {what}")


def architecture(model) -> tuple[str, _Arch]:
    """The model's ``model_type`` and its layout, or ``ValueError`` naming an architecture the config cannot express."""
    kind = _model_type(model)
    if kind == "gemma3":
        raise _refuse(kind, "layer_config reads Gemma 3's text model: pass model.model.language_model (its config's "
                            "model_type is gemma3_text) or load it with Gemma3ForCausalLM")
    if kind not in ARCHITECTURES:
        raise _refuse(kind, f"layer_config does not read this architecture yet: it reads {', '.join(ARCHITECTURES)}; "
                            "the config cannot express its attention until it is mapped and tested")
    return kind, ARCHITECTURES[kind]


def _attention_module(model, kind: str, arch: _Arch, layer):
    found = {}
    for name, module in model.named_modules():
        m = re.search(arch.attention, name)
        if m and "vision" not in name:
            found.setdefault(int(m.group(1)), module)
    if not found:
        raise _refuse(kind, "no self-attention layers found where this architecture keeps them")
    if isinstance(layer, bool) or not isinstance(layer, (int, np.integer)) or not 0 <= layer < len(found):
        raise ValueError(f"layer must be a layer's index, 0 … {len(found) - 1}, got {layer!r}")
    return found[int(layer)]


def _ids(inputs, torch, kind: str):
    """(input_ids as a 1 × n long tensor, the other model inputs): from a tensor of ids, a list of ids, a NumPy
    array, or a tokenizer's output (BatchEncoding or a dict with input_ids)."""
    extra = {}
    if hasattr(inputs, "keys") and "input_ids" in inputs.keys():
        extra = {k: inputs[k] for k in inputs.keys() if k != "input_ids"}
        inputs = inputs["input_ids"]
        unknown = sorted(set(extra) - {"attention_mask", "token_type_ids"})
        if unknown:
            raise _refuse(kind, "layer_config reads input_ids, attention_mask and token_type_ids, not "
                                + ", ".join(unknown))
    ids = inputs if isinstance(inputs, torch.Tensor) else torch.as_tensor(np.asarray(inputs))
    if ids.dim() == 1:
        ids = ids[None]
    if ids.dim() != 2 or ids.shape[1] == 0 or ids.dtype.is_floating_point or ids.dtype.is_complex:
        raise ValueError(f"inputs must be token ids, [n] or [1, n] (a tensor, list or a tokenizer's output), got "
                         f"shape {tuple(ids.shape)} of {ids.dtype}")
    if ids.shape[0] != 1:
        raise ValueError(f"inputs hold a batch of {ids.shape[0]} sequences (shape {tuple(ids.shape)}): a figure shows "
                         "one; pass one, e.g. inputs['input_ids'][:1]")
    mask = extra.get("attention_mask")
    if mask is not None:
        mask = mask if isinstance(mask, torch.Tensor) else torch.as_tensor(np.asarray(mask))
        if tuple(mask.reshape(1, -1).shape) != tuple(ids.shape) or not bool((mask == 1).all()):
            raise _refuse(kind, "the attention_mask hides some tokens (padding): the config cannot express a padded "
                                "sequence yet; pass the sequence without its padding")
        extra["attention_mask"] = mask.reshape(ids.shape)
    return ids.long(), extra


def _f64(t) -> np.ndarray:
    """A tensor's values as float64, exactly (every float dtype torch has widens to float64 without rounding)."""
    import torch

    return t.detach().to(device="cpu", dtype=torch.float64).numpy()


def _arguments(module, args, kwargs) -> dict:
    """A forward call's arguments by name."""
    try:
        return dict(inspect.signature(module.forward).bind_partial(*args, **kwargs).arguments)
    except (TypeError, ValueError):
        return dict(kwargs, **({"hidden_states": args[0]} if args else {}))


def _rotary_modules(model):
    return [m for name, m in model.named_modules()
            if type(m).__name__.endswith("RotaryEmbedding") and "vision" not in name]


def _run(model, torch, ids, extra, attention):
    """Runs the model once; what layer L's attention module and the rotary embeddings were given."""
    seen, rope = {}, []

    def before(module, args, kwargs):
        if "hidden" not in seen:
            got = _arguments(module, args, kwargs)
            seen.update(hidden=got.get("hidden_states"), attention_mask=got.get("attention_mask"),
                        cos_sin=got.get("position_embeddings"), other=got)

    def rotary(module, args, kwargs, output):
        got = dict(zip(("x", "position_ids", "layer_type"), args), **kwargs)
        lt = got.get("layer_type")
        prefix = f"{lt}_" if lt is not None else ""
        rope.append({"inv_freq": _f64(getattr(module, prefix + "inv_freq")), "layer_type": lt,
                     "factor": float(getattr(module, prefix + "attention_scaling")),
                     "position_ids": got.get("position_ids"), "cos": output[0]})

    handles = [attention.register_forward_pre_hook(before, with_kwargs=True)]
    handles += [m.register_forward_hook(rotary, with_kwargs=True) for m in _rotary_modules(model)]
    training = model.training
    model.eval()
    try:
        with torch.no_grad():
            model(input_ids=ids.to(next(model.parameters()).device), **extra, output_attentions=True)
    finally:
        for h in handles:
            h.remove()
        model.train(training)
    return seen, rope


def _linear(layer) -> tuple:
    """(W in X·W layout, its bias or None) of an nn.Linear."""
    bias = getattr(layer, "bias", None)
    return _f64(layer.weight).T.copy(), None if bias is None else _f64(bias)


def _projections(attention, arch: _Arch):
    """(w_q, b_q), (w_k, b_k), (w_v, b_v), (w_o, b_o) of the module."""
    if arch.kind == "conv1d":  # GPT-2: x·W + b already; c_attn holds Q, K and V side by side
        w, b = _f64(attention.c_attn.weight), _f64(attention.c_attn.bias)
        d = w.shape[1] // 3
        qkv = [(w[:, i * d:(i + 1) * d].copy(), b[i * d:(i + 1) * d].copy()) for i in range(3)]
        return (*qkv, (_f64(attention.c_proj.weight), _f64(attention.c_proj.bias)))
    if arch.kind == "bert":
        own = attention.self
        return _linear(own.query), _linear(own.key), _linear(own.value), _linear(attention.output.dense)
    out = attention.o_proj if hasattr(attention, "o_proj") else attention.dense
    return _linear(attention.q_proj), _linear(attention.k_proj), _linear(attention.v_proj), _linear(out)


def _heads(model, attention, arch: _Arch, w_q, w_k) -> tuple[int, int, int]:
    """(heads, kv_heads, d_k)."""
    if arch.kind == "conv1d":
        heads, d_k = attention.num_heads, attention.head_dim
        return heads, heads, d_k
    if arch.kind == "bert":
        own = attention.self
        return own.num_attention_heads, own.num_attention_heads, own.attention_head_size
    d_k = attention.head_dim
    return w_q.shape[1] // d_k, w_k.shape[1] // d_k, d_k


def _causal(model, attention, kind: str, arch: _Arch) -> bool:
    if arch.kind == "bert":
        return bool(getattr(attention.self, "is_causal", False) or getattr(model.config, "is_decoder", False))
    if not getattr(attention, "is_causal", True):
        raise _refuse(kind, "this model's attention is bidirectional (use_bidirectional_attention), which the config "
                            "cannot express with its sliding window yet")
    return True


def _window(model, attention, kind: str):
    """[left, right] of the layer's sliding window, or None: transformers' sliding_window W lets query i see keys
    i − W + 1 … i."""
    if hasattr(attention, "sliding_window"):
        size = attention.sliding_window  # None on the layers config.layer_types makes full attention
    elif kind == "mistral" or getattr(model.config, "use_sliding_window", False):
        size = getattr(model.config, "sliding_window", None)
    else:
        size = None
    return None if size is None else [int(size) - 1, 0]


def _check_mask(torch, kind: str, layer: int, mask, n: int, causal: bool, window) -> None:
    """The mask the layer was given must be the one the config says (a padded or custom mask is not)."""
    if mask is None:
        return
    if isinstance(mask, dict):
        raise _refuse(kind, "the model passed its attention a mask per layer type, which layer_config cannot read")
    allowed = mask if mask.dtype == torch.bool else mask == 0
    allowed = allowed.reshape(-1, *allowed.shape[-2:]).cpu()
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    want = np.ones((n, n), dtype=bool)
    if causal:
        want &= j <= i
    if window is not None:
        want &= (j >= i - window[0]) & (j <= i + window[1])
    if tuple(allowed.shape[-2:]) != (n, n) or not all(np.array_equal(a.numpy(), want) for a in allowed):
        said = ("causal" if causal else "no mask") + (f" with the sliding window {window}" if window else "")
        raise _refuse(kind, f"the mask layer {layer}'s attention was given is not {said}: the config cannot express "
                            "it yet (padding, or a mask of the model's own)")


def _rope_base(config, layer_type):
    params = getattr(config, "rope_parameters", None)
    if isinstance(params, dict) and isinstance(params.get(layer_type), dict):
        params = params[layer_type]
    base = params.get("rope_theta") if isinstance(params, dict) else None
    base = base if base is not None else getattr(config, "rope_theta", None)
    return None if base is None else float(base)


def _position(model, kind: str, attention, seen: dict, rope: list, n: int, d_k: int):
    """RoPE as the layer used it: the rotary module's inverse frequencies and attention scaling from that forward."""
    cos_sin = seen.get("cos_sin")
    if cos_sin is None:
        if rope:
            raise _refuse(kind, "the model has rotary embeddings but layer_config did not see them reach the attention")
        return None
    used = [r for r in rope if r["cos"] is cos_sin[0]]
    if len(used) != 1:
        raise _refuse(kind, "the rotary embedding this layer used was computed where layer_config does not read it")
    used = used[0]
    rotary_dim = int(getattr(attention, "rotary_ndims", d_k))
    frequencies = used["inv_freq"].reshape(-1)
    if 2 * frequencies.size != rotary_dim or cos_sin[0].shape[-1] != rotary_dim:
        raise _refuse(kind, f"RoPE over {cos_sin[0].shape[-1]} dimensions with {frequencies.size} frequencies is not "
                            f"the rotation of the first {rotary_dim} dimensions of each head the config expresses")
    ids = used["position_ids"]
    ids = None if ids is None else ids.reshape(-1).cpu().numpy()
    if ids is None or ids.size != n or ids[0] < 0 or not np.array_equal(ids, ids[0] + np.arange(n)):
        raise _refuse(kind, "the positions RoPE used are not consecutive (0 … n − 1 plus an offset), which the "
                            "config cannot express")
    out = dict(kind="rope", pairs="halves", offset=int(ids[0]), rotary_dim=rotary_dim)
    base = _rope_base(model.config, used["layer_type"])
    if base is not None and base >= 1:
        out["base"] = base
    out.update(frequencies=frequencies, attention_factor=used["factor"])
    return out


def _norm(kind: str, norm, plus_one: bool):
    """{"weight", "eps"} of a per-head RMSNorm (Gemma's weight is 1 + its parameter)."""
    if norm is None:
        return None
    if "RMSNorm" not in type(norm).__name__:
        raise _refuse(kind, f"the q/k norm is a {type(norm).__name__}; the config expresses an RMSNorm only")
    eps = getattr(norm, "variance_epsilon", getattr(norm, "eps", None))
    weight = _f64(norm.weight)
    return dict(weight=1.0 + weight if plus_one else weight, eps=float(eps))


def _scale(scaling: float, d_k: int):
    """The config's divisor for transformers' multiplier: "sqrt_dk" when it is d_k ** -0.5, else 1 / scaling."""
    return "sqrt_dk" if scaling == d_k ** -0.5 else 1.0 / float(scaling)


def read_layer(model, inputs, layer=0, tokenizer=None) -> dict:
    """The config of layer ``layer``'s self-attention, its vectors and matrices float64 NumPy arrays."""
    kind, arch = architecture(model)
    import torch

    attention = _attention_module(model, kind, arch, layer)
    if getattr(attention, "qk_layernorm", False):
        raise _refuse(kind, "qk_layernorm normalizes q and k with a LayerNorm (mean subtracted, with a bias); the "
                            "config expresses an RMSNorm only")
    ids, extra = _ids(inputs, torch, kind)
    seen, rope = _run(model, torch, ids, extra, attention)
    if seen.get("hidden") is None:
        raise _refuse(kind, f"layer {layer}'s self-attention did not run on this input")
    n = ids.shape[1]
    (w_q, b_q), (w_k, b_k), (w_v, b_v), (w_o, b_o) = _projections(attention, arch)
    heads, kv_heads, d_k = _heads(model, attention, arch, w_q, w_k)
    causal, window = _causal(model, attention, kind, arch), _window(model, attention, kind)
    _check_mask(torch, kind, layer, seen.get("attention_mask"), n, causal, window)
    own = attention.self if arch.kind == "bert" else attention
    # transformers' q_norm and k_norm modules (Qwen3, Gemma 3), per head
    norms = {side: _norm(kind, getattr(attention, f"{side}_norm", None), arch.plus_one) for side in "qk"}
    config = dict(embeddings=_f64(seen["hidden"]).reshape(n, -1), w_q=w_q, w_k=w_k, w_v=w_v, heads=heads,
                  kv_heads=kv_heads, w_o=w_o, b_q=b_q, b_k=b_k, b_v=b_v, b_o=b_o,
                  scale=_scale(own.scaling, d_k), mask="causal" if causal else "none", window=window,
                  position=_position(model, kind, attention, seen, rope, n, d_k),
                  q_norm=norms["q"], k_norm=norms["k"],
                  softcap=getattr(attention, "attn_logit_softcapping", None))
    if tokenizer is not None:
        config.update(tokens=[str(tokenizer.decode([int(i)])) for i in ids[0]])
    return {k: v for k, v in config.items() if v is not None}


def _plain(value):
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def layer_config(model, inputs, layer=0, tokenizer=None) -> dict:
    """The config of a Hugging Face model's layer ``layer`` self-attention on ``inputs`` (token ids, [n] or [1, n],
    or a tokenizer's output), as plain JSON-able values: ``compute()`` of it gives that layer's attention weights and
    output. ``tokenizer`` names the tokens. ``ValueError`` for what the config cannot express."""
    return _plain(read_layer(model, inputs, layer, tokenizer))


def show_layer(model, inputs, layer=0, head=0, tokenizer=None, **options) -> Figure:
    """The editable figure of that layer's self-attention, following head ``head``: ``show`` of ``layer_config``;
    element options (and config fields to override) as keyword arguments."""
    return show(**{**read_layer(model, inputs, layer, tokenizer), **dict(head=head), **options})
