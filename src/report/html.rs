//! `report.html`: one self-contained file (inline SVG and CSS, no script, nothing
//! fetched), readable offline and attachable to an email; and each figure as its own
//! `figures/NAME.svg`. The page is well-formed XML as well as HTML.

use super::figures::Figures;
use super::{ReportError, Table, write_text};
use std::fmt::Write as _;
use std::path::Path;

/// What the page says about the campaign besides its tables and figures.
#[derive(Debug, Clone)]
pub(crate) struct PageInfo<'a> {
    pub name: &'a str,
    pub description: Option<&'a str>,
    pub spec_file: &'a str,
    /// `(status, count)`: ok, failed, not run.
    pub counts: Vec<(&'static str, usize)>,
    /// What was run, a line per study (its runs and the axes it varies).
    pub studies: Vec<String>,
    /// The failed runs (their labels and errors; at most [`MAX_FAILURES`]).
    pub failures: Vec<String>,
}

/// The most failed runs the summary lists.
pub(super) const MAX_FAILURES: usize = 20;

/// How many figure links the summary lists before folding the others away.
const FOLDED_LINKS: usize = 12;

const STYLE: &str = "body{font-family:sans-serif;max-width:1000px;margin:2em auto;\
padding:0 1em;color:#222}table{border-collapse:collapse;margin:1em 0;font-size:90%}\
th,td{border:1px solid #bbb;padding:3px 8px;text-align:right}th{background:#eee}\
td:first-child,th:first-child{text-align:left}figure{margin:2em 0}\
figcaption{font-size:90%;color:#444}svg{max-width:100%;height:auto}\
nav li{margin:2px 0}div.scroll{overflow-x:auto;max-width:100%}";

