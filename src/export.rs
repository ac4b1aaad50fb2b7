//! "Copy as NumPy": a self-contained Python snippet that rebuilds the current
//! inputs and computes the same stages with NumPy/SciPy, so a learner can paste
//! it into the notebook they came from and get our numbers.
//!
//! Inputs that Randomize produced are written as the NumPy calls that produce
//! them (`np.random.seed(s)` then one call per matrix) — checked by replaying
//! the calls through our `RandomState`, never assumed; everything else is
//! written as literal arrays with round-tripping float reprs.
//!
//! Heads, W_O, the scoring functions, temperature, masks, valid lengths and
//! fully masked rows are written only when set, the way textbooks write them
//! (a slice of Q, K, V per head, `np.tril` for causal, d2l's valid lengths), so
//! the documents' own configs still export as the documents' code.

use crate::config::{Config, Mask, MaskedRow, Mechanism, Options, Pairs, Position, Scale, Scoring};
use crate::edits::Distribution;
use crate::math::Matrix;
use crate::weights::Stack;
use std::fmt::Write;

/// The snippet for `config`. `random` is the last Randomize (seed and call), if any.
pub fn numpy_snippet(config: &Config, random: Option<(u32, Distribution)>) -> String {
    // The documents' own draw (seed 42, randint(3)) is recognised too, so the
    // presets export as `np.random.seed(42)` like the documents.
    let candidates = random.into_iter().chain([(42, Distribution::Randint(3))]);
    let seeded =
        candidates.into_iter().find(|&(seed, dist)| config.randomized(seed, dist).ok().as_ref() == Some(config));
    if let Mechanism::Weights { attention, key_tokens, layer, head } = &config.mechanism {
        return weights_snippet(attention, &config.tokens, key_tokens, *layer, *head);
    }
    let mut py = String::new();
    let _ = writeln!(py, "# attention-viz: the current figure, recomputed with NumPy/SciPy");
    let _ = writeln!(py, "import numpy as np");
    let _ = writeln!(py, "from scipy.special import softmax\n");
    let _ = writeln!(py, "tokens = {}", py_list_str(&config.tokens));
    let random_lines =
        |py: &mut String, names: &[&str], shapes: &[(usize, usize, bool)], seed: u32, dist: Distribution| {
            let _ = writeln!(py, "np.random.seed({seed})");
            for (name, &(rows, cols, vector)) in names.iter().zip(shapes) {
                let shape = if vector { format!("{cols}") } else { format!("{rows}, {cols}") };
                let call = match dist {
                    Distribution::Randint(high) => {
                        format!("np.random.randint({high}, size=({shape}{}))", if vector { "," } else { "" })
                    }
                    Distribution::Rand => format!("np.random.rand({shape})"),
                    Distribution::Randn => format!("np.random.randn({shape})"),
                };
                let cast = if matches!(dist, Distribution::Randint(_)) { ".astype(float)" } else { "" };
                let _ = writeln!(py, "{name} = {call}{cast}");
            }
        };
    let o = &config.options;
    match &config.mechanism {
        Mechanism::Weights { .. } => unreachable!("written by weights_snippet"),
        Mechanism::SelfAttention { embeddings, projections } => {
            match (projections, seeded) {
                (None, Some((seed, dist))) => {
                    random_lines(&mut py, &["X"], &[(embeddings.rows(), embeddings.cols(), false)], seed, dist);
                }
                _ => {
                    let _ = writeln!(py, "X = {}", py_array(embeddings));
                }
            }
            if let Some(p) = projections {
                match seeded {
                    Some((seed, dist)) => {
                        let shapes: Vec<(usize, usize, bool)> =
                            [&p.w_q, &p.w_k, &p.w_v].iter().map(|w| (w.rows(), w.cols(), false)).collect();
                        random_lines(&mut py, &["W_Q", "W_K", "W_V"], &shapes, seed, dist);
                    }
                    None => {
                        let _ = writeln!(py, "W_Q = {}", py_array(&p.w_q));
                        let _ = writeln!(py, "W_K = {}", py_array(&p.w_k));
                        let _ = writeln!(py, "W_V = {}", py_array(&p.w_v));
                    }
                }
            }
            layer_inputs(&mut py, o);
            option_inputs(&mut py, o, false);
            position_inputs(&mut py, o);
            let l = &o.layers;
            if projections.is_some() {
                let plus =
                    |b: &Option<Vec<f64>>, name: &str| if b.is_some() { format!(" + {name}") } else { String::new() };
                let _ = writeln!(
                    py,
                    "\nQ = X @ W_Q{}\nK = X @ W_K{}\nV = X @ W_V{}",
                    plus(&l.b_q, "b_q"),
                    plus(&l.b_k, "b_k"),
                    plus(&l.b_v, "b_v")
                );
            } else {
                let _ = writeln!(py, "\nQ = K = V = X  # no learned projections");
            }
            let rope = matches!(o.position, Some(Position::Rope { .. }));
            let logits = if l.softcap.is_some() { "capped" } else { "scaled" };
            let output = if l.b_o.is_some() { "context @ W_O + b_o" } else { "context @ W_O" };
            if o.heads == 1 {
                let (mut q, mut k) = ("Q".to_string(), "K".to_string());
                for (norm, name) in [(&l.q_norm, &mut q), (&l.k_norm, &mut k)] {
                    if norm.is_some() {
                        let _ = writeln!(
                            py,
                            "{name}_normed = rms_norm({name}, {n}_norm_weight, {n}_norm_eps)  # each row normed",
                            n = name.to_lowercase()
                        );
                        *name = format!("{name}_normed");
                    }
                }
                if rope {
                    let _ = writeln!(py, "Q_rot, K_rot = rope({q}), rope({k})  # the scores are the rotated vectors'");
                    (q, k) = ("Q_rot".into(), "K_rot".into());
                }
                self_stages(&mut py, config, "", &q, &k, "K.shape[1]");
                let _ = writeln!(py, "context = weights @ V");
                modern_steps(&mut py, config, &q, &k, "V", logits, "bias");
                if o.w_o.is_some() {
                    let _ = writeln!(py, "output = {output}  # the output projection");
                }
                let _ = writeln!(py, "\ni = {}  # the query of the single-query breakdown", config.query);
                let _ = writeln!(py, "terms = weights[i][:, None] * V  # row j is w_j * v_j\n");
                let _ = writeln!(py, "np.set_printoptions(precision=8, suppress=True)");
                for name in ["Q", "K", "V", "scores", "scaled", "weights", "context"] {
                    let _ = writeln!(py, "print(\"{name} =\", {name}, sep=\"\\n\")");
                }
                if o.w_o.is_some() {
                    let _ = writeln!(py, "print(\"output =\", output, sep=\"\\n\")");
                }
                let _ = writeln!(py, "print(\"context of query\", tokens[i], \"=\", terms.sum(axis=0))");
            } else {
                let _ = writeln!(py, "d_k = W_Q.shape[1] // heads  # each head's query and key width");
                let kv = if o.kv_heads.is_some() { "kv_heads" } else { "heads" };
                let _ = writeln!(py, "d_v = W_V.shape[1] // {kv}  # each head's value width");
                let _ = writeln!(py, "per_head = []  # each head's stages");
                let _ = writeln!(
                    py,
                    "for i in range(heads):  # head i: columns i*d_k ... (i+1)*d_k - 1 of Q and K (PyTorch's layout)"
                );
                let _ = writeln!(py, "    q = Q[:, i * d_k:(i + 1) * d_k]");
                if o.kv_heads.is_some() {
                    let _ = writeln!(py, "    g = i // (heads // kv_heads)  # the key/value head query head i reads");
                    let _ = writeln!(py, "    k = K[:, g * d_k:(g + 1) * d_k]");
                    let _ = writeln!(py, "    v = V[:, g * d_v:(g + 1) * d_v]");
                } else {
                    let _ = writeln!(py, "    k = K[:, i * d_k:(i + 1) * d_k]");
                    let _ = writeln!(py, "    v = V[:, i * d_v:(i + 1) * d_v]");
                }
                for (norm, name) in [(&l.q_norm, "q"), (&l.k_norm, "k")] {
                    if norm.is_some() {
                        let _ = writeln!(
                            py,
                            "    {name} = rms_norm({name}, {name}_norm_weight, {name}_norm_eps)  # each row normed"
                        );
                    }
                }
                if rope {
                    let _ = writeln!(py, "    q, k = rope(q), rope(k)  # RoPE: the scores are the rotated vectors'");
                }
                self_stages(&mut py, config, "    ", "q", "k", "d_k");
                let bias = if matches!(o.position, Some(Position::Alibi { .. })) { ", bias=bias" } else { "" };
                let capped = if l.softcap.is_some() { ", capped=capped" } else { "" };
                let _ = writeln!(
                    py,
                    "    per_head.append(dict(q=q, k=k, v=v, scores=scores, scaled=scaled{capped}, weights=weights, \
                     context=weights @ v{bias}))"
                );
                let _ = writeln!(
                    py,
                    "context = np.concatenate([head[\"context\"] for head in per_head], axis=1)  # the heads side by side"
                );
                if o.w_o.is_some() {
                    let _ = writeln!(py, "output = {output}  # the output projection");
                }
                let _ = writeln!(py, "head = {}  # the head the breakdown follows", o.head);
                let f = |x: &str| format!("per_head[head][\"{x}\"]");
                modern_steps(&mut py, config, &f("q"), &f("k"), &f("v"), &f(logits), &f("bias"));
                let _ = writeln!(py, "\ni = {}  # the query of the single-query breakdown", config.query);
                let _ = writeln!(
                    py,
                    "terms = per_head[head][\"weights\"][i][:, None] * per_head[head][\"v\"]  # row j is w_j * v_j\n"
                );
                let _ = writeln!(py, "np.set_printoptions(precision=8, suppress=True)");
                for name in ["Q", "K", "V"] {
                    let _ = writeln!(py, "print(\"{name} =\", {name}, sep=\"\\n\")");
                }
                let _ = writeln!(py, "for number, stages in enumerate(per_head):");
                let _ = writeln!(py, "    print(f\"head {{number}} weights =\", stages[\"weights\"], sep=\"\\n\")");
                let _ = writeln!(py, "print(\"context =\", context, sep=\"\\n\")");
                if o.w_o.is_some() {
                    let _ = writeln!(py, "print(\"output =\", output, sep=\"\\n\")");
                }
                let _ =
                    writeln!(py, "print(\"context of query\", tokens[i], \"in head\", head, \"=\", terms.sum(axis=0))");
            }
        }
        Mechanism::Cross { decoder_state, annotations } => {
            match seeded {
                Some((seed, dist)) => {
                    let shapes = [(1, decoder_state.len(), true), (annotations.rows(), annotations.cols(), false)];
                    random_lines(&mut py, &["h", "A"], &shapes, seed, dist);
                    let _ = writeln!(py, "annotations = A.T  # one encoder state per column");
                }
                None => {
                    let _ = writeln!(py, "h = {}", py_vector(decoder_state));
                    let _ = writeln!(py, "annotations = {}.T  # one encoder state per column", py_array(annotations));
                }
            }
            option_inputs(&mut py, o, true);
            let _ = writeln!(py);
            match &o.scoring {
                Scoring::Dot => {
                    let _ = writeln!(py, "scores = h @ annotations");
                }
                Scoring::General { .. } => {
                    let _ = writeln!(py, "scores = h @ W_a @ annotations  # Luong's general score: h W_a a_j");
                }
                Scoring::Additive { .. } => {
                    let _ = writeln!(
                        py,
                        "features = np.tanh(h @ W_a + annotations.T @ U_a)  # row j: tanh(h W_a + a_j U_a)"
                    );
                    let _ = writeln!(py, "scores = features @ v_a  # Bahdanau's additive score");
                }
                Scoring::Cosine => {
                    let _ =
                        writeln!(py, "norms = np.linalg.norm(h) * np.linalg.norm(annotations, axis=0)  # |h| |a_j|");
                    let _ = writeln!(
                        py,
                        "scores = h @ annotations / np.maximum(norms, 1e-8)  # cosine similarity (PyTorch's eps)"
                    );
                }
            }
            let _ = writeln!(py, "scaled = {}", scaled_expr(config.scale, o.temperature, "h.shape[0]"));
            if masked(o) {
                let _ =
                    writeln!(py, "scaled = np.where(allowed, scaled, -np.inf)  # a masked state: -inf, so exp gives 0");
                let _ = writeln!(py, "if allowed.any():");
                let _ = writeln!(py, "    weights = softmax(scaled)  # stable: no float128 needed");
                let (fill, what) = masked_row_fill(o.masked_row, "len(scaled)");
                let _ = writeln!(py, "else:  # every encoder state masked: {what}");
                let _ = writeln!(py, "    weights = {fill}");
            } else {
                let _ = writeln!(py, "weights = softmax(scaled)  # stable: no float128 needed");
            }
            let _ = writeln!(py, "applied = weights * annotations");
            let _ = writeln!(py, "context = applied.sum(axis=1)\n");
            let _ = writeln!(py, "np.set_printoptions(precision=8, suppress=False)");
            for name in ["scores", "weights", "applied", "context"] {
                let _ = writeln!(py, "print(\"{name} =\", {name}, sep=\"\\n\")");
            }
        }
    }
    py
}

