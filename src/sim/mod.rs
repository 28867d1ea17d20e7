//! The discrete-event simulator: [`simulate`] drives a [`Scheduler`] (which decides when
//! queued jobs start) and a [`Submitter`] (the replay model, which decides when jobs are
//! submitted) over a platform's nodes, and returns one [`JobRecord`] per job and the
//! [`EventLog`] of every submission, start and end in the order it processed them.
//!
//! Time is [`Time`](crate::time::Time) (integer milliseconds). Events at equal time are
//! processed in a fixed order: job completions first, then submissions, then scheduler
//! wake-ups, then kills the scheduler asked for; within a class by job id (then by
//! position in the workload). After all events of one instant, the scheduler makes one
//! pass. [`simulate_batsim`] delivers them as Batsim 4.2 does instead
//! ([`Delivery::Batsim`]): nanoseconds apart, in one call or several.
//!
//! A scheduler starts jobs; one that [decides](Scheduler::decides) more (an external
//! scheduler over Batsim's protocol) may also reject waiting jobs, kill running ones and
//! choose their node ids ([`NodeSet`]), and is told how each job ended.

mod engine;
mod events;
mod job;
mod nodes;
mod record;

pub use engine::{
    Context, Decisions, Ending, JobIdx, Scheduler, SimError, SimOutput, Submitter, simulate,
    simulate_batsim, simulate_within,
};
pub use events::{Event, EventLog, Happening, MAX_JOBS};
pub use job::{Delivery, JobView, Semantics, SimJob, WalltimePolicy, WalltimeScaling, prepare};
pub use nodes::{NodeSet, NodeSetError};
pub use record::{JobRecord, JobState};
