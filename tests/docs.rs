//! The docs generated from the code (src/docs.rs): every doc holds what the core writes today, and every field, view
//! and panel the README documents is in www/embed.html, the authors' reference. `UPDATE_DOCS=1 cargo test --test all
//! docs::` rewrites the generated blocks and values. The built files' sizes are checked after `make dist` by
//! tests/e2e/package.test.mjs (scripts/doc-sizes.mjs).

use attention_viz::docs::{self, FIELD_DOCS};
use std::collections::BTreeSet;
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The first line where `have` and `want` differ, for the message.
fn first_difference(have: &str, want: &str) -> String {
    let (mut a, mut b) = (have.lines(), want.lines());
    for i in 1.. {
        match (a.next(), b.next()) {
            (Some(x), Some(y)) if x == y => continue,
            (None, None) => return "the same lines (line endings differ)".into(),
            (x, y) => {
                // Long lines (a table row) are shown from a little before their first differing character.
                let (x, y) = (x.unwrap_or_default(), y.unwrap_or_default());
                let same = x.chars().zip(y.chars()).take_while(|(a, b)| a == b).count().saturating_sub(40);
                let from = |s: &str| s.chars().skip(same).take(160).collect::<String>();
                return format!("line {i}: the file has {:?}, src/docs.rs writes {:?}", from(x), from(y));
            }
        }
    }
    unreachable!()
}

/// Why `text` (the file `path`) is stale, or `None` when it holds what src/docs.rs writes.
fn stale(path: &str, text: &str) -> Option<String> {
    match docs::refresh(path, text) {
        Err(e) => Some(e),
        Ok(want) if want != text => Some(first_difference(text, &want)),
        Ok(_) => None,
    }
}

#[test]
fn the_generated_docs_hold_what_the_core_says() {
    let mut failures = vec![];
    for path in docs::FILES {
        let file = root().join(path);
        let text = std::fs::read_to_string(&file).unwrap();
        if std::env::var_os("UPDATE_DOCS").is_some() {
            if let Ok(fresh) = docs::refresh(path, &text) {
                std::fs::write(&file, &fresh).unwrap();
                continue;
            }
        }
        if let Some(why) = stale(path, &text) {
            failures.push(format!("{path} is stale: {why}"));
        }
    }
    assert!(failures.is_empty(), "{}\nrun `UPDATE_DOCS=1 cargo test --test all docs::`", failures.join("\n"));
}

/// The check finds a stale doc: a table row gone, a row edited by hand, a value changed, a block missing, unknown
/// or unclosed, each planted in a fresh copy of the real files.
#[test]
fn a_planted_stale_doc_is_found() {
    let fresh = |path: &str| docs::refresh(path, &std::fs::read_to_string(root().join(path)).unwrap()).unwrap();
    let readme = fresh("README.md");
    assert_eq!(stale("README.md", &readme), None);
    let row = readme.lines().find(|l| l.starts_with("| `tiles` |")).expect("README's table has tiles");
    let plants = [
        readme.replace(&format!("{row}\n"), ""),
        readme.replace(row, &row.replace("whole numbers ≥ 1", "whole numbers ≥ 2")),
        readme.replacen("| `window` | self |", "| `windows` | self |", 1),
    ];
    for planted in &plants {
        assert!(stale("README.md", planted).is_some(), "a planted table row goes unseen");
    }
    let embed = fresh("www/embed.html");
    let value = "<!-- value:max_height -->";
    assert!(embed.contains(value), "embed.html quotes max_height");
    let planted =
        embed.replace(&format!("{value}{}", attention_viz::heatmap::draw::MAX_HEIGHT), &format!("{value}3000"));
    assert!(stale("www/embed.html", &planted).unwrap().contains("3000"), "a planted value goes unseen");
    let planted = embed.replace("<code>flash</code>", "<code>tiles</code>");
    assert!(stale("www/embed.html", &planted).is_some(), "a planted views row goes unseen");
    let dts = fresh("www/attention-viz.d.ts");
    assert!(
        stale("www/attention-viz.d.ts", &dts.replacen("  sinks?: number;\n", "", 1)).is_some(),
        "a .d.ts field gone"
    );
    let python = fresh("python/README.md");
    assert!(stale("python/README.md", &python.replace(", `tiles`", "")).is_some(), "python's list of fields");
    // The markers themselves.
    let missing = readme.replace("<!-- docs:limits", "<!-- limits");
    assert!(stale("README.md", &missing).unwrap().contains("no block docs:limits"));
    let unknown = format!("{readme}\n<!-- docs:sizes -->\n<!-- /docs:sizes -->\n");
    assert!(stale("README.md", &unknown).unwrap().contains("does not write"));
    let unclosed = readme.replace("<!-- /docs:fields -->", "");
    assert!(stale("README.md", &unclosed).unwrap().contains("never closed"));
    let unknown_value = format!("{readme}<!-- value:max_speed -->9<!-- /value -->\n");
    assert!(stale("README.md", &unknown_value).unwrap().contains("max_speed"));
}

