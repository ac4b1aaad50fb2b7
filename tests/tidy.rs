//! The project keeps its plan: generated copies of the core's facts are fresh (`www/element/facts.js`), the module map in
//! ARCHITECTURE.md is what the code uses, the TypeScript config types declare the core's fields, a share link's
//! base64url is written only in the core, and no source file names an issue number.

use attention_viz::facts;
use std::path::{Path, PathBuf};

#[test]
fn the_js_facts_file_is_what_the_core_writes() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(facts::JS_PATH);
    let want = facts::js();
    if std::env::var_os("UPDATE_FACTS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(have == want, "{} is stale: run `UPDATE_FACTS=1 cargo test --test all tidy::`", facts::JS_PATH);
}

/// The packed arrays' alphabet: 85 distinct printable ASCII characters, none that an HTML attribute, a JS string or
/// JSON escapes, none a URL or a template literal reads as a mark.
#[test]
fn the_text85_alphabet_is_85_characters_nothing_escapes() {
    let chars: Vec<char> = facts::TEXT85.chars().collect();
    assert_eq!(chars.len(), 85);
    let mut sorted = chars.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), 85, "a character twice");
    for c in chars {
        assert!(c.is_ascii_graphic() && !"\"&'<>\\%`~".contains(c), "{c:?} is in TEXT85");
    }
}

/// Cargo.toml says `[lib] test = false` (a second, cfg(test) compile of the crate costs a minute of CPU on a fresh
/// clone), so a `#[test]` under src/ would never run: every test lives in tests/.
#[test]
fn no_test_is_written_under_src() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = vec![];
    for name in modules(root).iter().chain(["lib".to_string()].iter()) {
        for (i, text) in sources_uncut(root, name).iter().enumerate() {
            if text.contains("#[test]") || text.contains("#[cfg(test)]") {
                found.push(format!("{name} (file {i})"));
            }
        }
    }
    assert!(found.is_empty(), "tests under src/ never run ([lib] test = false): move them into tests/: {found:?}");
}

/// Comments say what the code does and why, never which issue asked for it: no file under src/, www/ (its build output
/// www/pkg aside), python/attention_viz/ (its built static/ aside), scripts/, tests/ (its data, tests/fixtures/, aside)
/// or bench/ (the tools it downloads, bench/.tools/, aside), nor the Makefile, holds "issue" in any case, then an
/// optional space and '#', then a number (what `grep -i -E "issue ?#?[0-9]+"` finds). Left out everywhere:
/// node_modules/ and __pycache__/, files that are not UTF-8, and Markdown: bench/README.md's measurement log, like the
/// top-level README, is prose that may say which issue's target a number answers.
#[test]
fn no_source_file_names_an_issue_number() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let skip = [
        root.join("www/pkg"),
        root.join("python/attention_viz/static"),
        root.join("tests/fixtures"),
        root.join("bench/.tools"),
    ];
    let mut files = vec![root.join("Makefile")];
    for dir in ["src", "www", "python/attention_viz", "scripts", "tests", "bench"] {
        files_under(&root.join(dir), &skip, &mut files);
    }
    files.sort();
    let mut found = vec![];
    for file in files.iter().filter(|f| !f.extension().is_some_and(|x| x == "md")) {
        // A file that is not UTF-8 (a .wasm, a .pyc) is no source text.
        let Ok(text) = std::fs::read_to_string(file) else { continue };
        for (i, line) in text.lines().enumerate() {
            if names_an_issue(line) {
                found.push(format!("{}:{}: {}", file.strip_prefix(root).unwrap().display(), i + 1, line.trim()));
            }
        }
    }
    assert!(found.is_empty(), "say what the code does, not which issue asked for it:\n{}", found.join("\n"));
}

/// A share link's text is the core's (src/share.rs: base64url of its versioned JSON): no file of the element or the
/// Python package writes a second base64url codec — JavaScript's `btoa` output with `+` and `/` swapped for `-` and
/// `_` (or back, for `atob`), or Python's `urlsafe_b64encode`/`urlsafe_b64decode`.
#[test]
fn the_share_links_base64url_is_written_once_in_the_core() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let skip = [root.join("www/pkg"), root.join("python/attention_viz/static")];
    let mut files = vec![];
    for dir in ["www", "python/attention_viz"] {
        files_under(&root.join(dir), &skip, &mut files);
    }
    files.sort();
    let codec = [r"/\+/g, '-'", r"/-/g, '+'", r#"/\+/g, "-""#, r#"/-/g, "+""#, "urlsafe_b64"];
    let mut found = vec![];
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else { continue };
        for (i, line) in text.lines().enumerate() {
            if codec.iter().any(|c| line.contains(c)) {
                found.push(format!("{}:{}: {}", file.strip_prefix(root).unwrap().display(), i + 1, line.trim()));
            }
        }
    }
    assert!(found.is_empty(), "share links are the core's text (Viz.shareState, setShareState):\n{}", found.join("\n"));
}

