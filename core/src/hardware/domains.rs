//! Domain defaults (spec §3, CE §1, §6), resolved for a platform through the hardware matrix.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::hardware::{NoteAnswer, check_platform, notes_of, unknown_key};
use crate::request::{Overrides, RequestError, now_of};
use crate::rulebook::finding::Finding;
use crate::rulebook::ids::{EntryId, entry, rule};
use crate::rulebook::report::{Findings, Report};
use crate::rulebook::{AmpMode, Cell, DefaultItem, Domain, Platform, Support, Template, rulebook};

pub const DEFAULTS_SCHEMA: &str = "kgadvise.defaults/1";

/// `kgadvise defaults DOMAIN`: the defaults to write for a kind of competition, resolved for the
/// platform it runs on when one is given.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct DefaultsRequest {
    /// Domain identifier (required): images, text, llm-finetune, tabular, recsys-timeseries, audio or
    /// inference.
    #[cfg_attr(feature = "schema", schemars(extend("x-required" = true)))]
    #[cfg_attr(feature = "cli", arg(required = true))]
    pub domain: String,
    /// Platform to resolve AMP, torch.compile, workers... for: t4x2, p100, tpu-v5e-8, cpu, windows or
    /// linux (default: none, the platform-dependent items keep their conditions).
    #[cfg_attr(feature = "cli", arg(long, short))]
    pub platform: Option<String>,
    /// CPU cores, where the platform does not fix them (local machines, TPU VMs).
    #[cfg_attr(feature = "cli", arg(long))]
    pub cores: Option<u32>,
    /// Training processes sharing the cores, e.g. folds in parallel (default: one per GPU on
    /// multi-GPU platforms, else one).
    #[cfg_attr(feature = "cli", arg(long))]
    pub processes: Option<u32>,
    /// The time of the answer, for the age of the entries used (RFC 3339 or a date; default: the
    /// caller's clock).
    #[cfg_attr(feature = "schema", schemars(extend("x-time" = true)))]
    #[cfg_attr(feature = "cli", arg(skip))]
    pub now: Option<String>,
    /// Threshold overrides.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub set: Overrides,
}

/// A default left out on this platform, with the reason and the matrix entry that gave it.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DroppedDefault {
    pub text: String,
    pub reason: String,
    pub rule: String,
}

/// `kgadvise defaults DOMAIN [--platform P]`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DefaultsReport {
    pub schema: &'static str,
    pub domain: String,
    pub domain_name: String,
    pub platform: Option<String>,
    pub platform_name: Option<String>,
    pub always: Vec<String>,
    pub when_measured: Vec<String>,
    pub dropped: Vec<DroppedDefault>,
    pub templates: Vec<Template>,
    pub platform_notes: Vec<String>,
    /// Advice the seeds give in words for this domain (preprocessing off-quota, paired checks of speed
    /// changes, chaining outputs, the size of /kaggle/working), each with its ID and source.
    pub notes: Vec<NoteAnswer>,
    /// CE §6: a departure from a default gets a comment saying why (the fix of KH003).
    pub departures: String,
    pub rules: Vec<String>,
    pub findings: Vec<Finding>,
}

impl Report for DefaultsReport {
    fn findings(&self) -> &[Finding] {
        &self.findings
    }

    fn text(&self) -> String {
        crate::hardware::text::defaults(self)
    }
}

/// The domain of a request's `domain` key.
pub fn check_domain(key: &str) -> Result<&'static Domain, RequestError> {
    let book = rulebook();
    if key.is_empty() {
        return Err(RequestError::new(
            "domain",
            format!(
                "expected a domain; valid values: {}",
                book.domain_keys().join(", ")
            ),
        ));
    }
    book.domain(key)
        .ok_or_else(|| unknown_key("domain", "domain", key, &book.domain_keys()))
}

/// The matrix cell of a capability (by its entry ID) on a platform.
fn cell_of(capability: EntryId, platform: &Platform) -> Option<&'static Cell> {
    let book = rulebook();
    let capability = book
        .capabilities
        .iter()
        .find(|c| c.id == capability.as_str())?;
    book.cell(&capability.key, &platform.key)
}

enum Resolved {
    Keep(String),
    Drop { reason: String, rule: String },
}

