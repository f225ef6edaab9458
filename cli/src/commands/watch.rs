//! `kgadvise watch -- COMMAND...`: runs a command while sampling the GPUs, with core's live view and its
//! early alarms, then the final diagnosis. `kgadvise sample --live` shares the loop ([`sample_live`]).

use std::fs::File;
use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use kgadvise_core::diagnose::live::LiveDiagnoser;
use kgadvise_core::diagnose::verdict::DiagnoseReport;
use kgadvise_core::diagnose::watch_line::WatchDiagnosis;

use crate::child::{OutputSink, interrupted, run_command_into};
use crate::live_view::{LiveView, SharedView};
use crate::nvidia_smi::LiveSampler;
use crate::output::{CliError, Global, clock};

const EXAMPLES: &str = "Examples:
  kgadvise watch -- python train.py --epochs 10
  kgadvise watch --save gpu.csv -- python train.py     also keep the raw nvidia-smi log
  python -m kgadvise watch -- python train.py          in a Kaggle kernel: alarms land in its log

The command runs through the shell with its output streamed through; nvidia-smi samples the GPUs \
meanwhile (KGADVISE_NVIDIA_SMI names another program). On a terminal the view (per GPU: utilisation \
now, the last minutes, memory, power; the verdicts so far, settled or provisional, with the quota \
hours at stake) is redrawn in place; elsewhere one line per refresh. A verdict that settles prints an \
alarm once.

When the command ends (or on Ctrl-C) the final diagnosis is printed, as `kgadvise diagnose` of the \
saved log, after one machine line `KGADVISE_DIAGNOSIS {...}` that `kgadvise collect` reads back from \
a kernel's log. Exit code: the command's when it failed, else the diagnosis's.";

#[derive(Debug, clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// Sampling interval in milliseconds.
    #[arg(long, default_value_t = 1000, value_name = "M")]
    pub interval_ms: u64,
    /// Also save the raw nvidia-smi output to FILE (re-read later with `kgadvise diagnose FILE`).
    #[arg(long, value_name = "FILE")]
    pub save: Option<String>,
    #[command(flatten)]
    pub request: kgadvise_core::diagnose::DiagnoseRequest,
    /// The command to run, after `--`.
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// The command's words as one shell line: words of plain characters as they are, others single-quoted.
fn shell_line(words: &[String]) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c);
    words
        .iter()
        .map(|w| {
            if !w.is_empty() && w.chars().all(plain) {
                w.clone()
            } else {
                format!("'{}'", w.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    check_interval(args.interval_ms)?;
    let live = LiveDiagnoser::of(
        &super::diagnose::with_global(&args.request, global),
        clock(),
    )
    .map_err(|e| CliError::request(e, &[]))?;
    // The file and nvidia-smi first: without them the command is not started at all.
    let file = save_file(args.save.as_deref())?;
    let sampler = LiveSampler::start(args.interval_ms)?;
    let view = LiveView::new(global.json).shared();
    let sink_view = Arc::clone(&view);
    let sink: OutputSink = Arc::new(move |bytes: &[u8], to_stderr: bool| {
        if let Ok(mut v) = sink_view.lock() {
            v.passthrough(bytes, to_stderr);
        }
    });
    let line = shell_line(&args.command);
    let json = global.json;
    let child = std::thread::spawn(move || run_command_into(&line, json, Some(sink)));
    let report = watch_loop(live, sampler, &view, file, args.save.as_deref(), || {
        child.is_finished()
    })?;
    let outcome = child
        .join()
        .map_err(|_| CliError::usage("the watched command's thread failed"))?
        .map_err(|e| CliError::usage(format!("cannot run the command: {e}")))?;
    print_diagnosis_line(&report, global.json);
    let code = super::diagnose::emit_report(&report, global)?;
    Ok(match outcome.exit_code {
        Some(c) if c != 0 => ExitCode::from(c.clamp(1, 255) as u8),
        None if !outcome.interrupted => ExitCode::from(1),
        _ => code,
    })
}

/// The final diagnosis as core's machine line, before the human text, where the view is drawn (stdout;
/// stderr with `--json`, whose stdout is one object): a kernel's log keeps it for `kgadvise collect`.
fn print_diagnosis_line(report: &DiagnoseReport, json: bool) {
    let line = WatchDiagnosis::of(report).line();
    if json {
        eprintln!("{line}");
    } else {
        println!("{line}");
    }
}

/// `kgadvise sample --live`: the live view for `seconds` (without a limit: until Ctrl-C or nvidia-smi
/// ends), then the final report.
pub fn sample_live(
    live: LiveDiagnoser,
    global: &Global,
    interval_ms: u64,
    seconds: Option<f64>,
    save: Option<&str>,
) -> Result<DiagnoseReport, CliError> {
    check_interval(interval_ms)?;
    let file = save_file(save)?;
    let sampler = LiveSampler::start(interval_ms)?;
    let view = LiveView::new(global.json).shared();
    let start = Instant::now();
    let limit = seconds.map(Duration::from_secs_f64);
    watch_loop(live, sampler, &view, file, save, || {
        limit.is_some_and(|l| start.elapsed() >= l)
    })
}

/// The `--save` file, created before anything starts.
fn save_file(save: Option<&str>) -> Result<Option<File>, CliError> {
    save.map(|path| {
        File::create(path).map_err(|e| CliError::usage(format!("cannot write {path}: {e}")))
    })
    .transpose()
}

fn check_interval(interval_ms: u64) -> Result<(), CliError> {
    if interval_ms == 0 {
        return Err(CliError::usage(
            "--interval-ms 0: expected a positive number of milliseconds",
        ));
    }
    Ok(())
}

/// Samples until `done` (or Ctrl-C, or nvidia-smi ends), feeding the live diagnosis, drawing it and its
/// alarms; the final report of everything sampled.
fn watch_loop(
    mut live: LiveDiagnoser,
    mut sampler: LiveSampler,
    view: &SharedView,
    mut file: Option<File>,
    save: Option<&str>,
    mut done: impl FnMut() -> bool,
) -> Result<DiagnoseReport, CliError> {
    let stop = interrupted();
    loop {
        let finished = done() || stop.load(Ordering::SeqCst);
        let Some(bytes) = sampler.next(Duration::from_millis(200)) else {
            break;
        };
        take(&mut live, view, &bytes, file.as_mut(), save)?;
        if finished {
            break;
        }
    }
    let rest = sampler.stop();
    take(&mut live, view, &rest, file.as_mut(), save)?;
    if let Ok(mut v) = view.lock() {
        v.close(live.report());
    }
    Ok(live.finish())
}

/// New output: saved, diagnosed, its alarms printed, the view redrawn when due.
fn take(
    live: &mut LiveDiagnoser,
    view: &SharedView,
    bytes: &[u8],
    file: Option<&mut File>,
    save: Option<&str>,
) -> Result<(), CliError> {
    if let (Some(f), Some(path)) = (file, save) {
        f.write_all(bytes)
            .map_err(|e| CliError::usage(format!("cannot write {path}: {e}")))?;
    }
    live.push(bytes);
    let alarms = live.take_alarms();
    if let Ok(mut v) = view.lock() {
        for a in &alarms {
            v.alarm(a);
        }
        if v.due() && live.report().samples > 0 {
            v.draw(live.report());
        }
    }
    Ok(())
}