/// Whether some key can be masked (`allowed` exists in the snippet).
fn masked(o: &Options) -> bool {
    o.mask != Mask::None || o.valid_lens.is_some() || o.window.is_some()
}

/// Whether the self-attention snippet names the number of tokens `n`.
fn needs_n(o: &Options) -> bool {
    masked(o) || o.position.is_some() || o.decode_step.is_some() || o.tiles.is_some()
}

/// The position encoding's inputs: the sinusoidal table added to X, RoPE's rotation, ALiBi's slopes and bias.
fn position_inputs(py: &mut String, o: &Options) {
    match &o.position {
        None => {}
        Some(Position::Sinusoidal { base, offset }) => {
            let _ =
                writeln!(py, "\n# Sinusoidal positions (Vaswani et al. 2017, section 3.5), added to the embeddings");
            let shift = if *offset == 0 { String::new() } else { format!(" + {offset}") };
            let _ = writeln!(py, "p, j = np.arange(n)[:, None]{shift}, np.arange(X.shape[1])[None, :]");
            let _ = writeln!(py, "angle = p / {} ** (2 * (j // 2) / X.shape[1])", py_float(*base));
            let _ = writeln!(py, "PE = np.where(j % 2 == 0, np.sin(angle), np.cos(angle))");
            let _ = writeln!(py, "X = X + PE");
        }
        Some(Position::Rope { base, pairs, offset, rotary_dim, frequencies, attention_factor }) => {
            // Partial rotary: the pairs lie within the first d values, the rest pass unchanged.
            let partial = rotary_dim.is_some();
            let (a, b, what) = match (pairs, partial) {
                (Pairs::Interleaved, false) => {
                    ("x[:, 0::2]", "x[:, 1::2]", "pairs (x_2i, x_2i+1), RoFormer (Su et al. 2021)")
                }
                (Pairs::Interleaved, true) => {
                    ("x[:, 0:d:2]", "x[:, 1:d:2]", "pairs (x_2i, x_2i+1), GPT-J's rotate_every_two")
                }
                (Pairs::Halves, false) => {
                    ("x[:, :d // 2]", "x[:, d // 2:]", "pairs (x_i, x_i+d/2), LLaMA's rotate_half")
                }
                (Pairs::Halves, true) => {
                    ("x[:, :d // 2]", "x[:, d // 2:d]", "pairs (x_i, x_i+d/2), GPT-NeoX's rotate_half")
                }
            };
            let _ = writeln!(py, "\ndef rope(x, base={}, offset={offset}):", py_float(*base));
            let _ = writeln!(
                py,
                "    \"\"\"RoPE: row r (position p = r + offset)'s pair i rotated by the angle p * base^(-2i/d); {what}.\"\"\""
            );
            match rotary_dim {
                Some(r) => {
                    let _ = writeln!(py, "    d = {r}  # rotary_dim: only the first {r} values of a row turn");
                }
                None => {
                    let _ = writeln!(py, "    d = x.shape[1]");
                }
            }
            let _ = writeln!(py, "    p = np.arange(len(x))[:, None] + offset");
            match frequencies {
                Some(f) => {
                    let _ = writeln!(
                        py,
                        "    angle = p * {}[None, :]  # the given theta_i (scaled RoPE), not the base's",
                        py_vector(f)
                    );
                }
                None => {
                    let _ = writeln!(py, "    angle = p * base ** (-2 * np.arange(d // 2) / d)[None, :]");
                }
            }
            let _ = writeln!(py, "    a, b = {a}, {b}");
            let _ = writeln!(
                py,
                "    out = {}",
                if partial { "x.copy()  # the values past d pass unchanged" } else { "np.empty_like(x)" }
            );
            let (a_out, b_out) = (a.replace("x[", "out["), b.replace("x[", "out["));
            if *attention_factor == 1.0 {
                let _ = writeln!(
                    py,
                    "    {a_out}, {b_out} = a * np.cos(angle) - b * np.sin(angle), a * np.sin(angle) + b * np.cos(angle)"
                );
            } else {
                let f = py_float(*attention_factor);
                let _ = writeln!(py, "    cos, sin = np.cos(angle) * {f}, np.sin(angle) * {f}  # attention_factor");
                let _ = writeln!(py, "    {a_out}, {b_out} = a * cos - b * sin, a * sin + b * cos");
            }
            let _ = writeln!(py, "    return out");
        }
        Some(p @ Position::Alibi { slopes }) => {
            let given = slopes.is_some();
            let values: Vec<String> = p.slopes(o.heads).iter().map(|&m| py_float(m)).collect();
            if given {
                let _ = writeln!(py, "\nslopes = np.array([{}])  # ALiBi's slope of each head", values.join(", "));
            } else {
                let heads = if o.heads == 1 { "1".to_string() } else { "heads".to_string() };
                let _ = writeln!(py, "\nslopes = 2.0 ** (-8 * np.arange(1, {heads} + 1) / {heads})  # ALiBi's default slopes (Press et al. 2022)");
            }
            let _ = writeln!(py, "distance = np.abs(np.arange(n)[:, None] - np.arange(n)[None, :])  # |i - j|");
        }
    }
}