fn amp_phrase(mode: AmpMode, training: bool) -> Option<&'static str> {
    match (mode, training) {
        (AmpMode::Fp16Gradscaler, true) => Some("fp16 autocast + GradScaler (no bf16 on this GPU)"),
        (AmpMode::Fp16Gradscaler, false) => Some("fp16 (no bf16 on this GPU)"),
        (AmpMode::Bf16, _) => Some("bf16 (native)"),
        (AmpMode::Bf16IfAmpere, true) => {
            Some("bf16 on Ampere+ GPUs, else fp16 autocast + GradScaler")
        }
        (AmpMode::Bf16IfAmpere, false) => Some("bf16 on Ampere+ GPUs, else fp16"),
        (AmpMode::None, _) => None,
    }
}

/// A count of the request that must be at least 1 when given (`cores`, `processes`): 0 is refused, not
/// read as 1.
fn at_least_one(field: &str, value: Option<u32>, what: &str) -> Result<Option<u32>, RequestError> {
    match value {
        Some(0) => Err(RequestError::value(
            field,
            "0",
            format!("expected at least 1 {what}, or none for the platform's default"),
        )),
        other => Ok(other),
    }
}

/// The validated request and the domain's items resolved for the platform: what the rules read.
pub(crate) struct DefaultsRun {
    pub(crate) domain: &'static Domain,
    pub(crate) platform: Option<&'static Platform>,
    cores: Option<u32>,
    processes: Option<u32>,
    pub(crate) always: Vec<String>,
    pub(crate) when_measured: Vec<String>,
    pub(crate) dropped: Vec<DroppedDefault>,
}

impl DefaultsRun {
    fn of(request: &DefaultsRequest) -> Result<DefaultsRun, RequestError> {
        let domain = check_domain(&request.domain)?;
        let platform = request
            .platform
            .as_deref()
            .map(check_platform)
            .transpose()?;
        let cores = at_least_one("cores", request.cores, "CPU core")?;
        let processes = at_least_one("processes", request.processes, "process")?;
        Ok(DefaultsRun::resolved(domain, platform, cores, processes))
    }

    /// A domain's items resolved for a platform (none: the items keep their conditions).
    pub(crate) fn resolved(
        domain: &'static Domain,
        platform: Option<&'static Platform>,
        cores: Option<u32>,
        processes: Option<u32>,
    ) -> DefaultsRun {
        let mut run = DefaultsRun {
            domain,
            platform,
            cores,
            processes,
            always: Vec::new(),
            when_measured: Vec::new(),
            dropped: Vec::new(),
        };
        run.always = run.resolve_list(&domain.always);
        run.when_measured = run.resolve_list(&domain.when_measured);
        run
    }

    /// The items kept (as written for the platform); the ones left out go to `dropped`.
    fn resolve_list(&mut self, items: &[DefaultItem]) -> Vec<String> {
        let mut kept = Vec::new();
        for item in items {
            let Some(platform) = self.platform else {
                kept.push(unresolved(item, self.domain));
                continue;
            };
            match self.resolve(item, platform) {
                Resolved::Keep(text) => kept.push(text),
                Resolved::Drop { reason, rule } => self.dropped.push(DroppedDefault {
                    text: item.text.to_string(),
                    reason,
                    rule,
                }),
            }
        }
        kept
    }

    fn resolve(&self, item: &DefaultItem, platform: &Platform) -> Resolved {
        if let Some(dropped) = needs_gpus(item, platform) {
            return dropped;
        }
        if item.amp {
            return amp(item, self.domain, platform);
        }
        if let Some(resolved) = requires(item, platform) {
            return resolved;
        }
        if item.workers {
            return Resolved::Keep(self.workers(item, platform));
        }
        Resolved::Keep(item.text.to_string())
    }

    /// `num_workers` from the cores and the processes sharing them.
    fn workers(&self, item: &DefaultItem, platform: &Platform) -> String {
        let cores = self.cores.or(platform.cpu_cores);
        let processes = self
            .processes
            .unwrap_or(if platform.gpus >= 2 { platform.gpus } else { 1 })
            .max(1);
        match cores {
            Some(cores) => {
                let each = (cores / processes).max(1);
                format!(
                    "{} -> {cores} cores / {processes} process{} = num_workers={each}",
                    item.text,
                    if processes == 1 { "" } else { "es" }
                )
            }
            None => format!(
                "{} (CPU cores unknown on {}: give them to resolve num_workers)",
                item.text, platform.name
            ),
        }
    }
}

