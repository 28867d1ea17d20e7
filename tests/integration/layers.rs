//! The library's layering, read from its sources: every `crate::` path in a module's
//! code (comments and test code left out) names a module of a lower row of the layer
//! table in docs/contributing/architecture.md, and within each module no two of its
//! parts import each other, directly or in a circle (`super::` and `crate::` paths
//! both count).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The rows of the layer table, lowest first: each row's modules.
fn layer_table() -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(root().join("docs/contributing/architecture.md")).unwrap();
    let section = text
        .split("## Layers")
        .nth(1)
        .expect("architecture.md has a Layers section");
    let section = section.split("\n## ").next().unwrap();
    section
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let first = l.split('|').nth(1).unwrap();
            first
                .split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect()
        })
        .collect()
}

/// A source file's code: without its comments, and without its test code (a
/// `#[cfg(test)]` item: a `mod tests { … }` runs to the end of the file, as this crate
/// keeps it; a `mod name;` or any other item is its next line).
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines().map(|l| match l.find("//") {
        Some(i) => &l[..i],
        None => l,
    });
    let mut out = Vec::new();
    while let Some(line) = lines.next() {
        if line.trim() == "#[cfg(test)]" {
            // (Past the item's other attributes.)
            let item = lines.find(|l| !l.trim_start().starts_with("#["));
            match item {
                Some(item) if item.trim_start().starts_with("mod ") && item.contains('{') => {
                    break;
                }
                _ => continue,
            }
        }
        out.push(line);
    }
    out.join("\n")
}

/// The `.rs` files under `dir`, with test-only files left out (`tests.rs`,
/// `*_tests.rs`).
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let name = p.file_stem().unwrap().to_string_lossy();
                if name != "tests" && !name.ends_with("_tests") {
                    out.push(p);
                }
            }
        }
    }
    out.sort();
    out
}

