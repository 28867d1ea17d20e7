//! Stopping on Ctrl-C (SIGINT) and SIGTERM ([`Stop`]): the first signal sets a flag
//! that the command checks between steps (no new run starts, runs under way finish
//! and are cached, a report not yet in place is dropped), and the command exits with
//! 128 + the signal's number (130, 143); a second signal ends the process at once with
//! that code.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The stop flag of a command, set by the first SIGINT or SIGTERM.
#[derive(Debug)]
pub(crate) struct Stop {
    flag: Arc<AtomicBool>,
    signal: Arc<AtomicUsize>,
}

impl Stop {
    /// Installs the handlers. Where they cannot be installed, the signals keep their
    /// default action (the process ends at once).
    pub(crate) fn install() -> Stop {
        use signal_hook::consts::{SIGINT, SIGTERM};
        let stop = Stop {
            flag: Arc::new(AtomicBool::new(false)),
            signal: Arc::new(AtomicUsize::new(0)),
        };
        for sig in [SIGINT, SIGTERM] {
            let code = 128 + sig;
            // In order: a second signal ends the process; the first sets the flag.
            let _ = signal_hook::flag::register_conditional_shutdown(sig, code, stop.flag.clone())
                .and_then(|_| {
                    signal_hook::flag::register_usize(sig, stop.signal.clone(), sig as usize)
                })
                .and_then(|_| signal_hook::flag::register(sig, stop.flag.clone()));
        }
        stop
    }

    /// The flag the library's loops check.
    pub(crate) fn flag(&self) -> &AtomicBool {
        &self.flag
    }

    /// The exit code to stop with (130 after SIGINT, 143 after SIGTERM), once a signal
    /// has come. (The flag set without a signal, by `--fail-fast`, is no interruption.)
    pub(crate) fn exit_code(&self) -> Option<u8> {
        match self.signal.load(Ordering::SeqCst) {
            0 => None,
            sig => Some((128 + sig).min(255) as u8),
        }
    }
}
