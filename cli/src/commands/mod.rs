//! One module per subcommand: its flags (with help and examples) and its adapter to the core.

pub mod cap;
pub mod check;
pub mod collect;
pub mod defaults;
pub mod explain;
pub mod matrix;
pub mod plan;
pub mod quota;
pub mod tpu;
pub mod worth_gpu;
