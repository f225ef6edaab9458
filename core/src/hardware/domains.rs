//! Domain defaults (spec §3, CE §1, §6), resolved for a platform through the hardware matrix.

use crate::rulebook::ids::rule;
use chrono::NaiveDate;
use serde::Serialize;

use crate::hardware::{UnknownId, check_platform};
use crate::rulebook::finding::Finding;
use crate::rulebook::report::{Report, stale_findings_for};
use crate::rulebook::{AmpMode, DefaultItem, Domain, Platform, Template, Thresholds, rulebook};

pub const DEFAULTS_SCHEMA: &str = "kgadvise.defaults/1";

/// A default left out on this platform, with the reason and the matrix entry that gave it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct DroppedDefault {
    pub text: String,
    pub reason: String,
    pub rule: String,
}

/// `kgadvise defaults DOMAIN [--platform P]`.
#[derive(Debug, Clone, Serialize)]
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
    /// CE §6: a departure from a default gets a comment saying why.
    pub departures: String,
    pub rules: Vec<String>,
    pub findings: Vec<Finding>,
}

impl Report for DefaultsReport {
    fn findings(&self) -> &[Finding] {
        &self.findings
    }
}

pub fn check_domain(key: &str) -> Result<&'static Domain, UnknownId> {
    let book = rulebook();
    book.domain(key).ok_or_else(|| UnknownId {
        what: "domain",
        given: key.to_string(),
        valid: book.domain_keys().into_iter().map(String::from).collect(),
    })
}

/// Options of a defaults request beyond domain and platform.
#[derive(Debug, Clone, Default)]
pub struct DefaultsRequest<'a> {
    pub domain: &'a str,
    pub platform: Option<&'a str>,
    /// CPU cores when the platform does not fix them (local machines, TPU VMs).
    pub cores: Option<u32>,
    /// Processes sharing the cores (folds in parallel); default: one per GPU on multi-GPU platforms.
    pub processes: Option<u32>,
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