/// Every field a config may hold has one line of docs, and no other field has one.
#[test]
fn every_config_field_has_one_doc_line() {
    let mut seen = BTreeSet::new();
    for f in FIELD_DOCS {
        assert!(seen.insert(f.name), "src/docs.rs documents {} twice", f.name);
    }
    let want: BTreeSet<&str> =
        attention_viz::config::FIELDS.iter().chain(attention_viz::learn::MODEL_FIELDS.iter()).copied().collect();
    assert_eq!(seen, want, "src/docs.rs FIELD_DOCS (left) and the fields the core reads (right)");
}

/// The names between backticks at the start of a Markdown table's rows, for the tables whose header starts `| {first} |`.
fn first_column(markdown: &str, first: &str) -> BTreeSet<String> {
    let header = format!("| {first} |");
    let mut names = BTreeSet::new();
    let mut inside = false;
    for line in markdown.lines().map(str::trim) {
        if line.starts_with(&header) {
            inside = true;
        } else if !line.starts_with('|') {
            inside = false;
        } else if inside && line.starts_with("| `") {
            names.insert(line[3..].split('`').next().unwrap().to_string());
        }
    }
    names
}

/// www/embed.html, the authors' "stable contract", has every config field and every `views` name README.md has,
/// and every view and panel name the core knows.
#[test]
fn embed_html_has_every_field_and_view_the_readme_has() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let embed = std::fs::read_to_string(root().join("www/embed.html")).unwrap();
    let section = |id: &str| {
        let start = embed.find(&format!("<section id=\"{id}\">")).unwrap_or_else(|| panic!("embed.html #{id}"));
        &embed[start..start + embed[start..].find("</section>").unwrap()]
    };
    let config = section("config");
    let fields = first_column(&readme, "field");
    assert!(fields.len() > 30, "README's config table: {fields:?}");
    for f in &fields {
        assert!(config.contains(&format!("<tr><td><code>{f}</code></td>")), "embed.html's config table lacks {f}");
    }
    let attributes = section("attributes");
    let row = attributes.lines().find(|l| l.contains("<td><code>views</code></td>")).expect("embed.html's views row");
    let panels = first_column(&readme, "`views` name");
    assert!(panels.len() >= 9, "README's views tables: {panels:?}");
    use attention_viz::views;
    let core = views::ALL_VIEWS.iter().filter(|v| **v != "query.terms").chain(&views::DECODE_VIEWS);
    let core =
        core.chain(&views::OPTION_VIEWS).chain(&views::MODERN_PANELS).chain(&attention_viz::panels::VARIANT_PANELS);
    for name in panels.iter().map(String::as_str).chain(core.copied()) {
        assert!(row.contains(&format!("<code>{name}</code>")), "embed.html's views row lacks {name}");
    }
}
