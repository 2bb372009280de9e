//! No source file uses a file that uses it back, in any crate of the workspace: each crate's
//! modules form a graph without a circle, so every file can be read knowing only the files
//! below it. (Which crate may use which is the build's to enforce: `gpu-xor-core` has no wgpu
//! dependency.) A file's uses are the module paths its code names through `crate::` or
//! `super::`, `use` groups included, with comments left out.
//!
//! Unlike the rest of the suite these tests need no device, but they read the workspace's
//! source files at run time (found from `CARGO_MANIFEST_DIR`): they run from a checkout, not
//! from a test binary carried to another machine without its sources.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// For each module of the crate rooted at `src` (`exec::batch`, `layout`), the modules it names.
type Graph = BTreeMap<String, BTreeSet<String>>;

fn modules(src: &Path) -> BTreeMap<String, PathBuf> {
    let mut found = BTreeMap::new();
    let mut pending = vec![src.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("a source folder") {
            let path = entry.expect("a folder entry").path();
            if path.is_dir() {
                pending.push(path);
                continue;
            }
            let rel = path.strip_prefix(src).unwrap().with_extension("");
            let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into()).collect();
            if matches!(
                parts.last().map(String::as_str),
                Some("mod" | "lib" | "main")
            ) {
                parts.pop();
            }
            if path.extension().is_some_and(|e| e == "rs") {
                found.insert(parts.join("::"), path);
            }
        }
    }
    found
}

/// The uses of one module: every `crate::a::b` or `super::a` path (a `use` group's items
/// included), resolved to the longest module that exists.
fn uses(module: &str, source: &str, known: &BTreeMap<String, PathBuf>) -> BTreeSet<String> {
    let code: String = source
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let own: Vec<&str> = module.split("::").filter(|p| !p.is_empty()).collect();
    let mut found = BTreeSet::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find(['c', 's']) {
        let word_start =
            at == 0 || !rest[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_');
        rest = &rest[at..];
        let base: Vec<&str> = if !word_start {
            rest = &rest[1..];
            continue;
        } else if let Some(r) = rest.strip_prefix("crate::") {
            rest = r;
            vec![]
        } else if rest.starts_with("super::") {
            let mut base = own.clone();
            while let Some(r) = rest.strip_prefix("super::") {
                rest = r;
                base.pop();
            }
            base
        } else {
            rest = &rest[1..];
            continue;
        };
        // The path's words, and a `{...}` group's first words after it.
        let end = rest
            .find(|c: char| {
                !(c.is_alphanumeric()
                    || c == '_'
                    || c == ':'
                    || c == '{'
                    || c == ','
                    || c == ' '
                    || c == '\n')
            })
            .unwrap_or(rest.len());
        let text = &rest[..end];
        let (head, group) = text.split_once('{').unwrap_or((text, ""));
        let head: Vec<&str> = head
            .split("::")
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .collect();
        let tails: Vec<Vec<&str>> = if group.is_empty() {
            vec![vec![]]
        } else {
            group
                .split(',')
                .map(|item| {
                    item.split("::")
                        .map(str::trim)
                        .filter(|p| !p.is_empty())
                        .collect()
                })
                .collect()
        };
        for tail in tails {
            let mut path: Vec<&str> = base
                .iter()
                .copied()
                .chain(head.iter().copied())
                .chain(tail)
                .collect();
            while !path.is_empty() && !known.contains_key(&path.join("::")) {
                path.pop();
            }
            let target = path.join("::");
            if !path.is_empty() && target != module && !module.starts_with(&format!("{target}::")) {
                found.insert(target);
            }
        }
        rest = &rest[end..];
    }
    found
}

fn graph(src: &Path) -> Graph {
    let known = modules(src);
    known
        .iter()
        .map(|(module, path)| {
            let source = std::fs::read_to_string(path).expect("a readable source");
            (module.clone(), uses(module, &source, &known))
        })
        .collect()
}

/// A circle of the graph, if it has one.
fn circle(graph: &Graph) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &Graph,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            return Some(path[at..].to_vec());
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(found) = visit(next, graph, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

#[test]
fn no_source_file_uses_a_file_that_uses_it_back() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for crate_src in [
        "src",
        "core/src",
        "conformance/src",
        "browser/src",
        "testkit/src",
    ] {
        let graph = graph(&root.join(crate_src));
        assert!(graph.len() > 1, "{crate_src}: no modules found");
        assert_eq!(
            circle(&graph),
            None,
            "{crate_src}: files that use each other"
        );
    }
}

#[test]
fn the_file_graph_sees_uses_and_circles() {
    let known: BTreeMap<String, PathBuf> = [
        ("", "lib.rs"),
        ("a", "a.rs"),
        ("b", "b/mod.rs"),
        ("b::c", "b/c.rs"),
    ]
    .into_iter()
    .map(|(m, p)| (m.to_string(), PathBuf::from(p)))
    .collect();
    // Paths, groups and `super` from a nested file; comments are not code.
    let found = uses(
        "b::c",
        "use super::super::a::X;\nuse crate::{a, b::c};\n// crate::b",
        &known,
    );
    assert_eq!(found, BTreeSet::from(["a".to_string()]));
    assert_eq!(
        uses("a", "use crate::b::{c::Y, Z};", &known),
        BTreeSet::from(["b::c".to_string(), "b".to_string()])
    );
    let mut g: Graph = [("a", vec!["b"]), ("b", vec!["c"]), ("c", vec![])]
        .into_iter()
        .map(|(n, e)| (n.to_string(), e.into_iter().map(String::from).collect()))
        .collect();
    assert_eq!(circle(&g), None);
    g.get_mut("c").unwrap().insert("a".to_string());
    assert_eq!(circle(&g).map(|c| c.len()), Some(3));
}