/// The inputs a real model's layer adds (nothing without them): the projections' biases, the q/k norms' weights and
/// eps with the `rms_norm` they go through, the soft cap.
fn layer_inputs(py: &mut String, o: &Options) {
    let l = &o.layers;
    for (name, b) in [("b_q", &l.b_q), ("b_k", &l.b_k), ("b_v", &l.b_v)] {
        if let Some(b) = b {
            let _ = writeln!(py, "{name} = {}", py_vector(b));
        }
    }
    if l.q_norm.is_some() || l.k_norm.is_some() {
        let _ = writeln!(py, "\ndef rms_norm(x, weight, eps):");
        let _ = writeln!(
            py,
            "    \"\"\"RMSNorm of each row (Qwen3's q and k norms): x / sqrt(mean(x^2) + eps) * weight.\"\"\""
        );
        let _ = writeln!(py, "    return x / np.sqrt((x ** 2).mean(axis=1, keepdims=True) + eps) * weight\n");
    }
    for (name, norm) in [("q_norm", &l.q_norm), ("k_norm", &l.k_norm)] {
        if let Some(n) = norm {
            let _ = writeln!(py, "{name}_weight = {}", py_vector(&n.weight));
            let _ = writeln!(py, "{name}_eps = {}", py_float(n.eps));
        }
    }
    if let Some(c) = l.softcap {
        let _ = writeln!(py, "softcap = {}  # capped = softcap * tanh(scaled / softcap) (Gemma 2)", py_float(c));
    }
}

