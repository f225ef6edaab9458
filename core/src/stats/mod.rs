//! Promotion, pruning and screen-fidelity statistics (spec rules.md §12; KG §3.3): `kgadvise compare`,
//! `kgadvise prune` and `kgadvise fidelity`. Pure: text in, seeds in, reports out; each advisor takes a
//! request ([`compare::CompareRequest`], [`prune::PruneRequest`], [`fidelity::FidelityRequest`]).

pub mod compare;
pub mod fidelity;
pub mod metrics;
pub mod prune;
pub mod table;
