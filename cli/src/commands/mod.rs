//! One module per subcommand: its flags (with help and examples) and its adapter to the core.

pub mod bench;
pub mod cap;
pub mod check;
pub mod collect;
pub mod compare;
pub mod defaults;
pub mod diagnose;
pub mod explain;
pub mod fidelity;
pub mod inference;
pub mod log;
pub mod matrix;
pub mod plan;
pub mod prune;
pub mod push;
pub mod quota;
pub mod release;
pub mod sample;
pub mod status;
pub mod tpu;
pub mod wait;
pub mod worth_gpu;