/// The matcher finds what the grep finds, and this file's own examples do not trip it: each is built from `WORD`.
#[test]
fn the_issue_matcher_finds_a_number_after_the_word() {
    const WORD: &str = "issue";
    for hit in [
        format!("see {WORD} 12"),
        format!("({WORD}#5)"),
        format!("{WORD} #27: x"),
        format!("// {} 3", WORD.to_uppercase()),
    ] {
        assert!(names_an_issue(&hit), "{hit:?} names an issue");
    }
    for miss in [format!("{WORD}s 12"), format!("{WORD}  12"), format!("{WORD} ?#?[0-9]+"), format!("an {WORD}: 12")] {
        assert!(!names_an_issue(&miss), "{miss:?} names no issue");
    }
}

/// Whether `line` holds "issue" (any case), then at most one space, at most one '#', then a digit.
fn names_an_issue(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    lower.match_indices("issue").any(|(at, word)| {
        let rest = &lower.as_bytes()[at + word.len()..];
        let rest = rest.strip_prefix(b" ").unwrap_or(rest);
        let rest = rest.strip_prefix(b"#").unwrap_or(rest);
        rest.first().is_some_and(u8::is_ascii_digit)
    })
}

/// Every file under `dir`, with the directories in `skip`, node_modules/ and Python's `__pycache__` left out.
fn files_under(dir: &Path, skip: &[PathBuf], out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            if !skip.contains(&p) && !p.ends_with("__pycache__") && !p.ends_with("node_modules") {
                files_under(&p, skip, out);
            }
        } else {
            out.push(p);
        }
    }
}

/// The crate's top-level modules (src/lib.rs's `pub mod`s).
fn modules(root: &Path) -> Vec<String> {
    let lib = std::fs::read_to_string(root.join("src/lib.rs")).unwrap();
    lib.lines().filter_map(|l| l.trim().strip_prefix("pub mod ")?.strip_suffix(';').map(str::to_string)).collect()
}

/// Every `.rs` file of module `name` (src/name.rs, or src/name/ and below), its test modules cut off.
fn sources(root: &Path, name: &str) -> Vec<String> {
    // Tests may use anything: what a module depends on is its code above `#[cfg(test)]`.
    sources_uncut(root, name).iter().map(|t| t.split("#[cfg(test)]").next().unwrap().to_string()).collect()
}

/// Every `.rs` file of module `name` (src/name.rs, or src/name/ and below), whole.
fn sources_uncut(root: &Path, name: &str) -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut files = vec![];
    let file = root.join(format!("src/{name}.rs"));
    if file.exists() {
        files.push(file);
    }
    let dir = root.join(format!("src/{name}"));
    if dir.is_dir() {
        walk(&dir, &mut files);
    }
    files.iter().map(|f| std::fs::read_to_string(f).unwrap()).collect()
}

/// ARCHITECTURE.md's module map: each module and the crate modules its "may depend on" column names.
fn declared(root: &Path, known: &[String]) -> Vec<(String, std::collections::BTreeSet<String>)> {
    let doc = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let map = doc.split("## Module map").nth(1).expect("ARCHITECTURE.md has a module map");
    let ticks = |s: &str| s.split('`').skip(1).step_by(2).map(str::to_string).collect::<Vec<_>>();
    map.lines()
        .skip_while(|l| !l.starts_with("| `"))
        .take_while(|l| l.starts_with('|'))
        .filter_map(|l| {
            let cols: Vec<&str> = l.split(" | ").collect();
            let name = ticks(cols.first()?).into_iter().next()?;
            let deps = ticks(cols.last()?)
                .into_iter()
                .map(|d| d.split("::").next().unwrap().to_string())
                .filter(|d| known.contains(d))
                .collect();
            Some((name, deps))
        })
        .collect()
}

