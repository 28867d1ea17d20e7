//! `campaign slurm`: a campaign as a Slurm job array of `--shard K/N` tasks over a shared
//! cache, and a report job after it.

use super::EXIT_OK;
use super::campaign::SpecArgs;
use super::output::write_file;
use anyhow::{Context as _, bail};
use clap::Args;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
pub(crate) struct SlurmArgs {
    #[command(flatten)]
    spec: SpecArgs,
    /// Array tasks: shard K of N runs as task K.
    #[arg(long, value_name = "N", default_value_t = 4)]
    shards: usize,
    /// CPUs per task (each task's `--jobs`).
    #[arg(long, value_name = "C", default_value_t = 1)]
    cpus_per_task: usize,
    /// Time limit per task (sbatch --time), e.g. 2:00:00.
    #[arg(long, value_name = "T")]
    time: Option<String>,
    /// Partition (sbatch --partition).
    #[arg(long, value_name = "P")]
    partition: Option<String>,
    /// Memory per task (sbatch --mem), e.g. 4G.
    #[arg(long, value_name = "M")]
    mem: Option<String>,
    /// At most M tasks at once (the array's %M).
    #[arg(long, value_name = "M")]
    max_parallel: Option<usize>,
    /// One more sbatch option for both jobs, written as an `#SBATCH` line (repeat for
    /// more), e.g. --sbatch=--account=lab.
    #[arg(long = "sbatch", value_name = "OPTION", allow_hyphen_values = true)]
    sbatch: Vec<String>,
    /// Where the scripts and the logs go [default: OUT/slurm].
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
    /// Submit the array, then the report job to run after it (whatever its end).
    #[arg(long)]
    submit: bool,
}

/// A path as one shell word.
fn quoted(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
}

impl SlurmArgs {
    pub(crate) fn run(&self, registry: &crate::Registry) -> anyhow::Result<u8> {
        if self.shards == 0 || self.cpus_per_task == 0 || self.max_parallel == Some(0) {
            bail!("--shards, --cpus-per-task and --max-parallel must be at least 1");
        }
        // The spec must be valid before a cluster spends anything on it.
        let (spec, _) = crate::campaign::load(&self.spec.spec, registry)?;
        let absolute = |p: &Path| {
            std::path::absolute(p).with_context(|| format!("cannot resolve {}", p.display()))
        };
        let binary = std::env::current_exe().context("cannot find the campaign binary")?;
        let spec_path = absolute(&self.spec.spec)?;
        let cache = absolute(&self.spec.cache)?;
        let out = absolute(&self.spec.out_dir(&spec))?;
        let dir = absolute(&self.dir.clone().unwrap_or_else(|| out.join("slurm")))?;
        let logs = dir.join("logs");
        std::fs::create_dir_all(&logs)
            .with_context(|| format!("cannot create {}", logs.display()))?;

        // What both jobs share: the spec, cache, outputs and where traces are.
        let mut common = format!(
            "{} --cache {} --out {}",
            quoted(&spec_path),
            quoted(&cache),
            quoted(&out)
        );
        if let Some(t) = &self.spec.trace_dir {
            write!(common, " --trace-dir {}", quoted(&absolute(t)?))?;
        }
        let trace_env = std::env::var_os(crate::workload::TRACE_DIR_ENV)
            .filter(|d| !d.is_empty())
            .map(|d| absolute(Path::new(&d)))
            .transpose()?;
        let header = |job: &str, output: &str| -> anyhow::Result<String> {
            let mut s = String::from("#!/bin/bash\n");
            writeln!(
                s,
                "# Written by `campaign slurm` for campaign {} ({}).",
                spec.name,
                spec_path.display()
            )?;
            writeln!(s, "#SBATCH --job-name={job}")?;
            writeln!(s, "#SBATCH --output={}", logs.join(output).display())?;
            writeln!(s, "#SBATCH --open-mode=append")?;
            if let Some(t) = &self.time {
                writeln!(s, "#SBATCH --time={t}")?;
            }
            if let Some(p) = &self.partition {
                writeln!(s, "#SBATCH --partition={p}")?;
            }
            if let Some(m) = &self.mem {
                writeln!(s, "#SBATCH --mem={m}")?;
            }
            for o in &self.sbatch {
                writeln!(s, "#SBATCH {o}")?;
            }
            Ok(s)
        };
        let tail = |s: &mut String, command: &str| -> anyhow::Result<()> {
            writeln!(s, "set -eu")?;
            if let Some(d) = &trace_env {
                writeln!(s, "export {}={}", crate::workload::TRACE_DIR_ENV, quoted(d))?;
            }
            writeln!(s, "exec {} {command} {common}", quoted(&binary))?;
            Ok(())
        };

        let n = self.shards;
        let mut shards = header(&format!("campaign-{}", spec.name), "shard-%a.out")?;
        let limit = self.max_parallel.map_or(String::new(), |m| format!("%{m}"));
        writeln!(shards, "#SBATCH --array=1-{n}{limit}")?;
        writeln!(shards, "#SBATCH --cpus-per-task={}", self.cpus_per_task)?;
        writeln!(
            shards,
            "# Task K computes shard K/{n} into the cache. Re-submit failed tasks only:\n\
             #   sbatch --array=K,L {}",
            dir.join("shards.sbatch").display()
        )?;
        tail(
            &mut shards,
            &format!(
                "run --shard \"$SLURM_ARRAY_TASK_ID/{n}\" --jobs \"${{SLURM_CPUS_PER_TASK:-{}}}\"",
                self.cpus_per_task
            ),
        )?;
        let mut report = header(&format!("campaign-{}-report", spec.name), "report.out")?;
        writeln!(
            report,
            "# The campaign's report from the cache, once the shards have ended."
        )?;
        tail(&mut report, "report")?;

        let shards_path = dir.join("shards.sbatch");
        let report_path = dir.join("report.sbatch");
        for (path, text) in [(&shards_path, &shards), (&report_path, &report)] {
            write_file(path, |f| std::io::Write::write_all(f, text.as_bytes()))
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        outln!(
            "wrote {} ({n} shards) and {}; logs in {}",
            shards_path.display(),
            report_path.display(),
            logs.display()
        );
        if !self.submit {
            outln!(
                "submit: array=$(sbatch --parsable {}) && sbatch --dependency=afterany:$array {}",
                shards_path.display(),
                report_path.display()
            );
            return Ok(EXIT_OK);
        }
        let array = sbatch(&[], &shards_path)?;
        let after = format!("--dependency=afterany:{array}");
        let report_job = sbatch(&[&after], &report_path)?;
        outln!("submitted job array {array} ({n} shards) and report job {report_job} after it");
        Ok(EXIT_OK)
    }
}

/// `sbatch --parsable ARGS SCRIPT`: the job id.
fn sbatch(args: &[&str], script: &Path) -> anyhow::Result<String> {
    let output = std::process::Command::new("sbatch")
        .arg("--parsable")
        .args(args)
        .arg(script)
        .output()
        .context("cannot run sbatch (is this a Slurm login node?)")?;
    if !output.status.success() {
        bail!(
            "sbatch {} failed: {}",
            script.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    let text = String::from_utf8_lossy(&output.stdout);
    // `JOBID` or `JOBID;CLUSTER`.
    let id = text
        .trim()
        .split(';')
        .next()
        .unwrap_or_default()
        .to_string();
    if id.is_empty() {
        bail!("sbatch {} printed no job id", script.display());
    }
    Ok(id)
}
