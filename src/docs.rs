//! The documentation generated from the code: every table of config fields (README.md's and www/embed.html's
//! "Config", the TypeScript config types of www/attention-viz.d.ts, python/README.md's list of `show` fields), the
//! names the `views` attribute takes (www/embed.html) and the core's limits the docs quote, each rendered from the one
//! table or constant it documents: [`FIELD_DOCS`] (one line per field of `config::FIELDS` and of
//! `learn::MODEL_FIELDS`), the views and panels of `views` and `panels`, the bounds of `config` and `weights`.
//!
//! A doc holds each generated text between markers: a block between the lines `<!-- docs:NAME … -->` and
//! `<!-- /docs:NAME -->` (in the .d.ts `// docs:NAME …` and `// /docs:NAME`), a value inside a sentence as
//! `<!-- value:NAME -->…<!-- /value -->`. [`refresh`] rewrites them; `tests/docs.rs` fails while a doc differs from
//! what it writes, and `UPDATE_DOCS=1 cargo test --test all docs::` rewrites the files. Pure: text in, text out.
//! The sizes of the built files (dist/sizes.json) are the build's: scripts/doc-sizes.mjs writes and checks those.

use crate::attention::TRACE_FIELDS;
use crate::config::{self, check_declared_shapes, with_worker_limit};
use crate::panels::VARIANT_PANELS;
use crate::views::{CROSS_VIEWS, DECODE_VIEWS, MODERN_PANELS, OPTION_VIEWS, SELF_VIEWS};
use crate::weights::{MAX_HEADS, MAX_VALUES};
use serde_json::json;

/// One config field's line of the docs: which mechanisms read it, the values it takes, its default and what it
/// means. Text in the docs' own markup: `code` in backticks, nothing else (rendered as Markdown, HTML or a JSDoc).
#[derive(Clone, Copy, Debug)]
pub struct FieldDoc {
    pub name: &'static str,
    pub mechanisms: &'static str,
    pub value: &'static str,
    pub default: &'static str,
    pub meaning: &'static str,
}

const fn field(
    name: &'static str,
    mechanisms: &'static str,
    value: &'static str,
    default: &'static str,
    meaning: &'static str,
) -> FieldDoc {
    FieldDoc { name, mechanisms, value, default, meaning }
}

