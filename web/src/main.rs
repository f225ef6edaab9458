//! The browser entry point: install the panic hook (console + visible banner), then mount the app.
#![recursion_limit = "256"]
fn main() {
    kgadvise_web::browser::install_panic_hook();
    leptos::mount::mount_to_body(kgadvise_web::App);
}
