//! The site's generated data files, fetched when a page needs them instead of being held in the wasm (its
//! size budget): `rules-prose.json` (the rules' what / why / example, for the Rules page) and
//! `field-docs.json` (each request field's doc comment, the hint of a page's control for it). Both are
//! generated from core (tests keep the copies in `web/` fresh), copied into the site by trunk and cached by
//! the service worker, so they are there offline too.

use std::sync::Arc;

use leptos::prelude::*;

use crate::browser::fetch_bytes;

/// The rules' long prose: `kgadvise_core::explain::rules_prose_json`.
pub use kgadvise_core::explain::RULES_PROSE_FILE;
/// Each advisor's request fields' doc comments, by command and request key (`tests/src/surfaces.rs`).
pub const FIELD_DOCS_FILE: &str = "field-docs.json";

/// A data file of the site: loading, read (parsed once), or why it could not be.
#[derive(Debug, Clone)]
pub enum SiteFile {
    Loading,
    Loaded(Arc<serde_json::Value>),
    Failed(String),
}

impl SiteFile {
    /// The file's bytes as the page reads them: JSON, else why not.
    pub fn read(bytes: &[u8]) -> SiteFile {
        match std::str::from_utf8(bytes)
            .ok()
            .and_then(|text| serde_json::from_str(text).ok())
        {
            Some(value) => SiteFile::Loaded(Arc::new(value)),
            None => SiteFile::Failed("not the JSON the page expects".to_string()),
        }
    }
}

/// Reads the site file `path` into `file` (on the host, where nothing is fetched, it stays `Loading`).
pub fn load(path: &'static str, file: RwSignal<SiteFile>) {
    if cfg!(not(target_arch = "wasm32")) {
        return;
    }
    leptos::task::spawn_local(async move {
        let read = match fetch_bytes(path).await {
            Ok(bytes) => SiteFile::read(&bytes),
            Err(why) => SiteFile::Failed(why),
        };
        // The page may have been left meanwhile.
        let _ = file.try_set(read);
    });
}
