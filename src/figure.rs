//! One figure's state as the element edits it, and every change of it as one value, an [`Edit`].
//!
//! A [`Figure`] holds a `Session` (the config and its trace), the last Randomize (for "Copy as NumPy" and the share
//! state), the reader's W_O and scoring matrices while their option is off (`Kept`), and the config the author gave
//! (Reset's; a `views` list resolves against its views). [`Figure::apply`] takes one `Edit` all-or-nothing: a refused
//! edit leaves every part of the state as it was and says why, in the core's words. The web bindings parse the
//! element's command into an `Edit` (src/web/command.rs) and answer it with a snapshot; nothing else changes a figure.
//! A figure also keeps the state before its last edit, so each view it gives ([`Figure::view`]) carries what that
//! edit changed (src/changed.rs); a new document (Reset, a config from the page, an import, a restored state) has
//! nothing changed.

use crate::attention::Trace;
use crate::changed::{self, Changed};
use crate::config::{Config, Mechanism, Scale};
use crate::edits::{Distribution, Kept};
use crate::import;
#[cfg(feature = "full")]
use crate::import::{Found, Import};
use crate::incremental::Session;
#[cfg(feature = "full")]
use crate::share;
use crate::views;

/// Every change the element makes to a figure.
#[derive(Clone, Debug, PartialEq)]
pub enum Edit {
    /// One input value: `matrix[row][col] = value` (`Session::set_value`: patched where it can be).
    Value {
        matrix: String,
        row: usize,
        col: usize,
        value: f64,
    },
    /// A pasted block of values, written from (`row`, `col`) down and right (`Config::with_block`).
    Block {
        matrix: String,
        row: usize,
        col: usize,
        values: Vec<Vec<f64>>,
    },
    /// One entry of the mask (1 may attend, 0 masked): a "none" or "causal" mask becomes the matrix it stands for.
    MaskCell {
        row: usize,
        col: usize,
        value: f64,
    },
    /// Entry (`row`, `col`) of the mask switched, 1 to 0 or 0 to 1, whatever else masks that key (the mask panel's
    /// click: the heatmap it clicks shows every rule's effect, the edit changes the mask alone).
    ToggleMask {
        row: usize,
        col: usize,
    },
    /// The query the breakdown and the outlines follow.
    Query(usize),
    /// Config fields replaced (`null` removes one), validated as a whole config (`Config::with_fields`).
    Fields(serde_json::Value),
    Scale(Scale),
    /// The scoring function by name, additive's matrices drawn with `seed` (the reader's earlier ones when they fit).
    Scoring {
        name: String,
        seed: u32,
    },
    /// W_O on (the reader's last one when it still fits, else the identity) or off.
    OutputProjection(bool),
    /// One more head (zeros in its columns of W_Q, W_K, W_V and its rows of W_O).
    InsertHead,
    RemoveHead(usize),
    /// Head (`layer`, `head`) of a model's weights shown in full (the stack is not copied).
    SelectHead {
        layer: usize,
        head: usize,
    },
    /// Key/value heads: W_K and W_V regrouped (`Config::with_kv_heads`).
    KvHeads(usize),
    InsertToken {
        at: usize,
        name: String,
    },
    RemoveToken(usize),
    RenameToken {
        at: usize,
        name: String,
    },
    InsertDim(usize),
    RemoveDim(usize),
    /// A token (or encoder state) of zeros after the last, with the core's default name (`word_4`, `h_4`).
    AppendToken,
    RemoveLastToken,
    /// An input dimension of zeros after the last.
    AppendDim,
    RemoveLastDim,
    #[cfg(feature = "full")]
    /// Arrays from the reader's files or a paste, planned against the config now and applied as one
    /// `Config::with_fields` (src/import.rs: `target` the grid they went to, `source` what messages call them).
    Import {
        found: Vec<Found>,
        target: Option<String>,
        source: String,
    },
    /// `np.random.seed(seed)` then one call of `dist` per input Randomize fills.
    Randomize {
        seed: u32,
        dist: Distribution,
    },
    /// A whole new config (a page's, a preset, Import…).
    Config(Config),
    #[cfg(feature = "full")]
    /// What `share::saved` gave (a whole state, or a weights figure's selection on its stack).
    RestoreSaved(String),
    #[cfg(feature = "full")]
    /// A share link's fragment, or (`json`) the JSON text it carries (`.config = toJSON()'s object`).
    ShareState {
        text: String,
        json: bool,
    },
    /// The config last marked as the author's, shown again as it is held (a model's stack shared, not copied).
    ResetToAuthored,
    /// The config shown now is the author's (loaded, set by the page, Reset): Reset comes back to it, and a `views`
    /// list's names are checked against its views.
    MarkAuthored,
}

