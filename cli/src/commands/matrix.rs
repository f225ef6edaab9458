use std::process::ExitCode;

use kgadvise_core::hardware::{self, MatrixRequest};

use crate::output::{CliError, Global, clock, emit};

const EXAMPLES: &str = "Examples:
  kgadvise matrix --platform t4x2 --capability bf16     one cell, with its condition
  kgadvise matrix --platform p100                       one column, with the shape's status
  kgadvise matrix --capability torch-compile            one row
  kgadvise matrix --json                                 the whole table and every Kaggle shape

Platforms: t4x2, p100, tpu-v5e-8, cpu, windows, linux
Capabilities: fp16-amp, bf16, torch-compile, rapids, gpu-gbdt, lightgbm-gpu, vllm, tensorrt-ort-gpu,
  openvino-ort-cpu, pytorch
Support: yes, no, partial (yes under the condition), n/a (does not apply)";

#[derive(Debug, clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    #[command(flatten)]
    pub request: MatrixRequest,
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    let request = MatrixRequest {
        now: global.now.clone(),
        set: global.overrides(),
        ..args.request.clone()
    };
    let report = hardware::matrix(&request, clock()).map_err(|e| CliError::request(e, &[]))?;
    let code = emit(&report, global)?;
    crate::output::share(global, "matrix", &args.request);
    Ok(code)
}
