//! Every advisor reached by command name, JSON in and JSON out: the one entry of the adapters that speak
//! JSON (the npm package, the Python wheel). The top floor of core: it imports every advisor and nothing
//! in core imports it (`tests/tests/structure.rs` keeps it so).

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde::de;

use crate::request::{RequestError, from_json};

/// Every advisor reached by command name: `request` is its JSON request, the answer its report as JSON
/// (the object `kgadvise <command> --json` prints). `clock` is the time when the request has no `now`.
pub fn advise_json(
    command: &str,
    request: &str,
    clock: DateTime<Utc>,
) -> Result<String, RequestError> {
    fn answer<Q: de::DeserializeOwned, R: Serialize>(
        request: &str,
        clock: DateTime<Utc>,
        advise: fn(&Q, DateTime<Utc>) -> Result<R, RequestError>,
    ) -> Result<String, RequestError> {
        let report = advise(&from_json(request)?, clock)?;
        serde_json::to_string(&report)
            .map_err(|e| RequestError::new("", format!("cannot encode the report: {e}")))
    }
    match command {
        "cap" => answer(request, clock, crate::quota::cap::cap),
        "matrix" => answer(request, clock, crate::hardware::matrix),
        "defaults" => answer(request, clock, crate::hardware::domains::defaults),
        "worth-gpu" => answer(request, clock, crate::hardware::worth::worth_gpu),
        "inference" => answer(request, clock, crate::hardware::inference::inference),
        "explain" => answer(request, clock, crate::explain::explain),
        "check" => answer(request, clock, crate::kernel::check::check),
        "collect" => answer(request, clock, crate::kernel::run_report::collect),
        "compare" => answer(request, clock, crate::stats::compare::compare),
        "prune" => answer(request, clock, crate::stats::prune::prune),
        "fidelity" => answer(request, clock, crate::stats::fidelity::fidelity),
        "bench" => answer(request, clock, crate::bench::bench),
        "bench-history" => answer(request, clock, crate::bench::history),
        "diagnose" => answer(request, clock, crate::diagnose::diagnose),
        "quota" => answer(request, clock, crate::quota::quota),
        "plan" => answer(request, clock, crate::quota::plan::plan),
        "tpu" => answer(request, clock, crate::quota::tpu::tpu),
        _ => Err(RequestError::new(
            "",
            format!(
                "unknown advisor `{command}`; expected one of: {}",
                ADVISORS.join(", ")
            ),
        )),
    }
}

/// The advisors [`advise_json`] answers, by command name.
pub const ADVISORS: &[&str] = &[
    "cap",
    "matrix",
    "defaults",
    "worth-gpu",
    "explain",
    "check",
    "collect",
    "compare",
    "prune",
    "fidelity",
    "bench",
    "bench-history",
    "inference",
    "diagnose",
    "quota",
    "plan",
    "tpu",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::FILE_INPUTS;

    /// Every file input is a field of its command's request: a listed field no request has would be
    /// decoded and then refused as an unknown key.
    #[test]
    fn every_file_input_is_a_request_field() {
        let clock = chrono::DateTime::UNIX_EPOCH;
        for (command, field, _) in FILE_INPUTS {
            let probe = format!("{{\"{field}\": 3}}");
            let e = advise_json(command, &probe, clock).unwrap_err();
            assert!(
                !e.message.starts_with("unknown field"),
                "{command} {field}: {e}"
            );
        }
    }
}
