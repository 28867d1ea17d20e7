//! Jann, Pattnaik, Franke, Wang, Skovira & Riordan (1997), "Modeling of Workload in
//! MPPs" (JSSPP 1997, LNCS 1291): interarrival and service times per job-size class,
//! each a **hyper-Erlang distribution of common order** fitted to the first three
//! non-central moments of the Cornell Theory Center SP2 log (322 nodes, 25 June to
//! 12 September 1996, 17 440 jobs).
//!
//! One file per concept:
//!
//! - [`hyper_erlang`]: the distribution ([`HyperErlang`]) and its fit to three moments
//!   ([`fit`]);
//! - [`tables`]: the published tables 1–12 and the class schemes ([`Classes`]) and
//!   service times ([`Service`]) they are organised by;
//! - [`trace_fit`]: fitting a trace as the tables do ([`fit_trace`]);
//! - [`generator`]: the workload model ([`Jann97`]), drawing from the tables or from
//!   classes fitted to another trace.

pub mod generator;
pub mod hyper_erlang;
pub mod tables;
pub mod trace_fit;

pub use generator::{ClassModel, Jann97, Runtime, published_classes};
pub use hyper_erlang::{
    ERLANG_RTOL, Fit, FitError, HyperErlang, Kind, MAX_ORDER, P_ZERO, Sampler, e4, fit,
};
pub use tables::{
    Classes, E4_PRINTED, MOMENT_PRINTED, MomentRow, PARAM_PRINTED, PERCENT_PRINTED, ParamRow,
    Printed, Quantity, Service, TABLE_1, TABLE_2, TABLE_3, TABLE_4, TABLE_5, TABLE_6, TABLE_7,
    TABLE_8, TABLE_9, TABLE_10, TABLE_11, TABLE_12, moment_table, param_table,
};
pub use trace_fit::{
    ClassError, ClassFit, MERGE_SHARE, MIN_SAMPLES, SampleFit, TraceJob, fit_trace, format_fits,
};