/// The inputs the options add (nothing for the documents' defaults): W_O, the
/// scoring matrices, heads, temperature, and `allowed` (which keys each query may attend).
fn option_inputs(py: &mut String, o: &Options, cross: bool) {
    if let Some(w) = &o.w_o {
        let _ = writeln!(py, "W_O = {}", py_array(w));
    }
    if let Some(b) = &o.layers.b_o {
        let _ = writeln!(py, "b_o = {}", py_vector(b));
    }
    match &o.scoring {
        Scoring::General { w_a } => {
            let _ = writeln!(py, "W_a = {}", py_array(w_a));
        }
        Scoring::Additive { w_a, u_a, v_a } => {
            let _ = writeln!(py, "W_a = {}", py_array(w_a));
            let _ = writeln!(py, "U_a = {}", py_array(u_a));
            let _ = writeln!(py, "v_a = {}", py_vector(v_a));
        }
        Scoring::Dot | Scoring::Cosine => {}
    }
    if o.heads != 1 {
        let _ = writeln!(py, "heads = {}", o.heads);
    }
    if o.kv_heads.is_some() {
        let _ = writeln!(
            py,
            "kv_heads = {}  # key/value heads shared by heads // kv_heads query heads each (GQA)",
            o.kv_heads()
        );
    }
    if !cross && needs_n(o) {
        let _ = writeln!(py, "n = len(tokens)");
    }
    if o.temperature != 1.0 {
        let _ = writeln!(py, "temperature = {}", py_float(o.temperature));
    }
    let bools = |row: &[f64]| {
        format!("[{}]", row.iter().map(|&x| if x != 0.0 { "1" } else { "0" }).collect::<Vec<_>>().join(", "))
    };
    let mut have = false;
    match &o.mask {
        Mask::None => {}
        Mask::Causal => {
            let _ =
                writeln!(py, "allowed = np.tril(np.ones((n, n), dtype=bool))  # causal: query i attends keys 0 ... i");
            have = true;
        }
        Mask::Matrix(m) if cross => {
            let _ = writeln!(py, "allowed = np.array({}, dtype=bool)  # the mask: 1 = may attend", bools(m.row(0)));
            have = true;
        }
        Mask::Matrix(m) => {
            let rows: Vec<String> = (0..m.rows()).map(|i| bools(m.row(i))).collect();
            let _ = writeln!(
                py,
                "allowed = np.array([{}], dtype=bool)  # the mask: 1 = query i may attend key j",
                rows.join(",\n    ")
            );
            have = true;
        }
    }
    if let Some([left, right]) = o.window {
        let _ = writeln!(py, "i, j = np.arange(n)[:, None], np.arange(n)[None, :]");
        let _ = writeln!(
            py,
            "in_window = (i - {left} <= j) & (j <= i + {right})  # window [left, right] = [{left}, {right}]"
        );
        if o.sinks > 0 {
            let _ = writeln!(
                py,
                "in_window |= j < {}  # attention sinks: keys 0 ... {} always (StreamingLLM)",
                o.sinks,
                o.sinks - 1
            );
        }
        if have {
            let _ = writeln!(py, "allowed &= in_window");
        } else {
            let _ = writeln!(py, "allowed = in_window");
        }
        have = true;
    }
    let Some(lens) = &o.valid_lens else { return };
    let lens_list = lens.iter().map(usize::to_string).collect::<Vec<_>>().join(", ");
    if cross {
        let _ = writeln!(py, "valid_lens = np.array([{lens_list}])  # one query: the decoder state");
        let cond = "np.arange(len(tokens)) < valid_lens[0]";
        if have {
            let _ = writeln!(py, "allowed &= {cond}  # and states j < valid_lens[0] only");
        } else {
            let _ = writeln!(py, "allowed = {cond}  # states j < valid_lens[0] only");
        }
        return;
    }
    let _ = writeln!(py, "valid_lens = np.array([{lens_list}])");
    let cond = "np.arange(n)[None, :] < valid_lens[:, None]";
    if have {
        let _ = writeln!(py, "allowed &= {cond}  # and keys j < valid_lens[i] only (d2l)");
    } else {
        let _ = writeln!(py, "allowed = {cond}  # query i attends keys j < valid_lens[i] (d2l)");
    }
}

