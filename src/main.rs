use std::process::ExitCode;

fn main() -> ExitCode {
    campaign::cli::main()
}
