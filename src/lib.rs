//! `campaign`: simulation studies of parallel-job schedulers, from workload traces.
//!
//! Layers, lowest first (a layer never imports a higher one): [`time`] and
//! [`quantile`], [`swf`],
//! [`workload`], [`shake`], [`platform`], [`sim`], [`sched`], [`replay`], [`metrics`], [`run`]
//! (one simulation end to end), and [`cli`] (command-line types → library calls).

pub(crate) mod choice;
pub mod quantile;

pub mod campaign;
pub mod cli;
pub mod metrics;
pub mod platform;
pub mod replay;
pub mod report;
pub mod run;
pub mod sched;
pub mod shake;
pub mod sim;
pub mod swf;
pub mod time;
pub mod workload;

pub use choice::{Choice, UnknownChoice};
