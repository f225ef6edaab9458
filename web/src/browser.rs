//! The page's only contact with the browser: the clock, the location/history, the fatal-error banner,
//! local files (read in chunks, never uploaded) and the site's own files (fetched from its origin).
//! The clock, the location and the banner are fixed values or no-ops on the host, so host tests are
//! deterministic; the file reads are only called from browser events.

use chrono::{DateTime, NaiveDate, Utc};
use kgadvise_core::text::number::fixed;

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

/// A panic never leaves a silent blank page: log it to the console and show it in the banner. (The release
/// site compiles panics to a trap instead, scripts/build-site.sh; boot.js shows the banner for those.)
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        show_fatal(&info.to_string());
    }));
}

/// The bytes `[start, end)` of a local file (or any Blob), read in the page: nothing is uploaded.
pub async fn read_bytes(blob: &web_sys::Blob, start: f64, end: f64) -> Result<Vec<u8>, String> {
    let part = blob
        .slice_with_f64_and_f64(start, end)
        .map_err(js_message)?;
    let buffer = wasm_bindgen_futures::JsFuture::from(part.array_buffer())
        .await
        .map_err(js_message)?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// A file of the site (an example, rules-prose.json), fetched from the same origin, relative to the page
/// (the site works from any folder; offline the service worker answers it). The error says what went
/// wrong in a few words.
#[cfg(target_arch = "wasm32")]
pub async fn fetch_bytes(path: &str) -> Result<Vec<u8>, String> {
    use wasm_bindgen::JsCast;
    use wasm_bindgen_futures::JsFuture;
    let window = web_sys::window().ok_or("no window")?;
    let response = JsFuture::from(window.fetch_with_str(path))
        .await
        .map_err(|_| "the site did not answer")?
        .dyn_into::<web_sys::Response>()
        .map_err(|_| "not a response")?;
    if !response.ok() {
        return Err(format!("HTTP {}", response.status()));
    }
    let buffer = response.array_buffer().map_err(|_| "unreadable")?;
    let buffer = JsFuture::from(buffer).await.map_err(|_| "unreadable")?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// On the host (SSR tests) there is no site to fetch from: fetches are browser events.
#[cfg(not(target_arch = "wasm32"))]
pub async fn fetch_bytes(_path: &str) -> Result<Vec<u8>, String> {
    Err("site files are fetched in the browser".to_string())
}

#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    /// A `DataTransfer` whose `getData` leaves its text a JavaScript string: web-sys's binding copies it
    /// into wasm whole, which a paste of megabytes does not need at once (it is read in parts, `text_part`).
    type TextTransfer;
    #[wasm_bindgen(method, js_name = getData)]
    fn get_data(this: &TextTransfer, format: &str) -> js_sys::JsString;
}

/// The plain text a paste event carries, as the clipboard gave it (not yet copied into wasm).
pub fn pasted_text(ev: &web_sys::ClipboardEvent) -> Option<js_sys::JsString> {
    use wasm_bindgen::JsCast;
    let data = ev.clipboard_data()?;
    Some(data.unchecked_into::<TextTransfer>().get_data("text/plain"))
}

/// The value of an `input` event's element (the textarea) as the JavaScript string it is: no copy into
/// wasm, so a big text can be streamed as a big paste is.
pub fn input_text(ev: &web_sys::Event) -> Option<js_sys::JsString> {
    use wasm_bindgen::JsCast;
    let target = ev.target()?;
    js_sys::Reflect::get(&target, &wasm_bindgen::JsValue::from_str("value"))
        .ok()?
        .dyn_into()
        .ok()
}

/// The UTF-16 units `[start, end)` of a JavaScript string as Rust text, and where the part really ends:
/// one unit early when `end` would split a surrogate pair (a character outside the BMP), so parts read one
/// after another join into exactly the whole text.
pub fn text_part(text: &js_sys::JsString, start: u32, end: u32) -> (String, u32) {
    let end = end.min(text.length());
    let splits_pair = end > start
        && end < text.length()
        && (f64::from(0xD800_u16)..f64::from(0xDC00_u16)).contains(&text.char_code_at(end - 1));
    let end = if splits_pair { end - 1 } else { end };
    (String::from(text.slice(start, end)), end)
}

/// Lets the browser run its event loop (render, input, a Cancel click) before the next chunk of work:
/// a zero-delay timer, so a whole task boundary passes, not just a microtask.
pub async fn yield_to_browser() {
    let promise = js_sys::Promise::new(&mut |resolve, _reject| {
        let scheduled = web_sys::window()
            .map(|w| w.set_timeout_with_callback(&resolve).is_ok())
            .unwrap_or(false);
        if !scheduled {
            let _ = resolve.call0(&wasm_bindgen::JsValue::NULL);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// The message of a JavaScript error (a failed file read), as text.
fn js_message(e: wasm_bindgen::JsValue) -> String {
    use wasm_bindgen::JsCast;
    match e.dyn_ref::<js_sys::Error>() {
        Some(err) => String::from(err.message()),
        None => e.as_string().unwrap_or_else(|| "unknown error".to_string()),
    }
}

/// A size for people: `812 bytes`, `12.3 KiB`, `95.4 MiB`.
pub fn size_text(bytes: f64) -> String {
    const KIB: f64 = 1024.0;
    if bytes < KIB {
        format!("{} bytes", fixed(bytes, 0))
    } else if bytes < KIB * KIB {
        format!("{} KiB", fixed(bytes / KIB, 1))
    } else {
        format!("{} MiB", fixed(bytes / (KIB * KIB), 1))
    }
}