/// A scale as the element's menu names it: "sqrt_dk", "none", or "custom" with `value`.
pub fn scale(kind: &str, value: f64) -> Result<Scale, String> {
    match kind {
        "sqrt_dk" => Ok(Scale::SqrtDk),
        "none" => Ok(Scale::None),
        "custom" => Ok(Scale::Value(value)),
        other => Err(format!("scale must be sqrt_dk, none or custom, got {}", crate::text::quote(other))),
    }
}

/// One attention figure: its config and trace, and what its edits remember.
#[derive(Clone, Debug)]
pub struct Figure {
    /// Config, trace, and the softmax state that makes one-value edits incremental.
    session: Session,
    /// The last Randomize, so "Copy as NumPy" can write the seeded calls.
    random: Option<(u32, Distribution)>,
    /// The reader's W_O, W_a, U_a, v_a while their option is off (brought back when it returns).
    kept: Kept,
    /// The views of the config the author wrote: a `views` list resolves against them.
    authored: Vec<String>,
    /// A model's stack (`mechanism: "weights"`) is the author's: `persist` then saves only the selection
    /// (`share::saved`), and restores it onto the stack the page gives again.
    stack_authored: bool,
    /// That config (Reset's): a model's stack is shared, not copied.
    authored_config: Config,
    /// The state before the last edit, which the views compare with (`None`: a new document, or a figure too big
    /// to copy at each edit: `changed::kept`).
    before: Option<Box<Session>>,
}

impl Figure {
    /// A figure of `config`, which is its author's; refused when its trace overflows.
    pub fn new(config: Config) -> Result<Figure, String> {
        let authored = views::names(&config);
        let authored_config = config.clone();
        Ok(Figure {
            session: Session::new(config).map_err(|e| e.0)?,
            random: None,
            kept: Kept::default(),
            authored,
            stack_authored: true,
            authored_config,
            before: None,
        })
    }

    pub fn config(&self) -> &Config {
        self.session.config()
    }

    pub fn trace(&self) -> &Trace {
        self.session.trace()
    }

    /// The last Randomize's seed and distribution, while the inputs are still its numbers.
    pub fn random(&self) -> Option<(u32, Distribution)> {
        self.random
    }

    /// The views of the author's config, in reading order.
    pub fn authored_views(&self) -> &[String] {
        &self.authored
    }

    /// The config last marked as the author's.
    pub fn authored_config(&self) -> &Config {
        &self.authored_config
    }

    #[cfg(feature = "full")]
    /// The whole state a share link or `persist` carries, with the element's naive-softmax flag.
    pub fn share_state(&self, naive: bool) -> share::State {
        share::State { config: self.config().clone(), naive, random: self.random }
    }

    #[cfg(feature = "full")]
    /// What `persist` saves (`share::saved`): a weights figure on its author's stack saves its selection only.
    pub fn saved_state(&self, naive: bool) -> Result<String, String> {
        share::saved(&self.share_state(naive), self.stack_authored)
    }

