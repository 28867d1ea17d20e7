//! What a workload source gives: [`SourceSetup::load`] (each source's configuration
//! type implements it; `WorkloadSource` in the module root names one) gives a
//! [`LoadedWorkload`]: the jobs, the platform size they were recorded (or generated)
//! for, and the identity that a run's cache key and random draws are derived from.

use super::{CleaningPolicy, CleaningReport, TraceLocator, TraceNotFound, Workload};
use crate::swf::SwfError;
use serde::Serialize;
use std::path::PathBuf;

/// What a workload source's configuration does: load (or generate) the workload.
/// Implemented by each source's configuration type.
pub trait SourceSetup: std::fmt::Debug {
    /// The workload, found through `locator` where the source is a file.
    fn load(&self, locator: &TraceLocator) -> Result<LoadedWorkload, LoadError>;

    /// Makes the file paths it names relative to `dir` (a spec's directory).
    fn relative_to(&mut self, _dir: &std::path::Path) {}

    /// The trace it reads (an archive name or a path), if it reads one.
    fn trace(&self) -> Option<&str> {
        None
    }
}

/// A workload ready to run.
#[derive(Debug, Clone)]
pub struct LoadedWorkload {
    pub workload: Workload,
    /// Everything the jobs depend on: part of every run's cache key and of its draw
    /// seeds.
    pub identity: WorkloadIdentity,
    /// The platform size the workload was recorded on (or generated for), if it says.
    pub recorded_nodes: Option<u32>,
    /// Where it came from and what loading did, for the user.
    pub origin: Origin,
}

/// What a workload's jobs are a function of.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum WorkloadIdentity {
    /// An SWF trace: its content and the cleaning applied to it.
    Trace {
        /// blake3 (hex) of the trace's decompressed SWF text.
        trace_blake3: String,
        cleaning: CleaningPolicy,
    },
}

impl WorkloadIdentity {
    /// The canonical bytes that a run's random draws for seed number `seed` are derived
    /// from: the workload's identity and the seed number only (so every scheduler,
    /// platform, replay model and transform sees the same draws for a given seed).
    pub fn draw_material(&self, seed: u64) -> Vec<u8> {
        match self {
            WorkloadIdentity::Trace {
                trace_blake3,
                cleaning,
            } => {
                #[derive(Serialize)]
                struct Material<'a> {
                    trace_blake3: &'a str,
                    cleaning: &'a CleaningPolicy,
                    seed: u64,
                }
                // Plain structs, strings and numbers always serialize.
                serde_json::to_vec(&Material {
                    trace_blake3,
                    cleaning,
                    seed,
                })
                .unwrap_or_default()
            }
        }
    }
}

/// Where a loaded workload came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Origin {
    Trace {
        path: PathBuf,
        /// SWF records read.
        records: usize,
        /// Malformed lines skipped (lenient parsing only).
        skipped_lines: usize,
        cleaning: CleaningReport,
    },
}

impl Origin {
    /// A one-line description: the trace's path.
    pub fn describe(&self) -> String {
        match self {
            Origin::Trace { path, .. } => path.display().to_string(),
        }
    }
}

/// Why a workload cannot be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error(transparent)]
    NotFound(#[from] TraceNotFound),
    #[error(transparent)]
    Swf(#[from] SwfError),
}
