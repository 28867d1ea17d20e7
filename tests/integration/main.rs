//! The one integration-test binary: drives the real `campaign` binary (assert_cmd) and
//! the library on real archive traces and tiny hand-checked fixtures.
#![allow(clippy::unwrap_used)]

mod bad_input;
mod batsched;
mod batsim;
mod batsim_clock;
mod campaign;
mod cleaning;
mod common;
mod docs;
mod evalys;
mod family;
mod figures;
mod fuzz;
mod layers;
mod models;
mod notebook;
mod own_scheduler;
mod presets;
mod processes;
mod properties;
mod reliability;
mod replay;
mod replay_cli;
mod replay_hand;
mod robustness;
mod run_options;
mod schedules;
mod scipy;
mod shaking;
mod shards;
mod slurm;
mod traces;
mod user_model_properties;
mod user_models;