    /// View `name` of the figure now (`views::view`), its cells the last edit changed marked, and its status in
    /// words (`changed::Changed::status`; `None` before any edit, or when the view is new since then).
    pub fn view(&self, name: &str) -> Result<(views::View<'_>, Option<String>), String> {
        let mut view = views::view(self.config(), self.trace(), name)?;
        let Some(changes) = self.changes(name, &view) else { return Ok((view, None)) };
        view.marks.changed = changes.cells.clone();
        Ok((view, Some(changes.status())))
    }

    /// What the last edit changed in `view` (named `name`): `None` when there is no state before it to compare
    /// with, or the view was not there.
    fn changes(&self, name: &str, view: &views::View) -> Option<Changed> {
        let before = self.before.as_deref()?;
        let old = views::view(before.config(), before.trace(), name).ok()?;
        Some(changed::compare(&old, view))
    }

    /// Applies `edit`, all or nothing. Returns the naive-softmax flag a restored state carries (`RestoreSaved`,
    /// `ShareState`), else `None`. An edit that changes what the views show keeps the state before it (for
    /// [`Figure::view`]); a new document forgets it; following a query or marking the author's config leave it.
    pub fn apply(&mut self, edit: Edit) -> Result<Option<bool>, String> {
        // Following another head shows other numbers, none of which an edit moved: nothing is marked changed.
        let follows = matches!(&edit, Edit::Fields(serde_json::Value::Object(f)) if !f.is_empty() && f.keys().all(|k| k == "head"));
        let fresh = follows || matches!(edit, Edit::ResetToAuthored | Edit::Config(_)) || Self::restores(&edit);
        let keeps = matches!(edit, Edit::Query(_) | Edit::MarkAuthored);
        let size = self.trace().fields().iter().map(|f| f.data.len()).sum();
        let before = (!fresh && !keeps && changed::kept(size)).then(|| Box::new(self.session.clone()));
        let applied = self.apply_edit(edit)?;
        if !keeps {
            self.before = before;
        }
        Ok(applied)
    }

    fn apply_edit(&mut self, edit: Edit) -> Result<Option<bool>, String> {
        // A new document (Reset, a config from the page) is not where a removed head was taken from.
        if matches!(edit, Edit::ResetToAuthored | Edit::Config(_)) {
            self.kept.head = None;
        }
        let config = self.config();
        let next = match edit {
            Edit::Value { matrix, row, col, value } => {
                return self.session.set_value(&matrix, row, col, value).map(|()| None)
            }
            Edit::SelectHead { layer, head } => return self.session.select_head(layer, head).map(|()| None),
            Edit::MarkAuthored => {
                let (names, authored) = (views::names(config), config.clone());
                self.authored = names;
                self.stack_authored = true;
                self.authored_config = authored;
                return Ok(None);
            }
            Edit::Randomize { seed, dist } => {
                let next = config.randomized(seed, dist).map_err(|e| e.0)?;
                self.replace(next)?;
                self.random = Some((seed, dist));
                return Ok(None);
            }
            #[cfg(feature = "full")]
            Edit::RestoreSaved(text) => return self.restore_saved(&text).map(Some),
            #[cfg(feature = "full")]
            Edit::ShareState { text, json } => {
                let state = if json { share::decode_json(&text) } else { share::decode(&text) }?;
                self.replace(state.config)?;
                self.random = state.random;
                return Ok(Some(state.naive));
            }
            Edit::Block { matrix, row, col, values } => config.with_block(&matrix, row, col, &values),
            Edit::MaskCell { row, col, value } => config.with_value("mask", row, col, value),
            Edit::ToggleMask { row, col } => {
                config.with_value("mask", row, col, 1.0 - config.options.mask.entry(row, col))
            }
            Edit::Query(q) => config.with_query(q),
            Edit::Fields(fields) => config.with_fields(&fields),
            Edit::Scale(scale) => config.with_scale(scale),
            Edit::Scoring { name, seed } => config.with_scoring_kept(&name, seed, &self.kept),
            Edit::OutputProjection(on) => config.with_w_o(on, &self.kept),
            Edit::InsertHead => {
                let next = config.insert_head_kept(&self.kept).map_err(|e| e.0)?;
                self.replace(next)?;
                self.kept.head = None;
                return Ok(None);
            }
            Edit::RemoveHead(at) => {
                let (removed, next) = (config.head_weights(at), config.remove_head(at).map_err(|e| e.0)?);
                self.replace(next)?;
                self.kept.head = removed;
                return Ok(None);
            }
            Edit::KvHeads(kv) => config.with_kv_heads(kv),
            Edit::InsertToken { at, name } => config.insert_token(at, &name),
            Edit::RemoveToken(at) => config.remove_token(at),
            Edit::RenameToken { at, name } => config.rename_token(at, &name),
            Edit::InsertDim(at) => config.insert_dim(at),
            Edit::RemoveDim(at) => config.remove_dim(at),
            Edit::AppendToken => {
                config.insert_token(config.tokens.len(), &import::new_token(config, config.tokens.len()))
            }
            Edit::RemoveLastToken => config.remove_token(config.tokens.len().saturating_sub(1)),
            Edit::AppendDim => config.insert_dim(config.dims()),
            Edit::RemoveLastDim => config.remove_dim(config.dims().saturating_sub(1)),
            #[cfg(feature = "full")]
            Edit::Import { found, target, source } => {
                let (import, _) = Import::new(config, found, target.as_deref(), &source)?;
                let applied = import.apply(config)?;
                let next = config.with_fields(&applied.fields).map_err(|e| import.refused(&e.0))?;
                self.replace(next)?;
                return Ok(None);
            }
            Edit::Config(config) => Ok(config),
            Edit::ResetToAuthored => Ok(self.authored_config.clone()),
        };
        self.replace(next.map_err(|e| e.0)?)?;
        Ok(None)
    }