/// A table in a box of the page's width that scrolls sideways when the table is wider
/// (a comparison's 15 columns), so that no column is out of reach.
fn html_table(out: &mut String, header: &[String], rows: &[Vec<String>]) {
    out.push_str("<div class=\"scroll\"><table>\n<tr>");
    for h in header {
        let _ = write!(out, "<th>{}</th>", html_escape(h));
    }
    out.push_str("</tr>\n");
    for r in rows {
        out.push_str("<tr>");
        for c in r {
            let _ = write!(out, "<td>{}</td>", html_escape(c));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table></div>\n");
}

/// Writes `dir/figures/*.svg` and `dir/report.html`; returns how many figures were
/// written.
pub(crate) fn write_html(
    dir: &Path,
    page: &PageInfo<'_>,
    tables: &[Table],
    figures: &Figures,
) -> Result<usize, ReportError> {
    let svgs = write_svgs(&dir.join("figures"), &figures.figures)?;
    let mut out = String::new();
    let title = html_escape(page.name);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n\
         <title>{title}: campaign report</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
         <h1>{title}</h1>\n"
    );
    if let Some(d) = page.description {
        let _ = writeln!(out, "<p>{}</p>", html_escape(d));
    }
    let counts: Vec<String> = page
        .counts
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(s, n)| format!("{n} {s}"))
        .collect();
    let total: usize = page.counts.iter().map(|(_, n)| n).sum();
    // The summary first: what was run, the failures, then the comparisons; the tables
    // and the other figures after.
    out.push_str("<section id=\"summary\">\n<h2>Summary</h2>\n");
    let _ = writeln!(
        out,
        "<p>Spec <code>{}</code>: {total} run{} ({}); campaign {}, engine version {}.</p>",
        html_escape(page.spec_file),
        if total == 1 { "" } else { "s" },
        html_escape(&counts.join(", ")),
        env!("CARGO_PKG_VERSION"),
        crate::run::ENGINE_VERSION
    );
    if !page.studies.is_empty() {
        out.push_str("<ul>\n");
        for line in &page.studies {
            let _ = writeln!(out, "<li>{}</li>", html_escape(line));
        }
        out.push_str("</ul>\n");
    }
    let failed = page
        .counts
        .iter()
        .find(|(s, _)| *s == "failed")
        .map_or(0, |c| c.1);
    if failed > 0 {
        let _ = writeln!(out, "<p>Failed runs ({failed}):</p>\n<ul>");
        for f in &page.failures {
            // Its lines kept: a failing scheduler's message quotes its output.
            let _ = writeln!(
                out,
                "<li style=\"white-space: pre-wrap\">{}</li>",
                html_escape(f)
            );
        }
        if failed > page.failures.len() {
            let _ = writeln!(
                out,
                "<li>and {} more (runs.csv has every error)</li>",
                failed - page.failures.len()
            );
        }
        out.push_str("</ul>\n");
    } else {
        out.push_str("<p>No run failed.</p>\n");
    }
    out.push_str("</section>\n");
    let (comparisons, others): (Vec<_>, Vec<_>) = figures
        .figures
        .iter()
        .zip(&svgs)
        .partition(|(f, _)| f.comparison);
    if !tables.is_empty() || !figures.figures.is_empty() {
        out.push_str("<nav><ul>\n");
        // Figures of one kind on one line: "Heading: <a>what</a>, <a>what</a>".
        let figure_links = |out: &mut String, list: &[(&super::chart::Figure, &String)]| {
            let mut last: Option<&str> = None;
            for (f, _) in list {
                let (heading, what) = f.title.split_once(": ").unwrap_or((&f.title, ""));
                let link = format!(
                    "<a href=\"#figure-{}\">{}</a>",
                    html_escape(&f.name),
                    html_escape(if what.is_empty() { heading } else { what })
                );
                if last == Some(heading) && !what.is_empty() {
                    let _ = write!(out, ", {link}");
                } else {
                    if last.is_some() {
                        out.push_str("</li>\n");
                    }
                    if what.is_empty() {
                        let _ = write!(out, "<li>{link}");
                    } else {
                        let _ = write!(out, "<li>{}: {link}", html_escape(heading));
                    }
                    last = Some(heading);
                }
            }
            if last.is_some() {
                out.push_str("</li>\n");
            }
        };
        figure_links(&mut out, &comparisons);
        for t in tables {
            let _ = writeln!(
                out,
                "<li><a href=\"#table-{}\">{}</a></li>",
                html_escape(&t.name),
                html_escape(t.title.as_deref().unwrap_or(&t.name))
            );
        }
        // Beyond a screenful, the other figures' links fold away (paper2024 has ~84).
        if others.len() > FOLDED_LINKS {
            let _ = writeln!(
                out,
                "<li><details><summary>{} more figures</summary><ul>",
                others.len()
            );
            figure_links(&mut out, &others);
            out.push_str("</ul></details></li>\n");
        } else {
            figure_links(&mut out, &others);
        }
        out.push_str("</ul></nav>\n");
    }
    let figure_html = |out: &mut String, f: &super::chart::Figure, svg: &str| {
        let _ = writeln!(
            out,
            "<figure id=\"figure-{}\">\n<h3>{}</h3>\n{}\n<figcaption>{} \
             <a href=\"figures/{}.svg\">figures/{}.svg</a></figcaption>\n</figure>",
            html_escape(&f.name),
            html_escape(&f.title),
            inline_svg(svg),
            html_escape(&f.caption),
            html_escape(&f.name),
            html_escape(&f.name),
        );
    };
    if !comparisons.is_empty() {
        out.push_str("<h2>Comparisons</h2>\n");
    }
    for (f, svg) in &comparisons {
        figure_html(&mut out, f, svg);
    }
    if !tables.is_empty() {
        out.push_str("<h2>Tables</h2>\n");
    }
    for t in tables {
        let _ = writeln!(
            out,
            "<h3 id=\"table-{}\">{}</h3>",
            html_escape(&t.name),
            html_escape(t.title.as_deref().unwrap_or(&t.name))
        );
        html_table(&mut out, &t.header, &t.rows);
        if let Some((header, rows)) = &t.comparison {
            let _ = writeln!(
                out,
                "<p>Published values beside ours{}:</p>",
                t.expected_source
                    .as_ref()
                    .map_or(String::new(), |s| format!(" ({})", html_escape(s)))
            );
            html_table(&mut out, header, rows);
        }
    }
    if !others.is_empty() {
        out.push_str("<h2>Figures</h2>\n");
    }
    for (f, svg) in &others {
        figure_html(&mut out, f, svg);
    }
    if figures.omitted > 0 {
        let _ = writeln!(
            out,
            "<p>{} more figures were asked for and not drawn (at most {}); choose them \
             with <code>[[figure]]</code> sections.</p>",
            figures.omitted,
            super::figures::MAX_FIGURES
        );
    }
    out.push_str("</body>\n</html>\n");
    write_text(&dir.join("report.html"), &out)?;
    Ok(figures.figures.len())
}

/// Writes each figure as `dir/NAME.svg` (also `campaign simulate --plot`); returns the
/// SVG documents.
pub(crate) fn write_svgs(
    dir: &Path,
    figures: &[super::chart::Figure],
) -> Result<Vec<String>, ReportError> {
    let mut svgs = Vec::with_capacity(figures.len());
    for f in figures {
        let svg = f.svg()?;
        write_text(&dir.join(format!("{}.svg", f.name)), &svg)?;
        svgs.push(svg);
    }
    Ok(svgs)
}

/// Escapes text for HTML.
fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}

/// A figure's SVG made embeddable in HTML: without the XML declaration, if any.
fn inline_svg(svg: &str) -> String {
    match svg.find("<svg") {
        Some(i) => svg[i..].to_string(),
        None => svg.to_string(),
    }
}
