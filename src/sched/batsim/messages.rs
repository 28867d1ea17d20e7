//! Batsim 4's messages, as JSON: what this tool sends ([`Request`] of [`Event`]s, in
//! the shapes and field order Batsim 4.2 sends them) and what it reads back
//! ([`Reply`]).
//!
//! Every message is `{"now": t, "events": [{"timestamp": t, "type": …, "data": {…}}]}`,
//! times in seconds (floats).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The one workload's name: job ids are `w0!N`.
pub(super) const WORKLOAD: &str = "w0";
/// The one profile every job names (a job's run time is never told to the scheduler).
pub(super) const PROFILE: &str = "undisclosed";

/// A message to the scheduler.
#[derive(Debug, Serialize)]
pub(super) struct Request<'a> {
    pub now: f64,
    pub events: &'a [Event],
}

/// One event of a request.
#[derive(Debug, Clone, Serialize)]
pub(super) struct Event {
    pub timestamp: f64,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub data: Data,
}

/// An event's data, by event type.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub(super) enum Data {
    Begins(Box<Begins>),
    Submitted {
        job_id: String,
        job: JobDescription,
    },
    Completed {
        job_id: String,
        job_state: &'static str,
        return_code: i32,
        alloc: String,
    },
    Killed {
        job_ids: Vec<String>,
        job_progress: BTreeMap<String, Progress>,
    },
    Notify {
        #[serde(rename = "type")]
        kind: &'static str,
    },
    /// `{}` (REQUESTED_CALL, SIMULATION_ENDS).
    Empty {},
}

/// A job as JOB_SUBMITTED describes it (Batsim forwards the workload's own JSON; its
/// converter writes these fields).
#[derive(Debug, Clone, Serialize)]
pub(super) struct JobDescription {
    pub id: String,
    pub profile: &'static str,
    pub res: u32,
    pub subtime: f64,
    pub walltime: f64,
}

/// A killed job's progress (JOB_KILLED).
#[derive(Debug, Clone, Serialize)]
pub(super) struct Progress {
    pub profile: &'static str,
    pub progress: f64,
}

/// SIMULATION_BEGINS: the platform, Batsim's configuration, the workload.
#[derive(Debug, Clone, Serialize)]
pub(super) struct Begins {
    pub nb_resources: u32,
    pub nb_compute_resources: u32,
    pub nb_storage_resources: u32,
    pub allow_compute_sharing: bool,
    pub allow_storage_sharing: bool,
    pub config: BatsimOptions,
    pub compute_resources: Vec<Resource>,
    pub storage_resources: Vec<Resource>,
    pub workloads: BTreeMap<&'static str, String>,
    pub profiles: BTreeMap<&'static str, BTreeMap<&'static str, Empty>>,
}

impl Begins {
    /// The simulation of `workload` (its name, for the scheduler) on `nodes` machines.
    pub(super) fn new(nodes: u32, workload: String) -> Begins {
        let compute_resources = (0..nodes)
            .map(|id| Resource {
                id,
                name: format!("host{id}"),
                state: "idle",
                properties: Role { role: "" },
                zone_properties: Empty {},
            })
            .collect();
        Begins {
            nb_resources: nodes,
            nb_compute_resources: nodes,
            nb_storage_resources: 0,
            allow_compute_sharing: false,
            allow_storage_sharing: true,
            config: BatsimOptions::default(),
            compute_resources,
            storage_resources: Vec::new(),
            workloads: BTreeMap::from([(WORKLOAD, workload)]),
            profiles: BTreeMap::from([(
                WORKLOAD,
                // No `type`: pybatsim's scheduler API reads a profile of a type it
                // does not know through a constructor that fails (pybatsim 3.2.1,
                // `Profiles.Unknown(type=…)`), and one without a type as unknown.
                BTreeMap::from([(PROFILE, Empty {})]),
            )]),
        }
    }
}

/// Batsim's options as SIMULATION_BEGINS forwards them: Batsim 4.2's defaults (no
/// Redis, profiles not forwarded on submission, no dynamic jobs).
#[derive(Debug, Clone, Serialize)]
pub(super) struct BatsimOptions {
    #[serde(rename = "redis-enabled")]
    pub redis_enabled: bool,
    #[serde(rename = "redis-hostname")]
    pub redis_hostname: &'static str,
    #[serde(rename = "redis-port")]
    pub redis_port: u16,
    #[serde(rename = "redis-prefix")]
    pub redis_prefix: &'static str,
    #[serde(rename = "profiles-forwarded-on-submission")]
    pub profiles_forwarded_on_submission: bool,
    #[serde(rename = "dynamic-jobs-enabled")]
    pub dynamic_jobs_enabled: bool,
    #[serde(rename = "dynamic-jobs-acknowledged")]
    pub dynamic_jobs_acknowledged: bool,
    #[serde(rename = "profile-reuse-enabled")]
    pub profile_reuse_enabled: bool,
    #[serde(rename = "sched-config")]
    pub sched_config: &'static str,
    #[serde(rename = "forward-unknown-events")]
    pub forward_unknown_events: bool,
}

