//! The `fable` command-line tool: set-up, inspection and the learning pipeline.
//! The subcommands and their dispatch live in the library ([`fable::cli`]).

fn main() -> std::process::ExitCode {
    fable::cli::main()
}
