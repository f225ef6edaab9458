//! `kgadvise`: the command line, all of it in the crate's library (`kgadvise_cli::main`), so the tests
//! build this same file as their binary (tests/Cargo.toml) on top of the same library.

fn main() -> std::process::ExitCode {
    kgadvise_cli::main()
}
