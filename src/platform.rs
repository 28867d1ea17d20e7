//! The simulated machine: a homogeneous [`Platform`] (node count, node speed) and the
//! [`PlatformChange`]s of the 2024 paper (speed ×k, node count ×k).

use crate::time::Time;
use serde::Serialize;

/// A homogeneous platform. `speed` is relative to the platform the trace was recorded
/// on: at speed k a job's run time is its recorded run time / k (its amount of work,
/// run time × speed, is preserved).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct Platform {
    pub nodes: u32,
    pub speed: f64,
}

/// A change to a platform: node speed ×`speed`, node count ×`nodes` (rounded to the
/// nearest whole node). The identity change is `×1, ×1`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PlatformChange {
    pub speed: f64,
    pub nodes: f64,
}

/// An invalid platform or change.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PlatformError {
    #[error("the node count must be a positive integer, got {0}")]
    Nodes(String),
    #[error("the {what} must be a positive finite number, got {value}")]
    Factor { what: &'static str, value: f64 },
    #[error("{nodes} nodes × {factor} leaves no node")]
    NoNodeLeft { nodes: u32, factor: f64 },
    #[error("{nodes} nodes × {factor} makes more than {} nodes", u32::MAX)]
    TooManyNodes { nodes: u32, factor: f64 },
}

impl Platform {
    pub fn new(nodes: i64, speed: f64) -> Result<Platform, PlatformError> {
        let nodes = u32::try_from(nodes)
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| PlatformError::Nodes(nodes.to_string()))?;
        check_factor("node speed", speed)?;
        Ok(Platform { nodes, speed })
    }

    /// This platform after `change`.
    pub fn changed(self, change: PlatformChange) -> Result<Platform, PlatformError> {
        let scaled = (f64::from(self.nodes) * change.nodes).round();
        if scaled < 1.0 {
            return Err(PlatformError::NoNodeLeft {
                nodes: self.nodes,
                factor: change.nodes,
            });
        }
        if scaled > f64::from(u32::MAX) {
            return Err(PlatformError::TooManyNodes {
                nodes: self.nodes,
                factor: change.nodes,
            });
        }
        Ok(Platform {
            nodes: scaled as u32,
            speed: self.speed * change.speed,
        })
    }
}

impl PlatformChange {
    pub const NONE: PlatformChange = PlatformChange {
        speed: 1.0,
        nodes: 1.0,
    };

    pub fn new(speed: f64, nodes: f64) -> Result<PlatformChange, PlatformError> {
        check_factor("speed factor", speed)?;
        check_factor("node factor", nodes)?;
        Ok(PlatformChange { speed, nodes })
    }
}

fn check_factor(what: &'static str, value: f64) -> Result<(), PlatformError> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(PlatformError::Factor { what, value })
    }
}

/// How a platform turns a recorded run time and requested time into its own: each
/// divided by its divisor and rounded to the millisecond. The one place of this
/// arithmetic: the simulator prepares its jobs with it (`sim::prepare`) and shaking
/// keeps each job on its side of the kill with it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KillClock {
    /// The node speed factor.
    pub runtime_divisor: f64,
    /// 1, or the speed factor where the walltime scaling scales requests.
    pub request_divisor: f64,
}

impl KillClock {
    /// No platform change.
    pub const SAME: KillClock = KillClock {
        runtime_divisor: 1.0,
        request_divisor: 1.0,
    };

    /// A recorded run time on the platform.
    pub fn runtime(&self, recorded: Time) -> Time {
        recorded.div_f64(self.runtime_divisor)
    }

    /// A recorded requested time on the platform (the estimate, and the walltime at
    /// which a job is killed where jobs are).
    pub fn request(&self, recorded: Time) -> Time {
        recorded.div_f64(self.request_divisor)
    }

    /// Whether a job of this recorded run time and request outruns its request on the
    /// platform (is killed, where jobs are).
    pub fn outruns(&self, runtime: Time, request: Time) -> bool {
        self.runtime(runtime) > self.request(request)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_scale_nodes_and_speed() {
        let p = Platform::new(100, 1.0).unwrap();
        let c = PlatformChange::new(0.5, 2.0).unwrap();
        assert_eq!(
            p.changed(c).unwrap(),
            Platform {
                nodes: 200,
                speed: 0.5
            }
        );
        let half = PlatformChange::new(1.0, 0.5).unwrap();
        assert_eq!(
            Platform::new(5, 1.0).unwrap().changed(half).unwrap().nodes,
            3
        );
    }

    #[test]
    fn rejects_nonpositive_values() {
        assert!(Platform::new(0, 1.0).is_err());
        assert!(Platform::new(-3, 1.0).is_err());
        assert!(Platform::new(4, 0.0).is_err());
        assert!(PlatformChange::new(-2.0, 1.0).is_err());
        assert!(PlatformChange::new(1.0, f64::NAN).is_err());
        let tiny = PlatformChange::new(1.0, 0.1).unwrap();
        assert!(Platform::new(4, 1.0).unwrap().changed(tiny).is_err());
    }
}