/// scores → scaled → weights of self-attention, for queries `q` and keys `k` of width `dk`.
fn self_stages(py: &mut String, config: &Config, indent: &str, q: &str, k: &str, dk: &str) {
    let o = &config.options;
    match &o.scoring {
        Scoring::Dot => {
            let _ = writeln!(py, "{indent}scores = {q} @ {k}.T");
        }
        Scoring::General { .. } => {
            let _ = writeln!(py, "{indent}scores = {q} @ W_a @ {k}.T  # Luong's general score: q_i W_a k_j");
        }
        Scoring::Additive { .. } => {
            let _ = writeln!(
                py,
                "{indent}features = np.tanh(({q} @ W_a)[:, None, :] + ({k} @ U_a)[None, :, :])  # [i, j]: tanh(q_i W_a + k_j U_a)"
            );
            let _ = writeln!(py, "{indent}scores = features @ v_a  # Bahdanau's additive score");
        }
        Scoring::Cosine => {
            let _ = writeln!(
                py,
                "{indent}norms = np.outer(np.linalg.norm({q}, axis=1), np.linalg.norm({k}, axis=1))  # |q_i| |k_j|"
            );
            let _ = writeln!(
                py,
                "{indent}scores = {q} @ {k}.T / np.maximum(norms, 1e-8)  # cosine similarity (PyTorch's eps)"
            );
        }
    }
    let _ = writeln!(py, "{indent}scaled = {}", scaled_expr(config.scale, o.temperature, dk));
    // What the softmax reads: the scaled scores, or with a soft cap the capped ones (the bias and the mask after it).
    let x = if o.layers.softcap.is_some() {
        let _ = writeln!(py, "{indent}capped = softcap * np.tanh(scaled / softcap)  # the soft cap: within +-softcap");
        "capped"
    } else {
        "scaled"
    };
    if let Some(Position::Alibi { .. }) = o.position {
        let h = if o.heads == 1 { "0" } else { "i" };
        let _ = writeln!(py, "{indent}bias = -slopes[{h}] * distance  # ALiBi: -m * |i - j|");
        let _ = writeln!(py, "{indent}{x} = {x} + bias");
    }
    if !masked(o) {
        let _ = writeln!(py, "{indent}weights = softmax({x}, axis=1)");
        return;
    }
    let _ = writeln!(py, "{indent}{x} = np.where(allowed, {x}, -np.inf)  # a masked key: -inf, so exp gives 0");
    if o.mask == Mask::Causal && o.valid_lens.is_none() && o.window.is_none() {
        // Key 0 is always allowed: no query has every key masked.
        let _ = writeln!(py, "{indent}weights = softmax({x}, axis=1)");
        return;
    }
    let (fill, what) = masked_row_fill(o.masked_row, &format!("{x}.shape[1]"));
    let fill = fill.replace("scaled", x);
    let _ = writeln!(py, "{indent}weights = {fill}  # a query with every key masked: {what}");
    let _ = writeln!(py, "{indent}attends = allowed.any(axis=1)  # the queries with a key left to attend");
    let _ = writeln!(py, "{indent}weights[attends] = softmax({x}[attends], axis=1)");
}