/// The module path of a source file (`src/a/b.rs` and `src/a/b/mod.rs`: `[a, b]`).
fn module_path(file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(root().join("src")).unwrap();
    let mut parts: Vec<String> = rel
        .with_extension("")
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// Every module path a file's code names: `crate::a::b…` as written, `super::…`
/// resolved from the file's own module path.
fn named_paths(file: &Path) -> Vec<Vec<String>> {
    let code = code(file);
    let own = module_path(file);
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    let word = |i: usize| -> (String, usize) {
        let end = code[i..]
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .map_or(code.len(), |e| i + e);
        (code[i..end].to_string(), end)
    };
    let mut i = 0;
    while i < code.len() {
        if !code.is_char_boundary(i) {
            i += 1;
            continue;
        }
        let boundary = i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        if boundary && code[i..].starts_with("crate::") {
            let (w, end) = word(i);
            out.push(w.split("::").skip(1).map(str::to_string).collect());
            i = end;
        } else if boundary && code[i..].starts_with("super::") {
            let (w, end) = word(i);
            let parts: Vec<&str> = w.split("::").filter(|p| !p.is_empty()).collect();
            let ups = parts.iter().take_while(|p| **p == "super").count();
            if ups <= own.len() {
                let mut path: Vec<String> = own[..own.len() - ups].to_vec();
                path.extend(parts[ups..].iter().map(|p| p.to_string()));
                out.push(path);
            }
            i = end;
        } else {
            i += 1;
        }
    }
    out
}

/// Each top-level module imports only modules of lower rows of the table, and every
/// module of `src/` is in the table.
#[test]
fn modules_import_only_lower_layers() {
    let table = layer_table();
    let row: BTreeMap<String, usize> = table
        .iter()
        .enumerate()
        .flat_map(|(i, mods)| mods.iter().map(move |m| (m.clone(), i)))
        .collect();
    let src = root().join("src");
    let mut modules: BTreeSet<String> = BTreeSet::new();
    for e in std::fs::read_dir(&src).unwrap().flatten() {
        let name = e.path().file_stem().unwrap().to_string_lossy().into_owned();
        if name != "lib" && name != "main" {
            modules.insert(name);
        }
    }
    let missing: Vec<&String> = modules.iter().filter(|m| !row.contains_key(*m)).collect();
    assert!(
        missing.is_empty(),
        "modules missing from architecture.md's layer table: {missing:?}"
    );
    let mut wrong = Vec::new();
    for m in &modules {
        let dir = src.join(m);
        let files = if dir.is_dir() {
            sources(&dir)
        } else {
            vec![src.join(format!("{m}.rs"))]
        };
        for f in files {
            for path in named_paths(&f) {
                let Some(target) = path.first() else { continue };
                if target == m || !modules.contains(target) {
                    continue;
                }
                if row[target] >= row[m] {
                    wrong.push(format!(
                        "{} names crate::{} ({m} is in row {}, {target} in row {})",
                        f.strip_prefix(root()).unwrap().display(),
                        path.join("::"),
                        row[m] + 1,
                        row[target] + 1
                    ));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the layers:\n{}",
        wrong.join("\n")
    );
}

/// The items a module's `mod.rs` (or `lib.rs`) re-exports from its parts
/// (`pub use part::{A, B};`), each with its part.
fn reexports(dir: &Path) -> BTreeMap<String, String> {
    let file = if dir == root().join("src") {
        dir.join("lib.rs")
    } else if dir.join("mod.rs").is_file() {
        dir.join("mod.rs")
    } else {
        // `src/a/b.rs` beside `src/a/b/`.
        dir.with_extension("rs")
    };
    let code = code(&file);
    let mut out = BTreeMap::new();
    for statement in code.split(';') {
        let statement = statement.trim();
        let Some(rest) = statement
            .strip_prefix("pub use ")
            .or_else(|| statement.strip_prefix("pub(crate) use "))
            .or_else(|| statement.strip_prefix("pub(super) use "))
        else {
            continue;
        };
        let Some((part, items)) = rest.split_once("::") else {
            continue;
        };
        for item in items.split(|c: char| "{},".contains(c)) {
            let item = item.trim();
            let name = item.rsplit(" as ").next().unwrap_or(item).trim();
            if !name.is_empty() && !name.contains("::") {
                out.insert(name.to_string(), part.trim().to_string());
            }
        }
    }
    out
}

/// Within every module, its parts (files and folders) import each other without a
/// circle.
#[test]
fn no_module_has_parts_importing_each_other_in_a_circle() {
    let mut circles = Vec::new();
    let mut dirs = vec![root().join("src")];
    while let Some(dir) = dirs.pop() {
        let base = if dir == root().join("src") {
            Vec::new()
        } else {
            module_path(&dir.join("mod.rs"))
        };
        let mut parts: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            if p.is_dir() {
                dirs.push(p.clone());
                parts.insert(name, sources(&p));
            } else if p.extension().is_some_and(|x| x == "rs")
                && !["mod", "lib", "main", "tests"].contains(&name.as_str())
                && !name.ends_with("_tests")
            {
                parts.insert(name, vec![p]);
            }
        }
        let reexported = reexports(&dir);
        let mut edges: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for (part, files) in &parts {
            for f in files {
                for path in named_paths(f) {
                    if path.len() > base.len() && path[..base.len()] == base[..] {
                        // A part by its name, or an item the module re-exports by the
                        // part it comes from.
                        let named = &path[base.len()];
                        let target = reexported.get(named).unwrap_or(named);
                        if target != part
                            && let Some((t, _)) = parts.get_key_value(target)
                        {
                            edges.entry(part).or_default().insert(t);
                        }
                    }
                }
            }
        }
        // A circle: a part that reaches itself.
        for start in parts.keys() {
            let mut seen = BTreeSet::new();
            let mut stack: Vec<Vec<&str>> = vec![vec![start.as_str()]];
            while let Some(trail) = stack.pop() {
                let last = *trail.last().unwrap();
                for next in edges.get(last).into_iter().flatten() {
                    if *next == start.as_str() {
                        let mut circle = trail.clone();
                        circle.push(next);
                        let key: BTreeSet<&str> = circle.iter().copied().collect();
                        if key.iter().next() == Some(&start.as_str()) {
                            circles.push(format!("{}: {}", dir.display(), circle.join(" → ")));
                        }
                    } else if seen.insert(*next) {
                        let mut longer = trail.clone();
                        longer.push(next);
                        stack.push(longer);
                    }
                }
            }
        }
    }
    assert!(
        circles.is_empty(),
        "parts importing each other:\n{}",
        circles.join("\n")
    );
}
