//! No circles among files: every `.rs` file of the four library crates
//! (`src/`, `handlers/src/`, `services/src/`, `maps/src/`) is read, the files
//! it refers to are found, and the test fails printing the first circle.
//!
//! What counts as a reference from file A to file B:
//! - a path written in A's code (in a `use` line, a `use` group, or inline
//!   like `crate::infra::ops::UPDATES`) that starts with `crate::`, `super::`,
//!   `self::`, the crate's own name (`handlers::` inside handlers), or the
//!   name of one of A's own child modules, and that resolves to an item of
//!   B. A path is resolved to the deepest module it names; a name that module
//!   only re-exports from one of its own descendants (`pub use child::X;`) is
//!   followed to the file that defines it.
//!
//! What does not count:
//! - a parent module's table of contents: `mod child;` and `pub use
//!   child::X;` / `pub use self::child::X;` (a public re-export of its own
//!   descendants). The parent lists its children; it does not depend on
//!   them. Any other code of the parent that uses a child (a function calling
//!   `child::f`, a private `use child::X;`) is a real reference.
//! - `#[cfg(test)]` items (a file's `mod tests { … }`): tests, like the ones
//!   in `tests/`, may reach anywhere.
//! - comments, doc comments and string literals.
#![allow(clippy::unwrap_used)]

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// One crate: its source folder and the names its own paths may start with.
struct Crate {
    dir: &'static str,
    self_names: &'static [&'static str],
}

const CRATES: &[Crate] = &[
    Crate { dir: "src", self_names: &["crate"] },
    Crate { dir: "handlers/src", self_names: &["crate", "handlers"] },
    Crate { dir: "services/src", self_names: &["crate"] },
    Crate { dir: "maps/src", self_names: &["crate"] },
];

/// A file's module: its path from the crate root (`["state", "sqlite"]`).
type ModPath = Vec<String>;

struct FileInfo {
    file: PathBuf,
    module: ModPath,
    /// Paths referred to (each already absolute from the crate root, or
    /// still relative: see `resolve`).
    refs: Vec<Vec<String>>,
    /// `pub use` re-exports of its own descendants: name → absolute path.
    reexports: HashMap<String, Vec<String>>,
}

// ------------------------------------------------------------------ lexing

/// The code with comments, strings and char literals blanked out and
/// `#[cfg(test)]` items removed.
fn code_only(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && !prev_is_ident(&chars, i) {
            // A raw string r"…" or r#"…"#.
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= chars.len() {
                    break;
                }
                if chars[j] == '"' && (0..hashes).all(|k| chars.get(j + 1 + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            i = j;
            out.push_str("\"\"");
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' {
            // A char literal ('a', '\n', '\u{1F600}') or a lifetime ('a).
            if next == Some('\\') {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
                out.push_str("' '");
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 3;
                out.push_str("' '");
            } else {
                out.push(c);
                i += 1;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    strip_cfg_test(&out)
}

fn prev_is_ident(chars: &[char], i: usize) -> bool {
    i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')
}

/// Removes every item under `#[cfg(test)]`: up to its `;` or its balanced
/// `{ … }` block.
fn strip_cfg_test(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "#[cfg(test)]".len()..];
        let mut depth = 0usize;
        let mut end = after.len();
        for (k, ch) in after.char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = k + 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    end = k + 1;
                    break;
                }
                _ => {}
            }
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Sep,
    Open,
    Close,
    Comma,
    Semi,
    Star,
    Other,
}

fn tokens(code: &str) -> Vec<Tok> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            // `$crate` in a macro is not a path of this file.
            if start > 0 && chars[start - 1] == '$' {
                out.push(Tok::Other);
            } else {
                out.push(Tok::Ident(word.trim_start_matches("r#").to_owned()));
            }
            continue;
        }
        if c.is_ascii_digit() {
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '.') {
                i += 1;
            }
            out.push(Tok::Other);
            continue;
        }
        match c {
            ':' if chars.get(i + 1) == Some(&':') => {
                out.push(Tok::Sep);
                i += 2;
                continue;
            }
            '{' => out.push(Tok::Open),
            '}' => out.push(Tok::Close),
            ',' => out.push(Tok::Comma),
            ';' => out.push(Tok::Semi),
            '*' => out.push(Tok::Star),
            c if c.is_whitespace() => {}
            _ => out.push(Tok::Other),
        }
        i += 1;
    }
    out
}

