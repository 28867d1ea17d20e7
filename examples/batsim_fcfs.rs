//! A minimal external scheduler speaking Batsim 4's protocol: strict FCFS on the
//! lowest free machines. It exists to measure what the protocol costs: it does next to
//! nothing but answer.
//!
//!     cargo build --release --example batsim_fcfs
//!     campaign simulate KTH-SP2-1996-2.1-cln --scheduler \
//!       '{ kind = "batsim", command = ["target/release/examples/batsim_fcfs", "{endpoint}"] }'
//!
//! With `BATSIM_FCFS_STATS=FILE` it writes, when the simulation ends, the messages it
//! answered and the CPU time its thread used (Linux: `/proc/thread-self/schedstat`).

use serde_json::{Value, json};
use std::collections::VecDeque;
use zeromq::{Socket, SocketRecv, SocketSend, ZmqMessage};

/// The scheduler's state: the queue, and which machines are free.
struct Fcfs {
    queue: VecDeque<(String, usize)>,
    free: Vec<bool>,
}

impl Fcfs {
    /// The lowest `count` free machines, taken, in interval-set syntax.
    fn take(&mut self, count: usize) -> String {
        let mut ids = Vec::with_capacity(count);
        for (m, free) in self.free.iter_mut().enumerate() {
            if ids.len() == count {
                break;
            }
            if *free {
                *free = false;
                ids.push(m);
            }
        }
        let mut words: Vec<String> = Vec::new();
        let mut i = 0;
        while i < ids.len() {
            let mut j = i;
            while j + 1 < ids.len() && ids[j + 1] == ids[j] + 1 {
                j += 1;
            }
            words.push(if i == j {
                ids[i].to_string()
            } else {
                format!("{}-{}", ids[i], ids[j])
            });
            i = j + 1;
        }
        words.join(" ")
    }

    fn give_back(&mut self, alloc: &str) {
        for word in alloc.split_whitespace() {
            let (a, b) = word.split_once('-').unwrap_or((word, word));
            let (a, b): (usize, usize) = (a.parse().unwrap_or(0), b.parse().unwrap_or(0));
            for m in a..=b {
                self.free[m] = true;
            }
        }
    }

    /// The reply to one request: `None` once the simulation has ended.
    fn answer(&mut self, request: &Value) -> (Value, bool) {
        let now = request["now"].as_f64().unwrap_or(0.0);
        let mut ended = false;
        for event in request["events"].as_array().into_iter().flatten() {
            let data = &event["data"];
            match event["type"].as_str().unwrap_or("") {
                "SIMULATION_BEGINS" => {
                    let n = data["nb_compute_resources"].as_u64().unwrap_or(0) as usize;
                    self.free = vec![true; n];
                }
                "JOB_SUBMITTED" => {
                    let id = data["job_id"].as_str().unwrap_or("").to_string();
                    let res = data["job"]["res"].as_u64().unwrap_or(0) as usize;
                    self.queue.push_back((id, res));
                }
                "JOB_COMPLETED" => self.give_back(data["alloc"].as_str().unwrap_or("")),
                "SIMULATION_ENDS" => ended = true,
                _ => {}
            }
        }
        let mut decisions = Vec::new();
        let mut free = self.free.iter().filter(|f| **f).count();
        while let Some((_, res)) = self.queue.front() {
            if *res > free {
                break;
            }
            let (id, res) = self.queue.pop_front().unwrap_or_default();
            free -= res;
            let alloc = self.take(res);
            decisions.push(json!({"timestamp": now, "type": "EXECUTE_JOB",
                "data": {"job_id": id, "alloc": alloc}}));
        }
        (json!({"now": now, "events": decisions}), ended)
    }
}

/// The CPU time this thread has used, in seconds (Linux).
fn cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(f64::NAN, |ns| ns / 1e9)
}

fn main() {
    let endpoint = std::env::args()
        .nth(1)
        .expect("usage: batsim_fcfs ENDPOINT");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let mut fcfs = Fcfs {
        queue: VecDeque::new(),
        free: Vec::new(),
    };
    let mut messages = 0u64;
    runtime.block_on(async {
        let mut socket = zeromq::RepSocket::new();
        socket.bind(&endpoint).await.expect("bind");
        loop {
            let request = socket.recv().await.expect("a request");
            let bytes = request.get(0).map(|b| b.to_vec()).unwrap_or_default();
            let request: Value = serde_json::from_slice(&bytes).expect("JSON");
            let (reply, ended) = fcfs.answer(&request);
            messages += 1;
            let text = serde_json::to_vec(&reply).expect("a reply");
            socket.send(ZmqMessage::from(text)).await.expect("send");
            if ended {
                break;
            }
        }
    });
    if let Some(path) = std::env::var_os("BATSIM_FCFS_STATS") {
        let line = format!("messages {messages} cpu_s {}\n", cpu_seconds());
        std::fs::write(path, line).expect("stats file");
    }
}
