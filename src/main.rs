//! The `campaign` binary: the command line ([`cli`]) over the library.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    cli::main()
}
