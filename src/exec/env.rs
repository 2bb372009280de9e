//! The environment variables that [`super::Context::from_env`] reads, parsed by a pure
//! function of their values so that every value, garbage included, is tested without
//! touching the process environment.
//!
//! A variable that is unset, empty or blank means the default. Any other value must parse
//! entirely, or the result is [`Error::InvalidOption`] naming the variable: wgpu itself skips
//! backend and power-preference names it does not know (with a log line), which turns a typo
//! into a silently different adapter or into no adapter at all.

use super::shared::MIN_WINDOW;
use crate::error::Error;
use crate::schedule::KernelTuning;

/// Which limits [`Context::from_env`](crate::Context::from_env) asks the adapter for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum LimitsChoice {
    /// The adapter's own limits (`adapter.limits()`): the default.
    #[default]
    Adapter,
    /// WebGPU's default limits (`wgpu::Limits::default()`), to check that everything works
    /// within them.
    WebGpuDefault,
    /// wgpu's downlevel defaults (`wgpu::Limits::downlevel_defaults()`).
    Downlevel,
}

/// What the environment asks for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct EnvOptions {
    /// `WGPU_BACKEND`: the backends to enumerate; `None` for wgpu's default.
    pub backends: Option<wgpu::Backends>,
    /// `WGPU_ADAPTER_NAME`: a part of the adapter's name, any case.
    pub adapter_name: Option<String>,
    /// `WGPU_POWER_PREF`: `low`, `high` or `none`.
    pub power_preference: Option<wgpu::PowerPreference>,
    /// `GPU_XOR_LIMITS`: `adapter`, `webgpu` (or `default`) or `downlevel`.
    pub limits: LimitsChoice,
    /// `GPU_XOR_KERNELS`: `auto`, `gpu` or `cpu`.
    pub kernel_tuning: KernelTuning,
    /// `GPU_XOR_MAX_WINDOW`: a decimal byte count, at least [`MIN_WINDOW`] (the device may
    /// ask for more).
    pub max_window_bytes: Option<u64>,
}

