//! `campaign`: simulation studies of parallel-job schedulers, from workload traces.
//!
//! Layers, lowest first (a layer never imports a higher one; the table of
//! docs/contributing/architecture.md, which `tests/integration/layers.rs` checks):
//! [`time`], [`quantile`], `atomic` (files written whole or not at all), [`draw`]
//! (seeded random streams), [`regular`] and the small helpers; [`registry`] (the open
//! registries of schedulers, replay models and workload models); [`swf`];
//! [`platform`]; [`workload`]; [`shake`]; [`sim`]; [`sched`]; [`replay`];
//! [`metrics`]; `allocation` (node ids for a finished schedule); [`implementations`]
//! (the built-in [`Registry`]); [`run`] (one simulation end to end, described once by
//! a [`run::RunDescription`]); [`campaign`] (specs, grids, cache, runner); [`report`]
//! (polars tables) and [`cli`], the command line as a library call
//! ([`cli::main_with`]) that the `campaign` binary and a lab's own binary make.

pub(crate) mod choice;
pub(crate) mod fields;
pub mod quantile;
pub mod registry;
pub mod regular;
pub(crate) mod suggest;

pub(crate) mod allocation;
pub(crate) mod atomic;
pub mod campaign;
pub mod cli;
pub mod draw;
pub mod implementations;
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
pub use implementations::Registry;
