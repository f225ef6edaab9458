//! The kgadvise command line: [`main`] gathers input (files, stdin, nvidia-smi, the clock), calls the core
//! and prints its report as text or JSON; everything that decides lives in kgadvise-core.
//!
//! [`nvidia_smi`] is the part other front ends share: `sample` and `bench` use it, and so does the Python
//! wheel's extension (`python/`) for `kgadvise.watch`, so a notebook samples exactly as `kgadvise sample`
//! does. The wheel builds this library without the feature `command-line` (the rest: clap, the
//! terminal's crates).

pub mod nvidia_smi;

#[cfg(feature = "command-line")]
mod child;
#[cfg(feature = "command-line")]
mod command_line;
#[cfg(feature = "command-line")]
mod commands;
#[cfg(feature = "command-line")]
mod kaggle_client;
#[cfg(feature = "command-line")]
mod live_view;
#[cfg(feature = "command-line")]
mod log_file;
#[cfg(feature = "command-line")]
mod output;
#[cfg(feature = "command-line")]
mod state_files;

#[cfg(feature = "command-line")]
pub use command_line::main;
