//! One module per subcommand: its flags (with help and examples) and its adapter to the core.

pub mod defaults;
pub mod diagnose;
pub mod explain;
pub mod matrix;
pub mod sample;
pub mod worth_gpu;