/// The decode step and FlashAttention's tiles of the followed head, whose rotated (RoPE) queries and keys, values,
/// scaled scores and bias (ALiBi) the snippet names `q`, `k`, `v`, `scaled`, `bias`.
fn modern_steps(py: &mut String, config: &Config, q: &str, k: &str, v: &str, scaled: &str, bias: &str) {
    let o = &config.options;
    if let Some(t) = o.decode_step {
        let _ = writeln!(py, "\n# Generating token t: its query against the KV cache of tokens 0 ... t");
        let _ = writeln!(py, "t = {t}");
        let _ = writeln!(py, "q_t, k_cache, v_cache = {q}[t], {k}[:t + 1], {v}[:t + 1]");
        let _ = writeln!(py, "decode_scores = k_cache @ q_t");
        let dk = "k_cache.shape[1]";
        let _ = writeln!(
            py,
            "decode_scaled = {}",
            scaled_expr(config.scale, o.temperature, dk).replacen("scores", "decode_scores", 1)
        );
        let x = if o.layers.softcap.is_some() {
            let _ = writeln!(py, "decode_capped = softcap * np.tanh(decode_scaled / softcap)");
            "decode_capped"
        } else {
            "decode_scaled"
        };
        if matches!(o.position, Some(Position::Alibi { .. })) {
            let _ = writeln!(py, "{x} = {x} + {bias}[t, :t + 1]");
        }
        if masked(o) {
            let _ = writeln!(py, "{x} = np.where(allowed[t, :t + 1], {x}, -np.inf)");
            let _ = writeln!(py, "if allowed[t, :t + 1].any():");
            let _ = writeln!(py, "    decode_weights = softmax({x})  # = weights[t, :t + 1]: the causal row t");
            let (fill, what) = masked_row_fill(o.masked_row, "(t + 1)");
            let fill = fill.replace("scaled", x);
            let _ = writeln!(py, "else:  # every key masked: {what}");
            let _ = writeln!(py, "    decode_weights = {fill}");
        } else {
            let _ = writeln!(py, "decode_weights = softmax({x})");
        }
        let _ = writeln!(py, "decode_context = decode_weights @ v_cache");
        let _ = writeln!(py, "print(\"decode step\", t, \"weights =\", decode_weights, \"context =\", decode_context)");
    }
    if let Some([rows, cols]) = o.tiles {
        let _ = writeln!(py, "\n# FlashAttention-2 (Dao 2023, Algorithm 1): blocks of {rows} queries x {cols} keys, no n x n matrix kept");
        let _ = writeln!(py, "flash_steps, flash_context = [], []");
        let _ = writeln!(py, "for r0 in range(0, n, {rows}):");
        let _ = writeln!(py, "    S = {scaled}[r0:r0 + {rows}]  # the block's scaled scores (masked: -inf)");
        let _ = writeln!(py, "    m = np.full(len(S), -np.inf)  # running row maximum");
        let _ = writeln!(py, "    l = np.zeros(len(S))  # running sum of exp(scaled - m)");
        let _ = writeln!(py, "    o = np.zeros((len(S), {v}.shape[1]))  # running sum of exp(scaled - m) * v");
        let _ = writeln!(py, "    for c0 in range(0, n, {cols}):");
        let _ = writeln!(py, "        s = S[:, c0:c0 + {cols}]");
        let _ = writeln!(py, "        m_new = np.maximum(m, s.max(axis=1))");
        let _ = writeln!(
            py,
            "        shift = np.where(m_new > -np.inf, m_new, 0)  # a row with no key yet: nothing to shift"
        );
        let _ = writeln!(py, "        p = np.exp(s - shift[:, None])");
        let _ =
            writeln!(py, "        alpha = np.exp(m - shift)  # rescales what came before (0 when there was nothing)");
        let _ = writeln!(py, "        l = alpha * l + p.sum(axis=1)");
        let _ = writeln!(py, "        o = alpha[:, None] * o + p @ {v}[c0:c0 + {cols}]");
        let _ = writeln!(py, "        m = m_new");
        let _ = writeln!(py, "        flash_steps.append(dict(m=m, l=l, o=o))");
        let _ = writeln!(
            py,
            "    flash_context.append(o / np.where(l > 0, l, 1)[:, None])  # o / l: the block's context rows"
        );
        let _ = writeln!(py, "flash_context = np.concatenate(flash_context)");
        let _ = writeln!(py, "print(\"FlashAttention's o / l =\", flash_context, sep=\"\\n\")");
    }
}

