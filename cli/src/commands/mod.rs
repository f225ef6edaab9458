//! One module per subcommand: its flags (with help and examples) and its adapter to the core.

pub mod compare;
pub mod defaults;
pub mod explain;
pub mod fidelity;
pub mod matrix;
pub mod prune;
pub mod worth_gpu;
