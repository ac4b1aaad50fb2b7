//! The element's two steppers as they show a figure, as JSON: the decode panel (generation token by token with a KV
//! cache: the step's line, what the cache holds against recomputing K and V, the decode heatmaps and their labels, the
//! moves of ← → Home End, and without a causal mask the core's reason and the offer that fixes it) and the flash panel
//! (FlashAttention-2's tiles: the tile size's fields, the current tile's line, its outline on the scaled scores, the
//! memory it needs, the bytes it moves through main memory against the n × n scores never written, the running m, l
//! and o as a table with the maxima that grew marked, and o / l beside the context after a query block's last tile).
//! The flash stepper's step is the element's, not the config's: it is asked with the part (`flash:s`). Every text,
//! number as written and move is made here; www/element/steppers.js lays them out and sends the moves as commands.

use crate::attention::{FlashTile, Trace};
use crate::config::{Config, Mask, Mechanism};
use crate::heatmap::draw::clip_to;
use crate::math::Matrix;
use crate::text::{js_string, number, significant};
use crate::views::DECODE_VIEWS;
use serde_json::{Map, Value};

/// The steppers' panels, as the `views` attribute names them.
pub const STEPPER_PANELS: [&str; 2] = ["decode", "flash"];

/// Characters of a token name in a stepper's line and its tables' rows (the element's `clip`).
const NAME_CHARS: usize = 24;

/// Significant digits of a number in the flash tables (the cell's title holds it whole).
const TABLE_DIGITS: usize = 6;

/// The heatmap outline kind of FlashAttention's current tile (heatmap::draw's `HighlightKind::Tile`).
const TILE_OUTLINE: u64 = 3;

/// What each decode heatmap is, for its canvas's label.
const DECODE_LABELS: [&str; 6] = [
    "The query of the token being generated",
    "The K cache: keys of tokens 0 to t",
    "The V cache: values of tokens 0 to t",
    "Scores of the query against the cached keys",
    "Weights of the query over the cached tokens",
    "The context of the token being generated",
];

fn obj(fields: Vec<(&str, Value)>) -> Value {
    Value::Object(fields.into_iter().map(|(k, v)| (k.to_string(), v)).collect::<Map<_, _>>())
}

/// Whether this figure can show the steppers: generation and tiles are of self-attention's n × n scores.
pub fn applies(config: &Config) -> bool {
    matches!(config.mechanism, Mechanism::SelfAttention { .. })
}

/// The part `name` asks (`decode`, or `flash:s` with the flash stepper's step s), or `None` for another name or a
/// figure without steppers.
pub fn part(config: &Config, trace: &Trace, name: &str) -> Option<Value> {
    if !applies(config) {
        return None;
    }
    let (panel, step) = name.split_once(':').unwrap_or((name, "0"));
    match panel {
        "decode" => Some(decode(config, trace)),
        "flash" => Some(flash(config, trace, step.parse().unwrap_or(0))),
        _ => None,
    }
}

/// The stepper's ← and → with their words: `{label, prev, next}`.
fn stepper(label: &str, what: &str) -> Value {
    obj(vec![
        ("label", label.into()),
        ("prev", format!("Previous {what}").into()),
        ("next", format!("Next {what}").into()),
    ])
}

