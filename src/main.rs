//! The `campaign` binary: the whole command line ([`campaign::cli::main_with`]) with the
//! built-in implementations.

use std::process::ExitCode;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    campaign::cli::main_with(campaign::Registry::builtin())
}
