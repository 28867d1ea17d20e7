//! Batsim's event delivery (`delivery = "batsim"`, src/sim/engine/batsim_clock.rs)
//! against the recorded Batsim 4.2 + batsched session (`protocol-kth200.jsonl`: every
//! message between the two for KTH's first 200 jobs). Replaying batsched's recorded
//! replies, the simulator must call the scheduler as Batsim did, call for call: the
//! same events, in the same order, grouped the same way. The jobs are the session's
//! own (its SIMULATION_BEGINS profiles and JOB_SUBMITTED descriptions).

use campaign::sim::{Context, JobIdx, JobState, Scheduler, SimJob, Submitter, simulate_batsim};
use campaign::time::Time;
use serde_json::Value;
use std::collections::HashMap;

fn session() -> Vec<Value> {
    let path = crate::common::batsim_dir().join("protocol-kth200.jsonl");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Starts what batsched started, call for call, and notes what each call was told.
struct Replayed {
    /// Batsim's job ids (`w0!N`), by job index.
    ids: Vec<String>,
    replies: Vec<Vec<JobIdx>>,
    told: Vec<String>,
    calls: Vec<Vec<String>>,
}

impl Scheduler for Replayed {
    fn submitted(&mut self, job: JobIdx, _ctx: &Context<'_>) {
        self.told
            .push(format!("JOB_SUBMITTED:{}", self.ids[job as usize]));
    }
    fn ended(&mut self, job: JobIdx, _ctx: &Context<'_>) {
        self.told
            .push(format!("JOB_COMPLETED:{}", self.ids[job as usize]));
    }
    fn schedule(&mut self, _ctx: &Context<'_>, starts: &mut Vec<JobIdx>) -> Option<Time> {
        let call = self.calls.len();
        self.calls.push(std::mem::take(&mut self.told));
        if let Some(reply) = self.replies.get(call) {
            starts.extend(reply);
        }
        None
    }
}

/// Submits each job at its recorded time.
struct At(Vec<Time>);

impl Submitter for At {
    fn initial(&mut self, out: &mut Vec<(JobIdx, Time)>) {
        out.extend(self.0.iter().enumerate().map(|(i, &t)| (i as JobIdx, t)));
    }
    fn ended(&mut self, _: JobIdx, _: Time, _: JobState, _: &mut Vec<(JobIdx, Time)>) {}
}

#[test]
fn batsim_delivery_calls_the_scheduler_as_the_recorded_session() {
    let messages = session();
    let begins = &messages[0]["msg"]["events"][0]["data"];
    let profiles = &begins["profiles"]["w0"];
    let (mut jobs, mut ids, mut submits) = (Vec::new(), Vec::new(), Vec::new());
    let mut index = HashMap::new();
    // What Batsim sent (after SIMULATION_BEGINS, which the simulator answers itself)
    // and what batsched answered.
    let (mut recorded, mut replies) = (Vec::new(), Vec::new());
    for m in &messages[1..] {
        let events = m["msg"]["events"].as_array().unwrap();
        if m["dir"] == "batsim->sched" {
            let mut told = Vec::new();
            for e in events {
                let data = &e["data"];
                match e["type"].as_str().unwrap() {
                    "JOB_SUBMITTED" => {
                        let job = &data["job"];
                        let id = job["id"].as_str().unwrap().to_string();
                        let cpu = profiles[job["profile"].as_str().unwrap()]["cpu"]
                            .as_f64()
                            .unwrap();
                        let walltime = Time::from_millis(
                            (job["walltime"].as_f64().unwrap() * 1000.0).round() as i64,
                        );
                        index.insert(id.clone(), jobs.len() as JobIdx);
                        jobs.push(SimJob {
                            id: jobs.len() as i64,
                            user: 0,
                            size: job["res"].as_u64().unwrap() as u32,
                            // 1 Gflop/s hosts.
                            runtime: Time::from_millis((cpu / 1e9 * 1000.0).round() as i64),
                            estimate: walltime,
                            limit: Some(walltime),
                            recorded_wait: None,
                        });
                        submits.push(Time::from_millis(
                            (job["subtime"].as_f64().unwrap() * 1000.0).round() as i64,
                        ));
                        told.push(format!("JOB_SUBMITTED:{id}"));
                        ids.push(id);
                    }
                    "JOB_COMPLETED" => {
                        told.push(format!(
                            "JOB_COMPLETED:{}",
                            data["job_id"].as_str().unwrap()
                        ));
                    }
                    // A call of its own, with nothing to tell the scheduler.
                    "NOTIFY" => {}
                    "SIMULATION_ENDS" => continue,
                    other => panic!("unexpected event {other}"),
                }
            }
            if events.iter().all(|e| e["type"] != "SIMULATION_ENDS") {
                recorded.push(told);
            }
        } else {
            replies.push(
                events
                    .iter()
                    .map(|e| {
                        assert_eq!(e["type"], "EXECUTE_JOB");
                        index[e["data"]["job_id"].as_str().unwrap()]
                    })
                    .collect::<Vec<JobIdx>>(),
            );
        }
    }
    // The reply to SIMULATION_BEGINS started nothing.
    assert!(replies.remove(0).is_empty());
    assert_eq!(jobs.len(), 200);
    let mut scheduler = Replayed {
        ids,
        replies,
        told: Vec::new(),
        calls: Vec::new(),
    };
    let out = simulate_batsim(&jobs, 100, &mut scheduler, &mut At(submits)).unwrap();
    assert_eq!(
        out.records.iter().filter(|r| r.start.is_some()).count(),
        200
    );
    let first = scheduler
        .calls
        .iter()
        .zip(&recorded)
        .position(|(ours, theirs)| ours != theirs);
    assert_eq!(
        first,
        None,
        "call {:?} differs: ours {:?}, Batsim's {:?}",
        first,
        first.map(|i| &scheduler.calls[i]),
        first.map(|i| &recorded[i])
    );
    assert_eq!(scheduler.calls.len(), recorded.len());
}