/// The decode panel: `{build, label, why, offer, stepper, stop, text, cost, prev_off, next_off, moves, views}`.
///
/// `build`: what its DOM depends on (a change rebuilds it); `why`: without a causal mask, the core's reason (`offer`
/// `{text, fields}` is the fix: the mask on and token 0 generated), else null with `stepper`, `text` (the step's line),
/// `cost` (what the cache holds), `stop` (`{text, title, fields}` while generating), `prev_off`/`next_off` (← and → past
/// an end), `moves` (`{back, on, first, last}`: the fields an arrow, Home and End send, null when they change nothing:
/// the row generated is the followed query) and `views` (`[{view, label}]`, the decode heatmaps, while generating).
pub fn decode(config: &Config, trace: &Trace) -> Value {
    let o = &config.options;
    let n = config.tokens.len();
    let causal = o.mask == Mask::Causal;
    let t = o.decode_step;
    let build = format!("{causal}|{}|{n}", t.is_some());
    let mut out = obj(vec![("build", build.into()), ("label", "decode (KV cache)".into())]);
    if !causal {
        let why = config
            .with_fields(&obj(vec![("decode_step", 0.into())]))
            .err()
            .map_or_else(|| "Generating needs a causal mask.".to_string(), |e| e.to_string());
        out["why"] = why.into();
        out["offer"] = obj(vec![
            ("text", "Turn on the causal mask and generate token 0".into()),
            ("fields", obj(vec![("mask", "causal".into()), ("decode_step", 0.into()), ("query", 0.into())])),
        ]);
        return out;
    }
    out["why"] = Value::Null;
    out["stepper"] = stepper("Decode step: the token being generated", "token");
    let text = match t {
        None => format!("not generating (→ starts at token 0 of {n})"),
        Some(t) => format!("token {t} of 0 … {}: {}", n.saturating_sub(1), clip_to(&config.tokens[t], NAME_CHARS)),
    };
    out["text"] = text.into();
    let decode = match trace {
        Trace::SelfAttention(s) => s.decode.as_ref(),
        _ => None,
    };
    let cost = match (t, decode) {
        (Some(t), Some(d)) => {
            let heads = if o.heads > 1 { format!("head {}'s ", o.head) } else { String::new() };
            let again = if d.recompute_cost > 0.0 {
                format!("recompute them: {} multiply-adds.", number(d.recompute_cost))
            } else {
                "copy them again (K = V = X here: nothing to multiply).".to_string()
            };
            format!(
                "The cache holds {} numbers (K and V of tokens 0 … {t}, every key/value head); without it, step {t} \
                 would {again} The weights are {heads}row {t} of the causal weights, entries 0 … {t}.",
                number(d.cache_size)
            )
        }
        _ => "Generating token t, the model attends with q_t to the keys and values of tokens 0 … t: a KV cache keeps \
              them from the earlier steps."
            .to_string(),
    };
    out["cost"] = cost.into();
    // Not generating is the step before token 0: → starts at it.
    let at = t.map_or(-1, |t| t as i64);
    let last = n as i64 - 1;
    out["prev_off"] = (at <= 0).into();
    out["next_off"] = (at >= last).into();
    let to = |s: i64| {
        let s = s.clamp(0, last.max(0));
        (Some(s as usize) != t).then(|| obj(vec![("decode_step", s.into()), ("query", s.into())]))
    };
    let start = t.map_or(0, |t| t as i64);
    let by = |d: i64| to(if t.is_some() { start + d } else { 0 });
    out["moves"] =
        obj(vec![("back", by(-1).into()), ("on", by(1).into()), ("first", to(0).into()), ("last", to(last).into())]);
    if t.is_some() {
        out["stop"] = obj(vec![
            ("text", "Stop generating".into()),
            ("title", "Remove decode_step".into()),
            ("fields", obj(vec![("decode_step", Value::Null)])),
        ]);
        let views: Vec<Value> = DECODE_VIEWS
            .iter()
            .zip(DECODE_LABELS)
            .map(|(v, label)| obj(vec![("view", (*v).into()), ("label", label.into())]))
            .collect();
        out["views"] = views.into();
    } else {
        out["stop"] = Value::Null;
        out["views"] = Value::Array(vec![]);
    }
    out
}

/// The tile size's two fields: `[{value, max, label}]` for rows and columns (value null: no tiles).
fn size_fields(config: &Config) -> Value {
    let n = config.tokens.len();
    let given = config.options.tiles;
    let field = |k: usize, what: &str, holds: &str| {
        obj(vec![
            ("value", given.map(|t| t[k]).into()),
            ("max", n.into()),
            ("label", format!("Tile {what}: {holds} a tile holds (1 to {n}; empty: no tiles)").into()),
        ])
    };
    Value::Array(vec![field(0, "rows", "queries"), field(1, "columns", "keys")])
}

/// The fields a tile size typed in the flash panel's two fields sets, `{tiles: [rows, cols] | null}`: both empty is no
/// tiles, one size alone a square tile of it. Each text is a number field's (`<input type=number>`: empty or a number);
/// whether the size can be taken is the config's to say (`Config::with_fields`, whose message names the field), so a
/// number is sent as typed: a whole one as an integer, another as it is, one that is no number as null.
pub fn typed_tiles(rows: &str, cols: &str) -> Value {
    let (rows, cols) = (rows.trim(), cols.trim());
    let tiles = match (rows.is_empty(), cols.is_empty()) {
        (true, true) => Value::Null,
        (true, false) => Value::Array(vec![typed_number(cols), typed_number(cols)]),
        (false, true) => Value::Array(vec![typed_number(rows), typed_number(rows)]),
        (false, false) => Value::Array(vec![typed_number(rows), typed_number(cols)]),
    };
    obj(vec![("tiles", tiles)])
}