/// One `use` tree's paths (braces expanded; `self` in a group means the
/// group's prefix; `as` renames dropped).
fn use_tree(toks: &[Tok], i: &mut usize, prefix: &[String], out: &mut Vec<Vec<String>>) {
    let mut path = prefix.to_vec();
    loop {
        match toks.get(*i) {
            Some(Tok::Ident(word)) if word == "as" => {
                *i += 2;
                out.push(path);
                return;
            }
            Some(Tok::Ident(word)) => {
                if word == "self" && !prefix.is_empty() && path.len() == prefix.len() {
                    // `{self, …}`: the prefix itself.
                } else {
                    path.push(word.clone());
                }
                *i += 1;
            }
            Some(Tok::Sep) => *i += 1,
            Some(Tok::Star) => {
                *i += 1;
                out.push(path);
                return;
            }
            Some(Tok::Open) => {
                *i += 1;
                loop {
                    match toks.get(*i) {
                        Some(Tok::Close) => {
                            *i += 1;
                            return;
                        }
                        Some(Tok::Comma) => *i += 1,
                        None => return,
                        _ => use_tree(toks, i, &path, out),
                    }
                }
            }
            _ => {
                out.push(path);
                return;
            }
        }
    }
}

/// Reads one file: its references and its table-of-contents re-exports.
fn read_file(file: &Path, module: ModPath, children: &BTreeSet<String>, self_names: &[&str]) -> FileInfo {
    let source = std::fs::read_to_string(file).unwrap();
    let toks = tokens(&code_only(&source));
    let mut refs = Vec::new();
    let mut reexports = HashMap::new();
    // Inline modules (`mod name { … }`) open around the token: the brace
    // depth each one closes at. A `super` inside one names the module around
    // it, still in this file.
    let mut inline: Vec<usize> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < toks.len() {
        match &toks[i] {
            Tok::Open => {
                depth += 1;
                if i >= 2 && toks[i - 2] == Tok::Ident("mod".into()) && matches!(toks[i - 1], Tok::Ident(_)) {
                    inline.push(depth);
                }
            }
            Tok::Close => {
                if inline.last() == Some(&depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
            }
            _ => {}
        }
        let in_file = |path: Vec<String>| -> Vec<String> {
            let supers = path.iter().take_while(|s| *s == "super").count();
            let within = supers.min(inline.len());
            if within == 0 {
                return path;
            }
            let mut out = if within == supers { vec!["self".to_owned()] } else { Vec::new() };
            out.extend(path[within..].iter().cloned());
            out
        };
        if toks[i] == Tok::Ident("use".into()) {
            // `pub use` or `pub(crate) use` / `pub(super) use`.
            let is_pub = (i >= 1 && toks[i - 1] == Tok::Ident("pub".into()))
                || (i >= 4 && toks[i - 4] == Tok::Ident("pub".into()) && toks[i - 3] == Tok::Other);
            let start = i + 1;
            // Skip a leading `::`.
            let mut j = start;
            if toks.get(j) == Some(&Tok::Sep) {
                j += 1;
            }
            // The renamed leaf (`use a::b as c;`) is needed for re-exports.
            let mut paths = Vec::new();
            use_tree(&toks, &mut j, &[], &mut paths);
            let renamed = rename_of(&toks[start..j]);
            for path in paths {
                let Some(first) = path.first() else { continue };
                let own_descendant = children.contains(first)
                    || (first == "self" && path.get(1).is_some_and(|c| children.contains(c)));
                if is_pub && own_descendant {
                    let rel: Vec<String> = path.iter().filter(|s| *s != "self").cloned().collect();
                    let mut abs = module.clone();
                    abs.extend(rel.iter().cloned());
                    let name = renamed.clone().unwrap_or_else(|| rel.last().cloned().unwrap_or_default());
                    if path.last().is_some_and(|l| l != "*") {
                        reexports.insert(name, abs);
                    }
                    continue;
                }
                refs.push(in_file(path));
            }
            i = j;
            continue;
        }
        // An inline path: ident (:: ident)+.
        if let Tok::Ident(first) = &toks[i] {
            let preceded_by_sep = i > 0 && toks[i - 1] == Tok::Sep;
            if !preceded_by_sep && toks.get(i + 1) == Some(&Tok::Sep) {
                let anchored = self_names.contains(&first.as_str())
                    || first == "super"
                    || first == "self"
                    || children.contains(first);
                let mut path = vec![first.clone()];
                let mut j = i + 1;
                while toks.get(j) == Some(&Tok::Sep) {
                    match toks.get(j + 1) {
                        Some(Tok::Ident(word)) => {
                            path.push(word.clone());
                            j += 2;
                        }
                        _ => break,
                    }
                }
                if anchored {
                    refs.push(in_file(path));
                }
                i = j;
                continue;
            }
        }
        i += 1;
    }
    FileInfo { file: file.to_owned(), module, refs, reexports }
}

fn rename_of(toks: &[Tok]) -> Option<String> {
    let at = toks.iter().position(|t| *t == Tok::Ident("as".into()))?;
    match toks.get(at + 1) {
        Some(Tok::Ident(name)) if toks.len() <= at + 3 => Some(name.clone()),
        _ => None,
    }
}

// -------------------------------------------------------------- resolution

struct CrateGraph {
    root: PathBuf,
    files: Vec<FileInfo>,
    by_module: HashMap<ModPath, usize>,
}

impl CrateGraph {
    /// Reads every `.rs` file under `root` (a crate's `src/`; `main.rs` and
    /// `bin/` are binaries of their own and left out).
    fn load(root: &Path, krate: &Crate) -> CrateGraph {
        let mut found = Vec::new();
        collect(root, &mut found);
        let mut modules: Vec<(PathBuf, ModPath)> = Vec::new();
        for file in found {
            let rel = file.strip_prefix(root).unwrap();
            let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
            let stem = parts.pop().unwrap().trim_end_matches(".rs").to_owned();
            if (parts.is_empty() && stem == "main") || parts.first().is_some_and(|p| p == "bin") {
                continue;
            }
            if !(stem == "mod" || (parts.is_empty() && stem == "lib")) {
                parts.push(stem);
            }
            modules.push((file, parts));
        }
        let all: BTreeSet<ModPath> = modules.iter().map(|(_, m)| m.clone()).collect();
        let mut graph = CrateGraph { root: root.to_owned(), files: Vec::new(), by_module: HashMap::new() };
        for (file, module) in modules {
            let children: BTreeSet<String> = all
                .iter()
                .filter(|m| m.len() == module.len() + 1 && m.starts_with(&module))
                .map(|m| m[module.len()].clone())
                .collect();
            graph.by_module.insert(module.clone(), graph.files.len());
            graph.files.push(read_file(&file, module, &children, krate.self_names));
        }
        graph
    }

    /// The file a path written in `from` refers to, if it is of this crate.
    fn resolve(&self, from: usize, path: &[String], self_names: &[&str]) -> Option<usize> {
        let here = &self.files[from].module;
        let mut abs: Vec<String> = Vec::new();
        let mut rest = path;
        match path.first()?.as_str() {
            first if self_names.contains(&first) => rest = &path[1..],
            "self" => {
                abs = here.clone();
                rest = &path[1..];
            }
            "super" => {
                abs = here.clone();
                while rest.first().is_some_and(|s| s == "super") {
                    abs.pop();
                    rest = &rest[1..];
                }
            }
            _ => abs = here.clone(), // a child module of this file
        }
        abs.extend(rest.iter().cloned());
        self.file_of(&abs, 0)
    }

    /// The file defining the item at an absolute path: the deepest module
    /// named, then through that module's re-exports of its descendants.
    fn file_of(&self, abs: &[String], depth: usize) -> Option<usize> {
        if depth > 16 {
            return None;
        }
        let mut n = abs.len();
        while !self.by_module.contains_key(&abs[..n]) {
            n -= 1;
        }
        let module = self.by_module[&abs[..n]];
        if let Some(name) = abs.get(n)
            && let Some(target) = self.files[module].reexports.get(name)
        {
            let mut next = target.clone();
            next.extend(abs[n + 1..].iter().cloned());
            return self.file_of(&next, depth + 1);
        }
        Some(module)
    }
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The file graph: for each file, the files it refers to, with one path that
/// shows it.
type Edges = BTreeMap<usize, BTreeMap<usize, String>>;

fn edges(graph: &CrateGraph, krate: &Crate) -> Edges {
    let mut edges = Edges::new();
    for (from, info) in graph.files.iter().enumerate() {
        let entry = edges.entry(from).or_default();
        for path in &info.refs {
            if let Some(to) = graph.resolve(from, path, krate.self_names)
                && to != from
            {
                entry.entry(to).or_insert_with(|| path.join("::"));
            }
        }
    }
    edges
}

/// Every strongly connected component of more than one file (Tarjan).
fn circles(edges: &Edges) -> Vec<Vec<usize>> {
    struct State<'a> {
        edges: &'a Edges,
        index: HashMap<usize, usize>,
        low: HashMap<usize, usize>,
        stack: Vec<usize>,
        on_stack: BTreeSet<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State, v: usize) {
        s.index.insert(v, s.next);
        s.low.insert(v, s.next);
        s.next += 1;
        s.stack.push(v);
        s.on_stack.insert(v);
        let targets: Vec<usize> = s.edges.get(&v).map(|m| m.keys().copied().collect()).unwrap_or_default();
        for w in targets {
            if !s.index.contains_key(&w) {
                visit(s, w);
                let low = s.low[&v].min(s.low[&w]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(&w) {
                let low = s.low[&v].min(s.index[&w]);
                s.low.insert(v, low);
            }
        }
        if s.low[&v] == s.index[&v] {
            let mut component = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on_stack.remove(&w);
                component.push(w);
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.out.push(component);
            }
        }
    }
    let mut s = State {
        edges,
        index: HashMap::new(),
        low: HashMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    let nodes: Vec<usize> = edges.keys().copied().collect();
    for v in nodes {
        if !s.index.contains_key(&v) {
            visit(&mut s, v);
        }
    }
    s.out
}

/// One shortest circle through the component's first file, each step shown
/// with the path that makes it.
fn describe(graph: &CrateGraph, edges: &Edges, component: &[usize]) -> String {
    let inside: BTreeSet<usize> = component.iter().copied().collect();
    let start = component[0];
    // Breadth-first from start back to start, inside the component.
    let mut prev: HashMap<usize, usize> = HashMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    let mut found = None;
    while let Some(v) = queue.pop_front() {
        for &w in edges.get(&v).map(|m| m.keys().collect::<Vec<_>>()).unwrap_or_default() {
            if !inside.contains(&w) {
                continue;
            }
            if w == start {
                found = Some(v);
                break;
            }
            if let std::collections::hash_map::Entry::Vacant(e) = prev.entry(w) {
                e.insert(v);
                queue.push_back(w);
            }
        }
        if found.is_some() {
            break;
        }
    }
    let mut back = Vec::new();
    let mut at = found.unwrap();
    while at != start {
        back.push(at);
        at = prev[&at];
    }
    back.reverse();
    let mut chain = vec![start];
    chain.extend(back);
    chain.push(start);
    let name = |v: usize| {
        let file = &graph.files[v].file;
        file.strip_prefix(&graph.root).unwrap_or(file).display().to_string()
    };
    let mut text = format!("{} files in one circle under {}:\n", component.len(), graph.root.display());
    for v in component {
        text.push_str(&format!("    {}\n", name(*v)));
    }
    text.push_str("  for example:\n");
    for pair in chain.windows(2) {
        text.push_str(&format!(
            "    {} → {}   ({})\n",
            name(pair[0]),
            name(pair[1]),
            edges[&pair[0]][&pair[1]]
        ));
    }
    text
}

#[test]
fn no_circles_among_files() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut report = String::new();
    for krate in CRATES {
        let root = workspace.join(krate.dir);
        let graph = CrateGraph::load(&root, krate);
        let edges = edges(&graph, krate);
        for component in circles(&edges) {
            report.push_str(&describe(&graph, &edges, &component));
        }
    }
    assert!(report.is_empty(), "files that depend on each other in a circle:\n{report}");
}

/// The reader sees what it must: a real import is an edge, a table of
/// contents is not, and a circle is reported.
#[test]
fn the_reader_finds_imports_and_circles() {
    let dir = std::env::temp_dir().join(format!("mallbot-layering-{}", std::process::id()));
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("a")).unwrap();
    std::fs::write(src.join("lib.rs"), "pub mod a;\npub mod b;\n").unwrap();
    std::fs::write(
        src.join("a/mod.rs"),
        "mod inner;\npub use inner::Thing;\n// use crate::b::Nothing;\nconst S: &str = \"crate::b::X\";\n",
    )
    .unwrap();
    std::fs::write(src.join("a/inner.rs"), "use crate::b::{Other, self as bee};\npub struct Thing;\n")
        .unwrap();
    std::fs::write(
        src.join("b.rs"),
        "pub struct Other;\nfn f() -> crate::a::Thing { crate::a::Thing }\nmod nested { use super::Other; }\n#[cfg(test)]\nmod tests { use crate::a::Thing; }\n",
    )
    .unwrap();
    let krate = Crate { dir: "", self_names: &["crate"] };
    let graph = CrateGraph::load(&src, &krate);
    let edges = edges(&graph, &krate);
    let file = |name: &str| graph.files.iter().position(|f| f.file.ends_with(name)).unwrap();
    let (lib, a, inner, b) = (file("lib.rs"), file("a/mod.rs"), file("a/inner.rs"), file("b.rs"));
    // The table of contents and the comment and string are not edges.
    assert!(edges[&a].is_empty(), "{:?}", edges[&a]);
    // The grouped import is an edge; the re-exported name leads to the file defining it.
    assert!(edges[&inner].contains_key(&b));
    assert!(edges[&b].contains_key(&inner));
    assert!(!edges[&b].contains_key(&a));
    // `super` in an inline module names the file's own module; a test module is left out.
    assert!(!edges[&b].contains_key(&lib), "{:?}", edges[&b]);
    assert_eq!(edges[&b].len(), 1, "{:?}", edges[&b]);
    let found = circles(&edges);
    assert_eq!(
        found,
        vec![{
            let mut c = vec![inner, b];
            c.sort();
            c
        }]
    );
    assert!(describe(&graph, &edges, &found[0]).contains("crate::b::Other"));
    std::fs::remove_dir_all(&dir).unwrap();
}

// ------------------------------------------------------------------ layers

/// The groups of `src/`, from the top: a file's group is its first module
/// (`engine`, `transports`, `infra`, `eval`); `lib.rs`, `app.rs` and
/// `mall_server.rs` are the assembly, `app`.
fn group_of(module: &ModPath) -> &'static str {
    match module.first().map(String::as_str) {
        Some("engine") => "engine",
        Some("transports") => "transports",
        Some("infra") => "infra",
        Some("eval") => "eval",
        _ => "app",
    }
}

