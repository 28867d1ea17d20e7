//! `campaign sessions`.

use super::output::write_file;
use super::{CleaningArgs, EXIT_OK, Format, TraceSource, choice, print_stdout};
use crate::quantile::quantile;
use crate::replay::{
    BatchGraph, BatchStats, Delimitation, Delimiter, GraphStats, ReplayError, SessionGraph,
    ThinkTimeStats,
};
use crate::workload::trace_name;
use clap::Args;
use serde_json::json;
use std::fmt::Write as _;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub(crate) struct SessionsArgs {
    #[command(flatten)]
    source: TraceSource,
    #[command(flatten)]
    cleaning: CleaningArgs,
    /// A user's job opens a new session when its gap exceeds the threshold: arrival
    /// (time since the previous job's submission), last (think time since the previous
    /// job's end), max (think time since the latest end among all earlier jobs).
    #[arg(long, default_value_t, value_parser = choice::<Delimiter>())]
    delim: Delimiter,
    /// The threshold in minutes (≥ 0; a gap equal to it does not open a session).
    #[arg(long, value_name = "MINUTES", allow_hyphen_values = true, value_parser = minutes)]
    threshold: f64,
    /// Write every user's sessions and reduced dependency graph as JSON to this file
    /// (with --batches: every user's batches with their depends-on lists).
    #[arg(long, value_name = "FILE.json")]
    out: Option<PathBuf>,
    /// Batches (Zakay & Feitelson 2013): each session (arrival delimiter) cut into
    /// batches of overlapping jobs; reports batches per session, jobs per batch, and the
    /// think times (TT) and inter-arrival times (IAT) between batches, within and
    /// between sessions.
    #[arg(long)]
    batches: bool,
    /// table: summary over users; json: the summary and every user's statistics.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// A threshold in minutes, checked as the library checks it.
fn minutes(s: &str) -> Result<f64, ReplayError> {
    let m: f64 = s
        .parse()
        .map_err(|_| ReplayError::BadThreshold(s.to_string()))?;
    Delimitation::new(Delimiter::Arrival, m).map(|_| m)
}

/// min, median, 90th percentile and max of one statistic over users.
fn spread(values: impl Iterator<Item = f64>) -> [f64; 4] {
    let mut v: Vec<f64> = values.collect();
    [0.0, 0.5, 0.9, 1.0].map(|q| quantile(&mut v, q))
}

fn summary(stats: &GraphStats) -> serde_json::Value {
    let u = &stats.users;
    let row = |f: &dyn Fn(&crate::replay::UserGraphStats) -> f64| {
        let [min, median, p90, max] = spread(u.iter().map(f));
        json!({ "min": min, "median": median, "p90": p90, "max": max })
    };
    json!({
        "users": u.len(),
        "jobs": u.iter().map(|x| x.jobs).sum::<usize>(),
        "sessions": u.iter().map(|x| x.sessions).sum::<usize>(),
        "edges": u.iter().map(|x| x.edges).sum::<usize>(),
        "root_edges": u.iter().map(|x| x.roots).sum::<usize>(),
        "per_user": {
            "sessions": row(&|x| x.sessions as f64),
            "longest_path": row(&|x| f64::from(x.longest_path)),
            "max_in_degree": row(&|x| f64::from(x.max_in_degree)),
            "max_out_degree": row(&|x| f64::from(x.max_out_degree)),
        },
    })
}

impl SessionsArgs {
    pub(crate) fn run(&self) -> anyhow::Result<u8> {
        let super::LoadedTrace {
            loaded,
            path,
            policy,
            cleaning,
            ..
        } = self.source.load(&self.cleaning)?;
        let workload = loaded.workload;
        let name = trace_name(&path);
        if self.batches {
            anyhow::ensure!(
                self.delim == Delimiter::Arrival,
                "--batches cuts sessions by inter-arrival time (Zakay & Feitelson's \
                 Definition 1): use --delim arrival"
            );
            let graph = BatchGraph::build(&workload, self.threshold)?;
            if let Some(out) = &self.out {
                let doc = graph.doc(&workload, &name);
                write_file(out, |w| {
                    serde_json::to_writer(w, &doc).map_err(std::io::Error::from)
                })?;
            }
            let stats = graph.stats();
            let text = match self.format {
                Format::Json => {
                    let doc = json!({
                        "trace": { "name": name, "path": path, "jobs": workload.len() },
                        "cleaning": { "policy": policy, "report": cleaning },
                        "batches": stats,
                    });
                    format!("{}\n", serde_json::to_string_pretty(&doc)?)
                }
                Format::Table => batch_table(&name, &path, &stats)?,
            };
            print_stdout(&text)?;
            return Ok(EXIT_OK);
        }
        let delimitation = Delimitation::new(self.delim, self.threshold)?;
        let graph = SessionGraph::build(&workload, delimitation)?;
        let stats = graph.stats();

        if let Some(out) = &self.out {
            let doc = graph.doc(&workload, &name);
            write_file(out, |w| {
                serde_json::to_writer(w, &doc).map_err(std::io::Error::from)
            })?;
        }

        let summary = summary(&stats);
        let mut text = String::new();
        match self.format {
            Format::Json => {
                let doc = json!({
                    "trace": { "name": name, "path": path, "jobs": workload.len() },
                    "cleaning": { "policy": policy, "report": cleaning },
                    "delimiter": stats.delimiter,
                    "threshold_minutes": stats.threshold_minutes,
                    "summary": summary,
                    "think_times": stats.think_times,
                    "users": stats.users,
                });
                writeln!(text, "{}", serde_json::to_string_pretty(&doc)?)?;
            }
            Format::Table => {
                let t = &stats.think_times;
                writeln!(text, "trace      {name} ({})", path.display())?;
                writeln!(
                    text,
                    "sessions   {} {} min: {} users, {} jobs, {} sessions; reduced graph: {} edges \
                     (+ {} from the root)",
                    self.delim,
                    stats.threshold_minutes,
                    summary["users"],
                    summary["jobs"],
                    summary["sessions"],
                    summary["edges"],
                    summary["root_edges"],
                )?;
                writeln!(text)?;
                writeln!(
                    text,
                    "  {:<22}{:>10}{:>10}{:>10}{:>10}",
                    "per user", "min", "median", "p90", "max"
                )?;
                for (label, key) in [
                    ("sessions", "sessions"),
                    ("longest path", "longest_path"),
                    ("max in-degree", "max_in_degree"),
                    ("max out-degree", "max_out_degree"),
                ] {
                    let r = &summary["per_user"][key];
                    let f = |k: &str| r[k].as_f64().unwrap_or(f64::NAN);
                    writeln!(
                        text,
                        "  {label:<22}{:>10}{:>10}{:>10.1}{:>10}",
                        f("min"),
                        f("median"),
                        f("p90"),
                        f("max")
                    )?;
                }
                writeln!(text)?;
                let h = |s: f64| s / 3600.0;
                writeln!(
                    text,
                    "  think times ({} edges): {:.1} % under 1 h, {:.1} % under 10 h",
                    t.edges,
                    100.0 * t.under_1h,
                    100.0 * t.under_10h
                )?;
                writeln!(
                    text,
                    "  quantiles (hours)     10 %: {:.2}   25 %: {:.2}   50 %: {:.2}   75 %: {:.2}   90 %: {:.2}",
                    h(t.p10_s),
                    h(t.p25_s),
                    h(t.p50_s),
                    h(t.p75_s),
                    h(t.p90_s)
                )?;
            }
        }
        print_stdout(&text)?;
        Ok(EXIT_OK)
    }
}

/// The table form of `sessions --batches`.
fn batch_table(name: &str, path: &std::path::Path, stats: &BatchStats) -> anyhow::Result<String> {
    let o = &stats.overall;
    let mut text = String::new();
    writeln!(text, "trace      {name} ({})", path.display())?;
    writeln!(
        text,
        "batches    sessions by inter-arrival over {} min: {} users, {} jobs, {} sessions, \
         {} batches",
        stats.threshold_minutes,
        stats.users.len(),
        o.jobs,
        o.sessions,
        o.batches
    )?;
    writeln!(text)?;
    writeln!(
        text,
        "  {:<22}{:>10}{:>10}{:>10}{:>10}",
        "", "mean", "median", "p90", "max"
    )?;
    for (label, s) in [
        ("batches per session", &o.batches_per_session),
        ("jobs per batch", &o.jobs_per_batch),
    ] {
        writeln!(
            text,
            "  {label:<22}{:>10.2}{:>10}{:>10.1}{:>10}",
            s.mean, s.p50, s.p90, s.max
        )?;
    }
    writeln!(text)?;
    writeln!(
        text,
        "  {:<34}{:>8}{:>9}{:>9}{:>9}{:>9}{:>9}",
        "hours", "count", "< 1 h %", "10 %", "50 %", "90 %", "< 10 h %"
    )?;
    let row = |label: &str, t: &ThinkTimeStats| {
        let h = |s: f64| s / 3600.0;
        format!(
            "  {label:<34}{:>8}{:>9.1}{:>9.2}{:>9.2}{:>9.2}{:>9.1}\n",
            t.edges,
            100.0 * t.under_1h,
            h(t.p10_s),
            h(t.p50_s),
            h(t.p90_s),
            100.0 * t.under_10h
        )
    };
    text += &row("TT between batches of a session", &o.think_within_sessions);
    text += &row(
        "IAT between batches of a session",
        &o.interarrival_within_sessions,
    );
    text += &row("TT between sessions", &o.think_between_sessions);
    text += &row("IAT between sessions", &o.interarrival_between_sessions);
    Ok(text)
}
