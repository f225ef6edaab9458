//! The kgadvise web advisor: a Leptos CSR page over `kgadvise-core`. Every page calls one core function and
//! renders the same report struct the CLI prints. The URL is the state (see [`query`]).
//!
//! Adding an advisor page: one file under `pages/`, one line in [`PAGES`], one arm in [`PageView`].

pub mod browser;
pub mod components;
pub mod pages;
pub mod query;

use leptos::prelude::*;

use crate::query::Query;

/// The pages: (`page=` key, tab label). The first one is the default page.
pub const PAGES: &[(&str, &str)] = &[
    ("matrix", "Hardware matrix"),
    ("defaults", "Domain defaults"),
    ("worth-gpu", "Is the GPU worth it?"),
    ("inference", "Inference time"),
    ("diagnose", "Diagnose"),
    ("plan", "Quota & plan"),
    ("quota", "Quota"),
    ("tpu", "TPU or GPU"),
    ("cap", "Session cap"),
    ("kernel", "Kernel check"),
    ("collect", "After a run"),
    ("compare", "Compare"),
    ("prune", "Prune a screen"),
    ("fidelity", "Screen fidelity"),
    ("bench", "Bench history"),
    ("rules", "Rule docs"),
];

/// The URL state shared by every page (provided by [`AppWith`]).
#[derive(Debug, Clone, Copy)]
pub struct UrlState {
    pub query: RwSignal<Query>,
}

impl UrlState {
    /// A tracked read of one input (`None` when absent or blank).
    pub fn value(&self, key: &str) -> Option<String> {
        self.query.with(|q| q.value(key))
    }

    /// A tracked read of one input as typed (for `<input>` values).
    pub fn raw(&self, key: &str) -> String {
        self.query
            .with(|q| q.get(key).unwrap_or_default().to_string())
    }

    /// Sets one input; the address bar follows (replaceState, in an Effect of [`AppWith`]).
    pub fn set(&self, key: &str, value: &str) {
        self.query.update(|q| q.set(key, value));
    }

    /// Goes to another page/answer, adding a history entry.
    pub fn navigate(&self, q: Query) {
        browser::write_location(&q.to_search(), true);
        self.query.set(q);
    }
}

/// The URL state of the current page. Components are only used inside [`AppWith`], which provides it.
pub fn use_url() -> UrlState {
    use_context::<UrlState>().unwrap_or_else(|| UrlState {
        query: RwSignal::new(Query::default()),
    })
}

/// The app as mounted in the browser: its state comes from the address bar.
#[component]
pub fn App() -> impl IntoView {
    view! { <AppWith initial=Query::parse(&browser::location_search()) /> }
}

/// The app for a given query string (host tests render this with a chosen query).
#[component]
pub fn AppWith(initial: Query) -> impl IntoView {
    let url = UrlState {
        query: RwSignal::new(initial),
    };
    provide_context(url);
    // URL is the state: every change of an input is written back to the address bar, and Back/Forward
    // restore the answer. (Browser only: on the host, pages are rendered once to HTML for the tests.)
    #[cfg(target_arch = "wasm32")]
    {
        Effect::new(move |_| {
            let search = url.query.with(|q| q.to_search());
            browser::write_location(&search, false);
        });
        let handle = window_event_listener(leptos::ev::popstate, move |_| {
            url.query.set(Query::parse(&browser::location_search()));
        });
        // A file dropped outside a drop zone must not replace the page (the browser would open it).
        let over = window_event_listener(leptos::ev::dragover, |ev| ev.prevent_default());
        let dropped = window_event_listener(leptos::ev::drop, |ev| ev.prevent_default());
        on_cleanup(move || {
            handle.remove();
            over.remove();
            dropped.remove();
        });
    }
    let page = Memo::new(move |_| url.query.with(|q| q.page()));
    view! {
        <header class="site">
            <p class="brand">
                <a href="?">"kgadvise"</a>
            </p>
            <p class="tagline">
                "Kaggle compute advice, computed in your browser: nothing you type or paste leaves this page."
            </p>
            <nav aria-label="Advisors">
                <ul>
                    {PAGES
                        .iter()
                        .map(|&(key, label)| view! { <NavTab key=key label=label current=page /> })
                        .collect_view()}
                </ul>
            </nav>
        </header>
        <main id="main">
            <PageView page=page />
        </main>
        <footer class="site">
            <p>
                "Same rules and answers as the "<code>"kgadvise"</code>" CLI. Today is taken as "
                {browser::today().to_string()} " for the age of the facts."
            </p>
        </footer>
    }
}

#[component]
fn NavTab(key: &'static str, label: &'static str, current: Memo<String>) -> impl IntoView {
    view! {
        <li>
            <components::AppLink
                href=query::href(key, &[])
                current=Signal::derive(move || current.get() == key)
            >
                {label}
            </components::AppLink>
        </li>
    }
}

/// One page per `page=` key; re-rendered only when the page changes, not on each keystroke.
#[component]
fn PageView(page: Memo<String>) -> impl IntoView {
    move || match page.get().as_str() {
        "matrix" => view! { <pages::matrix::MatrixPage /> }.into_any(),
        "defaults" => view! { <pages::defaults::DefaultsPage /> }.into_any(),
        "worth-gpu" => view! { <pages::worth_gpu::WorthGpuPage /> }.into_any(),
        "diagnose" => view! { <pages::diagnose::DiagnosePage /> }.into_any(),
        "kernel" => view! { <pages::kernel::KernelPage /> }.into_any(),
        "quota" => view! { <pages::quota::QuotaPage /> }.into_any(),
        "tpu" => view! { <pages::tpu::TpuPage /> }.into_any(),
        "cap" => view! { <pages::cap::CapPage /> }.into_any(),
        "inference" => view! { <pages::inference::InferencePage /> }.into_any(),
        "collect" => view! { <pages::collect::CollectPage /> }.into_any(),
        "prune" => view! { <pages::prune::PrunePage /> }.into_any(),
        "fidelity" => view! { <pages::fidelity::FidelityPage /> }.into_any(),
        "compare" => view! { <pages::compare::ComparePage /> }.into_any(),
        "plan" => view! { <pages::plan::PlanPage /> }.into_any(),
        "bench" => view! { <pages::bench::BenchPage /> }.into_any(),
        "rules" => view! { <pages::rules::RulesPage /> }.into_any(),
        other => {
            let known: Vec<&str> = PAGES.iter().map(|(k, _)| *k).collect();
            let message = format!("unknown page `{other}`; pages: {}", known.join(", "));
            view! { <components::ErrorBox message=message /> }.into_any()
        }
    }
}
