//! The bench's modules in layers, read from the sources: Rust allows a circle between a
//! crate's modules, so nothing else would fail on one.
//!
//! - **The leaf**: `bench/method.rs` (the traits and plain types of a method), with its
//!   siblings `batch.rs`, `clock.rs` and `stats.rs`. Whatever it imports, through any
//!   module of the crate, is the leaf again: no method, no mode, no worker.
//! - **The methods**: `bench/methods/`, one file each. They reach the leaf and each other,
//!   and nothing else of the bench: not the registry, not a mode's orchestration.
//! - **The registry**: `bench/registry.rs`, on top of the two, lists the methods. The
//!   command line looks methods up by name there; the modes below it are handed specs.
//!
//! Every `use` declaration and every `crate::`/`super::` path of the crate is read (test
//! code, `#[cfg(test)]`, left out), and resolved to the module that defines what it names,
//! through `pub use` re-exports.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fs;
use std::path::{Path, PathBuf};

/// A module of the crate by its path: `["bench", "scale", "worker"]`; the root is `[]`.
type Module = Vec<String>;

fn module(path: &str) -> Module {
    path.split("::").map(str::to_string).collect()
}

fn name(module: &[String]) -> String {
    if module.is_empty() {
        "crate".to_string()
    } else {
        module.join("::")
    }
}

/// The crate's modules and what each imports.
struct Graph {
    edges: BTreeMap<Module, BTreeSet<Module>>,
}

impl Graph {
    /// The crate's sources under `src`.
    fn read(src: &Path) -> Graph {
        let mut files = Vec::new();
        sources(src, &mut files);
        let sources: BTreeMap<Module, String> = files
            .iter()
            .map(|path| {
                let text =
                    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                (module_of(src, path), code_of(&text))
            })
            .collect();
        Graph::of(&sources)
    }

    /// The graph of `sources`, each module's code with comments and test items removed.
    fn of(sources: &BTreeMap<Module, String>) -> Graph {
        let modules: BTreeSet<Module> = sources.keys().cloned().collect();
        let mut reexports: BTreeMap<Module, BTreeMap<String, Vec<String>>> = BTreeMap::new();
        for (module, code) in sources {
            for (path, alias) in use_trees(code, true) {
                let absolute = absolute(module, &path, &modules);
                if let Some(absolute) = absolute {
                    let last = alias.or_else(|| absolute.last().cloned());
                    if let Some(last) = last {
                        reexports
                            .entry(module.clone())
                            .or_default()
                            .insert(last, absolute);
                    }
                }
            }
        }
        let resolver = Resolver {
            modules: &modules,
            reexports: &reexports,
        };
        let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
        for (from, code) in sources {
            let targets = edges.entry(from.clone()).or_default();
            let paths = use_trees(code, false)
                .into_iter()
                .map(|(path, _)| path)
                .chain(inline_paths(code));
            for path in paths {
                let Some(absolute) = absolute(from, &path, &modules) else {
                    continue;
                };
                let to = resolver.resolve(&absolute);
                // A module's own items, and its children reached by their parent's path,
                // are not an import of anything else.
                if &to != from && !to.starts_with(from) {
                    targets.insert(to);
                }
            }
        }
        Graph { edges }
    }

    /// Every module `from` reaches, each with the chain of imports that reaches it.
    fn reached(&self, from: &Module) -> BTreeMap<Module, Vec<Module>> {
        let mut chains = BTreeMap::new();
        let mut queue = VecDeque::from([vec![from.clone()]]);
        while let Some(chain) = queue.pop_front() {
            let last = chain.last().unwrap();
            for next in self.edges.get(last).into_iter().flatten() {
                if next != from && !chains.contains_key(next) {
                    let mut longer = chain.clone();
                    longer.push(next.clone());
                    chains.insert(next.clone(), longer.clone());
                    queue.push_back(longer);
                }
            }
        }
        chains
    }

    /// The modules under `prefix`.
    fn under(&self, prefix: &[String]) -> Vec<Module> {
        self.edges
            .keys()
            .filter(|m| m.starts_with(prefix))
            .cloned()
            .collect()
    }
}

struct Resolver<'a> {
    modules: &'a BTreeSet<Module>,
    reexports: &'a BTreeMap<Module, BTreeMap<String, Vec<String>>>,
}

