//! Where a benched command says its work runs, read from its command line: the CPU-vs-GPU pair of a
//! bench (CE §2: "the run is no faster with a GPU" is the idle verdict even when the GPU is not near 0 %;
//! CE §4: "bench one fold both ways (`kgkit bench --run ... --run "... --device cuda"`)").
//!
//! A setting says CPU or GPU by its name and value:
//! * a device flag: `--device`, `--accelerator`, `--device-type`, `--task-type` (CatBoost) or
//!   `--tree-method` (XGBoost), given `cpu`, or `cuda`, `cuda:N`, `gpu`, `gpu_hist` (any case, `_` or
//!   `-`); a Hydra-style word `device=cuda` is read the same way;
//! * a switch: `--cpu`, `--no-cuda`, `--no-gpu` (CPU) or `--gpu`, `--cuda`, `--use-gpu` (GPU);
//! * the environment: `CUDA_VISIBLE_DEVICES` empty or `-1` hides every GPU (CPU), a device list shows
//!   them (GPU); `DEVICE=cpu|cuda`.
//!
//! A CPU setting wins over a GPU one in the same command (the work cannot use a hidden GPU).

use super::{Change, settings_of};

/// Where a command says it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Device {
    Cpu,
    Gpu,
}

/// Flag names (without dashes, lower case, `_` as `-`) whose value names a device.
const DEVICE_FLAGS: &[&str] = &[
    "device",
    "accelerator",
    "device-type",
    "task-type",
    "tree-method",
];

/// Switches that say CPU or GPU by themselves.
const CPU_SWITCHES: &[&str] = &["cpu", "no-cuda", "no-gpu"];
const GPU_SWITCHES: &[&str] = &["gpu", "cuda", "use-gpu"];

/// Environment variables that name a device.
const DEVICE_ENV: &[&str] = &["DEVICE", "ACCELERATOR"];

/// The device a device value names: `cpu`, or `cuda`, `cuda:1`, `gpu`, `gpu_hist`; None for a value
/// that names neither (`hist`, `auto`).
fn device_value(value: &str) -> Option<Device> {
    let v = value.trim().to_ascii_lowercase().replace('_', "-");
    if v == "cpu" || v == "none" {
        Some(Device::Cpu)
    } else if v == "gpu" || v == "gpu-hist" || v == "cuda" || v.starts_with("cuda:") {
        Some(Device::Gpu)
    } else {
        None
    }
}

/// What one setting of [`settings_of`] says about the device: None when it is not about the device,
/// Some(None) when it is but names neither (`--tree-method hist`), Some(Some(device)) otherwise.
fn device_setting(key: &str, value: &str) -> Option<Option<Device>> {
    if let Some(var) = key.strip_prefix("env:") {
        if var == "CUDA_VISIBLE_DEVICES" {
            let v = value.trim();
            return Some(Some(if v.is_empty() || v == "-1" {
                Device::Cpu
            } else {
                Device::Gpu
            }));
        }
        return DEVICE_ENV.contains(&var).then(|| device_value(value));
    }
    if key.starts_with("argv[") {
        // a Hydra-style word: device=cuda
        let (k, v) = value.split_once('=')?;
        return device_setting(&format!("--{k}"), v);
    }
    let name = key
        .trim_start_matches('-')
        .to_ascii_lowercase()
        .replace('_', "-");
    if DEVICE_FLAGS.contains(&name.as_str()) {
        return Some(device_value(value));
    }
    let switched_on = value == "true";
    if CPU_SWITCHES.contains(&name.as_str()) {
        return Some(switched_on.then_some(Device::Cpu));
    }
    if GPU_SWITCHES.contains(&name.as_str()) {
        return Some(switched_on.then_some(Device::Gpu));
    }
    None
}

/// Where a command line says its work runs; None when it says nothing (the program's default).
pub fn device_of(command: &str) -> Option<Device> {
    let said: Vec<Device> = settings_of(command)
        .iter()
        .filter_map(|(k, v)| device_setting(k, v).flatten())
        .collect();
    if said.contains(&Device::Cpu) {
        Some(Device::Cpu)
    } else {
        said.first().copied()
    }
}

/// Whether a change between two commands is a change of device setting only.
pub fn is_device_change(change: &Change) -> bool {
    [&change.before, &change.after]
        .into_iter()
        .flatten()
        .any(|v| device_setting(&change.setting, v).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::changed_settings;

    #[test]
    fn devices_from_flags_switches_and_the_environment() {
        for (cmd, want) in [
            ("python train.py --device cpu", Some(Device::Cpu)),
            ("python train.py --device=cuda:1", Some(Device::Gpu)),
            ("python gbdt.py --tree_method gpu_hist", Some(Device::Gpu)),
            ("python gbdt.py --tree-method hist", None),
            ("python cb.py --task-type GPU", Some(Device::Gpu)),
            ("python t.py --cpu", Some(Device::Cpu)),
            ("python t.py --no-cuda", Some(Device::Cpu)),
            ("python t.py --gpu --epochs 3", Some(Device::Gpu)),
            ("CUDA_VISIBLE_DEVICES= python t.py", Some(Device::Cpu)),
            ("CUDA_VISIBLE_DEVICES=-1 python t.py", Some(Device::Cpu)),
            ("CUDA_VISIBLE_DEVICES=0,1 python t.py", Some(Device::Gpu)),
            (
                "CUDA_VISIBLE_DEVICES=0 python t.py --device cpu",
                Some(Device::Cpu),
            ),
            ("DEVICE=cuda python t.py", Some(Device::Gpu)),
            ("python t.py trainer.device=cpu", None),
            ("python t.py device=cpu", Some(Device::Cpu)),
            ("python t.py --epochs 3", None),
        ] {
            assert_eq!(device_of(cmd), want, "{cmd}");
        }
    }

    #[test]
    fn device_changes_are_told_apart_from_others() {
        let only = changed_settings("python t.py --device cpu", "python t.py --device cuda");
        assert!(only.iter().all(is_device_change), "{only:?}");
        let dropped = changed_settings("python t.py --device cpu", "python t.py");
        assert!(dropped.iter().all(is_device_change), "{dropped:?}");
        let env = changed_settings("CUDA_VISIBLE_DEVICES= python t.py", "python t.py");
        assert!(env.iter().all(is_device_change), "{env:?}");
        let more = changed_settings(
            "python t.py --device cpu",
            "python t.py --device cuda --bs 64",
        );
        assert!(!more.iter().all(is_device_change), "{more:?}");
    }
}
