//! The page's only contact with the browser: the clock, the location/history, and the fatal-error banner.
//! Everything here is a no-op (or a fixed value) on the host, so host tests are deterministic.

use chrono::{DateTime, NaiveDate, Utc};

/// Today's date for staleness checks: the browser clock in wasm, a fixed day on the host.
#[cfg(target_arch = "wasm32")]
pub fn today() -> NaiveDate {
    let d = js_sys::Date::new_0();
    NaiveDate::from_ymd_opt(d.get_full_year() as i32, d.get_month() + 1, d.get_date())
        .unwrap_or(HOST_TODAY)
}

/// Today's date for staleness checks: the browser clock in wasm, a fixed day on the host.
#[cfg(not(target_arch = "wasm32"))]
pub fn today() -> NaiveDate {
    HOST_TODAY
}

/// The fixed "today" of host tests (and the fallback should the browser clock be unreadable).
pub const HOST_TODAY: NaiveDate = match NaiveDate::from_ymd_opt(2026, 11, 30) {
    Some(d) => d,
    None => NaiveDate::MIN,
};

/// The current instant (quota resets, deadlines): the browser clock in wasm, a fixed instant on the host.
#[cfg(target_arch = "wasm32")]
pub fn now() -> DateTime<Utc> {
    DateTime::from_timestamp_millis(js_sys::Date::now() as i64).unwrap_or(HOST_NOW)
}

/// The current instant (quota resets, deadlines): the browser clock in wasm, a fixed instant on the host.
#[cfg(not(target_arch = "wasm32"))]
pub fn now() -> DateTime<Utc> {
    HOST_NOW
}

/// The fixed "now" of host tests: 2026-11-30T12:00:00Z.
pub const HOST_NOW: DateTime<Utc> = match DateTime::from_timestamp(1_796_040_000, 0) {
    Some(t) => t,
    None => DateTime::<Utc>::MIN_UTC,
};

/// The current `location.search` (empty on the host).
pub fn location_search() -> String {
    #[cfg(target_arch = "wasm32")]
    {
        web_sys::window()
            .and_then(|w| w.location().search().ok())
            .unwrap_or_default()
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        String::new()
    }
}

/// Writes the query string into the address bar: `push` adds a history entry (page changes), otherwise
/// the current entry is replaced (typing into an input).
pub fn write_location(search: &str, push: bool) {
    #[cfg(target_arch = "wasm32")]
    {
        let Some(window) = web_sys::window() else {
            return;
        };
        let current = window.location().search().unwrap_or_default();
        if current == search {
            return;
        }
        let url = if search.is_empty() {
            window.location().pathname().unwrap_or_else(|_| "./".into())
        } else {
            search.to_string()
        };
        if let Ok(history) = window.history() {
            let state = wasm_bindgen::JsValue::NULL;
            let _ = if push {
                history.push_state_with_url(&state, "", Some(&url))
            } else {
                history.replace_state_with_url(&state, "", Some(&url))
            };
        }
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = (search, push);
    }
}

/// Shows a message in the static `#fatal` banner of index.html (it survives a dead wasm instance).
pub fn show_fatal(message: &str) {
    #[cfg(target_arch = "wasm32")]
    {
        if let Some(el) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id("fatal"))
        {
            el.set_text_content(Some(&format!(
                "kgadvise hit an internal error and stopped; reload the page. Details: {message}"
            )));
            let _ = el.remove_attribute("hidden");
        }
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = message;
    }
}

/// A panic never leaves a silent blank page: log it to the console and show it in the banner.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        show_fatal(&info.to_string());
    }));
}