/// A typed number as JSON writes it: a whole one below 2^53 as an integer (`4`, not `4.0`), another finite one as it
/// is, anything else null.
fn typed_number(text: &str) -> Value {
    match text.parse::<f64>() {
        Ok(x) if x.fract() == 0.0 && x.abs() < 9_007_199_254_740_992.0 => Value::from(x as i64),
        Ok(x) => Value::from(x),
        Err(_) => Value::Null,
    }
}

/// The flash panel at the stepper's step `s`: `{build, label, sizes, hint, stepper, view, step, count, text,
/// prev_off, next_off, moves, outline, memory, traffic, after, mlo, equal, check}`.
///
/// `sizes`: the tile size's fields (what is typed in them is sent as `{flashTiles: [rows, cols]}`: [`typed_tiles`]); `view`: the heatmap the tile is outlined
/// on (`{view, label}`); without tiles `hint` says what they do and the rest is absent. `step`: the step
/// shown (`s`, or 0 past the last), of `count`; `text`: its line; `moves` (`{back, on, first, last}`: the step an arrow,
/// Home and End go to, null when it stays); `outline`: the tile on the scaled scores (a heatmap highlight); `memory`:
/// what a query block needs against the whole score matrix; `traffic`: the bytes read from and written to main memory
/// so far against the n × n scores never written; `after`: what m, l and o are, and `mlo` their table (after a
/// block's first tile a row whose maximum grew says `m_old → m_new` in its m cell, which with its rescale factor is
/// `changed`);
/// after a query block's last tile `equal` says how o / l compares with the context and `check` is their table, else
/// both null. A table is `{caption, head: [..], rows: [{name, title, cells: [{text, title}]}]}`.
pub fn flash(config: &Config, trace: &Trace, s: usize) -> Value {
    let n = config.tokens.len();
    let on = config.options.tiles.is_some();
    let mut out = obj(vec![
        ("build", format!("{on}|{n}").into()),
        ("label", "FlashAttention tiles".into()),
        ("sizes", size_fields(config)),
    ]);
    let shown = match trace {
        Trace::SelfAttention(t) => t.flash.as_ref().map(|flash| {
            let head = t.head(config.options.head.min(t.head_count() - 1));
            let (rows, cols) = (head.scaled.rows(), head.scaled.cols());
            // A step past the last (the tiles or the tokens changed) is the first.
            let s = if flash.tile(s, rows, cols).is_some() { s } else { 0 };
            (flash, s, flash.tile(s, rows, cols), head.context)
        }),
        _ => None,
    };
    let Some((flash, s, Some(tile), context)) = shown else {
        out["hint"] =
            "Give a tile size (rows × columns): FlashAttention-2 goes through the scaled scores tile by tile, \
                       query blocks outer, key blocks inner, without ever holding the n × n matrix."
                .into();
        return out;
    };
    let step = &flash.steps[s];
    let count = flash.steps.len();
    let [r0, r1] = tile.rows;
    let [c0, c1] = tile.cols;
    out["hint"] = Value::Null;
    out["stepper"] = stepper("FlashAttention tile", "tile");
    // The tiles go through what the softmax reads: the capped scores with a soft cap.
    let logits = if config.options.layers.softcap.is_some() { "capped" } else { "scaled" };
    out["view"] =
        obj(vec![("view", logits.into()), ("label", format!("The {logits} scores; the current tile outlined").into())]);
    out["step"] = s.into();
    out["count"] = count.into();
    out["text"] = format!("tile {} of {count}: queries {r0} … {} × keys {c0} … {}", s + 1, r1 - 1, c1 - 1).into();
    out["prev_off"] = (s == 0).into();
    out["next_off"] = (s + 1 >= count).into();
    let to = |x: usize| (x != s).then_some(x);
    out["moves"] = obj(vec![
        ("back", to(s.saturating_sub(1)).into()),
        ("on", to((s + 1).min(count - 1)).into()),
        ("first", to(0).into()),
        ("last", to(count - 1).into()),
    ]);
    out["outline"] = vec![TILE_OUTLINE, r0 as u64, c0 as u64, r1 as u64, c1 as u64].into();
    let [rows, cols] = config.options.tiles.unwrap_or([1, 1]).map(|x| (x as usize).min(n));
    let d_v = if step.o.rows() > 0 { step.o.cols() } else { 0 };
    out["memory"] = format!(
        "Memory a query block needs: {rows} × {cols} scores + {rows} × {d_v} outputs = {} numbers, against {n} × {n} = \
         {} for the whole score matrix.",
        number(tile.memory),
        number(tile.full)
    )
    .into();
    let (qb, kb) = (step.q_block, step.k_block);
    out["after"] = format!(
        "After this tile (block {qb} of the queries, block {kb} of the keys): m is the running maximum of each row's \
         {logits} scores, l = Σ exp({logits} − m), o = Σ exp({logits} − m)·v, rescaled by exp(m_old − m_new) whenever m \
         grows."
    )
    .into();
    let names = &config.tokens[r0..r1];
    let column = |v: &[f64]| Matrix::from_vec(v.len(), 1, v.to_vec()).unwrap_or_else(|| Matrix::zeros(0, 1));
    let (m, l) = (column(&step.m), column(&step.l));
    let mut columns: Vec<(&str, &Matrix)> = vec![("m", &m), ("l", &l), ("o", &step.o)];
    // After a block's first tile: the factor l and o were multiplied by before this tile's terms were added.
    let rescale =
        (s > 0 && flash.steps[s - 1].q_block == qb).then(|| column(&rescaled(&flash.steps[s - 1].m, &step.m)));
    if let Some(r) = &rescale {
        columns.push(("exp(m_old − m_new)", r));
    }
    let mut mlo = table("Running m, l and o", names, &columns);
    if rescale.is_some() {
        mark_grown(&mut mlo, &flash.steps[s - 1].m, &step.m);
    }
    out["mlo"] = mlo;
    out["traffic"] = traffic(flash, s, n, head_dims(trace, config)).into();
    let (equal, check) =
        if tile.last { last_tile(&tile, step, context, names, qb) } else { (Value::Null, Value::Null) };
    out["equal"] = equal;
    out["check"] = check;
    out
}

