//! The discrete-event simulator: [`simulate`] drives a [`Scheduler`] (which decides when
//! queued jobs start) and a [`Submitter`] (the replay model, which decides when jobs are
//! submitted) over a platform's nodes, and returns one [`JobRecord`] per job and the
//! [`EventLog`] of every submission, start and end in the order it processed them.
//!
//! Time is [`Time`](crate::time::Time) (integer milliseconds). Events at equal time are
//! processed in a fixed order: job completions first, then submissions, then scheduler
//! wake-ups; within a class by job id (then by position in the workload). After all
//! events of one instant, the scheduler makes one pass.

mod engine;
mod events;
mod job;
mod record;

pub use engine::{
    Context, JobIdx, Scheduler, SimError, SimOutput, Submitter, simulate, simulate_within,
};
pub use events::{Event, EventLog, Happening, MAX_JOBS};
pub use job::{JobView, Semantics, SimJob, WalltimePolicy, WalltimeScaling, prepare};
pub use record::{JobRecord, JobState};
