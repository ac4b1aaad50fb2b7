//! `www/element/facts.js` is the core's facts as `src/facts.rs` writes them: a stale copy fails here.

use attention_viz::facts;
use std::path::Path;

#[test]
fn the_js_facts_file_is_what_the_core_writes() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(facts::JS_PATH);
    let want = facts::js();
    if std::env::var_os("UPDATE_FACTS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(have == want, "{} is stale: run `UPDATE_FACTS=1 cargo test --test facts`", facts::JS_PATH);
}
