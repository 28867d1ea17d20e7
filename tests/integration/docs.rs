//! Docs that cannot lie: the generated reference pages are regenerated and compared,
//! every console example of README.md and docs/ runs (trycmd), every TOML example is a
//! spec that `campaign plan` accepts on the real traces (or a fragment that parses as
//! TOML), the studies' tables are those `campaign run` writes, and every relative link
//! resolves. `CAMPAIGN_BLESS=1 cargo test docs` rewrites the generated parts.

use crate::common::{campaign, trace_dir};
use std::path::{Path, PathBuf};

const REGENERATE: &str = "CAMPAIGN_BLESS=1 cargo test docs";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn bless() -> bool {
    std::env::var_os("CAMPAIGN_BLESS").is_some()
}

/// README.md and every Markdown file under docs/, sorted.
fn markdown_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    let mut files = vec![root().join("README.md")];
    walk(&root().join("docs"), &mut files);
    files
}

/// The path of a file relative to the project root, for messages.
fn shown(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// The example binary `cargo test` builds (`target/debug/examples/custom_scheduler`).
fn example_binary() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let path = exe
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .join("examples")
        .join("custom_scheduler");
    assert!(path.is_file(), "{} not built", path.display());
    path
}

/// Compares `fresh` with the checked-in file `path`, or writes it when blessing.
fn compare_or_bless(path: &Path, fresh: &str, stale: &mut Vec<String>) {
    let current = std::fs::read_to_string(path).unwrap_or_default();
    if current == fresh {
        return;
    }
    if bless() {
        std::fs::write(path, fresh).unwrap();
    } else {
        stale.push(shown(path));
    }
}

/// docs/reference/{cli,columns,implementations}.md are what `campaign reference`
/// writes from the clap definition, the column list and the registry.
#[test]
fn docs_generated_references_are_current() {
    let dir = tempfile::tempdir().unwrap();
    campaign()
        .arg("reference")
        .arg(dir.path())
        .assert()
        .success();
    let mut stale = Vec::new();
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    assert_eq!(names.len(), 3, "{names:?}");
    for fresh in names {
        let text = std::fs::read_to_string(&fresh).unwrap();
        let page = root()
            .join("docs/reference")
            .join(fresh.file_name().unwrap());
        compare_or_bless(&page, &text, &mut stale);
    }
    assert!(
        stale.is_empty(),
        "out of date: {} (regenerate them with `{REGENERATE}`)",
        stale.join(", ")
    );
}

/// The exit codes page lists exactly the codes the command line defines.
#[test]
fn docs_exit_codes_are_the_defined_ones() {
    use campaign::cli::{
        EXIT_CHECK_FAILED, EXIT_ERROR, EXIT_INTERRUPTED, EXIT_OK, EXIT_OUTPUT, EXIT_USAGE,
    };
    let page = std::fs::read_to_string(root().join("docs/reference/exit-codes.md")).unwrap();
    let mut listed: Vec<u8> = page
        .lines()
        .filter_map(|l| l.strip_prefix("| "))
        .filter_map(|l| l.split(" |").next()?.trim().parse().ok())
        .collect();
    listed.sort_unstable();
    let mut defined = vec![
        EXIT_OK,
        EXIT_ERROR,
        EXIT_USAGE,
        EXIT_CHECK_FAILED,
        EXIT_INTERRUPTED,
        EXIT_OUTPUT,
        // SIGTERM: 128 + 15, as EXIT_INTERRUPTED is 128 + SIGINT (src/cli/stop.rs).
        128 + 15,
    ];
    defined.sort_unstable();
    assert_eq!(listed, defined, "docs/reference/exit-codes.md");
}

