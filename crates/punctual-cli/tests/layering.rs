//! The bench's modules in layers, with no circle between them: `bench/method.rs` (the
//! traits and plain types) imports no method, the methods import no registry, and the
//! registry (`bench/registry.rs`) is the one that lists them. Read from the sources, since
//! Rust allows a circle between a crate's modules and nothing else would fail on one.

use std::fs;
use std::path::{Path, PathBuf};

fn bench_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/bench")
}

/// The source's lines of code: `//` comments left out, so docs may name what they like.
fn code_lines(path: &Path) -> Vec<(usize, String)> {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .enumerate()
        .map(|(i, line)| (i + 1, line.split("//").next().unwrap_or("").to_string()))
        .filter(|(_, code)| !code.trim().is_empty())
        .collect()
}

/// Every `.rs` file under `dir`, test-only profile tables aside.
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

#[test]
fn the_leaf_module_imports_no_method_and_no_registry() {
    let leaf = bench_dir().join("method.rs");
    let offending: Vec<_> = code_lines(&leaf)
        .into_iter()
        .filter(|(_, code)| code.contains("methods::") || code.contains("registry"))
        .collect();
    assert!(
        offending.is_empty(),
        "bench/method.rs reaches up: {offending:?}"
    );
}

#[test]
fn no_method_imports_the_registry() {
    let mut files = Vec::new();
    sources(&bench_dir().join("methods"), &mut files);
    assert!(files.len() > 20, "the methods were not found: {files:?}");
    let mut offending = Vec::new();
    for file in &files {
        // The mock's profile table checks itself against the registry in its tests
        // (`#[cfg(test)]`), the one place a method file may look at every method.
        let lines = code_lines(file);
        let test_from = lines
            .iter()
            .find(|(_, code)| code.contains("#[cfg(test)]"))
            .map_or(usize::MAX, |(n, _)| *n);
        for (n, code) in lines {
            if n < test_from && code.contains("registry") {
                offending.push(format!("{}:{n}: {}", file.display(), code.trim()));
            }
        }
    }
    assert!(
        offending.is_empty(),
        "methods import the registry: {offending:#?}"
    );
}

#[test]
fn the_registry_lists_the_methods() {
    let registry = bench_dir().join("registry.rs");
    let specs = code_lines(&registry)
        .into_iter()
        .filter(|(_, code)| code.contains("::SPEC"))
        .count();
    assert!(specs > 20, "bench/registry.rs lists {specs} methods' SPECs");
}
