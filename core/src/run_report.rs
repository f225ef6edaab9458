//! After a run: `kgadvise collect kg_run.json` (spec §11).