/// Every field a config may hold, in the docs' order: `config::FIELDS` and the trained models' `learn::MODEL_FIELDS`,
/// each once (`tests/docs.rs`).
pub const FIELD_DOCS: &[FieldDoc] = &[
    field("mechanism", "all", r#"`"self"`, `"cross"`, `"weights"`, `"model"`"#, r#"`"cross"` with `decoder_state`/`annotations`, `"weights"` with `attention`, else `"self"`; a config with `attention` and `decoder_state`/`annotations` must name it (it is refused, naming both fields)"#, "which attention the figure shows"),
    field("embeddings", "self", "n × d_model", "— (required)", "the input rows X, one per token"),
    field("w_q", "self", "d_model × h·d_k", "none", "query projection: Q = X·W_Q; `w_q`, `w_k`, `w_v` all three or none (none: Q = K = V = X)"),
    field("w_k", "self", "d_model × h·d_k", "none", "key projection: K = X·W_K"),
    field("w_v", "self", "d_model × h·d_v", "none", "value projection: V = X·W_V"),
    field("heads", "self", "integer h ≥ 1 dividing the widths of W_Q, W_K, W_V", "1", "number of heads; head i uses columns i·d_k … (i+1)·d_k − 1 (needs projections)"),
    field("head", "self, weights", "0 … h − 1", "0", "the head the stage views, the breakdown and (weights) the full heatmap follow"),
    field("w_o", "self", "(h·d_v) × d_out", "none", "output projection: output = the heads' contexts side by side · W_O"),
    field("decoder_state", "cross", "d", "— (required)", "the one query s of encoder–decoder attention"),
    field("annotations", "cross", "m × d", "— (required)", "the encoder states h_j, the keys and values"),
    field("tokens", "self, cross, weights", "one string per row", "`word_1…` (self), `h_1…` (cross), `t_1…` (weights)", "row labels (keys too, unless `key_tokens`)"),
    field("scale", "self, cross", r#"`"sqrt_dk"`, `"none"` or a number > 0"#, r#"`"sqrt_dk"` for dot scoring with projections, else `"none"`"#, "scores are divided by it (√d_k of one head)"),
    field("query", "all but model", "a query's index", "0", "the query the single-query breakdown (and a weights figure) follows"),
    field("scoring", "self, cross", r#"`"dot"`, `"general"`, `"additive"`, `"cosine"`"#, r#"`"dot"`"#, "the score function: q·k, q·W_a·kᵀ (Luong), v_a·tanh(q·W_a + k·U_a) (Bahdanau), cosine"),
    field("w_a", "self, cross", "general: d_q × d_k; additive: d_q × d_a", "identity (general), seed 42 (additive) when switched in the figure", "the scoring's query-side matrix; required by `general` and `additive`"),
    field("u_a", "self, cross", "d_k × d_a", "—", "additive scoring's key-side matrix"),
    field("v_a", "self, cross", "d_a", "—", "additive scoring's output vector"),
    field("temperature", "self, cross", "a number > 0", "1", "scaled = scores / scale / temperature"),
    field("mask", "self, cross", r#"`"none"`, `"causal"`, or n × m of 0/1 or booleans (cross: m)"#, r#"`"none"`"#, "1/true = may attend; masked entries of `scaled` are −∞, their weights 0"),
    field("valid_lens", "self, cross", "one integer ≥ 0 per query (cross: one)", "none", "query i attends keys 0 … valid_lens[i] − 1 only (with `mask`: both must allow)"),
    field("position", "self", r#"`{"kind": "sinusoidal", "base"?, "offset"?}`, `{"kind": "rope", "base"?, "pairs"?: "interleaved" | "halves", "offset"?, "rotary_dim"?, "frequencies"?, "attention_factor"?}` or `{"kind": "alibi", "slopes"?: [m_0, …]}`"#, "none", "word order: sinusoidal PE[p, j] = sin/cos(p / base^(2⌊j/2⌋/d_model)) added to X (Vaswani et al. 2017); RoPE rotates each head's q and k rows, pair i by p·θ_i, θ_i = base^(−2i/rotary_dim) (pairs (x_2i, x_2i+1) as RoFormer, or (x_i, x_i+rotary_dim/2) as LLaMA's rotate_half; d_k even); ALiBi adds −m_h·|i − j| to each head's scaled scores (default m_h = 2^(−8(h+1)/H)); base ≥ 1, default 10000; `offset` (sinusoidal, RoPE: a whole number ≥ 0, default 0) puts token r at position r + offset; RoPE's `rotary_dim` (even, 2 … d_k, default d_k) rotates only the first rotary_dim values of each row, the rest pass unchanged (GPT-NeoX, Phi, GPT-J); `frequencies` (rotary_dim/2 numbers > 0) are the θ_i themselves, instead of the base's (scaled RoPE: linear, NTK, YaRN, LLaMA 3); `attention_factor` (> 0, default 1) multiplies cos and sin (transformers' `attention_scaling`)"),
    field("kv_heads", "self", "integer dividing `heads`", "`heads`", "key/value heads (GQA; 1 = multi-query): W_K and W_V have kv_heads·d_k (d_v) columns, query head h reads kv head ⌊h / (heads / kv_heads)⌋"),
    field("window", "self", "`[left, right]`, whole numbers ≥ 0", "none", "query i attends keys i − left … i + right only (JAX's `local_window_size`)"),
    field("sinks", "self", "whole number ≥ 0", "0", "keys 0 … sinks − 1 are attended where the window alone forbids them (StreamingLLM)"),
    field("decode_step", "self", r#"a token index t (needs `mask: "causal"`)"#, "none", r#"generation at step t: the trace's `decode` (the query of token t, the KV cache 0 … t), whose weights are row t of `weights`; refused when every key of query t is masked, t < n − 1 and `masked_row` is "uniform" (that row spreads 1/n past the cache)"#),
    field("tiles", "self", "`[rows, cols]`, whole numbers ≥ 1", "none", "FlashAttention-2's blocks: the trace's `flash` (m, l, o after every tile of the followed head)"),
    field("b_q", "self", "h·d_k numbers (needs `w_q`)", "none", "query bias: Q = X·W_Q + b_q (Qwen2, Phi, GPT-2, BERT)"),
    field("b_k", "self", "kv_heads·d_k numbers (needs `w_k`)", "none", "key bias: K = X·W_K + b_k"),
    field("b_v", "self", "kv_heads·d_v numbers (needs `w_v`)", "none", "value bias: V = X·W_V + b_v"),
    field("b_o", "self", "d_out numbers (needs `w_o`)", "none", "output bias: output = the heads' contexts side by side · W_O + b_o"),
    field("q_norm", "self", r#"`{"weight": [d_k numbers], "eps": a number > 0}`"#, "none", "RMSNorm of each head's q row, x / sqrt(mean(x²) + eps) · weight, after `b_q` and before RoPE (Qwen3, Gemma 3); the trace's `q_normed`"),
    field("k_norm", "self", r#"`{"weight": [d_k numbers], "eps": a number > 0}`"#, "none", "RMSNorm of each head's k row, after `b_k` and before RoPE; the trace's `k_normed`"),
    field("softcap", "self", "a number > 0", "none", "soft cap of the scores (Gemma 2): each head's `capped` = softcap·tanh(scaled / softcap), which the softmax reads; ALiBi's bias and the mask apply after it"),
    field("masked_row", "self, cross", r#"`"zero"`, `"uniform"`, `"nan"`"#, r#"`"zero"`"#, "what a query with every key masked gets: 0 (PyTorch ≥ 2.5), 1/m (d2l), NaN (0/0)"),
    field("attention", "weights", "n × m, heads × n × m or layers × heads × n × m", "— (required)", "a model's attention weights, shown as given (finite, ≥ 0)"),
    field("key_tokens", "weights", "one string per key", "`tokens` when m = n, else `k_1…`", "the keys' labels"),
    field("layer", "weights", "0 … layers − 1", "0", "the layer of the head shown in full"),
    field("model", "model", r#"`"reversal"`, `"induction"` or a model object"#, "— (required)", r#"the trained model to run (see "Trained models")"#),
    field("input", "model", "token ids", "— (required)", "the sequence the model reads"),
];

/// The fields self- and cross-attention configs share (the labels, the scale, the followed query, the scoring and the
/// temperature): one TypeScript interface, `ScoringFields`, that [`TS_CONFIGS`]'s first two extend.
const TS_SHARED: (&str, &str, &[&str]) = (
    "ScoringFields",
    "The fields self- and cross-attention share: the labels, the scale, the followed query, the scoring, the temperature.",
    &[
        "tokens?: string[]",
        "scale?: 'sqrt_dk' | 'none' | number",
        "query?: number",
        "scoring?: 'dot' | 'general' | 'additive' | 'cosine'",
        "w_a?: Matrix",
        "u_a?: Matrix",
        "v_a?: Vector",
        "temperature?: number",
    ],
);

/// The TypeScript config types (www/attention-viz.d.ts's `Config` is their union): each one's doc and its fields as
/// declared (`name?: type` optional, `name: type` required), each field's comment its [`FIELD_DOCS`] line.
const TS_CONFIGS: &[(&str, &str, &[&str])] = &[
    (
        "SelfConfig",
        "Self-attention (`mechanism: \"self\"`): each token's row attends every token's (README \"Config\").",
        &[
            "mechanism?: 'self'",
            "embeddings: Matrix",
            "w_q?: Matrix",
            "w_k?: Matrix",
            "w_v?: Matrix",
            "heads?: number",
            "head?: number",
            "w_o?: Matrix",
            "mask?: Mask",
            "valid_lens?: number[]",
            "position?: Position",
            "kv_heads?: number",
            "window?: [number, number]",
            "sinks?: number",
            "decode_step?: number",
            "tiles?: [number, number]",
            "b_q?: Vector",
            "b_k?: Vector",
            "b_v?: Vector",
            "b_o?: Vector",
            "q_norm?: Norm",
            "k_norm?: Norm",
            "softcap?: number",
            "masked_row?: MaskedRow",
        ],
    ),
    (
        "CrossConfig",
        "Encoder–decoder attention (`mechanism: \"cross\"`): one decoder state attends the encoder's annotations.",
        &[
            "mechanism?: 'cross'",
            "decoder_state: Vector",
            "annotations: Matrix",
            "mask?: 'none' | (number | boolean)[]",
            "valid_lens?: [number]",
            "masked_row?: MaskedRow",
        ],
    ),
    (
        "WeightsConfig",
        "A model's attention, shown as given (README \"A model's attention\"): read-only but for the head shown.",
        &[
            "mechanism?: 'weights'",
            "attention: number[][] | number[][][] | number[][][][]",
            "tokens?: string[]",
            "key_tokens?: string[]",
            "layer?: number",
            "head?: number",
            "query?: number",
        ],
    ),
];

/// The parts of the element the `views` attribute names besides heatmaps and the core's panels (the element's
/// www/element/figures.js `PANELS`), and what each is.
pub const ELEMENT_PANELS: &[(&str, &str)] = &[
    ("inputs", "the input grids"),
    ("breakdown", "the followed query's breakdown table"),
    ("controls", "the toolbar and the Share & export menu"),
    (
        "steps",
        "self-attention: the followed query's path score → ÷√d_k → exp → ÷Σ → weight → w_j·v_j as one strip; shown \
         only when named",
    ),
];

/// What each panel of the core's ([`VARIANT_PANELS`], [`MODERN_PANELS`]) shows, in a few words (README.md's `views`
/// tables say it in full).
const PANEL_DOCS: &[(&str, &str)] = &[
    ("heads", "+ / − head, the followed head, W_O"),
    ("mask", "none / causal / custom, a clickable mask, valid lengths, the fully masked row"),
    ("temperature", "a log-scale slider with each query's entropy"),
    ("scoring", "dot, general, additive, cosine"),
    ("position", "none / sinusoidal / RoPE / ALiBi, the base, RoPE's pairs, ALiBi's slopes, shifted positions"),
    ("kv", "the key/value heads, grouped-query or multi-query, and which query heads share each"),
    ("window", "the sliding window's sides and the sinks, drawn on the mask"),
    ("softcap", "the soft cap of the scores, on or off, and its c: capped = c·tanh(scaled / c)"),
    ("decode", "generation token by token at `decode_step`: the query, the KV cache, its scores, weights and context"),
    ("flash", "FlashAttention-2's tiles one by one: the running m, l and o"),
];

/// How a generated text is written into a file.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Syntax {
    Markdown,
    Html,
    TypeScript,
}

impl Syntax {
    fn of(path: &str) -> Result<Syntax, String> {
        match path.rsplit('.').next() {
            Some("md") => Ok(Syntax::Markdown),
            Some("html") => Ok(Syntax::Html),
            Some("ts") => Ok(Syntax::TypeScript),
            _ => Err(format!("{path}: no generated docs are written into this kind of file")),
        }
    }

    /// The start of a block's first and last lines: `<!-- docs:` and `<!-- /docs:` (`// docs:`, `// /docs:`).
    fn markers(self) -> (&'static str, &'static str) {
        match self {
            Syntax::Markdown | Syntax::Html => ("<!-- docs:", "<!-- /docs:"),
            Syntax::TypeScript => ("// docs:", "// /docs:"),
        }
    }
}

/// The files that hold generated docs, from the crate's root.
pub const FILES: &[&str] = &["README.md", "www/embed.html", "python/README.md", "www/attention-viz.d.ts"];

/// The blocks `path` holds, by name, each with its text (whole lines, each ending in a newline).
pub fn blocks(path: &str) -> Vec<(&'static str, String)> {
    match path {
        "README.md" => vec![("fields", fields_markdown()), ("limits", paragraph(&limits(), Syntax::Markdown, ""))],
        "www/embed.html" => vec![
            ("views", views_row()),
            ("fields", fields_html()),
            ("limits", paragraph(&limits(), Syntax::Html, "  ")),
        ],
        "python/README.md" => vec![("show-fields", paragraph(&show_fields(), Syntax::Markdown, ""))],
        "www/attention-viz.d.ts" => vec![("config-types", config_types()), ("trace-fields", trace_field_type())],
        _ => vec![],
    }
}

/// The values a sentence quotes (`<!-- value:NAME -->…<!-- /value -->`), by name, as the docs write them.
pub fn values() -> Vec<(&'static str, String)> {
    vec![
        ("max_tokens", config::MAX_TOKENS.to_string()),
        ("max_dims", config::MAX_DIMS.to_string()),
        ("max_cost", scientific(config::MAX_COST)),
        ("max_worker_cost", scientific(config::MAX_WORKER_COST)),
        ("max_values", power_of_two(MAX_VALUES)),
        ("max_values_count", grouped(MAX_VALUES as u64, ",")),
        ("max_heads", MAX_HEADS.to_string()),
        ("max_random", grouped(crate::random::MAX_RANDOM as u64, " ")),
        ("min_height", crate::heatmap::draw::MIN_HEIGHT.to_string()),
        ("max_height", crate::heatmap::draw::MAX_HEIGHT.to_string()),
        ("trace_fields", code_list(TRACE_FIELDS.iter().map(|(name, _)| *name))),
        ("trace_fields_on_request", code_list(TRACE_FIELDS.iter().filter(|(_, asked)| *asked).map(|(name, _)| *name))),
    ]
}

/// `text` with every generated block and value of `path` written anew; an error names a block `path` should hold and
/// does not, one it holds twice or should not, one not closed, or a value no one knows.
pub fn refresh(path: &str, text: &str) -> Result<String, String> {
    let syntax = Syntax::of(path)?;
    let (open, close) = syntax.markers();
    let wanted = blocks(path);
    let mut out = String::with_capacity(text.len());
    let mut seen: Vec<&str> = vec![];
    let mut rest = text;
    while let Some(at) = rest.find(open) {
        let after = &rest[at + open.len()..];
        let name: &str =
            &after[..after.find(|c: char| !(c.is_ascii_alphanumeric() || c == '-')).unwrap_or(after.len())];
        let Some((name, generated)) = wanted.iter().find(|(n, _)| *n == name) else {
            return Err(format!("{path}: a block docs:{name} that src/docs.rs does not write"));
        };
        if seen.contains(name) {
            return Err(format!("{path}: the block docs:{name} is there twice"));
        }
        seen.push(name);
        let body = at + rest[at..].find('\n').ok_or_else(|| format!("{path}: docs:{name} opens at the end"))? + 1;
        let end = format!("{close}{name}");
        let closing = body + rest[body..].find(&end).ok_or_else(|| format!("{path}: docs:{name} is never closed"))?;
        let closing_line = rest[..closing].rfind('\n').map_or(0, |i| i + 1).max(body);
        out.push_str(&rest[..body]);
        out.push_str(generated);
        rest = &rest[closing_line..];
    }
    out.push_str(rest);
    if let Some((name, _)) = wanted.iter().find(|(n, _)| !seen.contains(n)) {
        return Err(format!("{path}: no block docs:{name} ({open}{name} … {close}{name})"));
    }
    if syntax == Syntax::TypeScript {
        return Ok(out);
    }
    refresh_values(path, &out)
}

/// Every `<!-- value:NAME -->…<!-- /value -->` of `text` holding [`values`]' text for NAME.
fn refresh_values(path: &str, text: &str) -> Result<String, String> {
    const OPEN: &str = "<!-- value:";
    const CLOSE: &str = "<!-- /value -->";
    let known = values();
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(OPEN) {
        let after = &rest[at + OPEN.len()..];
        let Some((name, tail)) = after.split_once(" -->") else {
            return Err(format!("{path}: a value marker not closed by \" -->\""));
        };
        let Some((_, value)) = known.iter().find(|(n, _)| *n == name) else {
            return Err(format!("{path}: the value {name:?} is none that src/docs.rs knows"));
        };
        let Some(end) = tail.find(CLOSE) else { return Err(format!("{path}: value:{name} is never closed")) };
        out.push_str(&rest[..at]);
        out.push_str(&format!("{OPEN}{name} -->{value}{CLOSE}"));
        rest = &tail[end + CLOSE.len()..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The docs' markup (`code` in backticks) as Markdown; in a table cell, `|` escaped.
fn markdown(text: &str, cell: bool) -> String {
    if cell {
        text.replace('|', "\\|")
    } else {
        text.to_string()
    }
}

/// The docs' markup as HTML: `<`, `>` and `&` escaped, backticks as `<code>`.
fn html(text: &str) -> String {
    let escaped = text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
    escaped
        .split('`')
        .enumerate()
        .map(|(i, part)| if i % 2 == 1 { format!("<code>{part}</code>") } else { part.to_string() })
        .collect()
}

/// One paragraph of the docs' markup, in Markdown (wrapped at 120 characters) or as an HTML `<p>` (indented).
fn paragraph(text: &str, syntax: Syntax, indent: &str) -> String {
    match syntax {
        Syntax::Html => wrap(&format!("<p>{}</p>", html(text)), indent, indent, 120),
        _ => wrap(&markdown(text, false), indent, indent, 120),
    }
}

/// `text`'s words in lines of at most `width` characters (a longer word alone on its line), the first line
/// starting with `first`, the others with `next`; each line ends in a newline.
fn wrap(text: &str, first: &str, next: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = first.to_string();
    let mut empty = true;
    for word in text.split_whitespace() {
        if !empty && line.chars().count() + 1 + word.chars().count() > width {
            out.push_str(line.trim_end());
            out.push('\n');
            line = next.to_string();
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    out.push_str(line.trim_end());
    out.push('\n');
    out
}

/// README.md's config table.
fn fields_markdown() -> String {
    let mut out = String::from("| field | mechanisms | value | default | meaning |\n| --- | --- | --- | --- | --- |\n");
    for f in FIELD_DOCS {
        let cells = [f.mechanisms, f.value, f.default, f.meaning].map(|c| markdown(c, true));
        out.push_str(&format!("| `{}` | {} |\n", f.name, cells.join(" | ")));
    }
    out
}

/// www/embed.html's config table. Each cell names its column (`data-label`): on a phone the page lays a row out as
/// a card, each value under its column's name (www/pages/embed.css).
fn fields_html() -> String {
    const COLUMNS: [&str; 4] = ["mechanisms", "value", "default", "meaning"];
    let mut out = String::from(
        "  <table class=\"ref cards\">\n    <thead><tr><th>field</th><th>mechanisms</th><th>value</th><th>default</th>\
         <th>meaning</th></tr></thead>\n    <tbody>\n",
    );
    for f in FIELD_DOCS {
        let cells: Vec<String> = [f.mechanisms, f.value, f.default, f.meaning]
            .iter()
            .zip(COLUMNS)
            .map(|(c, label)| format!("<td data-label=\"{label}\">{}</td>", html(c)))
            .collect();
        out.push_str(&format!("      <tr><td><code>{}</code></td>{}</tr>\n", f.name, cells.concat()));
    }
    out.push_str("    </tbody>\n  </table>\n");
    out
}

/// A field's line as a JSDoc sentence: its meaning, then its values and default.
fn jsdoc(f: &FieldDoc) -> String {
    let tail = match f.default {
        "— (required)" => "; required".to_string(),
        "—" => String::new(),
        d => format!("; default: {d}"),
    };
    format!("{} — {}{tail}.", f.meaning, f.value)
}

/// A `/** … */` comment of `text` at `indent`, on one line when it fits.
fn comment(text: &str, indent: &str) -> String {
    let one = format!("{indent}/** {text} */");
    if one.chars().count() <= 120 {
        return format!("{one}\n");
    }
    format!("{indent}/**\n{}{indent} */\n", wrap(text, &format!("{indent} * "), &format!("{indent} * "), 120))
}

/// The FIELD_DOCS line of `name` (a test keeps every field documented).
pub fn field_doc(name: &str) -> Option<&'static FieldDoc> {
    FIELD_DOCS.iter().find(|f| f.name == name)
}

/// www/attention-viz.d.ts's config types and their union `Config`.
fn config_types() -> String {
    let mut out = String::new();
    let (shared, _, _) = TS_SHARED;
    for (k, (interface, doc, fields)) in std::iter::once(&TS_SHARED).chain(TS_CONFIGS).enumerate() {
        out.push_str(&comment(doc, ""));
        out.push_str(&match k {
            0 => format!("interface {interface} {{\n"),
            1 | 2 => format!("export interface {interface} extends {shared} {{\n"),
            _ => format!("export interface {interface} {{\n"),
        });
        for declaration in *fields {
            let name = declaration.split([':', '?']).next().unwrap_or_default();
            let doc = field_doc(name).map_or_else(|| format!("{name}: not in src/docs.rs FIELD_DOCS"), jsdoc);
            out.push_str(&comment(&doc, "  "));
            out.push_str(&format!("  {declaration};\n"));
        }
        out.push_str("}\n\n");
    }
    let names: Vec<&str> = TS_CONFIGS.iter().map(|(name, _, _)| *name).collect();
    out.push_str(&format!("export type Config = {};\n", names.join(" | ")));
    out
}

/// www/attention-viz.d.ts's `TraceFieldName`: the names compute()'s `fields` option takes (`attention::TRACE_FIELDS`).
fn trace_field_type() -> String {
    let names: String = TRACE_FIELDS.iter().map(|(name, _)| format!("\n  | '{name}'")).collect();
    let doc = "A top-level field of a trace, as compute()'s `fields` option names it.";
    format!("{}export type TraceFieldName ={names};\n", comment(doc, ""))
}

/// Names as code, comma-separated: `a`, `b`, `c`.
fn code_list<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    names.into_iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
}

/// What the panels `names` are, each from [`PANEL_DOCS`] or [`ELEMENT_PANELS`]: `` `name` (what), … ``.
fn panels_said(names: &[&str]) -> String {
    let said = |name: &str| {
        let what = PANEL_DOCS.iter().chain(ELEMENT_PANELS).find(|(n, _)| *n == name).map_or("", |(_, w)| *w);
        format!("`{name}` ({what})")
    };
    names.iter().map(|n| said(n)).collect::<Vec<_>>().join(", ")
}

/// www/embed.html's row of the `views` attribute: every heatmap view and panel name, from the core's lists.
fn views_row() -> String {
    let inputs: Vec<&str> = SELF_VIEWS.iter().copied().filter(|v| config::INPUTS.contains(v)).collect();
    let stages: Vec<&str> = SELF_VIEWS.iter().copied().filter(|v| !config::INPUTS.contains(v)).collect();
    let positions = crate::views::POSITION_VIEWS;
    let options: Vec<&str> = OPTION_VIEWS.iter().copied().filter(|v| *v != "query.features").collect();
    let element: Vec<&str> = ELEMENT_PANELS.iter().map(|(n, _)| *n).collect();
    let text = format!(
        "Which parts show, by name. Heatmaps: self-attention's {stages} (a read-only figure's also its inputs \
         {inputs}); encoder–decoder attention's {cross}, `context`; with a `position` {positions}; with a real \
         layer's fields {layers} (the biases `b_…` read-only, as inputs; `q_normed`, `k_normed` with `q_norm`, \
         `k_norm`; `capped` with `softcap`); with heads, \
         masks, W_O or another scoring also `heads.0.weights`, `heads.1.weights`… (each head's weights, drawn side \
         by side), `output`, `query.features` (additive scoring) and, read-only, {options}; with a `decode_step` \
         {decode}. The element's parts {element}. The panels {variants}; {modern}. Default: everything but `steps`; \
         of the panels, those whose feature the config uses (and a panel once shown stays). A name that is no part \
         of the figure is reported under the toolbar, with the valid names, until `views` changes.",
        stages = code_list(stages),
        inputs = code_list(inputs),
        cross = code_list(CROSS_VIEWS),
        positions = code_list(positions),
        layers = code_list(crate::views::LAYER_VIEWS),
        options = code_list(options),
        decode = code_list(DECODE_VIEWS),
        element = panels_said(&element),
        variants = panels_said(&VARIANT_PANELS),
        modern = panels_said(&MODERN_PANELS),
    );
    format!("      <tr><td><code>views</code></td><td>comma list of names</td><td>{}</td></tr>\n", html(&text))
}

/// python/README.md's sentence naming the fields `show` takes.
fn show_fields() -> String {
    let fields: Vec<&str> = FIELD_DOCS.iter().map(|f| f.name).filter(|n| config::FIELDS.contains(n)).collect();
    format!(
        "`show` takes any field of the config (the main README's \"Config\" section says what each one holds, its \
         default and its meaning): {}.",
        code_list(fields)
    )
}

/// The most tokens a self-attention config of `d` dimensions may have (with projections of `d_k` = `d_v` = `dk`
/// when given), under the page's bound, or the worker's with `worker`.
fn most_tokens(d: usize, dk: Option<usize>, worker: bool) -> usize {
    let fits = |n: usize| fits_self_attention(n, d, dk, worker);
    let (mut lo, mut hi) = (1, config::MAX_TOKENS);
    if fits(hi) {
        return hi;
    }
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The largest `d_k` = `d_v` of a one-head self-attention config of `n` tokens × `d` dimensions within the worker's
/// bound.
fn widest_worker_head(n: usize, d: usize) -> usize {
    let (mut lo, mut hi) = (1, config::MAX_DIMS);
    if fits_self_attention(n, d, Some(hi), true) {
        return hi;
    }
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if fits_self_attention(n, d, Some(mid), true) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Whether the core takes a self-attention config of these shapes (its declared shapes, as the shells ask first).
fn fits_self_attention(n: usize, d: usize, dk: Option<usize>, worker: bool) -> bool {
    let mut shapes = vec![("embeddings", vec![n, d])];
    if let Some(dk) = dk {
        shapes.extend(config::PROJECTIONS.map(|p| (p, vec![d, dk])));
    }
    let rest = json!({"mechanism": "self"});
    let check = || check_declared_shapes(&rest, &shapes).is_ok();
    if worker {
        with_worker_limit(check)
    } else {
        check()
    }
}

/// The sentences of the core's bounds on a config (README's and embed.html's, one text).
fn limits() -> String {
    let v = |name: &str| values().into_iter().find(|(n, _)| *n == name).map(|(_, t)| t).unwrap_or_default();
    format!(
        "A config is refused, with a message giving its size and the limit, when a matrix has more than {tokens} rows \
         (tokens) or {dims} columns (dimensions), or when its full computation would need more than {cost} \
         multiply-adds (`MAX_COST`): at most {n1} tokens of one dimension, {n64} tokens × 64 dimensions with \
         projections of d_k = d_v = 64; so no call blocks the page for more than about half a second (a figure at the \
         limit takes about a second in the element on a quiet laptop). A read-only \
         figure (`editable=\"false\"`) of self-attention over that bound is computed by a Web Worker instead, up to \
         {worker} multiply-adds for its followed head (`MAX_WORKER_COST`: the worker computes that head alone; \
         {tokens} tokens × 64 dimensions with heads of d_k = d_v up to {dk}), unless it has a `position`, `w_o`, a \
         `decode_step`, `tiles` or a real layer's biases, norms or `softcap`, which stay within the page's bound. A model's weights (`mechanism: \"weights\"`): \
         at most {values} ({count}) values and {heads} heads in all, within the page's bound too.",
        tokens = config::MAX_TOKENS,
        dims = config::MAX_DIMS,
        cost = v("max_cost"),
        n1 = most_tokens(1, None, false),
        n64 = most_tokens(64, Some(64), false),
        worker = v("max_worker_cost"),
        dk = widest_worker_head(config::MAX_TOKENS, 64),
        values = v("max_values"),
        count = v("max_values_count"),
        heads = MAX_HEADS,
    )
}

/// `x` as the docs write a bound: `3·10⁸`, `2.5·10⁹`.
fn scientific(x: f64) -> String {
    let exponent = x.abs().log10().floor() as i32;
    let mantissa = x / 10f64.powi(exponent);
    let mantissa = format!("{:.3}", mantissa).trim_end_matches('0').trim_end_matches('.').to_string();
    format!("{mantissa}·10{}", superscript(&exponent.to_string()))
}

/// `n` as a power of two when it is one (`2²³`), else its digits.
fn power_of_two(n: usize) -> String {
    if n.is_power_of_two() {
        format!("2{}", superscript(&n.trailing_zeros().to_string()))
    } else {
        n.to_string()
    }
}

fn superscript(digits: &str) -> String {
    digits
        .chars()
        .map(|c| match c {
            '0' => '⁰',
            '1' => '¹',
            '2' => '²',
            '3' => '³',
            '4' => '⁴',
            '5' => '⁵',
            '6' => '⁶',
            '7' => '⁷',
            '8' => '⁸',
            '9' => '⁹',
            '-' => '⁻',
            other => other,
        })
        .collect()
}

/// `n` with its digits in groups of three: `8,388,608` (`separator` ","), `131 072` (" ").
fn grouped(n: u64, separator: &str) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push_str(separator);
        }
        out.push(c);
    }
    out
}
