//! The `tgsi` command: assemble, validate, format, encode, decode, run and
//! test TGSI shaders.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