impl Default for BatsimOptions {
    fn default() -> BatsimOptions {
        BatsimOptions {
            redis_enabled: false,
            redis_hostname: "127.0.0.1",
            redis_port: 6379,
            redis_prefix: "default",
            profiles_forwarded_on_submission: false,
            dynamic_jobs_enabled: false,
            dynamic_jobs_acknowledged: false,
            profile_reuse_enabled: false,
            sched_config: "",
            forward_unknown_events: false,
        }
    }
}

/// A machine of the platform.
#[derive(Debug, Clone, Serialize)]
pub(super) struct Resource {
    pub id: u32,
    pub name: String,
    pub state: &'static str,
    pub properties: Role,
    pub zone_properties: Empty,
}

#[derive(Debug, Clone, Serialize)]
pub(super) struct Role {
    pub role: &'static str,
}

/// `{}`.
#[derive(Debug, Clone, Serialize)]
pub(super) struct Empty {}

/// A message from the scheduler. Fields beyond these are ignored.
#[derive(Debug, Deserialize)]
pub(super) struct Reply {
    pub now: f64,
    pub events: Vec<ReplyEvent>,
}

/// One event of a reply; its data is read by type ([`super::adapter`]).
#[derive(Debug, Deserialize)]
pub(super) struct ReplyEvent {
    pub timestamp: f64,
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub data: serde_json::Value,
}

/// `w0!N` for job index `N`.
pub(super) fn job_id(index: u32) -> String {
    format!("{WORKLOAD}!{index}")
}

/// The job index of `w0!N`, if it is one.
pub(super) fn job_index(id: &str) -> Option<u32> {
    let n = id.strip_prefix(WORKLOAD)?.strip_prefix('!')?;
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) || (n.len() > 1 && n.starts_with('0'))
    {
        return None;
    }
    n.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_ids_round_trip() {
        assert_eq!(job_id(0), "w0!0");
        assert_eq!(job_index("w0!0"), Some(0));
        assert_eq!(job_index("w0!199"), Some(199));
        for bad in [
            "w0!", "w0!01", "w1!3", "w0!-1", "w0!+1", "w0 !1", "w0!1x", "3",
        ] {
            assert_eq!(job_index(bad), None, "{bad}");
        }
    }

    /// The shapes, written out from Batsim's protocol documentation and the recorded
    /// session (field names, order and number types).
    #[test]
    fn events_serialize_as_batsim_sends_them() {
        let submitted = Event {
            timestamp: 172.0,
            kind: "JOB_SUBMITTED",
            data: Data::Submitted {
                job_id: job_id(1),
                job: JobDescription {
                    id: job_id(1),
                    profile: PROFILE,
                    res: 25,
                    subtime: 172.0,
                    walltime: 4976.5,
                },
            },
        };
        let request = Request {
            now: 172.0,
            events: &[submitted],
        };
        assert_eq!(
            serde_json::to_string(&request).unwrap(),
            r#"{"now":172.0,"events":[{"timestamp":172.0,"type":"JOB_SUBMITTED","data":{"job_id":"w0!1","job":{"id":"w0!1","profile":"undisclosed","res":25,"subtime":172.0,"walltime":4976.5}}}]}"#
        );
        let completed = Data::Completed {
            job_id: job_id(7),
            job_state: "COMPLETED_SUCCESSFULLY",
            return_code: 0,
            alloc: "0-3 7".into(),
        };
        assert_eq!(
            serde_json::to_string(&completed).unwrap(),
            r#"{"job_id":"w0!7","job_state":"COMPLETED_SUCCESSFULLY","return_code":0,"alloc":"0-3 7"}"#
        );
        let notify = Data::Notify {
            kind: "no_more_static_job_to_submit",
        };
        assert_eq!(
            serde_json::to_string(&notify).unwrap(),
            r#"{"type":"no_more_static_job_to_submit"}"#
        );
        assert_eq!(serde_json::to_string(&Data::Empty {}).unwrap(), "{}");
        let killed = Data::Killed {
            job_ids: vec![job_id(2)],
            job_progress: BTreeMap::from([(
                job_id(2),
                Progress {
                    profile: PROFILE,
                    progress: 0.5,
                },
            )]),
        };
        assert_eq!(
            serde_json::to_string(&killed).unwrap(),
            r#"{"job_ids":["w0!2"],"job_progress":{"w0!2":{"profile":"undisclosed","progress":0.5}}}"#
        );
        let begins = serde_json::to_value(Begins::new(2, "kth".into())).unwrap();
        let keys: Vec<&str> = begins
            .as_object()
            .unwrap()
            .keys()
            .map(|k| k.as_str())
            .collect();
        assert_eq!(keys.len(), 10);
        assert_eq!(
            begins["compute_resources"][1],
            serde_json::json!({"id": 1, "name": "host1", "state": "idle",
                "properties": {"role": ""}, "zone_properties": {}})
        );
        assert_eq!(begins["config"]["redis-enabled"], false);
        assert_eq!(
            begins["profiles"]["w0"]["undisclosed"],
            serde_json::json!({})
        );
    }
}