    /// Whether `edit` brings a whole new document from outside (an import, a share link, a saved state).
    #[cfg(feature = "full")]
    fn restores(edit: &Edit) -> bool {
        matches!(edit, Edit::Import { .. } | Edit::ShareState { .. } | Edit::RestoreSaved(_))
    }

    /// The figure core has none of those edits (the full module's).
    #[cfg(not(feature = "full"))]
    fn restores(_: &Edit) -> bool {
        false
    }

    #[cfg(feature = "full")]
    /// Restores what `saved_state` gave: a whole state, or a selection onto this figure's stack (the author's again
    /// after a reload). Returns whether it showed the naive softmax.
    fn restore_saved(&mut self, text: &str) -> Result<bool, String> {
        match share::decode_saved(text)? {
            share::Saved::State(state) => {
                self.replace(state.config)?;
                self.random = state.random;
                Ok(state.naive)
            }
            share::Saved::Selection(s) => {
                let config = self.config().with_selection(s.layer, s.head).and_then(|c| c.with_query(s.query));
                let config = config.map_err(|e| format!("the saved selection does not fit this figure: {e}"))?;
                self.replace(config)?;
                Ok(false)
            }
        }
    }

    /// Any change but a value or a head picked: a full recompute, then what the change took away kept.
    fn replace(&mut self, config: Config) -> Result<(), String> {
        let o = &self.config().options;
        let (w_o, scoring, b_o) = (o.w_o.clone(), o.scoring.clone(), o.layers.b_o.clone());
        // Another stack than the one shown is no longer the author's (a selection keeps it).
        let same_stack = match (&self.config().mechanism, &config.mechanism) {
            (Mechanism::Weights { attention: a, .. }, Mechanism::Weights { attention: b, .. }) => a == b,
            _ => false,
        };
        self.session.replace(config).map_err(|e| e.0)?;
        self.stack_authored &= same_stack;
        self.kept.keep(w_o, scoring, self.session.config());
        self.kept.keep_bias(b_o, self.session.config());
        Ok(())
    }
}