/// Bytes a number takes in main memory here: the core computes in float64.
const NUMBER_BYTES: usize = 8;

/// The followed head's d_k and d_v (0, 0 for a trace without heads).
fn head_dims(trace: &Trace, config: &Config) -> (usize, usize) {
    match trace {
        Trace::SelfAttention(t) => {
            let head = t.head(config.options.head.min(t.head_count() - 1));
            (head.q.cols(), head.v.cols())
        }
        _ => (0, 0),
    }
}

/// What FlashAttention-2 moves through main memory from the first tile to tile `s` (`traffic_numbers`), in words,
/// against the n × n scores it never writes.
fn traffic(flash: &crate::attention::Flash, s: usize, n: usize, (d_k, d_v): (usize, usize)) -> String {
    let (read, written) = traffic_numbers(flash, s, n, (d_k, d_v));
    let bytes = |x: usize| number((x * NUMBER_BYTES) as f64);
    format!(
        "Main memory, tiles 1 … {}: {} bytes read (each query block's Q once, each tile's K and V), {} bytes written \
         (each finished block's o, m and l); the {n} × {n} scores, {} bytes at {NUMBER_BYTES} bytes a number, are \
         never written.",
        s + 1,
        bytes(read),
        bytes(written),
        bytes(n * n)
    )
}

/// The numbers read and written through tile `s` of n queries and keys: at a query block's first tile its rows of Q
/// (rows × d_k); at every tile its keys' K and V (cols × (d_k + d_v)); at a block's last tile its o, m and l
/// (rows × (d_v + 2)).
pub fn traffic_numbers(
    flash: &crate::attention::Flash,
    s: usize,
    n: usize,
    (d_k, d_v): (usize, usize),
) -> (usize, usize) {
    let (mut read, mut written) = (0, 0);
    for k in 0..=s.min(flash.steps.len().saturating_sub(1)) {
        let Some(tile) = flash.tile(k, n, n) else { continue };
        let (rows, cols) = (tile.rows[1] - tile.rows[0], tile.cols[1] - tile.cols[0]);
        if k == 0 || flash.steps[k - 1].q_block != flash.steps[k].q_block {
            read += rows * d_k;
        }
        read += cols * (d_k + d_v);
        if tile.last {
            written += rows * (d_v + 2);
        }
    }
    (read, written)
}