/// Every console block of README.md and docs/ runs as written (trycmd), from the
/// project root, with `campaign` and the example binary `custom_scheduler`, and
/// `$PYBATSIM` naming pybatsim in the tests' virtual environment.
#[test]
fn docs_console_examples_run() {
    // The examples write into target/tmp/docs-*: each run starts from nothing there.
    let tmp = root().join("target/tmp");
    if let Ok(entries) = std::fs::read_dir(&tmp) {
        for entry in entries.flatten() {
            let path = entry.path();
            if entry.file_name().to_string_lossy().starts_with("docs-") {
                let _ = std::fs::remove_dir_all(&path).or_else(|_| std::fs::remove_file(&path));
            }
        }
    }
    std::fs::create_dir_all(&tmp).unwrap();
    let cases = trycmd::TestCases::new();
    cases
        .register_bin("campaign", assert_cmd::cargo::cargo_bin("campaign"))
        .register_bin("custom_scheduler", example_binary())
        .env("CAMPAIGN_TRACE_DIR", trace_dir().display().to_string())
        // The examples of Batsim schedulers run pybatsim from the tests' environment.
        .env(
            "PYBATSIM",
            crate::batsim::venv_bin()
                .join("pybatsim")
                .display()
                .to_string(),
        )
        .timeout(std::time::Duration::from_secs(600));
    for file in markdown_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        if text.contains("```console") {
            cases.case(file);
        }
    }
    cases.run();
}

/// A fenced code block: its info string, first line number and text.
struct Block {
    info: String,
    line: usize,
    text: String,
}

fn code_blocks(text: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut open: Option<Block> = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        match &mut open {
            None => {
                if let Some(info) = trimmed.strip_prefix("```") {
                    open = Some(Block {
                        info: info.trim().to_string(),
                        line: i + 2,
                        text: String::new(),
                    });
                }
            }
            Some(b) => {
                if trimmed.starts_with("```") {
                    blocks.push(open.take().unwrap());
                } else {
                    b.text.push_str(line);
                    b.text.push('\n');
                }
            }
        }
    }
    blocks
}