/// An item for a GPU (or two) on a platform without.
fn needs_gpus(item: &DefaultItem, platform: &Platform) -> Option<Resolved> {
    if item.gpu && platform.gpus == 0 {
        return Some(Resolved::Drop {
            reason: format!("needs a GPU; {} has none", platform.name),
            rule: platform.id.to_string(),
        });
    }
    if item.multi_gpu && platform.gpus < 2 {
        return Some(Resolved::Drop {
            reason: format!(
                "needs two GPUs; {} is counted as {}",
                platform.name, platform.gpus
            ),
            rule: platform.id.to_string(),
        });
    }
    None
}

/// The AMP item: the platform's precision, or left out where there is none.
fn amp(item: &DefaultItem, domain: &Domain, platform: &Platform) -> Resolved {
    match amp_phrase(platform.amp, domain.training) {
        Some(phrase) => Resolved::Keep(format!("{}: {phrase}", item.text)),
        None => {
            let cell = cell_of(entry::CAPABILITY_FP16_AMP, platform);
            Resolved::Drop {
                reason: cell.map_or_else(
                    || "no AMP on this platform".to_string(),
                    |c| c.note.to_string(),
                ),
                rule: cell.map_or_else(|| platform.id.to_string(), |c| c.id.to_string()),
            }
        }
    }
}

/// An item that needs a capability: left out where the matrix says it is not usable, kept with the
/// condition where it is partial.
fn requires(item: &DefaultItem, platform: &Platform) -> Option<Resolved> {
    let cell = rulebook().cell(item.requires.as_deref()?, &platform.key)?;
    if !cell.support.usable() {
        return Some(Resolved::Drop {
            reason: cell.note.to_string(),
            rule: cell.id.to_string(),
        });
    }
    if cell.support == Support::Partial {
        return Some(Resolved::Keep(format!(
            "{} (on {}: {})",
            item.text, platform.name, cell.note
        )));
    }
    None
}

fn unresolved(item: &DefaultItem, domain: &Domain) -> String {
    if item.amp {
        let how = if domain.training {
            "fp16 + GradScaler on T4 x2/P100, bf16 on Ampere+ and TPU, none on a CPU kernel"
        } else {
            "fp16 on T4 x2/P100, bf16 on Ampere+ and TPU, none on a CPU kernel"
        };
        format!("{}: {how}", item.text)
    } else {
        item.text.to_string()
    }
}

/// KH001: a PyTorch domain on a platform whose PyTorch cannot run (the Kaggle P100).
pub(crate) fn pytorch_unusable(run: &DefaultsRun, out: &mut Findings) {
    let Some(platform) = run.platform else {
        return;
    };
    if !run.domain.pytorch {
        return;
    }
    if let Some(cell) = cell_of(entry::CAPABILITY_PYTORCH, platform)
        && !cell.support.usable()
    {
        out.add(rule::KH001, format!("{}: {}", cell.id, cell.note));
        out.uses_entry(&cell.id);
    }
}

/// KH002: each default left out on the platform, with the entry that says why.
fn defaults_left_out(run: &DefaultsRun, out: &mut Findings) {
    let Some(platform) = run.platform else {
        return;
    };
    for d in &run.dropped {
        out.push(Finding::from_rule(
            rule::KH002,
            format!(
                "`{}` left out on {}: {}: {}",
                d.text, platform.name, d.rule, d.reason
            ),
        ));
        out.uses_entry(&d.rule);
    }
}

/// KH003: every defaults answer reminds that a departure from a default gets a comment saying why.
fn say_why_when_departing(run: &DefaultsRun, out: &mut Findings) {
    let on = run
        .platform
        .map(|p| format!(" on {}", p.name))
        .unwrap_or_default();
    out.add(
        rule::KH003,
        format!(
            "{}{on}: {} defaults always, {} when measured",
            run.domain.name,
            run.always.len(),
            run.when_measured.len()
        ),
    );
}