impl Resolver<'_> {
    /// The module that defines what `path` (absolute, from the crate's root) names: the
    /// longest prefix that is a module, or where that module's `pub use` took the name from.
    fn resolve(&self, path: &[String]) -> Module {
        let mut path = path.to_vec();
        for _ in 0..8 {
            let defining = (0..=path.len())
                .rev()
                .map(|k| path[..k].to_vec())
                .find(|prefix| self.modules.contains(prefix))
                .unwrap_or_default();
            let reexported = path
                .get(defining.len())
                .and_then(|item| self.reexports.get(&defining)?.get(item));
            match reexported {
                Some(source) if source != &path[..defining.len() + 1] => {
                    let mut next = source.clone();
                    next.extend_from_slice(&path[defining.len() + 1..]);
                    path = next;
                }
                _ => return defining,
            }
        }
        panic!("`pub use` loop at {}", name(&path));
    }
}

/// `path` (`crate::a`, `super::b`, `self::c`, or `d` for a child module) from the crate's
/// root, as written in `module`; `None` for another crate's path.
fn absolute(module: &Module, path: &[String], modules: &BTreeSet<Module>) -> Option<Module> {
    let first = path.first()?;
    let mut base = match first.as_str() {
        "crate" => return Some(path[1..].to_vec()),
        "super" | "self" => module.clone(),
        _ => {
            let mut child = module.clone();
            child.push(first.clone());
            if !modules.contains(&child) {
                return None;
            }
            module.clone()
        }
    };
    let mut rest = path;
    while let Some(head) = rest.first() {
        match head.as_str() {
            "super" => {
                base.pop();
            }
            "self" => {}
            _ => break,
        }
        rest = &rest[1..];
    }
    base.extend(rest.iter().filter(|s| *s != "*").cloned());
    Some(base)
}

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `src/bench/scale/mod.rs` is `bench::scale`, `src/main.rs` the root.
fn module_of(src: &Path, path: &Path) -> Module {
    let relative = path.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Module = relative
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "main") {
        parts.pop();
    }
    parts
}

