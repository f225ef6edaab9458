//! The part of the command line that other front ends share: running nvidia-smi ([`nvidia_smi`]). The
//! `kgadvise` binary (`main.rs`) uses it for `sample` and `bench`, and the Python wheel's extension
//! (`python/`) for `kgadvise.watch`, so a notebook samples exactly as `kgadvise sample` does.

pub mod nvidia_smi;
