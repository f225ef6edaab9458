//! Host tests of the pages built on the advisor skeleton (cap, collect, prune, fidelity) and of every page's
//! "Try an example": the requests equal the CLI's, the pages render their answers (SSR `to_html`), and the
//! examples name fixtures that the build copies into the site.
#![cfg(not(target_arch = "wasm32"))]
#![recursion_limit = "256"]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use kgadvise_core::hardware::inference::{self, Budget, InferenceRequest};
use kgadvise_core::kernel::run_report::{self, CollectRequest};
use kgadvise_core::quota::cap::{self, CapRequest};
use kgadvise_core::quota::tpu::TpuRequest;
use kgadvise_core::quota::{self, QuotaRequest};
use kgadvise_core::stats::fidelity::{self, FidelityRequest};
use kgadvise_core::stats::prune::{self, PruneDecision, PruneRequest};
use kgadvise_web::browser::HOST_NOW;
use kgadvise_web::components::advisor::{AdvisorSpec, Control, Inputs, Shown, field_hint};
use kgadvise_web::components::example::Example;
use kgadvise_web::components::site_file::SiteFile;
use kgadvise_web::pages::{
    EXAMPLES, bench as bench_page, cap as cap_page, collect, compare as compare_page,
    defaults as defaults_page, fidelity as fidelity_page, inference as inference_page,
    kernel as kernel_page, prune as prune_page, quota as quota_page, tpu as tpu_page,
    worth_gpu as worth_gpu_page,
};
use kgadvise_web::query::Query;
use kgadvise_web::{AppWith, PAGES};
use leptos::prelude::*;

fn render(search: &str) -> String {
    let owner = Owner::new();
    owner.with(|| view! { <AppWith initial=Query::parse(search) /> }.to_html())
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures")
}