/// Every ```toml block of README.md and docs/ is a whole spec that `campaign plan`
/// accepts on the real traces (exit code 0: every run can run), or is marked
/// ```toml fragment and parses as TOML. A block marked `custom_scheduler` is planned by
/// the example binary (it names the example's scheduler); one marked `file=PATH` must
/// also be that file of the project, as it says.
#[test]
fn docs_toml_examples_are_planned() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let mut failures = Vec::new();
    let mut planned = 0;
    for file in markdown_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        for block in code_blocks(&text) {
            let words: Vec<&str> = block.info.split_whitespace().collect();
            if words.first() != Some(&"toml") {
                continue;
            }
            let at = format!("{}:{}", shown(&file), block.line);
            // A block that shows a file of the project is that file.
            if let Some(path) = words.iter().find_map(|w| w.strip_prefix("file=")) {
                let content = std::fs::read_to_string(root().join(path)).unwrap_or_default();
                if content != block.text {
                    failures.push(format!("{at}: differs from {path}, which it shows"));
                }
            }
            if words.contains(&"fragment") {
                if let Err(e) = block.text.parse::<toml::Table>() {
                    failures.push(format!("{at}: not TOML: {e}"));
                }
                continue;
            }
            let spec = dir.path().join(format!("spec-{planned}.toml"));
            planned += 1;
            std::fs::write(&spec, &block.text).unwrap();
            let mut cmd = if words.contains(&"custom_scheduler") {
                let mut c = assert_cmd::Command::new(example_binary());
                c.env("CAMPAIGN_TRACE_DIR", trace_dir());
                c
            } else {
                campaign()
            };
            let out = cmd
                .current_dir(root())
                .arg("plan")
                .arg(&spec)
                .arg("--cache")
                .arg(&cache)
                .output()
                .unwrap();
            if !out.status.success() {
                failures.push(format!(
                    "{at}: `campaign plan` failed ({}):\n{}{}",
                    out.status,
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
    }
    assert!(planned >= 5, "only {planned} specs found in the docs");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Every relative link and image of README.md and docs/ names a file that exists.
#[test]
fn docs_relative_links_resolve() {
    let mut broken = Vec::new();
    let mut links = 0;
    for file in markdown_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        let dir = file.parent().unwrap();
        let mut in_code = false;
        for (i, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("```") {
                in_code = !in_code;
            }
            if in_code {
                continue;
            }
            for (start, _) in line.match_indices("](") {
                let rest = &line[start + 2..];
                let Some(end) = rest.find(')') else { continue };
                let target = rest[..end].split_whitespace().next().unwrap_or("");
                if target.is_empty()
                    || target.starts_with('#')
                    || target.contains("://")
                    || target.starts_with("mailto:")
                {
                    continue;
                }
                links += 1;
                let path = target.split('#').next().unwrap();
                if !dir.join(path).exists() {
                    broken.push(format!("{}:{}: {target}", shown(&file), i + 1));
                }
            }
        }
    }
    assert!(links > 20, "only {links} relative links found");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// The studies' pages hold the tables `campaign run` writes, between
/// `<!-- begin: tables/NAME.md -->` and `<!-- end -->` markers: the fast campaign whole
/// (paper2024), and the others through a fast part of them (see each page).
#[test]
fn docs_study_tables_are_current() {
    let dir = tempfile::tempdir().unwrap();
    let mut stale = Vec::new();
    for (study, spec, only) in STUDY_RUNS {
        let out = dir.path().join(study);
        let mut cmd = campaign();
        cmd.current_dir(root())
            .arg("run")
            .arg(spec)
            .arg("--cache")
            .arg(dir.path().join("cache"))
            .arg("--out")
            .arg(&out);
        for filter in *only {
            cmd.arg("--only").arg(filter);
        }
        // With --only, the runs left out are `not run`: the report is partial, and the
        // command succeeds when the selected runs do.
        cmd.assert().success();
        let page = root().join("docs/studies").join(format!("{study}.md"));
        let text = std::fs::read_to_string(&page).unwrap();
        let fresh = fill_tables(&text, &out).unwrap_or_else(|e| panic!("{}: {e}", shown(&page)));
        compare_or_bless(&page, &fresh, &mut stale);
    }
    assert!(
        stale.is_empty(),
        "study tables out of date: {} (regenerate them with `{REGENERATE}`)",
        stale.join(", ")
    );
}

/// (page, spec, --only filters) of each study page's tables.
const STUDY_RUNS: &[(&str, &str, &[&str])] = &[
    ("paper2024", "campaigns/paper2024.toml", &[]),
    ("zakay2013", "campaigns/zakay2013.toml", &["workload=KTH"]),
    (
        "shaking2007",
        "campaigns/shaking2007.toml",
        &[
            "transform=original,shake=original,scheduler=easy,semantics=run",
            "transform=truncated,shake=original",
        ],
    ),
];

/// `text` with each `<!-- begin: FILE -->` … `<!-- end -->` region holding FILE of the
/// campaign's outputs `out` (the complete report, else `partial/`).
fn fill_tables(text: &str, out: &Path) -> Result<String, String> {
    let mut result = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("<!-- begin: ") {
        let (head, tail) = rest.split_at(start);
        result.push_str(head);
        let close = tail.find(" -->").ok_or("unclosed begin marker")?;
        let name = &tail["<!-- begin: ".len()..close];
        let end = tail.find("<!-- end -->").ok_or("no end marker")?;
        let whole = out.join(name);
        let file = if whole.is_file() {
            whole
        } else {
            out.join("partial").join(name)
        };
        let table =
            std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        result.push_str(&tail[..close + 4]);
        result.push('\n');
        result.push_str(table.trim_end());
        result.push('\n');
        result.push_str("<!-- end -->");
        rest = &tail[end + "<!-- end -->".len()..];
    }
    result.push_str(rest);
    Ok(result)
}