/// The modules named right after a `crate::`: `x` of `crate::x::…`, each of `crate::{x, y::z}`.
fn used(rest: &str) -> Vec<String> {
    let word = |r: &str| r.trim_start().split(|c: char| !(c.is_alphanumeric() || c == '_')).next().unwrap().to_string();
    match rest.strip_prefix('{') {
        // Top-level names of the group: nested groups' contents are inside those modules.
        Some(group) => {
            let (mut depth, mut names, mut start) = (0, vec![], 0);
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        names.push(word(&group[start..i]));
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        names.push(word(&group[start..i]));
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            names.into_iter().filter(|n| !n.is_empty()).collect()
        }
        None => vec![word(rest)],
    }
}

#[test]
fn the_module_map_says_what_each_module_uses_and_there_are_no_cycles() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let known = modules(root);
    let actual: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> = known
        .iter()
        .map(|m| {
            let uses = sources(root, m)
                .iter()
                .flat_map(|t| t.split("crate::").skip(1).flat_map(used).collect::<Vec<_>>())
                .filter(|d| d != m && known.contains(d))
                .collect();
            (m.clone(), uses)
        })
        .collect();
    let declared = declared(root, &known);
    let mut wrong = vec![];
    for m in &known {
        match declared.iter().find(|(n, _)| n == m) {
            None => wrong.push(format!("`{m}` has no row")),
            Some((_, deps)) if deps != &actual[m] => {
                wrong.push(format!("`{m}` may depend on {deps:?} says the map, uses {:?}", actual[m]))
            }
            _ => {}
        }
    }
    assert!(wrong.is_empty(), "ARCHITECTURE.md's module map is not the code's:\n{}", wrong.join("\n"));
    // No cycles: modules whose uses are all placed already can be placed, until none is left.
    let mut placed: Vec<&String> = vec![];
    while placed.len() < known.len() {
        let next = known.iter().find(|m| !placed.contains(m) && actual[*m].iter().all(|d| placed.contains(&d)));
        match next {
            Some(m) => placed.push(m),
            None => panic!("a cycle among {:?}", known.iter().filter(|m| !placed.contains(m)).collect::<Vec<_>>()),
        }
    }
}

/// The field names an interface of a `.d.ts` text declares (`name?: type;`, several to a line or one per line;
/// comments skipped), with the interfaces it extends.
fn interface_fields(dts: &str, name: &str) -> Vec<String> {
    let start = dts.find(&format!("interface {name} ")).unwrap_or_else(|| panic!("the .d.ts declares {name}"));
    let body = &dts[start..];
    let head = &body[..body.find('{').unwrap()];
    let body = &body[head.len() + 1..body.find("\n}").unwrap()];
    let mut out: Vec<String> = head
        .split_once(" extends ")
        .map(|(_, parents)| parents.split(',').flat_map(|p| interface_fields(dts, p.trim())).collect())
        .unwrap_or_default();
    for line in body.lines().map(str::trim) {
        if line.starts_with("/*") || line.starts_with('*') || line.starts_with("//") {
            continue;
        }
        for piece in line.split(';') {
            let piece = piece.trim();
            if let Some((field, _)) = piece.split_once(':') {
                let field = field.trim_end_matches('?');
                if !field.is_empty() && field.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                    out.push(field.to_string());
                }
            }
        }
    }
    out
}

/// The config types authors write against (www/attention-viz.d.ts: `SelfConfig | CrossConfig | WeightsConfig`) declare
/// exactly the fields the core accepts (`config::FIELDS`): a field added to the core without its type, or a type
/// the core would refuse, fails here.
#[test]
fn the_typescript_config_types_declare_the_cores_fields() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dts = std::fs::read_to_string(root.join("www/attention-viz.d.ts")).unwrap();
    let union = dts.lines().find(|l| l.starts_with("export type Config = ")).expect("the .d.ts exports type Config");
    let mut typed = std::collections::BTreeSet::new();
    for name in union.trim_start_matches("export type Config = ").trim_end_matches(';').split('|') {
        typed.extend(interface_fields(&dts, name.trim()));
    }
    let core: std::collections::BTreeSet<String> =
        attention_viz::config::FIELDS.iter().map(|f| f.to_string()).collect();
    assert_eq!(typed, core, "www/attention-viz.d.ts's Config types (left) and the core's config::FIELDS (right)");
}
