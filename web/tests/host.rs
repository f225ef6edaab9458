//! Host tests of the web crate: the URL state, the view-model functions, and every page rendered to HTML
//! (SSR `to_html`, through the host-only leptos `ssr` dev-dependency). The browser tests (tests/browser/)
//! cover events and the real built site.
#![cfg(not(target_arch = "wasm32"))]
#![recursion_limit = "256"]

use kgadvise_core::hardware::domains::{self, DefaultsReport};
use kgadvise_core::hardware::grid;
use kgadvise_core::hardware::worth::{self, Choice, WorthGpuReport};
use kgadvise_web::browser::HOST_NOW;
use kgadvise_web::components::advisor::{Inputs, Shown};
use kgadvise_web::components::doc_text::{Block, Span, blocks, spans};
use kgadvise_web::components::findings::fix_first;
use kgadvise_web::components::inputs::parse_count;
use kgadvise_web::pages::defaults as defaults_page;
use kgadvise_web::pages::matrix::matrix_report;
use kgadvise_web::pages::rules::explain_answer;
use kgadvise_web::pages::worth_gpu as worth_page;
use kgadvise_web::query::{Query, href, rule_href};
use kgadvise_web::{AppWith, PAGES};
use leptos::prelude::*;

/// Every file of `tests/fixtures/realdata/<category>` (real samples written by others; provenance in its
/// SOURCES.md), sorted. Fails naming the folder when it is missing or empty, never passes vacuously.
fn realdata(category: &str) -> Vec<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/realdata")
        .join(category);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{} is empty", dir.display());
    files
}

fn render(search: &str) -> String {
    let owner = Owner::new();
    owner.with(|| view! { <AppWith initial=Query::parse(search) /> }.to_html())
}

// ---------- URL state ----------

#[test]
fn query_round_trips_and_escapes() {
    let q = Query::parse("?page=matrix&platform=t4x2&capability=bf16");
    assert_eq!(q.page(), "matrix");
    assert_eq!(q.get("platform"), Some("t4x2"));
    assert_eq!(q.to_search(), "?page=matrix&platform=t4x2&capability=bf16");
    let mut q = Query::for_page("rules", &[("id", "a b&c=d")]);
    assert_eq!(q.to_search(), "?page=rules&id=a+b%26c%3Dd");
    assert_eq!(Query::parse(&q.to_search()).get("id"), Some("a b&c=d"));
    q.set("id", "");
    assert_eq!(
        q.to_search(),
        "?page=rules",
        "an emptied input leaves the URL"
    );
    assert_eq!(
        Query::parse("").page(),
        "matrix",
        "the matrix is the default page"
    );
    assert_eq!(Query::parse("?page=%20").page(), "matrix");
    assert_eq!(Query::parse("?a=1&a=2").get("a"), Some("1"));
    assert_eq!(rule_href("KH001"), "?page=rules&id=KH001");
    assert_eq!(
        href("worth-gpu", &[("task", "gbdt"), ("rows", "5")]),
        "?page=worth-gpu&task=gbdt&rows=5"
    );
}

#[test]
fn counts_accept_separators_and_name_the_field() {
    assert_eq!(parse_count("rows", ""), Ok(None));
    assert_eq!(parse_count("rows", " 250_000 "), Ok(Some(250_000)));
    assert_eq!(parse_count("rows", "1,000,000"), Ok(Some(1_000_000)));
    let e = parse_count("rows", "12k").unwrap_err();
    assert!(e.contains("rows") && e.contains("`12k`"), "{e}");
    assert!(parse_count("rows", "-5").is_err());
}

// ---------- view models call the same core functions as the CLI ----------

#[test]
fn matrix_cell_and_table() {
    match matrix_report(Some("t4x2"), Some("bf16")).unwrap() {
        kgadvise_core::hardware::MatrixReport::Cell { cell, .. } => {
            assert_eq!(cell.support.as_str(), "no");
            assert!(cell.note.contains("fp16"), "{}", cell.note);
        }
        other => panic!("{other:?}"),
    }
    match matrix_report(None, None).unwrap() {
        kgadvise_core::hardware::MatrixReport::Table { cells, .. } => {
            let (cols, rows) = grid(&cells);
            assert_eq!(cols.len(), 6);
            assert_eq!(rows.len(), 10);
            assert!(rows.iter().all(|(_, _, r)| r.len() == 6));
        }
        other => panic!("{other:?}"),
    }
    let e = matrix_report(Some("t4"), None).unwrap_err();
    assert!(
        e.contains("unknown platform `t4`") && e.contains("t4x2, p100"),
        "{e}"
    );
}