/// Which groups each group may import: the layers only go down.
/// `app` assembles everything; `eval` types its conversations into the
/// assembled bot's terminal chat (a transport), and nothing depends on it; a
/// transport hands messages to the engine; the engine stands on `infra`;
/// `infra` on nothing of the bot.
const MAY_IMPORT: &[(&str, &[&str])] = &[
    ("app", &["app", "eval", "transports", "engine", "infra"]),
    ("eval", &["eval", "app", "transports", "engine", "infra"]),
    ("transports", &["transports", "engine", "infra"]),
    ("engine", &["engine", "infra"]),
    ("infra", &["infra"]),
];

/// Every import of `graph` that runs up the layers: one line each, naming
/// the file, the path it writes and the file that path leads to.
fn upward_imports(graph: &CrateGraph, krate: &Crate) -> Vec<String> {
    let mut found = Vec::new();
    for (from, info) in graph.files.iter().enumerate() {
        let here = group_of(&info.module);
        let allowed = MAY_IMPORT.iter().find(|(g, _)| *g == here).map(|(_, a)| *a).unwrap();
        let mut seen = BTreeSet::new();
        for path in &info.refs {
            let Some(to) = graph.resolve(from, path, krate.self_names) else { continue };
            let there = group_of(&graph.files[to].module);
            if allowed.contains(&there) || !seen.insert(path.join("::")) {
                continue;
            }
            let name = |f: &Path| f.strip_prefix(&graph.root).unwrap_or(f).display().to_string();
            found.push(format!(
                "    {} ({here}) imports {} ({there}: {})",
                name(&info.file),
                path.join("::"),
                name(&graph.files[to].file)
            ));
        }
    }
    found
}