/// The weights of a query whose every key is masked, as `masked_row` says (`m`: the
/// number of keys), and what they are in words.
fn masked_row_fill(row: MaskedRow, m: &str) -> (String, &'static str) {
    match row {
        MaskedRow::Zero => ("np.zeros_like(scaled)".into(), "weights 0 (PyTorch >= 2.5)"),
        MaskedRow::Uniform => (format!("np.full_like(scaled, 1 / {m})"), "1/m each (d2l's masked_softmax)"),
        MaskedRow::Nan => ("np.full_like(scaled, np.nan)".into(), "0/0 = NaN"),
    }
}

/// scores / scale / temperature, as the core divides.
fn scaled_expr(scale: Scale, temperature: f64, dk: &str) -> String {
    let scaled = match scale {
        Scale::SqrtDk => format!("scores / {dk} ** 0.5"),
        Scale::None => "scores".into(),
        Scale::Value(s) => format!("scores / {}", py_float(s)),
    };
    if temperature == 1.0 {
        scaled
    } else {
        scaled + " / temperature"
    }
}

/// A float as Python reads it back exactly (Rust's shortest round-trip repr).
fn py_float(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e16 {
        format!("{x:.1}")
    } else {
        format!("{x:?}")
    }
}

/// A model's weights as NumPy, with the selected head and each head's summaries as the figure shows them.
fn weights_snippet(attention: &Stack, tokens: &[String], key_tokens: &[String], layer: usize, head: usize) -> String {
    let [layers, heads, n, m] = attention.shape();
    let mut py = String::new();
    let _ = writeln!(py, "# attention-viz: a model's attention weights and the figure's summaries of each head");
    let _ = writeln!(py, "import numpy as np\n");
    let _ = writeln!(py, "tokens = {}", py_list_str(tokens));
    let _ = writeln!(py, "key_tokens = {}", py_list_str(key_tokens));
    let all = Matrix::from_vec(layers * heads * n, m, attention.data().to_vec()).expect("stack rows");
    let _ = writeln!(
        py,
        "attention = {}.reshape({layers}, {heads}, {n}, {m})  # layers × heads × queries × keys",
        py_array(&all)
    );
    let _ = writeln!(py, "selected = attention[{layer}, {head}]  # layer {layer}, head {head}\n");
    let _ =
        writeln!(py, "# Each query's weights as shares of their sum; queries whose weights are all 0 are left out.");
    let _ = writeln!(py, "sums = attention.sum(-1, keepdims=True)");
    let _ = writeln!(py, "p = np.divide(attention, sums, out=np.zeros_like(attention), where=sums > 0)");
    let _ = writeln!(py, "rows = (sums[..., 0] > 0)");
    let _ = writeln!(py, "i, j = np.arange({n})[:, None], np.arange({m})[None, :]");
    let _ = writeln!(py, "logp = np.log2(p, out=np.zeros_like(p), where=p > 0)");
    let _ = writeln!(
        py,
        "mean = lambda x, r: np.divide((x * r).sum(-1), r.sum(-1), out=np.zeros(x.shape[:2]), where=r.sum(-1) > 0)"
    );
    let _ = writeln!(py, "entropy = mean(-(p * logp).sum(-1), rows)  # bits, layers × heads");
    let _ = writeln!(py, "distance = mean((p * np.abs(i - j)).sum(-1), rows)  # mean |i − j|");
    let _ = writeln!(py, "first = mean(p[..., 0], rows)  # share on key 0");
    let _ = writeln!(py, "prev = np.zeros_like(p[..., 0]); prev[..., 1:min({n}, {m} + 1)] = p[..., np.arange(1, min({n}, {m} + 1)), np.arange(0, min({n}, {m} + 1) - 1)]");
    let _ = writeln!(py, "previous = mean(prev[..., 1:], rows[..., 1:])  # share on key i − 1");
    let _ = writeln!(py, "row_sum_error = np.abs(sums[..., 0] - 1).max(-1)");
    py
}

fn py_array(m: &Matrix) -> String {
    let rows: Vec<String> = (0..m.rows())
        .map(|i| format!("[{}]", m.row(i).iter().map(|&x| py_float(x)).collect::<Vec<_>>().join(", ")))
        .collect();
    format!("np.array([{}])", rows.join(",\n    "))
}

/// A vector as a 1-d array.
fn py_vector(v: &[f64]) -> String {
    py_array(&Matrix::row_vector(v)).replacen("[[", "[", 1).replacen("]]", "]", 1)
}

fn py_list_str(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| py_string(s)).collect();
    format!("[{}]", quoted.join(", "))
}

/// A Python string literal that is safe for any token name.
fn py_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