/// The code of a source file: comments gone, string and character literals emptied (so
/// that neither a `use` in a doc nor a `{` in a string counts), and every `#[cfg(test)]`
/// item left out.
fn code_of(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut code = String::with_capacity(text.len());
    let mut i = 0;
    let at = |i: usize, s: &str| {
        s.chars()
            .enumerate()
            .all(|(k, c)| chars.get(i + k) == Some(&c))
    };
    while i < chars.len() {
        let c = chars[i];
        if at(i, "//") {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if at(i, "/*") {
            let mut depth = 0;
            while i < chars.len() {
                if at(i, "/*") {
                    depth += 1;
                    i += 2;
                } else if at(i, "*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == 'r'
            && (at(i + 1, "\"") || at(i + 1, "#\"") || at(i + 1, "##\""))
            && !chars
                .get(i.wrapping_sub(1))
                .is_some_and(|p| p.is_alphanumeric() || *p == '_')
        {
            let hashes = chars[i + 1..].iter().take_while(|&&h| h == '#').count();
            let close: String = std::iter::once('"')
                .chain("#".repeat(hashes).chars())
                .collect();
            i += 2 + hashes;
            while i < chars.len() && !at(i, &close) {
                i += 1;
            }
            i += close.len();
            code.push_str("\"\"");
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            code.push_str("\"\"");
        } else if c == '\'' && chars.get(i + 1) == Some(&'\\') {
            i += 2;
            while i < chars.len() && chars[i] != '\'' {
                i += 1;
            }
            i += 1;
            code.push_str("' '");
        } else if c == '\'' && chars.get(i + 2) == Some(&'\'') {
            i += 3;
            code.push_str("' '");
        } else {
            code.push(c);
            i += 1;
        }
    }
    without_test_items(&code)
}

/// `code` without the items marked `#[cfg(test)]`.
fn without_test_items(code: &str) -> String {
    let mut code = code.to_string();
    while let Some(start) = code.find("#[cfg(test)]") {
        let rest = &code[start..];
        let end = match (rest.find(';'), rest.find('{')) {
            (Some(semi), Some(brace)) if semi < brace => start + semi + 1,
            (_, Some(brace)) => {
                let mut depth = 0;
                let mut end = code.len();
                for (k, c) in code[start + brace..].char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = start + brace + k + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                end
            }
            (Some(semi), None) => start + semi + 1,
            (None, None) => code.len(),
        };
        code.replace_range(start..end, "");
    }
    code
}

/// Whether `word` starts at byte `i` of `code` as a whole word.
fn word_at(code: &str, i: usize, word: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    code[i..].starts_with(word)
        && !code[..i].chars().next_back().is_some_and(ident)
        && !code[i + word.len()..].chars().next().is_some_and(ident)
}

/// The `use` declarations' paths, braces expanded, each with its `as` name; only the
/// `pub use` ones (any visibility) with `public_only`.
fn use_trees(code: &str, public_only: bool) -> Vec<(Vec<String>, Option<String>)> {
    let mut trees = Vec::new();
    for (i, _) in code.match_indices("use") {
        if !word_at(code, i, "use") {
            continue;
        }
        // What comes between the item before and `use`: its attributes and visibility.
        let head = code[..i].rsplit([';', '{', '}']).next().unwrap_or("");
        let public = head.split_whitespace().any(|word| word.starts_with("pub"));
        if public_only && !public {
            continue;
        }
        let Some(end) = code[i..].find(';') else {
            continue;
        };
        expand(&code[i + 3..i + end], &mut Vec::new(), &mut trees);
    }
    trees
}

/// Expands the use tree `tree` under `prefix` into whole paths.
fn expand(tree: &str, prefix: &mut Vec<String>, out: &mut Vec<(Vec<String>, Option<String>)>) {
    let tree = tree.trim();
    let (head, inner) = match tree.find('{') {
        Some(open) => (
            &tree[..open],
            Some(&tree[open + 1..tree.rfind('}').unwrap()]),
        ),
        None => (tree, None),
    };
    let (head, alias) = match head.split_once(" as ") {
        Some((path, alias)) => (path, Some(alias.trim().to_string())),
        None => (head, None),
    };
    let segments: Vec<String> = head
        .split("::")
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    let depth = prefix.len();
    for segment in segments {
        if segment != "self" || prefix.is_empty() {
            prefix.push(segment);
        }
    }
    match inner {
        None => out.push((prefix.clone(), alias)),
        Some(inner) => {
            let mut level = 0;
            let mut item = String::new();
            for c in inner.chars().chain([',']) {
                match c {
                    ',' if level == 0 => {
                        if !item.trim().is_empty() {
                            expand(&item, prefix, out);
                        }
                        item.clear();
                        continue;
                    }
                    '{' => level += 1,
                    '}' => level -= 1,
                    _ => {}
                }
                item.push(c);
            }
        }
    }
    prefix.truncate(depth);
}

/// The `crate::`, `super::` and `self::` paths written outside `use` declarations.
fn inline_paths(code: &str) -> Vec<Vec<String>> {
    let mut without_uses = String::new();
    let mut rest = code;
    while let Some(i) = rest.find("use") {
        if word_at(rest, i, "use") {
            let end = rest[i..].find(';').map_or(rest.len(), |e| i + e + 1);
            without_uses.push_str(&rest[..i]);
            rest = &rest[end..];
        } else {
            without_uses.push_str(&rest[..i + 3]);
            rest = &rest[i + 3..];
        }
    }
    without_uses.push_str(rest);
    let code = without_uses;
    let mut paths = Vec::new();
    for start in ["crate::", "super::", "self::"] {
        for (i, _) in code.match_indices(start) {
            if !word_at(&code, i, &start[..start.len() - 2]) {
                continue;
            }
            let len = code[i..]
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(code.len() - i);
            let path: Vec<String> = code[i..i + len]
                .split("::")
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect();
            paths.push(path);
        }
    }
    paths
}

fn graph() -> Graph {
    Graph::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
}

/// The leaf: the traits and plain types every layer above shares.
fn leaf() -> [Module; 4] {
    [
        "bench::method",
        "bench::batch",
        "bench::clock",
        "bench::stats",
    ]
    .map(module)
}

fn is_leaf(m: &Module) -> bool {
    leaf().contains(m)
}

fn is_method(m: &Module) -> bool {
    m.starts_with(&module("bench::methods"))
}

fn is_bench(m: &Module) -> bool {
    m.starts_with(&module("bench"))
}

fn chain(chain: &[Module]) -> String {
    chain
        .iter()
        .map(|m| name(m))
        .collect::<Vec<_>>()
        .join(" -> ")
}

#[test]
fn the_leaf_reaches_only_the_leaf() {
    let graph = graph();
    let mut offending = Vec::new();
    for from in leaf() {
        assert!(graph.edges.contains_key(&from), "{} not found", name(&from));
        for (to, path) in graph.reached(&from) {
            if is_bench(&to) && !is_leaf(&to) {
                offending.push(chain(&path));
            }
        }
    }
    assert!(offending.is_empty(), "the leaf reaches up: {offending:#?}");
}

#[test]
fn the_methods_reach_only_the_leaf_and_each_other() {
    let graph = graph();
    let methods = graph.under(&module("bench::methods"));
    assert!(
        methods.len() > 20,
        "the methods were not found: {methods:?}"
    );
    let mut offending = Vec::new();
    for from in &methods {
        for (to, path) in graph.reached(from) {
            if is_bench(&to) && !is_leaf(&to) && !is_method(&to) {
                offending.push(chain(&path));
            }
        }
    }
    assert!(
        offending.is_empty(),
        "methods reach the registry, a mode or a worker: {offending:#?}"
    );
}

#[test]
fn the_registry_sits_on_the_methods() {
    let graph = graph();
    let registry = module("bench::registry");
    let imports = &graph.edges[&registry];
    let methods = imports.iter().filter(|m| is_method(m)).count();
    assert!(
        methods > 0,
        "bench/registry.rs imports no method: {imports:?}"
    );
    let offending: Vec<String> = imports
        .iter()
        .filter(|m| is_bench(m) && !is_leaf(m) && !is_method(m))
        .map(|m| name(m))
        .collect();
    assert!(
        offending.is_empty(),
        "bench/registry.rs imports above itself: {offending:?}"
    );
}

/// Only the command line looks a method up by name: `cli.rs`, a command (`command.rs`),
/// the probe's. The modes' runs are handed specs.
#[test]
fn only_the_command_line_asks_the_registry() {
    let graph = graph();
    let registry = module("bench::registry");
    let command_line = |m: &Module| {
        m == &module("cli")
            || m == &module("probe")
            || m.last().is_some_and(|last| last == "command")
    };
    let offending: Vec<String> = graph
        .edges
        .iter()
        .filter(|(from, imports)| imports.contains(&registry) && !command_line(from))
        .map(|(from, _)| name(from))
        .collect();
    assert!(
        offending.is_empty(),
        "the registry is asked below the command line by: {offending:?}"
    );
}

#[test]
fn the_registry_lists_the_methods() {
    let registry = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/bench/registry.rs");
    let code = code_of(&fs::read_to_string(registry).unwrap());
    let specs = code.matches("::SPEC,").count();
    assert!(specs > 20, "bench/registry.rs lists {specs} methods' SPECs");
}

/// The reader itself, on sources made for it: a passing layer test means nothing if the
/// reader misses imports.
#[test]
fn the_reader_finds_every_kind_of_import() {
    let sources: BTreeMap<Module, String> = [
        ("", "mod a; mod b;"),
        (
            "a",
            "pub mod leaf; mod child; pub use child::Thing; use child::Other as Renamed;",
        ),
        (
            "a::leaf",
            "// use crate::b; \"crate::b\"\nfn f() -> char { '{' }",
        ),
        (
            "a::child",
            "pub struct Thing; use super::super::b::{self, deep::{One, Two}};",
        ),
        ("b", "pub mod deep; fn f() { crate::a::Thing; }"),
        (
            "b::deep",
            "#[cfg(test)]\nmod tests { use crate::a::leaf::X; }\npub struct One;",
        ),
    ]
    .into_iter()
    .map(|(m, code)| {
        let m = if m.is_empty() { Vec::new() } else { module(m) };
        (m, code_of(code))
    })
    .collect();
    let graph = Graph::of(&sources);
    let imports =
        |m: &str| -> Vec<String> { graph.edges[&module(m)].iter().map(|m| name(m)).collect() };
    assert_eq!(
        imports("a::leaf"),
        Vec::<String>::new(),
        "comments and strings"
    );
    assert_eq!(
        imports("a::child"),
        ["b", "b::deep"],
        "super, self and nested braces"
    );
    assert_eq!(
        imports("b"),
        ["a::child"],
        "an inline path, through a `pub use`"
    );
    assert_eq!(imports("b::deep"), Vec::<String>::new(), "test items");
}