/// Parses the settings from `var`, which gives a variable's value or `None` when it is
/// unset. A value that is not valid Unicode should be given lossily converted: it then fails
/// to parse, with its replacement characters in the message.
pub(crate) fn options_from(var: impl Fn(&str) -> Option<String>) -> Result<EnvOptions, Error> {
    let get = |name: &str| {
        var(name)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    let invalid = |name: &'static str, reason: String| Error::InvalidOption { name, reason };
    let backends = match get("WGPU_BACKEND") {
        None => None,
        Some(text) => Some(backends(&text).map_err(|r| invalid("WGPU_BACKEND", r))?),
    };
    let power_preference = match get("WGPU_POWER_PREF") {
        None => None,
        Some(text) => Some(match text.to_lowercase().as_str() {
            "low" => wgpu::PowerPreference::LowPower,
            "high" => wgpu::PowerPreference::HighPerformance,
            "none" => wgpu::PowerPreference::None,
            _ => {
                return Err(invalid(
                    "WGPU_POWER_PREF",
                    format!("{text:?} is not low, high or none"),
                ));
            }
        }),
    };
    let limits = match get("GPU_XOR_LIMITS") {
        None => LimitsChoice::Adapter,
        Some(text) => match text.to_lowercase().as_str() {
            "adapter" => LimitsChoice::Adapter,
            "webgpu" | "default" => LimitsChoice::WebGpuDefault,
            "downlevel" => LimitsChoice::Downlevel,
            _ => {
                return Err(invalid(
                    "GPU_XOR_LIMITS",
                    format!("{text:?} is not adapter, webgpu or downlevel"),
                ));
            }
        },
    };
    let max_window_bytes = match get("GPU_XOR_MAX_WINDOW") {
        None => None,
        Some(text) => {
            // `u64::from_str` takes ASCII digits only (no sign but `+`, no separators, no
            // other scripts' digits) and refuses values past u64::MAX.
            let bytes = text
                .parse::<u64>()
                .map_err(|e| invalid("GPU_XOR_MAX_WINDOW", format!("{text:?}: {e}")))?;
            if bytes < MIN_WINDOW {
                return Err(invalid(
                    "GPU_XOR_MAX_WINDOW",
                    format!("{bytes} is below {MIN_WINDOW} bytes"),
                ));
            }
            Some(bytes)
        }
    };
    let kernel_tuning = match get("GPU_XOR_KERNELS") {
        None => KernelTuning::Auto,
        Some(text) => match text.to_lowercase().as_str() {
            "auto" => KernelTuning::Auto,
            "gpu" => KernelTuning::Gpu,
            "cpu" => KernelTuning::Cpu,
            "measured" => KernelTuning::Measured,
            _ => {
                return Err(invalid(
                    "GPU_XOR_KERNELS",
                    format!("{text:?} is not auto, gpu, cpu or measured"),
                ));
            }
        },
    };
    Ok(EnvOptions {
        backends,
        adapter_name: get("WGPU_ADAPTER_NAME"),
        power_preference,
        limits,
        max_window_bytes,
        kernel_tuning,
    })
}

/// A comma-separated list of backend names, with wgpu's names
/// (`wgpu::Backends::from_comma_list`), every one of which must be known.
fn backends(text: &str) -> Result<wgpu::Backends, String> {
    let mut backends = wgpu::Backends::empty();
    for name in text.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        backends |= match name.to_lowercase().as_str() {
            "vulkan" | "vk" => wgpu::Backends::VULKAN,
            "dx12" | "d3d12" => wgpu::Backends::DX12,
            "metal" | "mtl" => wgpu::Backends::METAL,
            "opengl" | "gles" | "gl" => wgpu::Backends::GL,
            "webgpu" => wgpu::Backends::BROWSER_WEBGPU,
            "noop" => wgpu::Backends::NOOP,
            _ => {
                return Err(format!(
                    "{name:?} in {text:?} is not a backend (vulkan, dx12, metal, gl, webgpu, noop)"
                ));
            }
        };
    }
    if backends.is_empty() {
        return Err(format!("{text:?} names no backend"));
    }
    Ok(backends)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(pairs: &[(&str, &str)]) -> Result<EnvOptions, Error> {
        options_from(|name| {
            pairs
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        })
    }

    fn refused(name: &str, value: &str) -> Error {
        let e = parse(&[(name, value)]).expect_err(&format!("{name}={value:?} should be refused"));
        assert_eq!(e.rule(), "invalid_option", "{e}");
        match &e {
            Error::InvalidOption { name: n, .. } => assert_eq!(n, &name, "{e}"),
            other => panic!("{other}"),
        }
        e
    }

    #[test]
    fn nothing_set_gives_the_defaults() {
        assert_eq!(parse(&[]).unwrap(), EnvOptions::default());
    }

    #[test]
    fn empty_and_blank_values_mean_unset() {
        for v in ["", " ", "\t\n"] {
            let all = [
                ("WGPU_BACKEND", v),
                ("WGPU_ADAPTER_NAME", v),
                ("WGPU_POWER_PREF", v),
                ("GPU_XOR_LIMITS", v),
                ("GPU_XOR_MAX_WINDOW", v),
                ("GPU_XOR_KERNELS", v),
            ];
            assert_eq!(parse(&all).unwrap(), EnvOptions::default(), "{v:?}");
        }
    }

    #[test]
    fn good_values_parse() {
        let o = parse(&[
            ("WGPU_BACKEND", " Vulkan, gl ,"),
            ("WGPU_ADAPTER_NAME", " llvmpipe "),
            ("WGPU_POWER_PREF", "HIGH"),
            ("GPU_XOR_LIMITS", "WebGPU"),
            ("GPU_XOR_MAX_WINDOW", " 4096 "),
            ("GPU_XOR_KERNELS", "GPU"),
        ])
        .unwrap();
        assert_eq!(o.kernel_tuning, KernelTuning::Gpu);
        for (text, tuning) in [
            ("auto", KernelTuning::Auto),
            ("cpu", KernelTuning::Cpu),
            ("Cpu ", KernelTuning::Cpu),
            ("measured", KernelTuning::Measured),
        ] {
            let parsed = parse(&[("GPU_XOR_KERNELS", text)]).unwrap();
            assert_eq!(parsed.kernel_tuning, tuning, "{text:?}");
        }
        assert!(matches!(
            parse(&[("GPU_XOR_KERNELS", "fast")]),
            Err(Error::InvalidOption {
                name: "GPU_XOR_KERNELS",
                ..
            })
        ));
        assert_eq!(
            o.backends,
            Some(wgpu::Backends::VULKAN | wgpu::Backends::GL)
        );
        assert_eq!(o.adapter_name.as_deref(), Some("llvmpipe"));
        assert_eq!(
            o.power_preference,
            Some(wgpu::PowerPreference::HighPerformance)
        );
        assert_eq!(o.limits, LimitsChoice::WebGpuDefault);
        assert_eq!(o.max_window_bytes, Some(4096));
        // The largest u64 is a valid request: the device's own limit caps it.
        let o = parse(&[("GPU_XOR_MAX_WINDOW", "18446744073709551615")]).unwrap();
        assert_eq!(o.max_window_bytes, Some(u64::MAX));
        assert_eq!(
            parse(&[("GPU_XOR_MAX_WINDOW", "64")])
                .unwrap()
                .max_window_bytes,
            Some(64)
        );
        assert_eq!(
            parse(&[("GPU_XOR_LIMITS", "downlevel")]).unwrap().limits,
            LimitsChoice::Downlevel
        );
    }

    #[test]
    fn garbage_window_sizes_are_refused() {
        for v in [
            "-1",
            "-4096",
            "0",
            "1",
            "63",
            "4 KiB",
            "4096b",
            "0x1000",
            "1e6",
            "4_096",
            "4,096",
            "40.96",
            "18446744073709551616",
            "99999999999999999999999999999999",
            "NaN",
            "inf",
            "\u{0664}\u{0660}\u{0669}\u{0666}", // Arabic-Indic digits
            "\u{FF14}\u{FF10}\u{FF19}\u{FF16}", // full-width digits
            "4096\u{0}",
            "\u{FFFD}",
            "four thousand",
        ] {
            let e = refused("GPU_XOR_MAX_WINDOW", v);
            assert!(e.to_string().contains("GPU_XOR_MAX_WINDOW"), "{e}");
        }
    }

    #[test]
    fn garbage_limits_are_refused() {
        for v in [
            "adaptor",
            "web gpu",
            "0",
            "-1",
            "max",
            "webgpu,downlevel",
            "\u{FFFD}",
            "ädapter",
        ] {
            refused("GPU_XOR_LIMITS", v);
        }
    }

    #[test]
    fn garbage_backends_are_refused_not_skipped() {
        for v in [
            "vulkn",
            "vulkan,foo",
            "vulkan;gl",
            ",",
            " , ",
            "0",
            "-1",
            "all",
            "vulkan gl",
            "\u{FFFD}",
            "vülkan",
        ] {
            let e = refused("WGPU_BACKEND", v);
            assert!(e.to_string().contains("WGPU_BACKEND"), "{e}");
        }
    }

    #[test]
    fn garbage_power_preferences_are_refused() {
        for v in ["lo", "highest", "1", "-1", "\u{FFFD}"] {
            refused("WGPU_POWER_PREF", v);
        }
    }

    #[test]
    fn the_first_garbage_value_is_named_even_among_good_ones() {
        let e = parse(&[
            ("WGPU_BACKEND", "vulkan"),
            ("GPU_XOR_LIMITS", "adapter"),
            ("GPU_XOR_MAX_WINDOW", "-5"),
        ])
        .unwrap_err();
        assert!(
            matches!(
                e,
                Error::InvalidOption {
                    name: "GPU_XOR_MAX_WINDOW",
                    ..
                }
            ),
            "{e}"
        );
    }
}
