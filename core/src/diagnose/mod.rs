//! Why is my run slow: every nvidia-smi output read into per-GPU summaries ([`nvsmi`]), and the run
//! verdicts of the bench rates and those summaries ([`verdict`]; rules `verdicts.toml`, KV).

pub mod nvsmi;
pub mod verdict;
