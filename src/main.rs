//! The `passivity-lab` command line: the binary edge, where errors become
//! messages (anyhow) and exit codes.

mod cli;

fn main() -> std::process::ExitCode {
    match cli::run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        // Its reader had what it wanted (`| head`).
        Err(e) if e.is::<cli::terminal::StdoutClosed>() => std::process::ExitCode::SUCCESS,
        Err(e) => {
            cli::terminal::tell(format_args!("error: {e:#}\n"));
            if e.is::<cli::interrupt::Interrupted>() {
                std::process::ExitCode::from(cli::interrupt::EXIT_CODE)
            } else {
                std::process::ExitCode::FAILURE
            }
        }
    }
}