fn fixture(path: &str) -> String {
    let p = fixtures().join(path);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The inputs of a page as its example fills them: the example's files read from tests/fixtures.
fn example_inputs(spec: &'static AdvisorSpec) -> Inputs {
    let texts: Vec<(&'static str, String)> = spec
        .example
        .files
        .iter()
        .map(|(field, path)| (*field, fixture(path)))
        .collect();
    let texts: Vec<(&'static str, &str)> = texts.iter().map(|(f, t)| (*f, t.as_str())).collect();
    Inputs::new(spec, &texts, spec.example.typed)
}

fn rules_of(findings: &[kgadvise_core::Finding]) -> BTreeSet<String> {
    findings.iter().map(|f| f.rule.clone()).collect()
}

// ---------- Try an example ----------

/// web/examples.txt: the fixture paths the build copies into the site's examples/ folder.
fn copied_examples() -> BTreeSet<String> {
    let list = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples.txt");
    std::fs::read_to_string(&list)
        .unwrap_or_else(|e| panic!("{}: {e}", list.display()))
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect()
}

#[test]
fn the_examples_name_exactly_the_copied_fixtures() {
    let named: BTreeSet<String> = EXAMPLES
        .iter()
        .flat_map(|(_, e)| e.files.iter().map(|(_, p)| p.to_string()))
        .collect();
    assert_eq!(
        named,
        copied_examples(),
        "web/examples.txt must list exactly the files the pages' examples fetch"
    );
    for path in &named {
        assert!(
            fixtures().join(path).is_file(),
            "tests/fixtures/{path} is missing"
        );
    }
}

/// Every page on the skeleton.
const SPECS: &[&AdvisorSpec] = &[
    &bench_page::SPEC,
    &cap_page::SPEC,
    &collect::SPEC,
    &compare_page::SPEC,
    &defaults_page::SPEC,
    &fidelity_page::SPEC,
    &inference_page::SPEC,
    &kernel_page::SPEC,
    &prune_page::SPEC,
    &quota_page::SPEC,
    &tpu_page::SPEC,
    &worth_gpu_page::SPEC,
];

fn site_field_docs() -> SiteFile {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("field-docs.json");
    SiteFile::read(&std::fs::read(&path).unwrap())
}

/// Every typed text control's and every box's hint is its request field's doc comment, from the site's
/// field-docs.json (web/field-docs.json, kept fresh by the tests crate's `surfaces`); a box adds only
/// what the page itself does (its `note`).
#[test]
fn every_typed_control_has_its_request_fields_doc_as_hint() {
    let docs = site_field_docs();
    let mut controls = 0;
    for spec in SPECS {
        let text_fields = spec
            .typed
            .iter()
            .filter(|t| matches!(t.control, Control::Text { .. }))
            .map(|t| t.field);
        for field in text_fields.chain(spec.boxes.iter().map(|b| b.field)) {
            let hint = field_hint(&docs, spec.command, field);
            assert!(!hint.is_empty(), "{} {field}: no doc", spec.command);
            assert!(!hint.contains('\n') && !hint.contains("  "), "{hint}");
            controls += 1;
        }
    }
    assert!(controls >= 45, "{controls}");
    assert_eq!(
        field_hint(&docs, "cap", "measured"),
        "Measured runtime of a kernel of your own, hours."
    );
    // While the file loads, or when it cannot be read, the control has no hint (it works without one).
    assert_eq!(field_hint(&SiteFile::Loading, "cap", "measured"), "");
    assert_eq!(
        field_hint(&SiteFile::Failed("HTTP 404".into()), "cap", "measured"),
        ""
    );
    assert_eq!(field_hint(&docs, "cap", "no-such-field"), "");
}

/// The hand-built pages (diagnose, plan) take their controls' hints from the same file: every input
/// and box they show is a field of their request with a doc.
#[test]
fn the_hand_built_pages_controls_have_their_fields_docs() {
    let docs = site_field_docs();
    for (page, command, boxes) in [
        ("diagnose", "diagnose", [("log-paste", "log")]),
        ("plan", "plan", [("quota-paste", "quota")]),
    ] {
        let html = render(&format!("?page={page}"));
        let inputs: Vec<&str> = html
            .split("<input id=\"")
            .skip(1)
            .filter_map(|rest| rest.split('"').next())
            .collect();
        assert!(inputs.len() >= 5, "{page}: {inputs:?}");
        for field in inputs {
            assert!(
                !field_hint(&docs, command, field).is_empty(),
                "{page}: the control {field} is no field of `{command}` with a doc"
            );
            assert!(
                html.contains(&format!("aria-describedby=\"{field}-hint\"")),
                "{page} {field}"
            );
        }
        for (id, field) in boxes {
            assert!(
                html.contains(&format!("<textarea id=\"{id}\"")),
                "{page}: {id}"
            );
            assert!(
                !field_hint(&docs, command, field).is_empty(),
                "{page} {field}"
            );
        }
    }
}

#[test]
fn every_page_has_an_example() {
    let with: Vec<&str> = EXAMPLES.iter().map(|(k, _)| *k).collect();
    let pages: Vec<&str> = PAGES.iter().map(|(k, _)| *k).collect();
    assert_eq!(with, pages, "one example per page, in the pages' order");
}

#[test]
fn every_example_button_is_on_its_page_and_named() {
    for (key, example) in EXAMPLES {
        let html = render(&format!("?page={key}"));
        assert!(
            html.contains("Try an example")
                && html.contains(r#"aria-describedby="try-example-what""#),
            "{key}: {html}"
        );
        assert!(
            html.contains(example.what.split(',').next().unwrap_or("")),
            "{key}"
        );
    }
}

#[test]
fn the_typed_examples_answer_on_their_pages() {
    // Pages without files answer from the example's URL alone: the link the button makes.
    for (key, example) in EXAMPLES.iter().filter(|(_, e)| e.files.is_empty()) {
        let typed: Vec<(&str, &str)> = example.typed.to_vec();
        let html = render(&kgadvise_web::query::href(key, &typed));
        assert!(html.contains(r#"id="answer""#), "{key}: {html}");
        assert!(!html.contains(r#"role="alert""#), "{key}: {html}");
    }
}

fn example_of(key: &str) -> &'static Example {
    EXAMPLES
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, e)| *e)
        .unwrap_or_else(|| panic!("no example for {key}"))
}

// ---------- cap ----------

fn cap_inputs(typed: &[(&'static str, &str)]) -> Inputs {
    Inputs::new(&cap_page::SPEC, &[], typed)
}

#[test]
fn cap_builds_the_cli_request_and_its_example_needs_two_sessions() {
    let r = cap_page::cap_request(&example_inputs(&cap_page::SPEC)).unwrap();
    assert_eq!(
        r,
        CapRequest {
            fold_hours: Some(4.0),
            folds: Some(7),
            ..CapRequest::default()
        },
        "the request of `kgadvise cap --fold-hours 4 --folds 7`"
    );
    let report = cap::cap(&r, HOST_NOW).unwrap();
    assert_eq!(report.sessions, 2);
    assert!(rules_of(&report.findings).contains("KQ021"));

    let r = cap_page::cap_request(&cap_inputs(&[
        ("measured", " 3.5 "),
        ("tpu", "true"),
        ("factor", "1.3"),
        ("gpus", "1"),
    ]))
    .unwrap();
    assert_eq!(
        r,
        CapRequest {
            measured: Some(3.5),
            tpu: true,
            factor: Some(1.3),
            gpus: Some(1),
            ..CapRequest::default()
        }
    );
}

#[test]
fn cap_errors_name_the_control() {
    let err = |typed: &[(&'static str, &str)]| match cap_page::cap_request(&cap_inputs(typed)) {
        Err(Shown::Error(e)) => e,
        other => panic!("{typed:?}: {other:?}"),
    };
    assert_eq!(
        err(&[("folds", "five")]),
        "Folds: expected a whole number such as 250000, got `five`"
    );
    assert_eq!(
        err(&[("measured", "3.5h")]),
        "Measured runtime (h): expected a number such as 1.5, got `3.5h`"
    );
    assert_eq!(
        err(&[("tpu", "maybe")]),
        "Session: expected TPU or GPU, got `maybe`"
    );
    // core's errors, said with the label of the control at fault
    let html = render("?page=cap&measured=-1");
    assert!(
        html.contains("Measured runtime (h) -1: expected a positive number of hours"),
        "{html}"
    );
    let html = render("?page=cap&foldHours=1.5");
    assert!(
        html.contains("Folds: expected the folds of the full CV"),
        "{html}"
    );
    let html = render("?page=cap");
    assert!(
        html.contains("Enter the measured hours of a kernel"),
        "{html}"
    );
}

#[test]
fn cap_page_shows_the_timeout_and_the_sessions() {
    let html = render("?page=cap&foldHours=4&folds=7");
    assert!(
        html.contains(r#"class="verdict-key timeout">43200<"#),
        "{html}"
    );
    assert!(
        html.contains("?page=rules&amp;id=KQ020") && html.contains("?page=rules&amp;id=KQ021"),
        "{html}"
    );
    assert!(
        html.contains("<label for=\"foldHours\">Hours per fold</label>"),
        "{html}"
    );
    let html = render("?page=cap&measured=3.5");
    assert!(html.contains(">17640<"), "{html}");
}

// ---------- inference ----------

#[test]
fn inference_builds_the_cli_request_and_its_example_runs_past_the_limit() {
    let r = inference_page::inference_request(&example_inputs(&inference_page::SPEC)).unwrap();
    assert_eq!(
        r,
        InferenceRequest {
            item_seconds: Some(0.9),
            test_items: Some(40000),
            timed_items: Some(40000),
            limit_hours: Some(9.0),
            platform: Some("t4x2".into()),
            ..InferenceRequest::default()
        },
        "the request of `kgadvise inference --item-seconds 0.9 --test-items 40000 --timed-items 40000 \
         --limit-hours 9 --platform t4x2`"
    );
    let report = inference::inference(&r, HOST_NOW).unwrap();
    assert_eq!(report.budget, Budget::OverLimit);
    assert!(rules_of(&report.findings).contains("KH020"));
    assert!(!report.fixes.is_empty(), "the defaults to apply are shown");
}

#[test]
fn inference_page_shows_the_budget_and_names_the_control_at_fault() {
    let html = render(
        "?page=inference&itemSeconds=0.9&testItems=40000&timedItems=40000&limitHours=9&platform=t4x2",
    );
    assert!(html.contains(">over-limit<"), "{html}");
    assert!(html.contains("?page=rules&amp;id=KH020"), "{html}");
    assert!(
        html.contains("<label for=\"itemSeconds\">Seconds per item</label>"),
        "{html}"
    );
    let html = render("?page=inference&itemSeconds=0.5&testItems=1000&limitHours=-1");
    assert!(
        html.contains("Run-time limit (h) -1: expected a positive number of hours"),
        "{html}"
    );
    assert!(!html.contains("verdict-key"), "{html}");
    let html = render("?page=inference");
    assert!(html.contains("Enter the seconds per item"), "{html}");
}

// ---------- collect ----------

#[test]
fn collect_builds_the_cli_request_and_its_example_has_a_failed_fold() {
    let inputs = example_inputs(&collect::SPEC);
    let r = collect::collect_request(&inputs).unwrap();
    assert_eq!(
        r,
        CollectRequest {
            report: fixture(example_of("collect").files[0].1),
            ..CollectRequest::default()
        }
    );
    let report = run_report::collect(&r, HOST_NOW).unwrap();
    assert!(
        rules_of(&report.findings).contains("KR007"),
        "{:?}",
        report.findings
    );
    assert_eq!(report.folds_done, 3);

    let empty = Inputs::new(&collect::SPEC, &[("report", " \n")], &[]);
    assert_eq!(
        collect::collect_request(&empty),
        Err(Shown::Need(
            "Paste or drop kgkit's kg_run.json, or Kaggle's status and the kernel's log."
        ))
    );
    // a report that is not kg_run.json: core's error, named by the box's label
    let bad = Inputs::new(&collect::SPEC, &[("report", "[1, 2]")], &[]);
    let e = run_report::collect(&collect::collect_request(&bad).unwrap(), HOST_NOW).unwrap_err();
    assert_eq!(
        bad.error(&e),
        Shown::Error(format!("kg_run.json: {}", e.message))
    );
}

#[test]
fn collect_page_asks_for_the_report_or_the_status_and_log() {
    let html = render("?page=collect");
    assert!(
        html.contains("Paste or drop kgkit&#x27;s kg_run.json, or Kaggle&#x27;s status")
            || html.contains("Paste or drop kgkit's kg_run.json, or Kaggle's status"),
        "{html}"
    );
    for (id, label) in [
        ("report-paste", "kg_run.json"),
        ("status-paste", "Kaggle&#x27;s status (optional)"),
        ("log-paste", "The kernel&#x27;s log (optional)"),
    ] {
        assert!(html.contains(&format!(r#"id="{id}-file""#)), "{id}: {html}");
        assert!(
            html.contains(&format!("<label for=\"{id}\">{label}</label>"))
                || html.contains(&format!(
                    "<label for=\"{id}\">{}</label>",
                    label.replace("&#x27;", "'")
                )),
            "{id}: {html}"
        );
    }
    assert!(
        html.contains(r#"<label for="timeoutSeconds">-t of the push (s)</label>"#),
        "{html}"
    );
}

#[test]
fn collect_builds_the_cli_request_of_a_kernel_without_kg_run_json() {
    // `kgadvise collect --status status.txt --log effb0-512-infer.log --timeout-seconds 10800`
    let status = fixture("kernel/KR011/trigger/status.txt");
    let log = fixture("kernel/KR011/trigger/effb0-512-infer.log");
    let inputs = Inputs::new(
        &collect::SPEC,
        &[("status", &status), ("log", &log)],
        &[("timeoutSeconds", "10800")],
    );
    let r = collect::collect_request(&inputs).unwrap();
    assert_eq!(
        r,
        CollectRequest {
            status: Some(status),
            log: Some(log),
            timeout_seconds: Some(10800),
            ..CollectRequest::default()
        }
    );
    let report = run_report::collect(&r, HOST_NOW).unwrap();
    assert!(
        rules_of(&report.findings).contains("KR011"),
        "{:?}",
        report.findings
    );
    let bad = Inputs::new(
        &collect::SPEC,
        &[("status", "x")],
        &[("timeoutSeconds", "3 h")],
    );
    assert_eq!(
        collect::collect_request(&bad),
        Err(Shown::Error(
            "-t of the push (s): expected a whole number such as 250000, got `3 h`".into()
        ))
    );
}

// ---------- quota ----------

#[test]
fn quota_builds_the_cli_request_and_its_example_reserves_hours() {
    let r = quota_page::quota_request(&example_inputs(&quota_page::SPEC)).unwrap();
    assert_eq!(
        r,
        QuotaRequest {
            quota: fixture("quota/gpu_quota.json"),
            runs: Some(fixture("quota/gpu_runs.jsonl")),
            live: true,
            now: Some("2026-09-15T10:00:00Z".into()),
            ..QuotaRequest::default()
        },
        "the request of `kgadvise quota - --runs gpu_runs.jsonl --now 2026-09-15T10:00:00Z < gpu_quota.json`"
    );
    let report = quota::quota(&r, HOST_NOW).unwrap();
    let gpu = report.gpu.as_ref().unwrap();
    assert_eq!(gpu.reservations.len(), 2);
    assert!(rules_of(&report.findings).contains("KQ004"));
    // a time it was read makes the figure not live, as --read-at does
    let read = Inputs::new(
        &quota_page::SPEC,
        &[("quota", "GPU 1h 29h 30h")],
        &[("readAt", "2026-09-15")],
    );
    let r = quota_page::quota_request(&read).unwrap();
    assert_eq!((r.live, r.read_at.as_deref()), (false, Some("2026-09-15")));
    let html = render("?page=quota");
    assert!(
        html.contains("Paste or drop the output of `kaggle quota`."),
        "{html}"
    );
    assert!(html.contains(r#"id="runs-paste-file""#), "{html}");
}

// ---------- tpu ----------

#[test]
fn tpu_builds_the_cli_request_and_shows_the_choice() {
    let r = tpu_page::tpu_request(&example_inputs(&tpu_page::SPEC)).unwrap();
    assert_eq!(
        r,
        TpuRequest {
            t4_hours: Some(30.0),
            gpu_plannable: Some(4.0),
            now: Some("2026-09-15T10:00:00Z".into()),
            ..TpuRequest::default()
        },
        "the request of `kgadvise tpu --t4-hours 30 --gpu-plannable 4 --now 2026-09-15T10:00:00Z`"
    );
    let html = render("?page=tpu&t4Hours=30&gpuPlannable=4&now=2026-09-15T10:00:00Z");
    assert!(
        html.contains(r#"<span class="verdict-key">TPU</span>"#),
        "{html}"
    );
    assert!(html.contains("?page=rules&amp;id=KQ030"), "{html}");
    let html = render("?page=tpu");
    assert!(
        html.contains("Enter the job&#x27;s hours on a T4 x2.")
            || html.contains("Enter the job's hours on a T4 x2."),
        "{html}"
    );
    let html = render("?page=tpu&t4Hours=-3");
    assert!(
        html.contains("Hours on a T4 x2"),
        "core's error names the control: {html}"
    );
}

// ---------- prune ----------

#[test]
fn prune_builds_the_cli_request_and_its_example_prunes() {
    let r = prune_page::prune_request(&example_inputs(&prune_page::SPEC)).unwrap();
    assert_eq!(
        r,
        PruneRequest {
            baseline: fixture("stats/curves/baseline_folds.json"),
            current: fixture("stats/curves/trailing.json"),
            ..PruneRequest::default()
        }
    );
    let report = prune::prune(&r, HOST_NOW).unwrap();
    assert_eq!(report.decision, PruneDecision::Prune, "{}", report.reason);

    let typed = Inputs::new(
        &prune_page::SPEC,
        &[("baseline", "{}"), ("current", "{}"), ("folds", "  ")],
        &[("margin", "0.004"), ("minFrac", "0.4")],
    );
    let r = prune_page::prune_request(&typed).unwrap();
    assert_eq!(
        (r.margin, r.min_frac, r.folds.as_deref()),
        (Some(0.004), Some(0.4), None)
    );
    let one = Inputs::new(&prune_page::SPEC, &[("baseline", "{}")], &[]);
    assert!(matches!(
        prune_page::prune_request(&one),
        Err(Shown::Need(_))
    ));
    let e = prune::prune(
        &PruneRequest {
            min_frac: Some(2.0),
            ..r
        },
        HOST_NOW,
    )
    .unwrap_err();
    assert_eq!(
        typed.error(&e),
        Shown::Error(
            "Earliest fraction of the schedule 2: expected a fraction between 0 and 1".into()
        )
    );
}

// ---------- fidelity ----------

#[test]
fn fidelity_builds_the_cli_request_from_its_example() {
    let r = fidelity_page::fidelity_request(&example_inputs(&fidelity_page::SPEC)).unwrap();
    assert_eq!(
        r,
        FidelityRequest {
            backlog: fixture("stats/fidelity_ideas.csv"),
            ..FidelityRequest::default()
        }
    );
    let report = fidelity::fidelity(&r, HOST_NOW).unwrap();
    assert_eq!(report.ideas, 7);
    let html = render("?page=fidelity");
    assert!(html.contains("Paste or drop the backlog CSV."), "{html}");
    assert!(
        html.contains(r#"for="backlog-paste-file""#),
        "a labelled file input: {html}"
    );
}

// ---------- the examples of the pages not built on the skeleton ----------

#[test]
fn the_plan_example_is_a_quota_close_to_its_reset() {
    use kgadvise_web::pages::plan::{PlanAnswer, PlanInputs, plan_answer};
    let example = example_of("plan");
    let typed = |key: &str| {
        example
            .typed
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.to_string())
    };
    let inputs = PlanInputs {
        deadline: typed("deadline"),
        fold_hours: typed("foldHours"),
        folds: typed("folds"),
        now: typed("now"),
        ..PlanInputs::default()
    };
    let quota = fixture(example.files[0].1);
    // the answer is the example's own time's, whatever the clock says
    let PlanAnswer::Report(r) = plan_answer(&inputs, &quota, HOST_NOW) else {
        panic!("no plan")
    };
    assert!(rules_of(&r.findings).contains("KQ003"), "{:?}", r.findings);
    assert_eq!(r.quota.gpu.as_ref().map(|g| g.hours_to_reset), Some(12.0));
}

#[test]
fn the_diagnose_example_has_an_idle_second_gpu() {
    use kgadvise_core::diagnose::{DiagnoseRequest, diagnose};
    let example = example_of("diagnose");
    assert_eq!(example.files[0].0, "log");
    let request = DiagnoseRequest {
        log: Some(fixture(example.files[0].1)),
        ..DiagnoseRequest::default()
    };
    let r = diagnose(&request, HOST_NOW).unwrap();
    assert!(rules_of(&r.findings).contains("KV004"), "{:?}", r.findings);
}
