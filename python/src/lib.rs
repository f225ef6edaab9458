//! `kgadvise._native`, the Python wheel's extension: the core's advisors in-process (JSON request in,
//! JSON report out, through `kgadvise_core::advise::advise_json`) and the CLI's nvidia-smi sampler for
//! `kgadvise.watch`. The Python package (`python/kgadvise/`) turns keyword arguments into requests and
//! reports into dicts; nothing here knows one advisor from another, so an advisor that lands in
//! `advise_json` is reachable from Python without a change here.
//!
//! Like the CLI, this is an adapter: it reads the clock (for a request without `now`), files (path-like
//! inputs, decoded by core's `request::text_of` as the CLI decodes the same file) and runs nvidia-smi;
//! every decision is the core's.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;

use kgadvise_cli::nvidia_smi;
use kgadvise_core::advise::{advise_json, advise_json_and_text, advisor_names, library_advisors};
use kgadvise_core::diagnose::DiagnoseRequest;
use kgadvise_core::diagnose::live::LiveDiagnoser;
use kgadvise_core::request::{RequestError, from_json, text_of};
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

pyo3::create_exception!(
    kgadvise,
    InputError,
    pyo3::exceptions::PyValueError,
    "Input kgadvise cannot answer: the message names the argument at fault (its keyword, or the file a \
     path-like argument named) and says what was expected, as the CLI does. Attributes: `field` (the \
     keyword, `None` for the request as a whole), `line` (of a text input, or `None`) and `message` (what \
     was wrong, without the argument's name)."
);