/// The defaults page's answer to typed values: core's report, or the error the page shows.
fn defaults_report(typed: &[(&'static str, &str)]) -> Result<DefaultsReport, String> {
    let inputs = Inputs::new(&defaults_page::SPEC, &[], typed);
    let request = defaults_page::defaults_request(&inputs);
    let report =
        request.and_then(|r| domains::defaults(&r, HOST_NOW).map_err(|e| inputs.error(&e)));
    report.map_err(|shown| match shown {
        Shown::Error(e) => e,
        Shown::Need(n) => panic!("{typed:?} needs {n}"),
    })
}

#[test]
fn defaults_parse_their_numbers() {
    let r = defaults_report(&[("domain", "images"), ("platform", "t4x2")]).unwrap();
    assert!(
        r.always
            .iter()
            .any(|s| s.contains("fp16 autocast + GradScaler"))
    );
    let r = defaults_report(&[
        ("domain", "images"),
        ("platform", "linux"),
        ("cores", "16"),
        ("processes", "2"),
    ])
    .unwrap();
    assert!(
        r.always.iter().any(|s| s.contains("num_workers=8")),
        "{:?}",
        r.always
    );
    let e = defaults_report(&[
        ("domain", "images"),
        ("platform", "linux"),
        ("cores", "many"),
    ])
    .unwrap_err();
    assert!(e.contains("CPU cores") && e.contains("`many`"), "{e}");
    let e = defaults_report(&[("domain", "vision")]).unwrap_err();
    assert!(e.contains("unknown domain `vision`"), "{e}");
    let e = defaults_report(&[("domain", "images"), ("platform", "linux"), ("cores", "0")])
        .unwrap_err();
    assert!(
        e.contains("CPU cores") && e.contains("expected at least 1 CPU core"),
        "{e}"
    );
    let notes = defaults_report(&[("domain", "images")]).unwrap().notes;
    assert!(
        notes.iter().any(|n| n.id == "note.preprocess-off-quota"),
        "{notes:?}"
    );
    // no domain chosen: the first of the control's
    assert_eq!(
        defaults_report(&[]).unwrap().domain,
        defaults_page::DEFAULT_DOMAIN
    );
}

/// The page's answer to typed values: core's report, or what the page shows instead.
fn worth_answer(typed: &[(&'static str, &str)]) -> Result<WorthGpuReport, Shown> {
    let inputs = Inputs::new(&worth_page::SPEC, &[], typed);
    let request = worth_page::worth_request(&inputs)?;
    worth::worth_gpu(&request, HOST_NOW).map_err(|e| inputs.error(&e))
}

#[test]
fn worth_gpu_answers() {
    assert_eq!(
        worth_answer(&[("task", "gbdt")]).err(),
        Some(Shown::Need("Enter the number of training rows."))
    );
    assert_eq!(
        worth_answer(&[("task", "gbdt"), ("rows", "50000")]).map(|r| r.choice),
        Ok(Choice::Cpu)
    );
    assert_eq!(
        worth_answer(&[("task", "gbdt"), ("rows", "300000"), ("refits", "200")]).map(|r| r.choice),
        Ok(Choice::Gpu)
    );
    // no task chosen: the first of the control's, as the CLI's default
    assert_eq!(
        worth_answer(&[("rows", "50000")]).map(|r| r.task),
        Ok(worth_page::DEFAULT_TASK.to_string())
    );
    match worth_answer(&[("task", "gbdt"), ("rows", "lots")]) {
        Err(Shown::Error(e)) => assert!(e.contains("Rows: expected a whole number"), "{e}"),
        other => panic!("{other:?}"),
    }
    match worth_answer(&[("task", "gbdt"), ("rows", "5"), ("refits", "x")]) {
        Err(Shown::Error(e)) => assert!(e.starts_with("Refits: expected"), "{e}"),
        other => panic!("{other:?}"),
    }
    match worth_answer(&[("task", "xgb"), ("rows", "5")]) {
        Err(Shown::Error(e)) => assert!(e.contains("unknown task `xgb`"), "{e}"),
        other => panic!("{other:?}"),
    }
    let html = render("?page=worth-gpu&task=gbdt&rows=600000&refits=200");
    assert!(
        html.contains(r#"<span class="choice-key">gpu</span>"#),
        "{html}"
    );
    assert!(html.contains("?page=rules&amp;id=KH010"), "{html}");
    let html = render("?page=worth-gpu");
    assert!(
        html.contains("Enter the number of training rows."),
        "{html}"
    );
}

#[test]
fn explain_answers_and_suggests() {
    let e = explain_answer("kh001").unwrap();
    assert_eq!(e.rule, "KH001");
    let (msg, suggestions) = explain_answer("bf16.t4x2").unwrap_err();
    assert!(msg.contains("unknown rule"), "{msg}");
    assert!(suggestions.contains(&"matrix.bf16.t4x2".to_string()));
}

#[test]
fn findings_are_shown_fix_first() {
    use kgadvise_core::rulebook::ids::rule;
    use kgadvise_core::{Finding, Severity};
    let f = |rule, s| Finding::from_rule(rule, "e").with_severity(s);
    let sorted = fix_first(&[
        f(rule::KQ020, Severity::Info),
        f(rule::KQ021, Severity::Error),
        f(rule::KQ022, Severity::Warning),
    ]);
    let order: Vec<&str> = sorted.iter().map(|f| f.rule.as_str()).collect();
    assert_eq!(order, ["KQ021", "KQ022", "KQ020"]);
}

#[test]
fn doc_markup_is_split_into_blocks_and_spans() {
    let b = blocks("### What it checks\nline one\nline two\n\n### Thresholds\n- `a` = 1\n- b\n");
    assert_eq!(
        b,
        vec![
            Block::Heading("What it checks".into()),
            Block::Para("line one line two".into()),
            Block::Heading("Thresholds".into()),
            Block::List(vec!["`a` = 1".into(), "b".into()]),
        ]
    );
    assert_eq!(
        spans("x `c` **s** `open"),
        vec![
            Span::Text("x ".into()),
            Span::Code("c".into()),
            Span::Text(" ".into()),
            Span::Strong("s".into()),
            Span::Text(" `open".into()),
        ]
    );
}

// ---------- pages rendered to HTML ----------

#[test]
fn every_page_renders_with_its_nav() {
    for (key, label) in PAGES {
        let html = render(&href(key, &[]));
        assert!(html.contains(&label.replace('&', "&amp;")), "{key}: {html}");
        assert!(html.contains(r#"aria-current="page""#), "{key}");
        assert!(html.contains(r#"id="page-title""#), "{key}");
    }
    let html = render("?page=nope");
    assert!(html.contains("unknown page `nope`"), "{html}");
}

#[test]
fn matrix_page_renders_the_whole_table_with_conditions() {
    let html = render("");
    assert_eq!(html.matches("data-cell=").count(), 60, "6 x 10 cells");
    assert!(html.contains(r#"data-cell="bf16.t4x2""#));
    assert!(
        html.contains(r#"tabindex="0""#),
        "cells are keyboard-focusable"
    );
    assert!(
        html.contains("emulated"),
        "the bf16/T4 condition is in the cell's title"
    );
    assert!(
        html.contains("Kaggle machine shapes") && html.contains("TpuV5E8"),
        "{html}"
    );
    assert!(
        html.contains("?page=rules&amp;id=shape."),
        "shapes link to their docs"
    );
}

#[test]
fn matrix_page_answers_one_cell() {
    let html = render("?page=matrix&platform=t4x2&capability=bf16");
    assert!(html.contains("support-no"), "{html}");
    assert!(
        html.contains("?page=rules&amp;id=matrix.bf16.t4x2"),
        "{html}"
    );
    assert!(!html.contains("data-cell="), "no table for a single cell");
    let html = render("?page=matrix&platform=t4");
    assert!(
        html.contains(r#"role="alert""#) && html.contains("unknown platform `t4`"),
        "{html}"
    );
}

#[test]
fn defaults_page_shows_dropped_items_and_links_findings() {
    let html = render("?page=defaults&domain=images&platform=p100");
    assert!(html.contains("Left out on this platform"), "{html}");
    assert!(html.contains("torch.compile"), "{html}");
    assert!(
        html.contains("?page=rules&amp;id=KH001"),
        "findings link to their rule docs: {html}"
    );
    assert!(html.contains("?page=rules&amp;id=KH002"), "{html}");
    let html = render("?page=defaults&domain=images&platform=t4x2");
    assert!(
        html.contains("channels_last") && html.contains("GradScaler"),
        "{html}"
    );
    let html = render("?page=defaults&domain=images&platform=linux&cores=x");
    assert!(
        html.contains("CPU cores: expected a whole number"),
        "{html}"
    );
}

#[test]
fn worth_gpu_page_shows_the_choice() {
    let html = render("?page=worth-gpu&task=gbdt&rows=1000000");
    assert!(html.contains("choice-gpu"), "{html}");
    assert!(html.contains("?page=rules&amp;id=KH010"), "{html}");
    let html = render("?page=worth-gpu&task=gbdt");
    assert!(html.contains("Enter the number of training rows"), "{html}");
}

#[test]
fn rules_page_explains_an_id_and_lists_every_rule() {
    let html = render("?page=rules&id=KH004");
    // The page's build has no rule prose in its rule book: the page says it is loading it from the site
    // (which SSR never fetches); a workspace build with core's `rule-prose` shows it from the book.
    if kgadvise_core::explain::RULE_PROSE {
        assert!(html.contains("What it checks"), "{html}");
    } else {
        assert!(
            html.contains("Loading what KH004 checks, why it matters and its example…")
                && !html.contains("What it checks"),
            "{html}"
        );
    }
    assert!(
        html.contains("<h4>Fix</h4>") && html.contains("<h4>Source</h4>"),
        "{html}"
    );
    // An entry that is not a finding rule has no prose to load.
    let html = render("?page=rules&id=matrix.bf16.t4x2");
    assert!(!html.contains("Loading what"), "{html}");
    for r in kgadvise_core::rulebook().rules.iter() {
        assert!(
            html.contains(&format!("?page=rules&amp;id={}", r.id)),
            "index lacks {}",
            r.id
        );
    }
    let html = render("?page=rules&id=bf16.t4x2");
    assert!(
        html.contains("did you mean") && html.contains("matrix.bf16.t4x2"),
        "{html}"
    );
}

/// The site's rules-prose.json (web/rules-prose.json, fresh by `rules_data`) gives every rule's first
/// sections; loading, a failed fetch and a file without the rule are said, never a blank.
#[test]
fn rule_prose_comes_from_the_site_file_and_its_absence_is_said() {
    use kgadvise_web::components::site_file::SiteFile;
    use kgadvise_web::pages::rules::prose_sections;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("rules-prose.json");
    let file = SiteFile::read(&std::fs::read(&path).unwrap());
    for r in kgadvise_core::rulebook().rules.iter() {
        let doc = prose_sections(&file, &r.id).unwrap();
        assert!(
            doc.starts_with("### What it checks\n")
                && doc.contains("\n### Why it matters\n")
                && doc.contains("\n### Example\n"),
            "{}: {doc}",
            r.id
        );
        if kgadvise_core::explain::RULE_PROSE {
            assert!(kgadvise_core::explain::render_rule_doc(r).starts_with(&doc));
        }
    }
    let (problem, note) = prose_sections(&file, "KX999").unwrap_err();
    assert!(
        problem && note.contains("rules-prose.json has no text for KX999"),
        "{note}"
    );
    let (problem, note) = prose_sections(&SiteFile::Loading, "KH001").unwrap_err();
    assert!(
        !problem && note.starts_with("Loading what KH001 checks"),
        "{note}"
    );
    let (problem, note) =
        prose_sections(&SiteFile::Failed("HTTP 404".into()), "KH001").unwrap_err();
    assert!(
        problem && note.contains("could not be loaded (rules-prose.json: HTTP 404)"),
        "{note}"
    );
    let (problem, note) = prose_sections(&SiteFile::read(b"<html>"), "KH001").unwrap_err();
    assert!(
        problem && note.contains("not the JSON the page expects"),
        "{note}"
    );
}

#[test]
fn user_text_is_escaped_never_markup() {
    let html = render("?page=rules&id=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E");
    assert!(!html.contains("<img"), "{html}");
    assert!(html.contains("&lt;img"), "{html}");
    let html = render("?page=worth-gpu&task=gbdt&rows=%3Cb%3E");
    assert!(!html.contains("<b>"), "{html}");
}

// ---------- quota & plan ----------

use kgadvise_web::pages::plan::{PlanAnswer, PlanInputs, hours_field, plan_answer};

fn plan_inputs(pairs: &[(&str, &str)]) -> PlanInputs {
    let q = Query::for_page("plan", pairs);
    PlanInputs {
        deadline: q.value("deadline"),
        gpu: q.value("gpu"),
        tpu: q.value("tpu"),
        refresh: q.value("refresh"),
        reserved: q.value("reserved"),
        weekly: q.value("weekly"),
        fold_hours: q.value("fold_hours"),
        folds: q.value("folds"),
        screens: q.value("screens"),
        now: q.value("now"),
    }
}

#[test]
fn plan_from_typed_numbers_matches_the_core() {
    let now = kgadvise_web::browser::HOST_NOW;
    let i = plan_inputs(&[
        ("deadline", "2026-12-17"),
        ("gpu", "11"),
        ("refresh", "2026-12-05T00:00:00"),
    ]);
    match plan_answer(&i, "", now) {
        PlanAnswer::Report(r) => {
            assert_eq!(r.plannable_now, 11.0);
            assert_eq!(
                r.resets_before_deadline, 2,
                "Dec 5 and Dec 12 are before Dec 17"
            );
            assert!(!r.weeks.is_empty());
            assert_eq!(r.schema, "kgadvise.plan/1");
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        plan_answer(&plan_inputs(&[("gpu", "11")]), "", now),
        PlanAnswer::Need(_)
    ));
    assert!(matches!(
        plan_answer(&plan_inputs(&[("deadline", "2026-12-17")]), "", now),
        PlanAnswer::Need(_)
    ));
    match plan_answer(
        &plan_inputs(&[("deadline", "soon"), ("gpu", "11")]),
        "",
        now,
    ) {
        PlanAnswer::Error(e) => assert!(e.starts_with("Deadline:"), "{e}"),
        other => panic!("{other:?}"),
    }
    match plan_answer(
        &plan_inputs(&[("deadline", "2026-12-17"), ("gpu", "11"), ("folds", "5")]),
        "",
        now,
    ) {
        PlanAnswer::Error(e) => assert!(e.contains("go together"), "{e}"),
        other => panic!("{other:?}"),
    }
    assert!(
        hours_field("GPU hours remaining", Some("lots"))
            .unwrap_err()
            .starts_with("GPU hours remaining:")
    );
    assert_eq!(hours_field("x", Some("10.45h")), Ok(Some(10.45)));
}

#[test]
fn plan_from_a_pasted_quota_and_its_errors() {
    let now = kgadvise_web::browser::HOST_NOW;
    let table = "Resource  Used    Remaining  Total  RefreshAt\nGPU       19.00h  11.00h     30h    2026-12-05T00:00:00\n";
    let i = plan_inputs(&[("deadline", "2026-12-17")]);
    match plan_answer(&i, table, now) {
        PlanAnswer::Report(r) => assert_eq!(r.plannable_now, 11.0, "{:?}", r.quota),
        other => panic!("{other:?}"),
    }
    match plan_answer(&i, "what is this", now) {
        PlanAnswer::Error(e) => assert!(e.starts_with("pasted quota line 1:"), "{e}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn plan_page_draws_the_weeks() {
    let html = render("?page=plan&deadline=2026-12-17&gpuRemaining=11&foldHours=1.5&folds=5");
    let old = render("?page=plan&deadline=2026-12-17&gpu=11&fold_hours=1.5&folds=5");
    assert_eq!(
        old, html,
        "a link of the old keys (query::RENAMED) gives the same page"
    );
    assert!(
        html.contains("week-chart") && html.contains("<rect"),
        "{html}"
    );
    assert!(html.contains("Fold plan"), "{html}");
    assert!(html.contains("until 2026-12-17 23:59 UTC"), "{html}");
    let html = render("?page=plan&gpu=11");
    assert!(html.contains("Enter the deadline"), "{html}");
}

/// A week that overlaps the final seven days but whose hours the sentence counts in "explore with" is
/// drawn as exploration: only the last week is kept for the final week.
#[test]
fn plan_chart_draws_each_week_by_its_role() {
    let html = render("?page=plan&deadline=2026-12-17&gpu=11&refresh=2026-12-05T00:00:00");
    assert!(html.contains("explore with 41 h"), "{html}");
    assert_eq!(html.matches("bar bar-exploration").count(), 2, "{html}");
    assert_eq!(html.matches("bar bar-final-reserve").count(), 1, "{html}");
    assert!(html.contains("kept for the final week"), "{html}");
}

/// Every real quota sample pasted into the plan page gives a plan or a readable error, never a panic.
#[test]
fn every_real_quota_sample_plans_or_explains() {
    let now = kgadvise_web::browser::HOST_NOW;
    let files = realdata("kaggle-quota");
    assert!(files.len() >= 5, "{files:?}");
    let i = plan_inputs(&[("deadline", "2026-12-17")]);
    let mut plans = 0;
    for f in &files {
        let text = kgadvise_core::quota::decode_text(&std::fs::read(f).unwrap());
        match plan_answer(&i, &text, now) {
            PlanAnswer::Report(r) => {
                plans += 1;
                assert!(r.total_hours >= r.plannable_now, "{}", f.display());
            }
            PlanAnswer::Error(e) => assert!(!e.is_empty(), "{}", f.display()),
            PlanAnswer::Need(n) => panic!("{}: {n}", f.display()),
        }
    }
    assert!(plans >= 3, "most real samples have a GPU figure: {plans}");
}

// ---------- diagnose ----------

use kgadvise_web::pages::diagnose::{DiagnoseAnswer, DiagnoseForm, diagnose_answer};

/// The page's form with the given URL values.
fn diagnose_form(pairs: &[(&str, &str)]) -> DiagnoseForm {
    DiagnoseForm::of_url(|key| {
        pairs
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.to_string())
    })
}

#[test]
fn diagnose_a_pasted_log_and_typed_rates() {
    let log = "timestamp, index, name, utilization.gpu [%], memory.used [MiB], memory.total [MiB]\n\
               2026/11/01 00:00:00.000, 0, Tesla T4, 97, 9000, 15360\n\
               2026/11/01 00:00:00.000, 1, Tesla T4, 0, 3, 15360\n\
               2026/11/01 00:00:01.000, 0, Tesla T4, 98, 9000, 15360\n\
               2026/11/01 00:00:01.000, 1, Tesla T4, 0, 3, 15360\n\
               this line is garbage\n";
    let none = diagnose_form(&[]);
    match diagnose_answer(&none, log) {
        DiagnoseAnswer::Report(r) => {
            assert_eq!(r.schema, "kgadvise.diagnose/1");
            assert_eq!(r.gpus.len(), 2);
            assert!(!r.verdicts.is_empty());
            assert!(
                r.diagnostics.iter().any(|d| d.line == 6),
                "{:?}",
                r.diagnostics
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(diagnose_answer(&none, ""), DiagnoseAnswer::Need));
    let rates = diagnose_form(&[
        ("dataRate", "100"),
        ("computeRate", "1,000"),
        ("loopRate", "95"),
    ]);
    match diagnose_answer(&rates, "") {
        DiagnoseAnswer::Report(r) => {
            assert!(r.verdicts.contains(&"input-bound"), "{:?}", r.verdicts)
        }
        other => panic!("{other:?}"),
    }
    // Text that is not a number, and a number core refuses: each named by the label of its control.
    match diagnose_answer(&diagnose_form(&[("dataRate", "fast")]), "") {
        DiagnoseAnswer::Error(e) => {
            assert_eq!(e, "Data rate (samples/s): expected a number, got `fast`")
        }
        other => panic!("{other:?}"),
    }
    match diagnose_answer(&diagnose_form(&[("loopRate", "-5")]), "") {
        DiagnoseAnswer::Error(e) => assert_eq!(
            e,
            "Loop rate (samples/s) -5: expected a positive rate in samples/s"
        ),
        other => panic!("{other:?}"),
    }
    match diagnose_answer(&diagnose_form(&[("intervalS", "0")]), log) {
        DiagnoseAnswer::Error(e) => assert_eq!(
            e,
            "Sampling interval (s) 0: expected a positive number of seconds"
        ),
        other => panic!("{other:?}"),
    }
    // A header-less CSV read with the field list typed into the page.
    let headerless = "0, 55, 1200, 7\n0, 56, 1200, 7\n";
    match diagnose_answer(&none, headerless) {
        DiagnoseAnswer::Report(r) => assert!(r.gpus.is_empty(), "{:?}", r.gpus),
        other => panic!("{other:?}"),
    }
    let fields = diagnose_form(&[(
        "fields",
        "index,utilization.gpu,memory.used,temperature.gpu",
    )]);
    match diagnose_answer(&fields, headerless) {
        DiagnoseAnswer::Report(r) => assert_eq!(r.gpus[0].util_mean, Some(55.5)),
        other => panic!("{other:?}"),
    }
}

/// Every real nvidia-smi sample pasted into the page gives a report (never a panic).
#[test]
fn every_real_nvidia_smi_sample_is_diagnosed() {
    let samples = real_nvidia_smi_samples();
    for (name, bytes) in &samples {
        let text = String::from_utf8_lossy(bytes).into_owned();
        match diagnose_answer(&diagnose_form(&[]), &text) {
            DiagnoseAnswer::Report(r) => assert!(!r.verdicts.is_empty(), "{name}"),
            other => panic!("{name}: {other:?}"),
        }
    }
    assert!(samples.len() >= 10, "{}", samples.len());
}

/// Every real nvidia-smi sample of tests/fixtures/realdata (CSV, dmon, -q, the table): (path, bytes).
fn real_nvidia_smi_samples() -> Vec<(String, Vec<u8>)> {
    let mut samples = Vec::new();
    for cat in [
        "nvidia-smi-csv",
        "nvidia-smi-dmon",
        "nvidia-smi-query",
        "nvidia-smi-table",
    ] {
        for f in realdata(cat) {
            samples.push((f.display().to_string(), std::fs::read(&f).unwrap()));
        }
    }
    samples
}

/// A log the page reads in chunks (a dropped file, a big paste: the form's request without its log, the
/// bytes pushed into core's `Diagnoser`) gives the answer of the same log pasted, wherever the chunks are
/// cut: inside a line, inside a UTF-8 character, inside a UTF-16 unit; BOMs and CRLF included.
#[test]
fn a_log_in_chunks_gives_the_pasted_answer() {
    use kgadvise_core::diagnose::Diagnoser;

    let form = diagnose_form(&[("dataRate", "100"), ("loopRate", "90")]);
    let now = kgadvise_web::browser::now();
    let mut logs = real_nvidia_smi_samples();
    let l40s = "l40s-595.80_all-fields_header-units_load_nvgpuexp.csv";
    let csv = realdata("nvidia-smi-csv")
        .into_iter()
        .find(|p| p.ends_with(l40s))
        .map(|p| std::fs::read(p).unwrap())
        .unwrap_or_else(|| panic!("tests/fixtures/realdata/nvidia-smi-csv/{l40s} is missing"));
    let text = String::from_utf8_lossy(&csv).replace('\n', "\r\n");
    let mut utf16 = vec![0xFF, 0xFE];
    utf16.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    logs.push(("UTF-16LE, BOM, CRLF".into(), utf16.clone()));
    logs.push(("UTF-16LE, no BOM".into(), utf16[2..].to_vec()));
    let mut bom = b"\xEF\xBB\xBF".to_vec();
    bom.extend(text.replace("Tesla", "Tésla 😀").bytes());
    logs.push(("UTF-8 BOM, multibyte names".into(), bom));
    assert!(logs.len() >= 12, "{}", logs.len());
    for (name, bytes) in &logs {
        let pasted = kgadvise_core::text::decode_input(bytes);
        let DiagnoseAnswer::Report(whole) = diagnose_answer(&form, &pasted) else {
            panic!("{name}");
        };
        let whole = serde_json::to_string(&whole).unwrap();
        for size in [1, 3, 500, 4096, bytes.len().max(1)] {
            let mut d = Diagnoser::of(&form.request(None).unwrap(), now).unwrap();
            for chunk in bytes.chunks(size) {
                d.push(chunk);
            }
            assert_eq!(
                serde_json::to_string(&d.finish()).unwrap(),
                whole,
                "{name}, chunks of {size} bytes"
            );
        }
    }
}

#[test]
fn diagnose_page_renders_verdicts_table_and_timeline() {
    let html = render("?page=diagnose&dataRate=100&computeRate=1000&loopRate=95");
    assert!(html.contains("verdict-input-bound"), "{html}");
    // A link of the old keys (query::RENAMED) gives the same page.
    let old = render("?page=diagnose&data_rate=100&compute_rate=1000&loop_rate=95");
    assert_eq!(old, html);
    assert!(html.contains("?page=rules&amp;id=KV005"), "{html}");
    let html = render("?page=diagnose");
    assert!(html.contains("Paste a log"), "{html}");
}

// ---------- kernel check ----------

use kgadvise_core::kernel::{self, CheckReport};
use kgadvise_web::pages::kernel as kernel_page;

/// The kernel page's answer to a pasted metadata, code and typed values: core's report, or what the page
/// shows instead.
fn kernel_answer(
    metadata: &str,
    code: &str,
    typed: &[(&'static str, &str)],
) -> Result<CheckReport, Shown> {
    let inputs = Inputs::new(
        &kernel_page::SPEC,
        &[("metadata", metadata), ("code", code)],
        typed,
    );
    let request = kernel_page::check_request(&inputs)?;
    kernel::check(&request, HOST_NOW).map_err(|e| kernel_page::check_error(&inputs, &e))
}

/// Every real kernel-metadata.json pasted into the page gives a report or a parse error naming the line.
#[test]
fn every_real_kernel_metadata_is_checked() {
    let mut reports = 0;
    for f in realdata("kernel-metadata") {
        let text = String::from_utf8_lossy(&std::fs::read(&f).unwrap()).into_owned();
        match kernel_answer(&text, "", &[]) {
            Ok(r) => {
                reports += 1;
                assert_eq!(r.schema, "kgadvise.check/1", "{}", f.display());
            }
            Err(Shown::Error(e)) => assert!(
                e.starts_with("kernel-metadata.json"),
                "{}: {e}",
                f.display()
            ),
            Err(Shown::Need(_)) => panic!("{}", f.display()),
        }
    }
    assert!(reports >= 5, "{reports}");
    assert!(matches!(kernel_answer(" ", "", &[]), Err(Shown::Need(_))));
    match kernel_answer("{\"id\": ", "", &[]) {
        Err(Shown::Error(e)) => assert!(e.contains("kernel-metadata.json"), "{e}"),
        other => panic!("{other:?}"),
    }
    match kernel_answer("{}", "", &[("plannable", "x")]) {
        Err(Shown::Error(e)) => assert!(e.starts_with("Plannable GPU hours:"), "{e}"),
        other => panic!("{other:?}"),
    }
    match kernel_answer("{}", "", &[("timeoutSeconds", "soon")]) {
        Err(Shown::Error(e)) => assert!(e.starts_with("Push timeout -t (s):"), "{e}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn kernel_builds_the_cli_request_with_the_code_sized() {
    let inputs = Inputs::new(
        &kernel_page::SPEC,
        &[("metadata", "{}"), ("code", "print(1)\n")],
        &[("timeoutSeconds", "7200"), ("plannable", "3.5")],
    );
    let r = kernel_page::check_request(&inputs).unwrap();
    assert_eq!(r.code.as_deref(), Some("print(1)\n"));
    assert_eq!(r.code_bytes, Some(9));
    assert_eq!(r.timeout_seconds, Some(7200));
    assert_eq!(r.plannable, Some(3.5));
    assert_eq!(r.input.as_deref(), Some("kernel-metadata.json (pasted)"));
    let no_code = Inputs::new(&kernel_page::SPEC, &[("metadata", "{}")], &[]);
    let r = kernel_page::check_request(&no_code).unwrap();
    assert_eq!((r.code, r.code_bytes), (None, None));
    // core's error on the timeout names its control
    let e = kgadvise_core::request::RequestError::value("timeoutSeconds", "0", "expected more");
    assert_eq!(
        kernel_page::check_error(&inputs, &e),
        Shown::Error("Push timeout -t (s) 0: expected more".into())
    );
}

#[test]
fn kernel_page_renders() {
    let html = render("?page=kernel");
    assert!(html.contains("Paste a kernel-metadata.json"), "{html}");
}

// ---------- compare ----------

use kgadvise_core::stats::compare::{self, CompareReport};
use kgadvise_web::pages::compare as compare_page;

fn fixture(name: &str) -> String {
    std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/stats")
            .join(name),
    )
    .unwrap()
}

/// The compare page's answer to its boxes and typed values: core's report, or what the page shows instead.
fn compare_answer(
    idea: &str,
    control: &str,
    typed: &[(&'static str, &str)],
) -> Result<CompareReport, Shown> {
    let inputs = Inputs::new(
        &compare_page::SPEC,
        &[("idea", idea), ("control", control)],
        typed,
    );
    let request = compare_page::compare_request(&inputs)?;
    compare::compare(&request, HOST_NOW).map_err(|e| inputs.error(&e))
}

#[test]
fn compare_the_stats_fixtures_as_the_cli_does() {
    let (idea, control) = (fixture("binary_idea.csv"), fixture("binary_control.csv"));
    match compare_answer(&idea, &control, &[("metric", "auc"), ("resamples", "50")]) {
        Ok(r) => {
            assert_eq!(r.schema, "kgadvise.compare/1");
            assert_eq!(r.resamples, 50);
            assert_eq!(r.seed, 42);
            assert!(!r.reason.is_empty());
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        compare_answer(&idea, "", &[("metric", "auc")]),
        Err(Shown::Need(_))
    ));
    assert!(matches!(
        compare_answer(&idea, &control, &[]),
        Err(Shown::Need(_))
    ));
    match compare_answer(&idea, &control, &[("metric", "f1")]) {
        Err(Shown::Error(e)) => assert!(e.contains("f1"), "{e}"),
        other => panic!("{other:?}"),
    }
    match compare_answer("a,b\n1,2\n", &control, &[("metric", "auc")]) {
        Err(Shown::Error(e)) => assert!(!e.is_empty()),
        other => panic!("{other:?}"),
    }
    match compare_answer(&idea, &control, &[("metric", "auc"), ("seed", "-1")]) {
        Err(Shown::Error(e)) => assert!(e.starts_with("Seed: expected a whole number"), "{e}"),
        other => panic!("{other:?}"),
    }
    let html = render("?page=compare");
    assert!(html.contains("Pick the metric."), "{html}");
    for id in ["idea-paste", "control-paste", "metric", "resamples", "seed"] {
        assert!(html.contains(&format!(r#"id="{id}""#)), "{id}: {html}");
    }
}

// ---------- bench history ----------

#[test]
fn bench_history_page_shows_speedups_and_changes() {
    use kgadvise_core::bench::{self, HistoryReport};
    use kgadvise_web::pages::bench as bench_page;
    // The page's answer to a pasted history and a run name: core's report, or what the page shows instead.
    let bench_answer = |history: &str, name: &str| -> Result<HistoryReport, Shown> {
        let inputs = Inputs::new(
            &bench_page::SPEC,
            &[("history", history)],
            &[("name", name)],
        );
        let request = bench_page::bench_request(&inputs)?;
        bench::history(&request, HOST_NOW).map_err(|e| inputs.error(&e))
    };
    let history = concat!(
        r#"{"name":"img","time":"2026-11-30T10:00:00Z","command":"python t.py --bs 64","wall_s":400,"exit_code":0}"#,
        "\n",
        r#"{"name":"img","time":"2026-11-30T11:00:00Z","command":"python t.py --bs 128","wall_s":200,"exit_code":0}"#,
        "\nnot json\n"
    );
    match bench_answer(history, "img") {
        Ok(r) => {
            assert_eq!(r.records.len(), 2);
            assert_eq!(r.records[1].speedup, Some(2.0));
            assert_eq!(r.records[1].changed[0].to_string(), "--bs: 64 -> 128");
            assert_eq!(r.problems[0].line, 3);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        bench_answer("  ", "").err(),
        Some(Shown::Need("Paste a bench history."))
    );
    match bench_answer("garbage", "") {
        Err(Shown::Error(e)) => assert!(
            e.contains("line 1") && e.contains("expected a bench record"),
            "{e}"
        ),
        other => panic!("{other:?}"),
    }
    let html = render("?page=bench&name=img");
    assert!(
        html.contains("Bench history") && html.contains("Paste a bench history"),
        "{html}"
    );
}