/// `kgadvise defaults DOMAIN`: the domain's defaults, resolved for the platform when one is given.
/// Errors name the request field.
pub fn defaults(
    request: &DefaultsRequest,
    clock: DateTime<Utc>,
) -> Result<DefaultsReport, RequestError> {
    let now = now_of(request.now.as_deref(), clock)?;
    let thresholds = request.set.thresholds()?;
    let run = DefaultsRun::of(request)?;
    let book = rulebook();
    let mut out = Findings::new();
    pytorch_unusable(&run, &mut out);
    defaults_left_out(&run, &mut out);
    say_why_when_departing(&run, &mut out);
    out.uses_entry(&run.domain.id);
    if let Some(p) = run.platform {
        out.uses_entry(&p.id);
    }
    let templates: Vec<Template> = run
        .domain
        .templates
        .iter()
        .filter_map(|t| book.template(t))
        .cloned()
        .collect();
    for t in &templates {
        out.uses_entry(&t.id);
    }
    let notes = notes_of(&run.domain.id, &mut out);
    let closed = out.finish(now.date_naive(), &thresholds);
    Ok(DefaultsReport {
        schema: DEFAULTS_SCHEMA,
        domain: run.domain.key.to_string(),
        domain_name: run.domain.name.to_string(),
        platform: run.platform.map(|p| p.key.to_string()),
        platform_name: run.platform.map(|p| p.name.to_string()),
        always: run.always,
        when_measured: run.when_measured,
        dropped: run.dropped,
        templates,
        platform_notes: run
            .platform
            .map(|p| p.notes.iter().map(|n| n.to_string()).collect())
            .unwrap_or_default(),
        notes,
        departures: Finding::from_rule(rule::KH003, "").fix,
        rules: closed.rules,
        findings: closed.findings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock() -> DateTime<Utc> {
        "2026-11-30T00:00:00Z".parse().unwrap()
    }

    fn request(domain: &str, platform: Option<&str>) -> DefaultsRequest {
        DefaultsRequest {
            domain: domain.to_string(),
            platform: platform.map(String::from),
            ..Default::default()
        }
    }

    fn run(domain: &str, platform: Option<&str>) -> DefaultsReport {
        defaults(&request(domain, platform), clock()).unwrap()
    }

    #[test]
    fn images_on_t4x2_have_fp16_amp_and_channels_last() {
        let r = run("images", Some("t4x2"));
        assert!(
            r.always
                .iter()
                .any(|s| s.contains("fp16 autocast + GradScaler")),
            "{:?}",
            r.always
        );
        assert!(
            r.always.iter().any(|s| s.contains("channels_last")),
            "{:?}",
            r.always
        );
        assert!(
            r.always.iter().any(|s| s.contains("num_workers=2")),
            "{:?}",
            r.always
        );
        assert!(r.always.iter().any(|s| s.contains("one fold per GPU")));
        assert!(r.when_measured.iter().any(|s| s.contains("torch.compile")));
        assert!(r.dropped.is_empty(), "{:?}", r.dropped);
        assert!(
            !r.findings
                .iter()
                .any(|f| f.rule == "KH001" || f.rule == "KH002")
        );
    }

    #[test]
    fn torch_compile_is_dropped_with_its_reason_on_p100_and_windows() {
        let r = run("images", Some("p100"));
        let d = r
            .dropped
            .iter()
            .find(|d| d.text.contains("torch.compile"))
            .unwrap();
        assert!(d.reason.contains("sm_70"), "{d:?}");
        assert_eq!(r.findings[0].rule, "KH001");
        assert!(r.findings.iter().any(|f| f.rule == "KH002"));
        let r = run("images", Some("windows"));
        let d = r
            .dropped
            .iter()
            .find(|d| d.text.contains("torch.compile"))
            .unwrap();
        assert!(d.reason.contains("Triton"), "{d:?}");
        assert!(!r.findings.iter().any(|f| f.rule == "KH001"));
    }

    #[test]
    fn amp_resolves_per_platform() {
        assert!(
            run("text", Some("tpu-v5e-8"))
                .always
                .iter()
                .any(|s| s.contains("bf16 (native)"))
        );
        let cpu = run("text", Some("cpu"));
        assert!(!cpu.always.iter().any(|s| s.starts_with("AMP")));
        assert!(cpu.dropped.iter().any(|d| d.text == "AMP"));
        assert!(
            run("inference", Some("t4x2"))
                .always
                .iter()
                .any(|s| s == "half precision: fp16 (no bf16 on this GPU)")
        );
        let unresolved = run("images", None);
        assert!(unresolved.always[0].contains("fp16 + GradScaler on T4 x2/P100, bf16 on Ampere+"));
        assert!(unresolved.dropped.is_empty());
    }

    #[test]
    fn workers_follow_cores_and_processes() {
        assert!(
            run("images", Some("cpu"))
                .always
                .iter()
                .any(|s| s.contains("num_workers=4"))
        );
        assert!(
            run("images", Some("linux"))
                .always
                .iter()
                .any(|s| s.contains("CPU cores unknown on"))
        );
        let req = DefaultsRequest {
            cores: Some(16),
            processes: Some(2),
            ..request("images", Some("linux"))
        };
        let r = defaults(&req, clock()).unwrap();
        assert!(
            r.always.iter().any(|s| s.contains("num_workers=8")),
            "{:?}",
            r.always
        );
    }

    #[test]
    fn tabular_on_t4x2_keeps_the_gpu_gbdt_and_rapids() {
        let r = run("tabular", Some("t4x2"));
        assert!(r.always.iter().any(|s| s.contains("device=\"cuda\"")));
        assert!(r.when_measured.iter().any(|s| s.contains("cudf.pandas")));
        assert!(
            !r.findings.iter().any(|f| f.rule == "KH001"),
            "tabular is not PyTorch"
        );
        let p = run("tabular", Some("p100"));
        assert!(
            p.dropped
                .iter()
                .any(|d| d.text.contains("cudf.pandas") && d.reason.contains("7.0"))
        );
    }

    #[test]
    fn every_answer_reminds_to_say_why_on_a_departure() {
        let r = run("images", None);
        let kh003: Vec<_> = r.findings.iter().filter(|f| f.rule == "KH003").collect();
        assert_eq!(kh003.len(), 1, "{:?}", r.findings);
        assert_eq!(kh003[0].fix, r.departures);
        assert!(r.rules.contains(&"KH003".to_string()), "{:?}", r.rules);
    }

    #[test]
    fn the_seeds_advice_in_words_is_shown_as_notes_of_the_domain() {
        let ids = |r: &DefaultsReport| r.notes.iter().map(|n| n.id.clone()).collect::<Vec<_>>();
        let images = run("images", Some("t4x2"));
        assert_eq!(
            ids(&images),
            [
                "note.preprocess-off-quota",
                "note.paired-check-speed-changes"
            ]
        );
        assert!(images.notes[0].text.contains("2-5x"), "{:?}", images.notes);
        assert!(
            images
                .rules
                .contains(&"note.preprocess-off-quota".to_string())
        );
        let inference = run("inference", None);
        assert_eq!(
            ids(&inference),
            [
                "note.paired-check-speed-changes",
                "note.chain-kernel-outputs",
                "note.working-dir-size"
            ]
        );
        assert!(
            inference
                .rules
                .contains(&"fact.kaggle.working-gb".to_string())
        );
        assert!(run("tabular", None).notes.is_empty());
    }

    #[test]
    fn unknown_or_missing_keys_name_the_field() {
        let field = |r: DefaultsRequest| defaults(&r, clock()).unwrap_err();
        let e = field(request("vision", None));
        assert_eq!(e.field, "domain");
        assert!(
            e.message.contains(
                "images, text, llm-finetune, tabular, recsys-timeseries, audio, inference"
            ),
            "{e}"
        );
        assert_eq!(field(request("", None)).field, "domain");
        assert_eq!(field(request("images", Some("v100"))).field, "platform");
        let zero_cores = field(DefaultsRequest {
            cores: Some(0),
            ..request("images", Some("linux"))
        });
        assert_eq!(zero_cores.field, "cores");
        assert_eq!(zero_cores.value.as_deref(), Some("0"));
        assert!(
            zero_cores.message.contains("expected at least 1 CPU core"),
            "{zero_cores}"
        );
        let zero_processes = field(DefaultsRequest {
            processes: Some(0),
            ..request("images", Some("t4x2"))
        });
        assert_eq!(zero_processes.field, "processes");
        assert!(
            zero_processes
                .message
                .contains("expected at least 1 process"),
            "{zero_processes}"
        );
        let json = crate::request::from_json::<DefaultsRequest>(
            r#"{"domain": "images", "platform": "linux", "cores": 16, "processes": 2}"#,
        )
        .unwrap();
        assert_eq!(json.cores, Some(16));
    }
}
