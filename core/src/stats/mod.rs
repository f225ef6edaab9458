//! Promotion, pruning and screen-fidelity statistics (spec rules.md §12; KG §3.3): `kgadvise compare`,
//! `kgadvise prune` and `kgadvise fidelity`. Pure: text (and the bytes of kgkit's .npy artifacts) in,
//! seeds in, reports out; each advisor takes a
//! request ([`compare::CompareRequest`], [`prune::PruneRequest`], [`fidelity::FidelityRequest`]).

pub mod compare;
pub mod fidelity;
pub mod metrics;
pub mod npy;
pub mod prune;
pub mod table;
pub mod text;
