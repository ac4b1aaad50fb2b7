//! Which of a trace's fields a caller wants (compute()'s `fields` option): the names a trace's top level can hold,
//! which of them the core computes only when they are wanted, and whether a field (a dotted name from
//! `Trace::fields`, `heads.0.scores`) is one of those wanted.

/// Every name a trace's top level can hold, each with whether the core computes it only when it is wanted (the
/// rest are stages the wanted ones are made of, or cheap). `mechanism`, `scale`, `tokens` and `key_tokens` are no
/// fields: they always come.
pub const TRACE_FIELDS: &[(&str, bool)] = &[
    ("q", false),
    ("k", false),
    ("v", false),
    ("scores", false),
    ("scaled", false),
    ("capped", false),
    ("weights", false),
    // One more n × n matrix (a copy of the weights, recomputed literally in rows near float64's edges).
    ("naive_weights", true),
    ("context", false),
    ("output", false),
    ("pe", false),
    ("heads", false),
    // The followed query's walk-through: its exponentials, terms (m × d_v), masks, features.
    ("query", true),
    ("decode", true),
    ("flash", true),
    ("applied", false),
    ("attention", false),
    ("summary", false),
];

/// The trace fields wanted: every one (compute()'s default), or those named.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wanted(Option<Vec<&'static str>>);

impl Wanted {
    /// Every field, as compute() gives them by default.
    pub const ALL: Wanted = Wanted(None);

    /// The fields `names` (each one of [`TRACE_FIELDS`]), or the first name that is none of them.
    pub fn of<S: AsRef<str>>(names: &[S]) -> Result<Wanted, String> {
        let mut out = Vec::with_capacity(names.len());
        for name in names {
            let name = name.as_ref();
            match TRACE_FIELDS.iter().find(|(known, _)| *known == name) {
                Some((known, _)) => out.push(*known),
                None => return Err(name.to_string()),
            }
        }
        Ok(Wanted(Some(out)))
    }

    /// Whether the top-level name `name` (one of [`TRACE_FIELDS`]) is wanted.
    pub fn wants(&self, name: &str) -> bool {
        self.0.as_ref().is_none_or(|names| names.contains(&name))
    }

    /// Whether the field `field` (`weights`, `heads.0.scores`, `query.exp`: `Trace::fields`' names) is wanted: its
    /// top-level name is.
    pub fn field(&self, field: &str) -> bool {
        self.wants(field.split('.').next().unwrap_or(field))
    }

    /// The top-level names of [`TRACE_FIELDS`], in order.
    pub fn names() -> Vec<&'static str> {
        TRACE_FIELDS.iter().map(|(name, _)| *name).collect()
    }
}