/// The state store's key builders (`src/infra/state/keys.rs`): only the
/// engine and `infra/` build keys; a transport asks the engine.
const STATE_KEYS: &[&str] = &["infra", "state", "keys"];

/// Every import of a file under `transports/` that leads to the state
/// store's key module, one line each with the file and the path.
fn transports_building_keys(graph: &CrateGraph, krate: &Crate) -> Vec<String> {
    let mut found = Vec::new();
    for (from, info) in graph.files.iter().enumerate() {
        if group_of(&info.module) != "transports" {
            continue;
        }
        let mut seen = BTreeSet::new();
        for path in &info.refs {
            let Some(to) = graph.resolve(from, path, krate.self_names) else { continue };
            if graph.files[to].module != STATE_KEYS || !seen.insert(path.join("::")) {
                continue;
            }
            let file = info.file.strip_prefix(&graph.root).unwrap_or(&info.file);
            found.push(format!("    {} imports {}", file.display(), path.join("::")));
        }
    }
    found
}

#[test]
fn no_transport_builds_a_state_key() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"));
    let krate = &CRATES[0];
    let graph = CrateGraph::load(&workspace.join(krate.dir), krate);
    let found = transports_building_keys(&graph, krate);
    assert!(
        found.is_empty(),
        "transports building state keys (crate::infra::state::keys); call the engine instead:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_layers_of_src_only_go_down() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"));
    let krate = &CRATES[0];
    let graph = CrateGraph::load(&workspace.join(krate.dir), krate);
    let found = upward_imports(&graph, krate);
    assert!(
        found.is_empty(),
        "{} imports run up the layers of src/ (allowed: {MAY_IMPORT:?}):\n{}",
        found.len(),
        found.join("\n")
    );
}