/// At a tile after a block's first: each row whose running maximum grew writes its m as `m_old → m_new` (the title
/// keeps m_new whole) and marks it and its rescale factor (the last column) `changed`; the other rows' cells say
/// `changed: false`.
fn mark_grown(table: &mut Value, before: &[f64], after: &[f64]) {
    let Some(rows) = table["rows"].as_array_mut() else { return };
    for (r, row) in rows.iter_mut().enumerate() {
        let (a, b) = (before.get(r).copied().unwrap_or(0.0), after.get(r).copied().unwrap_or(0.0));
        let grew = a != b;
        let Some(cells) = row["cells"].as_array_mut() else { continue };
        let factor = cells.len() - 1;
        for (k, cell) in cells.iter_mut().enumerate() {
            cell["changed"] = (grew && (k == 0 || k == factor)).into();
        }
        if grew {
            cells[0]["text"] = format!("{} → {}", short(a), short(b)).into();
        }
    }
}

/// Each row's rescale factor from `before` (the running maximum after the block's previous tile) to `after`:
/// exp(m_old − m_new), 1 where the maximum did not grow, 0 where no key had been seen (l and o were 0).
pub fn rescaled(before: &[f64], after: &[f64]) -> Vec<f64> {
    before.iter().zip(after).map(|(&a, &b)| if a == b { 1.0 } else { (a - b).exp() }).collect()
}

/// After a query block's last tile: the sentence saying how o / l compares with the block's context rows (to the
/// last bit, or the largest difference over the rows with a key to attend, l > 0), and their table.
fn last_tile(
    tile: &FlashTile,
    step: &crate::attention::FlashStep,
    context: &Matrix,
    names: &[String],
    qb: f64,
) -> (Value, Value) {
    let [r0, r1] = tile.rows;
    let d_v = context.cols();
    let rows = Matrix::from_vec(r1 - r0, d_v, context.data()[r0 * d_v..r1 * d_v].to_vec())
        .unwrap_or_else(|| Matrix::zeros(0, d_v));
    let diff = (0..r1 - r0)
        .filter(|&r| step.l[r] > 0.0)
        .flat_map(|r| tile.normalized.row(r).iter().zip(rows.row(r)).map(|(a, b)| (a - b).abs()))
        .fold(0.0, f64::max);
    let equal =
        if diff == 0.0 { "equal, to the last bit".to_string() } else { format!("equal to within {}", number(diff)) };
    let text = format!("Block {qb}'s last tile: o / l is its rows of the context ({equal}).");
    let check = table("o / l against the context", names, &[("o / l", &tile.normalized), ("context", &rows)]);
    (text.into(), check)
}

/// A small table: a row per query (its name clipped, whole in its title), and per group of columns (m; l; o's d_v
/// columns) its numbers, each to [`TABLE_DIGITS`] significant digits with its whole value as the title.
fn table(caption: &str, names: &[String], groups: &[(&str, &Matrix)]) -> Value {
    let head: Vec<Value> = groups
        .iter()
        .flat_map(|(g, m)| {
            if m.cols() > 1 && m.rows() > 0 {
                (0..m.cols()).map(|j| Value::from(format!("{g}[{j}]"))).collect()
            } else {
                vec![Value::from(*g)]
            }
        })
        .collect();
    let rows: Vec<Value> = names
        .iter()
        .enumerate()
        .map(|(r, name)| {
            let cells: Vec<Value> = groups
                .iter()
                .flat_map(|(_, m)| {
                    m.row(r).iter().map(|&x| obj(vec![("text", short(x).into()), ("title", js_string(x).into())]))
                })
                .collect();
            obj(vec![("name", clip_to(name, NAME_CHARS).into()), ("cells", cells.into())])
        })
        .collect();
    obj(vec![("caption", caption.into()), ("head", head.into()), ("rows", rows.into())])
}

/// A number in the flash tables: to [`TABLE_DIGITS`] significant digits as JavaScript writes that number
/// (`String(Number(x.toPrecision(6)))`); non-finite ones as [`number`] writes them.
pub fn short(x: f64) -> String {
    if !x.is_finite() {
        return number(x);
    }
    js_string(significant(x, TABLE_DIGITS).parse().unwrap_or(x))
}