/// `foldHours` -> `fold_hours`: a request key as the Python keyword argument.
fn snake(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// serde's words for a request key (`unknown field `foldHour`, expected one of `measured`, ...`) with the
/// keys said as keyword arguments. Only these two messages name keys; others (an unknown enum value)
/// quote values, which stay as they are.
fn keys_as_keywords(message: &str) -> String {
    if !(message.starts_with("unknown field `") || message.starts_with("missing field `")) {
        return message.to_string();
    }
    message
        .split('`')
        .enumerate()
        .map(|(i, part)| {
            if i % 2 == 1 {
                snake(part)
            } else {
                part.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("`")
}

/// A core request error as an `InputError`: the field said as `names[field]` (the path a path-like input
/// was read from) or as its keyword argument.
fn input_error(py: Python<'_>, e: RequestError, names: &HashMap<String, String>) -> PyErr {
    let keyword = (!e.field.is_empty()).then(|| snake(&e.field));
    let name = names
        .get(&e.field)
        .cloned()
        .or_else(|| keyword.clone())
        .unwrap_or_default();
    let message = keys_as_keywords(&e.message);
    let shown = RequestError {
        message: message.clone(),
        ..e.clone()
    }
    .render(&name);
    let err = InputError::new_err(shown);
    let value = err.value(py);
    // Attributes for callers that branch on the field; failing to set one is not worth hiding the error.
    let _ = value.setattr("field", keyword);
    let _ = value.setattr("line", e.line);
    let _ = value.setattr("message", message);
    err
}

/// The report of `command` for a JSON request, as JSON (what `kgadvise <command> --json` prints). A
/// request without `now` is answered at the clock's time. `names`: how to say a request key in an error
/// (the path a path-like input was read from); other keys are said as keyword arguments.
#[pyfunction]
#[pyo3(signature = (command, request, names = None))]
fn advise(
    py: Python<'_>,
    command: &str,
    request: &str,
    names: Option<HashMap<String, String>>,
) -> PyResult<String> {
    let clock = chrono::Utc::now();
    let answer = py.detach(|| advise_json(command, request, clock));
    answer.map_err(|e| input_error(py, e, &names.unwrap_or_default()))
}

/// [`advise`]'s answer and the report's text as `kgadvise <command>` prints it (its tables included), so
/// the package shows the core's words.
#[pyfunction]
#[pyo3(signature = (command, request, names = None))]
fn advise_text(
    py: Python<'_>,
    command: &str,
    request: &str,
    names: Option<HashMap<String, String>>,
) -> PyResult<(String, String)> {
    let clock = chrono::Utc::now();
    let answer = py.detach(|| advise_json_and_text(command, request, clock));
    answer.map_err(|e| input_error(py, e, &names.unwrap_or_default()))
}

/// How the wheel names the sampling-interval input in a diagnose answer's text: `diagnose`'s keyword.
const INTERVAL_KEYWORD: &str = "interval_s";

/// The diagnose report for a JSON request, as JSON (what `advise("diagnose", ...)` gives), and the
/// parts of its text as JSON (core's `DiagnoseWords`: the verdict line, the span and wasted quota, the
/// per-GPU table as header and rows, the whole text), so the package shows the core's words.
#[pyfunction]
#[pyo3(signature = (request, names = None))]
fn diagnose(
    py: Python<'_>,
    request: &str,
    names: Option<HashMap<String, String>>,
) -> PyResult<(String, String)> {
    let clock = chrono::Utc::now();
    let answer = py.detach(|| -> Result<(String, String), RequestError> {
        let report = kgadvise_core::diagnose::diagnose(&from_json(request)?, clock)?;
        let words = report.words(INTERVAL_KEYWORD);
        let encode =
            |e: serde_json::Error| RequestError::new("", format!("cannot encode the report: {e}"));
        Ok((
            serde_json::to_string(&report).map_err(encode)?,
            serde_json::to_string(&words).map_err(encode)?,
        ))
    });
    answer.map_err(|e| input_error(py, e, &names.unwrap_or_default()))
}

/// The advisors `advise` answers, by command name (`worth-gpu`).
#[pyfunction]
fn advisors() -> Vec<&'static str> {
    advisor_names()
}

/// The advisors the package has a function for, in core's order: (command name, core's one-line doc).
#[pyfunction]
fn functions() -> Vec<(&'static str, &'static str)> {
    library_advisors()
        .map(|advisor| (advisor.command, advisor.summary))
        .collect()
}

/// The JSON schema of `command`'s request (core's request struct: its keys, their types and doc
/// comments), as JSON text; `None` when it is not an advisor here. The functions' keywords, signatures and
/// docstrings are read from it.
#[pyfunction]
fn request_schema(command: &str) -> Option<String> {
    kgadvise_core::advise::request_schema(command).map(|schema| schema.to_string())
}

/// The text of the advisor `command`'s file input `field` (a request key) read from `path`: core's one
/// decoding of file inputs (`request::text_of`), the CLI's for the same file. `InputError` naming the path
/// when the bytes are not the text the field takes; `OSError` when the file cannot be read.
#[pyfunction]
fn read_text(py: Python<'_>, command: &str, field: &str, path: PathBuf) -> PyResult<String> {
    let bytes = py.detach(|| std::fs::read(&path)).map_err(|e| {
        PyOSError::new_err(format!(
            "{}: cannot read: {e}; expected a readable text file",
            path.display()
        ))
    })?;
    let names = HashMap::from([(field.to_string(), path.display().to_string())]);
    text_of(command, field, &bytes).map_err(|e| input_error(py, e, &names))
}

/// The text of the advisor `command`'s file input `field` given as bytes, decoded as [`read_text`]
/// decodes a file; `InputError` naming the keyword.
#[pyfunction]
fn decode_text(py: Python<'_>, command: &str, field: &str, bytes: &[u8]) -> PyResult<String> {
    text_of(command, field, bytes).map_err(|e| input_error(py, e, &HashMap::new()))
}

/// nvidia-smi sampling in the background, as `kgadvise sample` runs it (the CLI's own sampler): the
/// program is `$KGADVISE_NVIDIA_SMI` or `nvidia-smi` on PATH, its output is collected by threads that
/// never need the GIL.
#[pyclass(module = "kgadvise._native")]
struct Sampler {
    running: Mutex<Option<nvidia_smi::Sampler>>,
}

#[pymethods]
impl Sampler {
    /// Starts sampling every `interval_ms`; `OSError` with the CLI's message when nvidia-smi cannot be
    /// started.
    #[new]
    fn new(interval_ms: u64) -> PyResult<Sampler> {
        let sampler =
            nvidia_smi::Sampler::start(interval_ms).map_err(|e| PyOSError::new_err(e.message))?;
        Ok(Sampler {
            running: Mutex::new(Some(sampler)),
        })
    }

    /// The command line run (program and arguments), for messages.
    #[staticmethod]
    fn command(interval_ms: u64) -> Vec<String> {
        let mut cmd = vec![nvidia_smi::program().to_string_lossy().into_owned()];
        cmd.extend(nvidia_smi::loop_args(interval_ms));
        cmd
    }

    /// Whether nvidia-smi ended by itself (no devices, a driver error) or was stopped.
    fn exited(&self) -> bool {
        match self.running.lock() {
            Ok(mut guard) => guard.as_mut().is_none_or(nvidia_smi::Sampler::exited),
            Err(_) => true,
        }
    }

    /// Seconds since sampling started (0 once stopped).
    fn elapsed_s(&self) -> f64 {
        match self.running.lock() {
            Ok(guard) => guard.as_ref().map_or(0.0, |s| s.elapsed().as_secs_f64()),
            Err(_) => 0.0,
        }
    }

    /// Stops nvidia-smi and returns all it printed (stdout, then stderr); empty when already stopped.
    fn stop<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let taken = self.running.lock().ok().and_then(|mut guard| guard.take());
        let raw = match taken {
            Some(sampler) => py.detach(|| sampler.stop()),
            None => Vec::new(),
        };
        PyBytes::new(py, &raw)
    }
}

impl Drop for Sampler {
    /// A sampler dropped without `stop` (an interpreter shutting down) still ends nvidia-smi.
    fn drop(&mut self) {
        if let Ok(mut guard) = self.running.lock()
            && let Some(sampler) = guard.take()
        {
            drop(sampler.stop());
        }
    }
}

/// What a live watch holds: nvidia-smi running, the live diagnosis of what it printed, and the output.
struct Live {
    sampler: nvidia_smi::LiveSampler,
    diagnosis: LiveDiagnoser,
    raw: Vec<u8>,
}

/// nvidia-smi sampling with core's live diagnosis (`watch(live=True)`): `poll` gives the view as it
/// stands and the alarms of the verdicts that settled; `stop` gives all nvidia-smi printed.
#[pyclass(module = "kgadvise._native")]
struct LiveWatch {
    running: Mutex<Option<Live>>,
}

#[pymethods]
impl LiveWatch {
    /// Starts sampling every `interval_ms`; `OSError` with the CLI's message when nvidia-smi cannot be
    /// started.
    #[new]
    fn new(interval_ms: u64) -> PyResult<LiveWatch> {
        let sampler = nvidia_smi::LiveSampler::start(interval_ms)
            .map_err(|e| PyOSError::new_err(e.message))?;
        let diagnosis = LiveDiagnoser::of(&DiagnoseRequest::default(), chrono::Utc::now())
            .map_err(|e| PyOSError::new_err(e.to_string()))?;
        Ok(LiveWatch {
            running: Mutex::new(Some(Live {
                sampler,
                diagnosis,
                raw: Vec::new(),
            })),
        })
    }

    /// Waits up to `wait_s` for output and takes it in: (the view's text, its one-line form, the texts
    /// of the alarms raised since the last poll, samples so far, whether nvidia-smi has ended).
    fn poll(&self, py: Python<'_>, wait_s: f64) -> (String, String, Vec<String>, u64, bool) {
        let wait = std::time::Duration::from_secs_f64(wait_s.clamp(0.0, 60.0));
        py.detach(|| {
            let Ok(mut guard) = self.running.lock() else {
                return (String::new(), String::new(), Vec::new(), 0, true);
            };
            let Some(live) = guard.as_mut() else {
                return (String::new(), String::new(), Vec::new(), 0, true);
            };
            let chunk = live.sampler.next(wait);
            if let Some(bytes) = &chunk {
                live.raw.extend_from_slice(bytes);
                live.diagnosis.push(bytes);
            }
            let alarms = live
                .diagnosis
                .take_alarms()
                .iter()
                .map(|a| a.alarm_text())
                .collect();
            let report = live.diagnosis.report();
            (
                report.view_text(),
                report.line(),
                alarms,
                report.samples,
                chunk.is_none(),
            )
        })
    }

    /// Stops nvidia-smi and returns all it printed (stdout, then stderr); empty when already stopped.
    fn stop<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let taken = self.running.lock().ok().and_then(|mut guard| guard.take());
        let raw = match taken {
            Some(mut live) => py.detach(|| {
                let rest = live.sampler.stop();
                live.raw.extend_from_slice(&rest);
                live.raw
            }),
            None => Vec::new(),
        };
        PyBytes::new(py, &raw)
    }
}

impl Drop for LiveWatch {
    /// A watch dropped without `stop` still ends nvidia-smi.
    fn drop(&mut self) {
        if let Ok(mut guard) = self.running.lock()
            && let Some(live) = guard.take()
        {
            drop(live.sampler.stop());
        }
    }
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("InputError", m.py().get_type::<InputError>())?;
    m.add("VERSION", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(advise, m)?)?;
    m.add_function(wrap_pyfunction!(advise_text, m)?)?;
    m.add_function(wrap_pyfunction!(diagnose, m)?)?;
    m.add_function(wrap_pyfunction!(advisors, m)?)?;
    m.add_function(wrap_pyfunction!(functions, m)?)?;
    m.add_function(wrap_pyfunction!(request_schema, m)?)?;
    m.add_function(wrap_pyfunction!(read_text, m)?)?;
    m.add_function(wrap_pyfunction!(decode_text, m)?)?;
    m.add_class::<Sampler>()?;
    m.add_class::<LiveWatch>()?;
    m.add("LIVE_REFRESH_S", kgadvise_core::diagnose::live::REFRESH_S)?;
    m.add(
        "LIVE_LINE_REFRESH_S",
        kgadvise_core::diagnose::live::LINE_REFRESH_S,
    )?;
    Ok(())
}