/// The layer check on a made-up tree: an import running up is named with
/// its file and path, one running down is not, nor a table of contents, a
/// comment or a test module.
#[test]
fn the_layer_check_names_an_import_running_up() {
    let dir = std::env::temp_dir().join(format!("mallbot-layers-{}", std::process::id()));
    let src = dir.join("src");
    for sub in ["engine", "infra/state", "transports"] {
        std::fs::create_dir_all(src.join(sub)).unwrap();
    }
    let write = |name: &str, text: &str| std::fs::write(src.join(name), text).unwrap();
    write("lib.rs", "pub mod app;\npub mod engine;\npub mod infra;\npub mod transports;\n");
    write("app.rs", "use crate::transports::chat::Chat;\npub use crate::engine::Bot;\n");
    write("engine/mod.rs", "pub mod bot;\npub use bot::Bot;\n");
    write("engine/bot.rs", "use crate::infra::store::Store;\npub struct Bot;\n");
    write("infra/mod.rs", "pub mod state;\npub mod store;\n");
    write("infra/state/mod.rs", "pub(crate) mod keys;\n");
    write("infra/state/keys.rs", "pub(crate) fn rated() -> String { String::new() }\n");
    write(
        "infra/store.rs",
        "pub struct Store;\n// use crate::engine::Bot;\nfn f() -> crate::engine::Bot { todo!() }\n#[cfg(test)]\nmod tests { use crate::app::Bot; }\n",
    );
    write("transports/mod.rs", "pub mod chat;\n");
    write(
        "transports/chat.rs",
        "use crate::engine::Bot;\nuse crate::app::Bot as B;\npub struct Chat;\nfn k() { crate::infra::state::keys::rated(); }\n",
    );
    let krate = Crate { dir: "", self_names: &["crate"] };
    let graph = CrateGraph::load(&src, &krate);
    let found = upward_imports(&graph, &krate);
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(
        found[0].contains("infra/store.rs (infra) imports crate::engine::Bot (engine: engine/bot.rs)"),
        "{found:#?}"
    );
    assert!(
        found[1].contains("transports/chat.rs (transports) imports crate::app::Bot (app: app.rs)"),
        "{found:#?}"
    );
    let keys = transports_building_keys(&graph, &krate);
    assert_eq!(keys, vec!["    transports/chat.rs imports crate::infra::state::keys::rated".to_owned()]);
    std::fs::remove_dir_all(&dir).unwrap();
}
