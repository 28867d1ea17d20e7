//! Batsim's transport: ZeroMQ request/reply, this tool holding the REQ socket that
//! Batsim holds, connected to the scheduler's REP socket at an endpoint chosen per
//! run ([`Transport`]).
//!
//! The endpoint is an `ipc://` socket file in the run's private temporary directory
//! (so that runs in parallel never meet), or, where that path would be too long for a
//! Unix socket, a free TCP port on the loopback interface. ZeroMQ is the pure-Rust
//! `zeromq` crate on a single-threaded tokio runtime owned by the run: each exchange
//! is one `block_on`, with no thread but the simulator's own.

use std::future::Future;
use std::process::ExitStatus;
use std::time::Duration;
use zeromq::{Socket, SocketRecv, SocketSend, ZmqMessage};

/// How often the scheduler's process is looked at while its reply is awaited.
const WATCH: Duration = Duration::from_millis(10);
/// The longest path of an `ipc://` endpoint (a Unix socket's path holds 107 bytes).
const IPC_PATH_MAX: usize = 100;

/// Why an exchange failed.
#[derive(Debug)]
pub(super) enum Failure {
    /// No reply within the timeout.
    Timeout,
    /// The process exited.
    Exited(ExitStatus),
    /// The connection failed or closed, or the reply was not one message.
    Broken(String),
}

/// The REQ side of one run's connection.
pub(super) struct Transport {
    runtime: tokio::runtime::Runtime,
    /// Connected on the first exchange.
    socket: Option<zeromq::ReqSocket>,
    endpoint: String,
    /// The run's private directory (holding the `ipc://` socket file), removed when
    /// dropped.
    dir: tempfile::TempDir,
}

impl std::fmt::Debug for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transport")
            .field("endpoint", &self.endpoint)
            .field("connected", &self.socket.is_some())
            .finish()
    }
}

impl Transport {
    /// A transport with a fresh endpoint (nothing connected yet).
    pub(super) fn new() -> std::io::Result<Transport> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()?;
        let dir = tempfile::Builder::new()
            .prefix("run-")
            .tempdir_in(super::tree::runs_dir()?)?;
        let socket = dir.path().join("scheduler");
        let endpoint = match socket.to_str() {
            Some(path) if path.len() <= IPC_PATH_MAX => format!("ipc://{path}"),
            _ => {
                // The port is free now; the scheduler binds it right away.
                let listener = std::net::TcpListener::bind(("127.0.0.1", 0))?;
                let port = listener.local_addr()?.port();
                format!("tcp://127.0.0.1:{port}")
            }
        };
        Ok(Transport {
            runtime,
            socket: None,
            endpoint,
            dir,
        })
    }

    /// Where the scheduler binds its REP socket.
    pub(super) fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// The run's private directory (removed with the transport).
    pub(super) fn dir(&self) -> &std::path::Path {
        self.dir.path()
    }

    /// Sends `request` and waits up to `timeout` for the reply (connecting first, on
    /// the first exchange); `exited` is asked every few milliseconds meanwhile, so that
    /// a scheduler that dies fails the exchange at once.
    pub(super) fn exchange(
        &mut self,
        request: Vec<u8>,
        timeout: Duration,
        mut exited: impl FnMut() -> Option<ExitStatus>,
    ) -> Result<Vec<u8>, Failure> {
        let Transport {
            runtime,
            socket,
            endpoint,
            ..
        } = self;
        runtime.block_on(async {
            let deadline = tokio::time::Instant::now() + timeout;
            if socket.is_none() {
                let mut fresh = zeromq::ReqSocket::new();
                watch(fresh.connect(endpoint), deadline, &mut exited)
                    .await?
                    .map_err(|e| Failure::Broken(format!("cannot connect to {endpoint}: {e}")))?;
                *socket = Some(fresh);
            }
            let Some(socket) = socket.as_mut() else {
                return Err(Failure::Broken("not connected".into()));
            };
            watch(
                socket.send(ZmqMessage::from(request)),
                deadline,
                &mut exited,
            )
            .await?
            .map_err(|e| Failure::Broken(format!("cannot send: {e}")))?;
            let reply = watch(socket.recv(), deadline, &mut exited)
                .await?
                .map_err(|e| Failure::Broken(format!("the connection closed: {e}")))?;
            match reply.len() {
                1 => Ok(reply.into_vec().remove(0).to_vec()),
                n => Err(Failure::Broken(format!(
                    "the reply has {n} parts; Batsim's protocol sends one"
                ))),
            }
        })
    }
}

/// `work` until it is done, the deadline passes or the process exits.
async fn watch<T>(
    work: impl Future<Output = T>,
    deadline: tokio::time::Instant,
    exited: &mut impl FnMut() -> Option<ExitStatus>,
) -> Result<T, Failure> {
    tokio::pin!(work);
    loop {
        tokio::select! {
            biased;
            out = &mut work => return Ok(out),
            () = tokio::time::sleep(WATCH) => {
                if let Some(status) = exited() {
                    return Err(Failure::Exited(status));
                }
                if tokio::time::Instant::now() >= deadline {
                    return Err(Failure::Timeout);
                }
            }
        }
    }
}

impl Drop for Transport {
    /// Closes the socket within the runtime that its tasks run on.
    fn drop(&mut self) {
        let _inside = self.runtime.enter();
        self.socket.take();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A REP socket (the `zeromq` crate's own) on another thread, answering each
    /// request with it reversed, `count` times.
    fn reverser(endpoint: String, count: usize) -> std::thread::JoinHandle<()> {
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async {
                let mut rep = zeromq::RepSocket::new();
                rep.bind(&endpoint).await.unwrap();
                for _ in 0..count {
                    let m = rep.recv().await.unwrap();
                    let mut bytes = m.get(0).unwrap().to_vec();
                    bytes.reverse();
                    rep.send(ZmqMessage::from(bytes)).await.unwrap();
                }
            });
        })
    }

    #[test]
    fn requests_get_their_replies() {
        let mut t = Transport::new().unwrap();
        assert!(t.endpoint().starts_with("ipc://"), "{}", t.endpoint());
        let server = reverser(t.endpoint().to_string(), 3);
        for word in ["abc", "hello", "x"] {
            let reply = t
                .exchange(word.as_bytes().to_vec(), Duration::from_secs(20), || None)
                .unwrap();
            let want: Vec<u8> = word.bytes().rev().collect();
            assert_eq!(reply, want);
        }
        server.join().unwrap();
    }

    /// Nobody binds the endpoint: the exchange gives up at its timeout (the connection
    /// is retried meanwhile, as a scheduler may take long to start).
    #[test]
    fn no_scheduler_times_out() {
        let mut t = Transport::new().unwrap();
        let started = std::time::Instant::now();
        let e = t
            .exchange(b"x".to_vec(), Duration::from_millis(200), || None)
            .unwrap_err();
        assert!(matches!(e, Failure::Timeout), "{e:?}");
        assert!(started.elapsed() >= Duration::from_millis(200));
    }
}