fn resolve(
    item: &DefaultItem,
    domain: &Domain,
    platform: &Platform,
    req: &DefaultsRequest,
) -> Resolved {
    let book = rulebook();
    if item.gpu && platform.gpus == 0 {
        return Resolved::Drop {
            reason: format!("needs a GPU; {} has none", platform.name),
            rule: platform.id.to_string(),
        };
    }
    if item.multi_gpu && platform.gpus < 2 {
        return Resolved::Drop {
            reason: format!(
                "needs two GPUs; {} is counted as {}",
                platform.name, platform.gpus
            ),
            rule: platform.id.to_string(),
        };
    }
    if item.amp {
        return match amp_phrase(platform.amp, domain.training) {
            Some(phrase) => Resolved::Keep(format!("{}: {phrase}", item.text)),
            None => Resolved::Drop {
                reason: book
                    .cell("fp16-amp", &platform.key)
                    .map(|c| c.note.to_string())
                    .unwrap_or_else(|| "no AMP on this platform".into()),
                rule: format!("matrix.fp16-amp.{}", platform.key),
            },
        };
    }
    if let Some(cap) = &item.requires
        && let Some(cell) = book.cell(cap, &platform.key)
    {
        if !cell.support.usable() {
            return Resolved::Drop {
                reason: cell.note.to_string(),
                rule: cell.id.to_string(),
            };
        }
        if cell.support == crate::rulebook::Support::Partial {
            return Resolved::Keep(format!(
                "{} (on {}: {})",
                item.text, platform.name, cell.note
            ));
        }
    }
    if item.workers {
        let cores = req.cores.or(platform.cpu_cores);
        let processes = req
            .processes
            .unwrap_or(if platform.gpus >= 2 { platform.gpus } else { 1 })
            .max(1);
        return Resolved::Keep(match cores {
            Some(cores) => {
                let each = (cores / processes).max(1);
                format!(
                    "{} -> {cores} cores / {processes} process{} = num_workers={each}",
                    item.text,
                    if processes == 1 { "" } else { "es" }
                )
            }
            None => format!(
                "{} (cores unknown on {}: pass --cores N)",
                item.text, platform.name
            ),
        });
    }
    Resolved::Keep(item.text.to_string())
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

/// The domain's defaults, resolved for the platform when one is given.
pub fn defaults(
    req: &DefaultsRequest,
    today: NaiveDate,
    thresholds: &Thresholds,
) -> Result<DefaultsReport, UnknownId> {
    let book = rulebook();
    let domain = check_domain(req.domain)?;
    let platform = req.platform.map(check_platform).transpose()?;
    let mut rules = vec![domain.id.to_string(), rule::KH003.to_string()];
    let mut findings = Vec::new();
    let mut dropped = Vec::new();
    let mut resolve_list = |items: &[DefaultItem]| -> Vec<String> {
        let mut out = Vec::new();
        for item in items {
            match platform {
                None => out.push(unresolved(item, domain)),
                Some(p) => match resolve(item, domain, p, req) {
                    Resolved::Keep(text) => out.push(text),
                    Resolved::Drop { reason, rule } => {
                        findings.push(
                            Finding::from_rule(rule::KH002, format!("{rule}: {reason}"))
                                .with_title(format!("`{}` left out on {}", item.text, p.name)),
                        );
                        rules.push(rule.clone());
                        dropped.push(DroppedDefault {
                            text: item.text.to_string(),
                            reason,
                            rule,
                        });
                    }
                },
            }
        }
        out
    };
    let always = resolve_list(&domain.always);
    let when_measured = resolve_list(&domain.when_measured);
    if let Some(p) = platform {
        rules.push(p.id.to_string());
        if domain.pytorch
            && let Some(cell) = book.cell("pytorch", &p.key)
            && !cell.support.usable()
        {
            findings.insert(
                0,
                Finding::from_rule(rule::KH001, format!("{}: {}", cell.id, cell.note)),
            );
            rules.push(cell.id.to_string());
        }
    }
    let templates: Vec<Template> = domain
        .templates
        .iter()
        .filter_map(|t| book.template(t))
        .cloned()
        .collect();
    rules.extend(templates.iter().map(|t| t.id.to_string()));
    findings.extend(stale_findings_for(&rules, today, thresholds));
    let departures = book
        .rule(rule::KH003.as_str())
        .map(|r| r.fix.to_string())
        .unwrap_or_default();
    Ok(DefaultsReport {
        schema: DEFAULTS_SCHEMA,
        domain: domain.key.to_string(),
        domain_name: domain.name.to_string(),
        platform: platform.map(|p| p.key.to_string()),
        platform_name: platform.map(|p| p.name.to_string()),
        always,
        when_measured,
        dropped,
        templates,
        platform_notes: platform
            .map(|p| p.notes.iter().map(|n| n.to_string()).collect())
            .unwrap_or_default(),
        departures,
        rules,
        findings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(domain: &str, platform: Option<&str>) -> DefaultsReport {
        let req = DefaultsRequest {
            domain,
            platform,
            ..Default::default()
        };
        defaults(
            &req,
            NaiveDate::from_ymd_opt(2026, 11, 30).unwrap(),
            &Thresholds::defaults(),
        )
        .unwrap()
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
                .any(|s| s.contains("pass --cores N"))
        );
        let req = DefaultsRequest {
            domain: "images",
            platform: Some("linux"),
            cores: Some(16),
            processes: Some(2),
        };
        let r = defaults(
            &req,
            NaiveDate::from_ymd_opt(2026, 11, 30).unwrap(),
            &Thresholds::defaults(),
        )
        .unwrap();
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
    fn unknown_domain_lists_the_valid_ones() {
        let req = DefaultsRequest {
            domain: "vision",
            ..Default::default()
        };
        let e = defaults(
            &req,
            NaiveDate::from_ymd_opt(2026, 11, 30).unwrap(),
            &Thresholds::defaults(),
        )
        .unwrap_err();
        assert!(
            e.to_string().contains(
                "images, text, llm-finetune, tabular, recsys-timeseries, audio, inference"
            ),
            "{e}"
        );
    }
}
