//! A campaign ready to run, plan or report ([`Prepared`]): its spec read and
//! expanded, its workloads found (or fetched from the archive) and loaded, every run
//! resolved and keyed ([`prepare`]).

use super::runner::{Jobs, LoadedWorkloads, Memos, PlannedRun, load_workloads, plan};
use super::shard::Shard;
use super::{Grid, Spec, SpecError, load, only};
use crate::Registry;
use crate::workload::{
    ARCHIVE_URL, ARCHIVE_URL_ENV, FetchError, TRACE_DIR_ENV, TraceLocator, archive_trace, fetch,
};
use std::path::{Path, PathBuf};

/// Where a campaign's inputs are: the spec, and where to look for traces.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Inputs<'a> {
    pub spec: &'a Path,
    /// A trace directory searched first (`--trace-dir`).
    pub trace_dir: Option<&'a Path>,
    /// Download the archive traces that no trace directory has.
    pub fetch: bool,
}

/// A spec with its grid, loaded workloads and planned runs.
#[derive(Debug)]
pub(crate) struct Prepared {
    pub spec: Spec,
    pub grid: Grid,
    pub workloads: LoadedWorkloads,
    pub planned: Vec<PlannedRun>,
}

/// Why a campaign cannot be prepared.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PrepareError {
    #[error(transparent)]
    Spec(#[from] SpecError),
    #[error("workload {workload}: {source}")]
    Fetch {
        workload: String,
        source: FetchError,
    },
}

/// Reads the spec, finds its traces (in `--trace-dir`, the spec's `trace_dir`,
/// `$CAMPAIGN_TRACE_DIR`, then `./traces`; downloading missing archive traces into the
/// first when `inputs.fetch`), loads its workloads and plans its runs. `memos`: what
/// loading does with the cache's trace memos (a plan writes none, a run remembers the
/// traces it reads, a report also keys a missing trace's runs by them). `notice` hears
/// what the user should know (a download, a trace not found).
pub(crate) fn prepare(
    inputs: Inputs<'_>,
    registry: &Registry,
    memos: Memos<'_>,
    jobs: Jobs,
    notice: &mut dyn FnMut(String),
) -> Result<Prepared, PrepareError> {
    let (spec, grid) = load(inputs.spec, registry)?;
    let mut dirs = Vec::new();
    if let Some(d) = inputs.trace_dir {
        dirs.push((d.to_path_buf(), "--trace-dir"));
    }
    if let Some(d) = &spec.trace_dir {
        dirs.push((d.clone(), "the spec's trace_dir"));
    }
    if let Some(d) = std::env::var_os(TRACE_DIR_ENV).filter(|d| !d.is_empty()) {
        dirs.push((PathBuf::from(d), TRACE_DIR_ENV));
    }
    dirs.push((PathBuf::from("traces"), "default ./traces"));
    let locator = TraceLocator::new(dirs.clone());
    for (name, w) in &spec.workloads {
        let Some(trace) = w.source.get().trace() else {
            continue;
        };
        let Some(known) = archive_trace(trace) else {
            continue;
        };
        if locator.locate(trace).is_ok() {
            continue;
        }
        if inputs.fetch {
            let base = std::env::var(ARCHIVE_URL_ENV).unwrap_or_else(|_| ARCHIVE_URL.to_string());
            let dir = &dirs[0].0;
            notice(format!(
                "workload {name}: downloading {} into {}",
                known.url(&base),
                dir.display()
            ));
            fetch(known, &base, dir).map_err(|source| PrepareError::Fetch {
                workload: name.clone(),
                source,
            })?;
        } else {
            notice(format!(
                "workload {name}: trace {} is not in any trace directory; `--fetch` (or \
                 `campaign trace fetch {}`) downloads it from the archive",
                known.name, known.name
            ));
        }
    }
    let workloads = load_workloads(&spec, &locator, memos, jobs);
    let planned = plan(&spec, &grid, &workloads);
    Ok(Prepared {
        spec,
        grid,
        workloads,
        planned,
    })
}

impl Prepared {
    /// Which planned runs are selected: by the `--only` filters, then a shard.
    pub(crate) fn select(
        &self,
        filters: &[String],
        shard: Option<Shard>,
    ) -> Result<Vec<bool>, SpecError> {
        let selected = only(&self.spec, &self.grid, filters)?;
        Ok(match shard {
            Some(shard) => shard.select(&self.planned, &selected, &self.workloads),
            None => selected,
        })
    }
}

/// Where a campaign's outputs go: `out`, else `results/NAME`.
pub(crate) fn out_dir(spec: &Spec, out: Option<&Path>) -> PathBuf {
    out.map(Path::to_path_buf)
        .unwrap_or_else(|| Path::new("results").join(&spec.name))
}
