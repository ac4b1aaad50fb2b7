//! The shells hold no rule of their own: the element (www/element) and the Python package (python/attention_viz)
//! name no config field, import the core only through the boundary module, keep each function short, and open each
//! module with what it owns. Files generated from Rust (www/element/facts.js) are the exception, and are checked to
//! be fresh by tidy.rs. The end-to-end tests use the element as a page does: none reaches into its underscore members.
//! Each checker is tested on a planted copy too, so a check that can no longer find anything fails.
#![cfg(not(target_arch = "wasm32"))]

use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
/// The longest function the code may have, in lines.
const MAX_FUNCTION_LINES: usize = 150;
/// The one JS module that imports the core's wasm-bindgen module (www/pkg).
const BOUNDARY: &str = "www/core.js";
/// Files written from Rust (src/facts.rs): they may hold the core's facts.
const GENERATED: [&str; 1] = ["www/element/facts.js"];

fn files(dir: &str, ext: &str) -> Vec<PathBuf> {
    fn walk(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.flatten() {
            let p = e.path();
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if p.is_dir() {
                if !["pkg", "node_modules", "static", "__pycache__"].contains(&name) {
                    walk(&p, ext, out);
                }
            } else if name.ends_with(ext) {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(&Path::new(ROOT).join(dir), ext, &mut out);
    out.sort();
    out
}

fn relative(p: &Path) -> String {
    p.strip_prefix(ROOT).unwrap_or(p).to_string_lossy().replace('\\', "/")
}

/// JS source with comments, strings, template literals and regular expressions blanked (kept as spaces, newlines
/// kept), so braces and words are the code's own.
fn code_only(src: &str) -> String {
    let chars: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    // Template literals nest through `${…}`: the stack holds, per open `${`, the brace depth it opened at.
    let mut templates: Vec<usize> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut last = ' '; // the last code character that is not white space
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied().unwrap_or('\0');
        if c == '/' && next == '/' {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
            continue;
        }
        if c == '/' && next == '*' {
            out.push_str("  ");
            i += 2;
            while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                out.push(blank(chars[i]));
                i += 1;
            }
            out.push_str("  ");
            i += 2;
            continue;
        }
        let regex = c == '/' && "(,=:[!&|?{};+-*%<>~^".contains(last);
        if c == '\'' || c == '"' || regex {
            out.push(c);
            i += 1;
            let mut class = false;
            while i < chars.len() && (chars[i] != c || class) && chars[i] != '\n' {
                if chars[i] == '\\' {
                    out.push(' ');
                    i += 1;
                } else if regex && chars[i] == '[' {
                    class = true;
                } else if regex && chars[i] == ']' {
                    class = false;
                }
                if i < chars.len() {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
            out.push(c);
            i += 1;
            last = 'x';
            continue;
        }
        if c == '`' || (c == '}' && templates.last() == Some(&depth)) {
            // The start of a template literal, or its continuation after a `${…}`.
            if c == '}' {
                templates.pop();
            }
            out.push('`');
            i += 1;
            while i < chars.len() && chars[i] != '`' {
                if chars[i] == '\\' {
                    out.push(' ');
                    i += 1;
                } else if chars[i] == '$' && chars.get(i + 1) == Some(&'{') {
                    templates.push(depth);
                    break;
                }
                if i < chars.len() {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
            if i < chars.len() && chars[i] == '$' {
                out.push_str("  ");
                i += 2;
                last = '{';
                continue;
            }
            out.push('`');
            i += 1;
            last = 'x';
            continue;
        }
        if c == '{' {
            depth += 1;
        } else if c == '}' {
            depth = depth.saturating_sub(1);
        }
        out.push(c);
        if !c.is_whitespace() {
            last = c;
        }
        i += 1;
    }
    out
}

/// Each function of JS source (function declarations and expressions, methods, arrow functions with a block body)
/// longer than `max` lines: its first line number and length.
fn long_functions(src: &str, max: usize) -> Vec<(usize, usize)> {
    let code = code_only(src);
    let bytes: Vec<char> = code.chars().collect();
    let line_of = |at: usize| bytes[..at].iter().filter(|&&c| c == '\n').count() + 1;
    let mut opens: Vec<(usize, bool)> = Vec::new(); // position of `{`, whether it opens a function body
    let mut out = Vec::new();
    for (at, &c) in bytes.iter().enumerate() {
        if c == '{' {
            opens.push((at, opens_function(&bytes[..at])));
        } else if c == '}' {
            if let Some((start, true)) = opens.pop() {
                let lines = line_of(at) - line_of(start) + 1;
                if lines > max {
                    out.push((line_of(start), lines));
                }
            }
        }
    }
    out
}

/// Whether the `{` after `before` opens a function's body: it follows `=>`, or `)` whose `(` is not a control
/// statement's (if, for, while, switch, catch, with).
fn opens_function(before: &[char]) -> bool {
    let text: String = before.iter().rev().skip_while(|c| c.is_whitespace()).take(2).collect();
    if text == ">=" {
        return true;
    }
    if !text.starts_with(')') {
        return false;
    }
    let mut depth = 0;
    let mut k = before.len();
    while k > 0 {
        k -= 1;
        match before[k] {
            ')' => depth += 1,
            '(' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            _ => {}
        }
    }
    let word: String = before[..k]
        .iter()
        .rev()
        .skip_while(|c| c.is_whitespace())
        .take_while(|c| c.is_alphanumeric() || **c == '_' || **c == '$')
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    !["if", "for", "while", "switch", "catch", "with"].contains(&word.as_str())
}

/// Python functions (`def`) longer than `max` lines: first line number and length (to the last line indented more).
fn long_python_functions(src: &str, max: usize) -> Vec<(usize, usize)> {
    let lines: Vec<&str> = src.lines().collect();
    let indent = |l: &str| l.len() - l.trim_start().len();
    let mut out = Vec::new();
    for (k, l) in lines.iter().enumerate() {
        let t = l.trim_start();
        if !(t.starts_with("def ") || t.starts_with("async def ")) {
            continue;
        }
        let own = indent(l);
        let mut end = k;
        for (m, next) in lines.iter().enumerate().skip(k + 1) {
            if next.trim().is_empty() {
                continue;
            }
            if indent(next) <= own {
                break;
            }
            end = m;
        }
        if end - k + 1 > max {
            out.push((k + 1, end - k + 1));
        }
    }
    out
}

#[test]
fn no_function_of_the_shells_is_longer_than_150_lines() {
    let mut found = Vec::new();
    for p in files("www", ".js").into_iter().chain(files("scripts", ".mjs")) {
        let src = std::fs::read_to_string(&p).unwrap();
        for (line, n) in long_functions(&src, MAX_FUNCTION_LINES) {
            found.push(format!("{}:{line}: {n} lines", relative(&p)));
        }
    }
    for p in files("python/attention_viz", ".py") {
        let src = std::fs::read_to_string(&p).unwrap();
        for (line, n) in long_python_functions(&src, MAX_FUNCTION_LINES) {
            found.push(format!("{}:{line}: {n} lines", relative(&p)));
        }
    }
    assert!(found.is_empty(), "functions over {MAX_FUNCTION_LINES} lines:\n{}", found.join("\n"));
}

#[test]
fn the_function_length_checkers_find_a_planted_long_function() {
    let body = "  x += 1;\n".repeat(MAX_FUNCTION_LINES);
    for planted in [
        format!("function f() {{\n{body}}}\n"),
        format!("class A {{\n  m(a, b) {{\n{body}  }}\n}}\n"),
        format!("const g = (a) => {{\n  const s = `${{a}} }} {{`;\n{body}}};\n"),
    ] {
        assert_eq!(long_functions(&planted, MAX_FUNCTION_LINES).len(), 1, "{}", &planted[..40]);
    }
    let control = format!("if (x) {{\n{body}}}\nfor (;;) {{\n{body}}}\n");
    assert!(long_functions(&control, MAX_FUNCTION_LINES).is_empty(), "an if or a for is not a function");
    let short = "function f() {\n  return '}';\n}\n".repeat(100);
    assert!(long_functions(&short, MAX_FUNCTION_LINES).is_empty(), "a brace in a string closes nothing");
    let py = format!("def f():\n{}\n", "    x = 1\n".repeat(MAX_FUNCTION_LINES));
    assert_eq!(long_python_functions(&py, MAX_FUNCTION_LINES).len(), 1);
}

/// `import … from '…pkg/attention_viz.js'` (or a dynamic import of it) in `src`.
fn imports_the_core(src: &str) -> bool {
    src.lines().any(|l| {
        let l = l.trim_start();
        !l.starts_with("//")
            && !l.starts_with('*')
            && (l.contains("import") || l.contains("from "))
            && l.contains("pkg/attention_viz.js")
    })
}

#[test]
fn only_the_boundary_module_imports_the_core() {
    let found: Vec<String> = files("www", ".js")
        .into_iter()
        .filter(|p| relative(p) != BOUNDARY && imports_the_core(&std::fs::read_to_string(p).unwrap()))
        .map(|p| relative(&p))
        .collect();
    assert!(found.is_empty(), "import www/pkg through {BOUNDARY}, not directly: {found:?}");
    assert!(imports_the_core("import init, * as core from './pkg/attention_viz.js';"), "the checker finds an import");
}

/// The config's field names as string literals in `src` (quoted 'w_q' or "w_q"): each one a rule of the config
/// re-derived outside the core.
fn field_literals(src: &str, fields: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for f in fields {
        for q in ['\'', '"'] {
            if src.contains(&format!("{q}{f}{q}")) {
                out.push(f.to_string());
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The config fields that can only be a config's keys: not also names of the element's vocabulary (the views and
/// panels the `views` attribute names: a grid, a heatmap and a panel share their field's name) nor plain words the
/// element writes ("query", "head"): `mechanism` and the names with an underscore (`valid_lens`, `masked_row`,
/// `kv_heads`, `decode_step`, `key_tokens`…). A literal of one in a shell is a config rule re-derived there.
fn rule_fields() -> Vec<&'static str> {
    use attention_viz::{config, panels, views};
    let vocabulary: Vec<&str> = views::ALL_VIEWS
        .iter()
        .chain(config::INPUTS)
        .chain(&panels::VARIANT_PANELS)
        .chain(&views::MODERN_PANELS)
        .chain(&["mask", "attention"])
        .copied()
        .collect();
    config::FIELDS
        .iter()
        .copied()
        .filter(|f| !vocabulary.contains(f) && (f.contains('_') || *f == "mechanism"))
        .collect()
}

#[test]
fn the_element_keeps_no_copy_of_the_config() {
    let found: Vec<String> = files("www/element", ".js")
        .into_iter()
        .filter(|p| {
            let code = code_only(&std::fs::read_to_string(p).unwrap());
            ["_state.config", "_cfg(", "_cfgCache"].iter().any(|copy| code.contains(copy))
        })
        .map(|p| relative(&p))
        .collect();
    assert!(found.is_empty(), "the element reads the core's view model, not a config of its own: {found:?}");
    assert!(code_only("const c = host._state.config; // _cfgCache").contains("_state.config"), "the check sees code");
}

/// Underscore members the end-to-end tests may name, none of them an element's: the module's test hooks
/// (www/attention-viz.js `_internal`: compute()'s JSON path, its flat config, a forced panic) and the notebook protocol
/// of a Python figure (`_repr_html_`, in the Python a test runs).
const TEST_HOOKS: [&str; 2] = ["av._internal", "._repr_html_"];

/// Each `._name` (one underscore, then a letter) after an identifier, `)` or `]` in `src` — `el._viz`, `H.el()._figures`,
/// `els[0]._persist`, `this._log` — that is no allowed hook: (line, the member with what it is read on).
fn underscore_members(src: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in src.lines().enumerate() {
        let b = line.as_bytes();
        let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
        for at in 1..b.len().saturating_sub(2) {
            if !(b[at] == b'.'
                && b[at + 1] == b'_'
                && b[at + 2].is_ascii_alphabetic()
                && (ident(b[at - 1]) || b[at - 1] == b')' || b[at - 1] == b']'))
            {
                continue;
            }
            let start =
                if ident(b[at - 1]) { (0..at).rev().take_while(|&k| ident(b[k])).last().unwrap_or(at) } else { at - 1 };
            let end = (at + 1..b.len()).take_while(|&k| ident(b[k])).last().map_or(at + 1, |k| k + 1);
            let found = &line[start..end];
            if !TEST_HOOKS.iter().any(|hook| found.ends_with(hook) && (hook.starts_with('.') || found == *hook)) {
                out.push((n + 1, found.to_string()));
            }
        }
    }
    out
}

#[test]
fn no_end_to_end_test_reaches_into_the_element() {
    let mut found = Vec::new();
    for p in files("tests/e2e", ".mjs") {
        for (line, member) in underscore_members(&std::fs::read_to_string(&p).unwrap()) {
            found.push(format!("{}:{line}: {member}", relative(&p)));
        }
    }
    assert!(
        found.is_empty(),
        "the end-to-end tests use the element as a page does (its documented API, its shadow DOM, real input; the core \
         through a figure of its own: harness.mjs `T.twin`), never its underscore members:\n{}",
        found.join("\n")
    );
    let planted = "const a = el._viz.ask(q);\nH.el()._figures.hover;\nels[0]._persist.key();\n\
                   av._internal.flatConfig(c); window.__storage; T.log(el); show()._repr_html_();\n";
    let got: Vec<String> = underscore_members(planted).into_iter().map(|(l, m)| format!("{l}:{m}")).collect();
    assert_eq!(
        got,
        ["1:el._viz", "2:)._figures", "3:]._persist"],
        "the checker finds the planted members, and only those"
    );
}

#[test]
fn the_element_and_python_name_no_config_field() {
    let fields = &rule_fields();
    let mut found = Vec::new();
    let shells = files("www/element", ".js").into_iter().chain(files("python/attention_viz", ".py"));
    for p in shells.filter(|p| !GENERATED.contains(&relative(p).as_str())) {
        let code = if p.extension().is_some_and(|e| e == "js") {
            keep_strings(&std::fs::read_to_string(&p).unwrap())
        } else {
            std::fs::read_to_string(&p).unwrap()
        };
        let names = field_literals(&code, fields);
        if !names.is_empty() {
            found.push(format!("{}: {}", relative(&p), names.join(", ")));
        }
    }
    assert!(
        found.is_empty(),
        "config fields named outside the core (send a command or read the view model):\n{}",
        found.join("\n")
    );
    let planted = "if (c['mechanism'] === 'self' || m === \"valid_lens\")";
    assert_eq!(field_literals(planted, fields), ["mechanism", "valid_lens"], "the checker finds a planted field");
}

/// JS source without its comments (strings kept).
fn keep_strings(src: &str) -> String {
    let code = code_only(src);
    // code_only blanks strings too; take the original text wherever code_only kept a quote's span.
    let (a, b): (Vec<char>, Vec<char>) = (src.chars().collect(), code.chars().collect());
    let mut out = String::new();
    let mut inside: Option<char> = None;
    for (k, &c) in b.iter().enumerate() {
        match inside {
            Some(q) if c == q => {
                inside = None;
                out.push(c);
            }
            Some(_) => out.push(a[k]),
            None if c == '\'' || c == '"' => {
                inside = Some(c);
                out.push(c);
            }
            None => out.push(c),
        }
    }
    out
}

#[test]
fn every_module_of_the_shells_opens_with_what_it_owns() {
    let mut found = Vec::new();
    for p in files("www", ".js").into_iter().chain(files("python/attention_viz", ".py")) {
        let src = std::fs::read_to_string(&p).unwrap();
        let first = src.lines().find(|l| !l.trim().is_empty() && !l.starts_with("#!")).unwrap_or("");
        let opens =
            first.starts_with("//") || first.starts_with("/*") || first.starts_with("\"\"\"") || first.starts_with('#');
        if !opens {
            found.push(relative(&p));
        }
    }
    assert!(found.is_empty(), "modules that do not open with a comment saying what they own: {found:?}");
}

/// The first column of ARCHITECTURE.md's table whose header's first cell is `head`: the file names it lists (a cell
/// may name several, `a`, `b`).
fn listed(head: &str) -> Vec<String> {
    let map = std::fs::read_to_string(Path::new(ROOT).join("ARCHITECTURE.md")).unwrap();
    let mut out = Vec::new();
    let mut inside = false;
    for line in map.lines() {
        if line.starts_with(&format!("| {head} |")) {
            inside = true;
            continue;
        }
        if inside && !line.starts_with('|') {
            break;
        }
        if inside && !line.starts_with("| ---") {
            let cell = line.split('|').nth(1).unwrap_or("");
            out.extend(cell.split('`').skip(1).step_by(2).map(|s| s.trim_end_matches('/').to_string()));
        }
    }
    out.sort();
    out
}

#[test]
fn the_codemap_is_a_map_not_a_history() {
    let size = std::fs::metadata(Path::new(ROOT).join("ARCHITECTURE.md")).unwrap().len();
    assert!(
        size <= 24_000,
        "ARCHITECTURE.md is {size} bytes: at most 24 KB, a codemap (say less, or move it to doc comments)"
    );
}

#[test]
fn the_codemap_lists_every_file_of_the_shells() {
    let names = |dir: &str, ext: &str, prefix: &str| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(Path::new(ROOT).join(dir))
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(ext))
            .map(|n| format!("{prefix}{n}"))
            .collect();
        v.sort();
        v
    };
    let element = names("www/element", ".js", "");
    assert_eq!(listed("`www/element/`"), element, "ARCHITECTURE.md's table of www/element/ is not the directory's");
    let mut www = names("www", ".js", "www/");
    www.push("www/pages".into());
    www.sort();
    assert_eq!(listed("`www/`"), www, "ARCHITECTURE.md's table of www/ is not the directory's");
    let python = names("python/attention_viz", ".py", "").into_iter().chain(["_widget.js".to_string()]);
    let mut python: Vec<String> = python.filter(|n| n != "__init__.py").collect();
    python.sort();
    assert_eq!(
        listed("`python/attention_viz/`"),
        python,
        "ARCHITECTURE.md's table of python/attention_viz/ is not the directory's"
    );
}

/// The element's own modules: the custom element (index.js), what the parts are given (state.js, port.js) and the
/// services that act for the element as a whole (its link, its saved edits, a worker-computed large figure, the
/// page's theme, the page's queue of figures to load). Every other module of www/element/ is a part, or a helper of parts, and never sees the element.
const ELEMENT_OWN: [&str; 8] =
    ["index.js", "state.js", "port.js", "share.js", "persist.js", "large.js", "theme.js", "loads.js"];

/// Where `code` (comments and strings blanked) reaches past a part's Port: the identifier `host`, or an underscore
/// member of anything (`port._apply`, `figures._hover`, `this._x`): the element's internals and other parts' state.
fn reaches_past_the_port(code: &str) -> Vec<String> {
    let chars: Vec<char> = code.chars().collect();
    let ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let mut found = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !ident(chars[i]) || (i > 0 && ident(chars[i - 1])) {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && ident(chars[i]) {
            i += 1;
        }
        let word: String = chars[start..i].iter().collect();
        let member = start > 0 && chars[start - 1] == '.' && !(start > 1 && chars[start - 2] == '.');
        if word == "host" || (member && word.starts_with('_')) {
            let line = chars[..start].iter().filter(|&&c| c == '\n').count() + 1;
            found.push(format!("line {line}: {word}"));
        }
    }
    found
}

#[test]
fn the_parts_see_the_element_only_through_their_port() {
    let mut found = Vec::new();
    for p in files("www/element", ".js") {
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if ELEMENT_OWN.contains(&name.as_str()) || GENERATED.contains(&relative(&p).as_str()) {
            continue;
        }
        let hits = reaches_past_the_port(&code_only(&std::fs::read_to_string(&p).unwrap()));
        if !hits.is_empty() {
            found.push(format!("{}: {}", relative(&p), hits.join(", ")));
        }
    }
    assert!(
        found.is_empty(),
        "a part reads the Port's state and sends through it (port.js), never the element or another part:\n{}",
        found.join("\n")
    );
    let planted = "const f = this.host._figures;\nport._apply(x);\nconst y = [...a]; z.value; // host._x\n";
    assert_eq!(
        reaches_past_the_port(&code_only(planted)),
        ["line 1: host", "line 1: _figures", "line 2: _apply"],
        "the checker finds a planted reach"
    );
    for own in ELEMENT_OWN {
        assert!(
            std::path::Path::new(ROOT).join("www/element").join(own).exists(),
            "{own} is listed as the element's own but is gone"
        );
    }
}
