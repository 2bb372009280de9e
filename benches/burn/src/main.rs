//! gpu-xor against burn's wgpu backend (Vulkan, no fusion): the time per call of an XOR of
//! integer tensors, contiguous, through strided views and broadcast, on the same adapter in
//! one run. See README.md.
//!
//! ```sh
//! cargo run --release -- --tuning cpu,gpu,measured [--quick] [--case NAME]
//! ```

#![allow(
    clippy::disallowed_methods,
    reason = "a benchmark binary waits for the device and for burn's profile windows"
)]

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use burn::tensor::wgpu::WgpuBackend;
use burn::tensor::{DType, Device, Int, Tensor, TensorData};
use gpu_xor::{
    Bindings, CompiledOperator, Context, DataType, DmlBinary, DmlBinaryDesc, DmlBinaryOp, Prepared,
    TensorBinding, TensorDesc,
};

/// The element types of the cases.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ty {
    I32,
    U8,
}

impl Ty {
    fn width(self) -> usize {
        match self {
            Ty::I32 => 4,
            Ty::U8 => 1,
        }
    }
    fn ours(self) -> DataType {
        match self {
            Ty::I32 => DataType::I32,
            Ty::U8 => DataType::U8,
        }
    }
    fn burn(self) -> DType {
        match self {
            Ty::I32 => DType::I32,
            Ty::U8 => DType::U8,
        }
    }
}

/// How burn makes A from its source tensor (B is always its source tensor, in B's shape).
#[derive(Clone, Copy)]
enum View {
    /// A itself.
    Plain,
    /// `a.transpose()`: strides `[1, n]`, a view.
    Transpose,
    /// `a.slice([0..rows, 0..cols])` of a wider tensor: a view.
    Slice,
    /// `a.permute([2, 0, 1])`: a view.
    Permute201,
}

/// One case: the output's shape, A's and B's source tensors (packed, in their own shapes) and
/// the element strides through which the XOR reads them, in the output's index space (zero
/// where B is broadcast, as DirectML describes a broadcast).
struct Case {
    name: &'static str,
    ty: Ty,
    out: Vec<usize>,
    a_src: Vec<usize>,
    a_strides: Vec<usize>,
    a_view: View,
    b_src: Vec<usize>,
    b_strides: Vec<usize>,
}

fn packed_strides(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![1; shape.len()];
    for k in (0..shape.len().saturating_sub(1)).rev() {
        strides[k] = strides[k + 1] * shape[k + 1];
    }
    strides
}

impl Case {
    fn contiguous(name: &'static str, ty: Ty, n: usize) -> Case {
        let shape = vec![n, n];
        Case {
            name,
            ty,
            out: shape.clone(),
            a_src: shape.clone(),
            a_strides: packed_strides(&shape),
            a_view: View::Plain,
            b_src: shape.clone(),
            b_strides: packed_strides(&shape),
        }
    }

    fn transposed(name: &'static str, n: usize) -> Case {
        let shape = vec![n, n];
        Case {
            name,
            ty: Ty::I32,
            out: shape.clone(),
            a_src: shape.clone(),
            a_strides: vec![1, n],
            a_view: View::Transpose,
            b_src: shape.clone(),
            b_strides: packed_strides(&shape),
        }
    }

    fn all() -> Vec<Case> {
        let (n, cols, k, cube) = (4096, 4088, 65536, 256);
        vec![
            Case::contiguous("contiguous 4096x4096 i32", Ty::I32, n),
            Case::contiguous("contiguous 1024x1024 i32", Ty::I32, 1024),
            Case::transposed("transposed A 4096x4096 i32", n),
            Case::transposed("transposed A 1024x1024 i32", 1024),
            Case {
                name: "sliced A 4096x4088 of 4096x4096 i32",
                ty: Ty::I32,
                out: vec![n, cols],
                a_src: vec![n, n],
                a_strides: vec![n, 1],
                a_view: View::Slice,
                b_src: vec![n, cols],
                b_strides: vec![cols, 1],
            },
            Case {
                name: "row broadcast [4096,4096]^[1,4096] i32",
                ty: Ty::I32,
                out: vec![n, n],
                a_src: vec![n, n],
                a_strides: vec![n, 1],
                a_view: View::Plain,
                b_src: vec![1, n],
                b_strides: vec![0, 1],
            },
            Case {
                name: "channel broadcast [1,64,65536,1]^[1,64,1,1] i32",
                ty: Ty::I32,
                out: vec![1, 64, k, 1],
                a_src: vec![1, 64, k, 1],
                a_strides: packed_strides(&[1, 64, k, 1]),
                a_view: View::Plain,
                b_src: vec![1, 64, 1, 1],
                b_strides: vec![64, 1, 0, 0],
            },
            Case {
                name: "permuted A (2,0,1) 256^3 i32",
                ty: Ty::I32,
                out: vec![cube; 3],
                a_src: vec![cube; 3],
                // Axis k of the view reads source axis [2, 0, 1][k].
                a_strides: vec![1, cube * cube, cube],
                a_view: View::Permute201,
                b_src: vec![cube; 3],
                b_strides: packed_strides(&[cube; 3]),
            },
            Case::contiguous("contiguous 4096x4096 u8", Ty::U8, n),
        ]
    }

    /// The cases of a GPU, past its last-level cache (60 MB on an H200): the contiguous,
    /// transposed, sliced and row-broadcast cases at 8192 x 8192 and 16384 x 16384 (256 MiB
    /// and 1 GiB per operand), and the permuted cube at 512^3 (512 MiB).
    fn large() -> Vec<Case> {
        let name = |text: String| -> &'static str { Box::leak(text.into_boxed_str()) };
        let mut cases = Vec::new();
        for n in [8192, 16384] {
            cases.push(Case::contiguous(
                name(format!("contiguous {n}x{n} i32")),
                Ty::I32,
                n,
            ));
            cases.push(Case::transposed(
                name(format!("transposed A {n}x{n} i32")),
                n,
            ));
            cases.push(Case {
                name: name(format!("sliced A {n}x{} of {n}x{n} i32", n - 8)),
                ty: Ty::I32,
                out: vec![n, n - 8],
                a_src: vec![n, n],
                a_strides: vec![n, 1],
                a_view: View::Slice,
                b_src: vec![n, n - 8],
                b_strides: vec![n - 8, 1],
            });
            cases.push(Case {
                name: name(format!("row broadcast [{n},{n}]^[1,{n}] i32")),
                ty: Ty::I32,
                out: vec![n, n],
                a_src: vec![n, n],
                a_strides: vec![n, 1],
                a_view: View::Plain,
                b_src: vec![1, n],
                b_strides: vec![0, 1],
            });
        }
        let cube = 512;
        cases.push(Case {
            name: "permuted A (2,0,1) 512^3 i32",
            ty: Ty::I32,
            out: vec![cube; 3],
            a_src: vec![cube; 3],
            a_strides: vec![1, cube * cube, cube],
            a_view: View::Permute201,
            b_src: vec![cube; 3],
            b_strides: packed_strides(&[cube; 3]),
        });
        cases
    }

    fn elements(&self) -> usize {
        self.out.iter().product()
    }

    /// Bytes read and written by one call, counting a broadcast operand once.
    fn traffic(&self) -> usize {
        let w = self.ty.width();
        let b: usize = self.b_src.iter().product();
        (2 * self.elements() + b) * w
    }
}

/// The bytes of a splitmix64 stream from `seed`.
fn random_bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut state = seed;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        out.extend_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    out.truncate(len);
    out
}

/// The XOR on the host: the output packed, A and B read through their strides.
fn reference(case: &Case, a: &[u8], b: &[u8]) -> Vec<u8> {
    let w = case.ty.width();
    let rank = case.out.len();
    let mut out = vec![0u8; case.elements() * w];
    let mut index = vec![0usize; rank];
    let (mut at_a, mut at_b) = (0usize, 0usize);
    for o in 0..case.elements() {
        for byte in 0..w {
            out[o * w + byte] = a[at_a * w + byte] ^ b[at_b * w + byte];
        }
        // Step the index like an odometer, keeping both offsets.
        for k in (0..rank).rev() {
            index[k] += 1;
            at_a += case.a_strides[k];
            at_b += case.b_strides[k];
            if index[k] < case.out[k] {
                break;
            }
            at_a -= case.a_strides[k] * case.out[k];
            at_b -= case.b_strides[k] * case.out[k];
            index[k] = 0;
        }
    }
    out
}

/// Where the two results first differ, and how many bytes differ.
fn compare(got: &[u8], want: &[u8]) -> Option<String> {
    if got.len() != want.len() {
        return Some(format!("{} bytes, expected {}", got.len(), want.len()));
    }
    let first = got.iter().zip(want).position(|(x, y)| x != y)?;
    let count = got.iter().zip(want).filter(|(x, y)| x != y).count();
    Some(format!(
        "{count} of {} bytes differ, the first at byte {first} ({:#04x}, expected {:#04x})",
        want.len(),
        got[first],
        want[first]
    ))
}

struct Settings {
    tunings: Vec<String>,
    rounds: usize,
    quick: bool,
    filter: Option<String>,
}

impl Settings {
    /// Repetitions per round: about 1.5 GiB of traffic, 3 to 64 calls (`--quick`: 512 MiB,
    /// 2 to 32).
    fn reps(&self, case: &Case) -> usize {
        let (target, low, high): (usize, usize, usize) = if self.quick {
            (512 << 20, 2, 32)
        } else {
            (1536 << 20, 3, 64)
        };
        (target / case.traffic()).clamp(low, high)
    }
}

fn usage() -> &'static str {
    "usage: gpu-xor-burn-bench [--tuning LIST] [--quick] [--rounds N] [--case TEXT]\n\
     \n\
     --tuning LIST  comma list of GPU_XOR_KERNELS values (auto, gpu, cpu, measured, ...):\n\
     \x20              gpu-xor runs once per tuning, each on a context of its own\n\
     \x20              (default: auto)\n\
     --quick        a third of the repetitions and 3 rounds instead of 5\n\
     --rounds N     rounds per measurement (the best is kept)\n\
     --case TEXT    only the cases whose name contains TEXT"
}

fn parse_args() -> Result<Settings, String> {
    let mut settings = Settings {
        tunings: vec!["auto".to_string()],
        rounds: 5,
        quick: false,
        filter: None,
    };
    let mut rounds = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) => (f.to_string(), Some(v.to_string())),
            None => (arg.clone(), None),
        };
        let mut value = |name: &str| {
            inline
                .clone()
                .or_else(|| args.next())
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match flag.as_str() {
            "--tuning" | "--tunings" => {
                settings.tunings = value("--tuning")?
                    .split(',')
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
                    .collect();
                if settings.tunings.is_empty() {
                    return Err("--tuning needs at least one name".into());
                }
            }
            "--quick" => settings.quick = true,
            "--rounds" => {
                rounds = Some(
                    value("--rounds")?
                        .parse::<usize>()
                        .map_err(|e| format!("--rounds: {e}"))?
                        .max(1),
                )
            }
            "--case" => settings.filter = Some(value("--case")?),
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    settings.rounds = rounds.unwrap_or(if settings.quick { 3 } else { 5 });
    Ok(settings)
}

/// One gpu-xor context per tuning, made with `Context::from_env` under
/// `GPU_XOR_KERNELS=<tuning>`.
fn our_contexts(tunings: &[String]) -> Result<Vec<Context>, String> {
    let mut contexts = Vec::new();
    for tuning in tunings {
        // SAFETY: set on the main thread before `Context::from_env` reads it and before burn's
        // runtime exists; no other thread (the driver threads of the contexts made before
        // included) reads or writes the environment meanwhile.
        unsafe { std::env::set_var("GPU_XOR_KERNELS", tuning) };
        let ctx = Context::from_env()
            .map_err(|e| format!("gpu-xor context with GPU_XOR_KERNELS={tuning}: {e}"))?;
        contexts.push(ctx);
    }
    Ok(contexts)
}

/// A storage buffer holding `bytes` (its size rounded up to 16).
fn buffer_with(ctx: &Context, bytes: &[u8]) -> wgpu::Buffer {
    let size = (bytes.len().max(16) as u64).div_ceil(16) * 16;
    let buffer = ctx.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("burn bench"),
        size,
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: true,
    });
    {
        let mut view = buffer.get_mapped_range_mut(..).expect("mapped");
        view.slice(..bytes.len()).copy_from_slice(bytes);
    }
    buffer.unmap();
    buffer
}

/// The kernels of a prepared call: `Tile`, or `Contiguous x2` for two pieces of one kernel.
fn kernels(call: &Prepared) -> String {
    let mut runs: Vec<(String, usize)> = Vec::new();
    for summary in call.summaries() {
        for kind in &summary.dispatches {
            let name = format!("{kind:?}");
            match runs.last_mut() {
                Some((last, count)) if *last == name => *count += 1,
                _ => runs.push((name, 1)),
            }
        }
    }
    if runs.is_empty() {
        return "none".into();
    }
    runs.iter()
        .map(|(name, count)| {
            if *count == 1 {
                name.clone()
            } else {
                format!("{name} x{count}")
            }
        })
        .collect::<Vec<_>>()
        .join(" + ")
}

/// One timed round of a library on a case: `reps` calls and one wait, per call, and the clock
/// that timed it.
type Round<'a> = Box<dyn FnMut() -> Result<(Duration, String), String> + 'a>;

/// A library made ready to time a case: its round, its output's bytes after one call, and
/// the kernels it ran (gpu-xor's).
struct Ready<'a> {
    round: Round<'a>,
    output: Vec<u8>,
    kernels: String,
}

/// DirectML BIT_XOR of the case on `ctx`: warmed up (`Context::warm_up`), prepared once, run
/// once and read back; a round is `reps` recordings of the prepared call into one encoder, one
/// submit and one wait, timed on the GPU's clock where the device has timestamps (the
/// benchmarks' `gpu_xor_bench::time`), else on the wall clock over the submit and the wait.
fn ready_ours<'a>(
    ctx: &'a Context,
    case: &Case,
    a: &[u8],
    b: &[u8],
    reps: usize,
) -> Result<Ready<'a>, gpu_xor::Error> {
    let t = case.ty.ours();
    let u32s = |v: &[usize]| v.iter().map(|&x| x as u32).collect::<Vec<_>>();
    let sizes = u32s(&case.out);
    let a_desc = TensorDesc::new(t, &sizes).with_strides(&u32s(&case.a_strides));
    let b_desc = TensorDesc::new(t, &sizes).with_strides(&u32s(&case.b_strides));
    let out_desc = TensorDesc::new(t, &sizes);
    let op = DmlBinary::new(
        ctx,
        &DmlBinaryDesc::new(
            DmlBinaryOp::BitXor,
            a_desc.clone(),
            b_desc.clone(),
            out_desc.clone(),
        ),
    )?;
    ctx.warm_up(&[&op as &dyn CompiledOperator])?;

    let a_buf = buffer_with(ctx, a);
    let b_buf = buffer_with(ctx, b);
    let out_size = out_desc.total_size()?;
    // Filled with a pattern, so that an element the call leaves alone shows.
    let out_buf = buffer_with(ctx, &vec![0xa5; out_size as usize]);
    let bound =
        |d: &TensorDesc| -> Result<u64, gpu_xor::Error> { Ok(d.total_size()?.div_ceil(4) * 4) };
    let call = op.prepare(&Bindings::new(
        TensorBinding::range(&a_buf, 0, bound(&a_desc)?),
        TensorBinding::range(&b_buf, 0, bound(&b_desc)?),
        TensorBinding::range(&out_buf, 0, bound(&out_desc)?),
    ))?;

    let kernels = kernels(&call);
    // The warm-up call (it also touches every buffer once): the first recording also uploads
    // the call's metadata.
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    call.record(&mut encoder)?;
    ctx.queue().submit([encoder.finish()]);
    ctx.wait()?;
    let output = ctx.read_buffer(&out_buf, 0, out_size)?;
    Ok(Ready {
        round: Box::new(move || {
            let failed = std::cell::Cell::new(None);
            let per_call = gpu_xor_bench::time(ctx, reps as u64, &|encoder, n| {
                for _ in 0..n {
                    if let Err(e) = call.record(encoder) {
                        failed.set(Some(e.to_string()));
                    }
                }
            });
            match failed.into_inner() {
                Some(e) => Err(e),
                None => Ok((per_call, gpu_xor_bench::clock_used())),
            }
        }),
        output,
        kernels,
    })
}

fn source<const D: usize>(
    device: &Device,
    ty: Ty,
    shape: &[usize],
    bytes: &[u8],
) -> Tensor<D, Int> {
    let data = TensorData::from_bytes_vec(bytes.to_vec(), shape.to_vec(), ty.burn());
    Tensor::<D, Int>::from_data(data, (device, ty.burn()))
}

/// burn's XOR of `a` (already the case's view of its source) and `b`: one call to warm up,
/// read back; a round is `reps` calls of `a.clone().bitwise_xor(b.clone())` (each result
/// dropped, as a loop body would) inside one `Device::profile` window and one `device.sync()`:
/// the device's time where burn's runtime reads the GPU's clock (its timing method says
/// which), else the wall clock between two syncs.
fn ready_burn_with<'a, const D: usize>(
    device: &'a Device,
    a: Tensor<D, Int>,
    b: Tensor<D, Int>,
    reps: usize,
) -> Result<Ready<'a>, String> {
    let first = a.clone().bitwise_xor(b.clone());
    device.sync().map_err(|e| format!("sync: {e:?}"))?;
    let output = first.into_data().as_bytes().to_vec();
    Ok(Ready {
        round: Box::new(move || {
            let (_, window) = device
                .profile(|| {
                    for _ in 0..reps {
                        let c = a.clone().bitwise_xor(b.clone());
                        drop(c);
                    }
                })
                .map_err(|e| format!("profile: {e:?}"))?;
            device.sync().map_err(|e| format!("sync: {e:?}"))?;
            let method = window.timing_method().to_string();
            let ticks = pollster::block_on(window.resolve())
                .ok_or_else(|| "the profile window measured nothing".to_string())?;
            Ok((ticks.duration() / reps as u32, method))
        }),
        output,
        kernels: String::new(),
    })
}

/// burn's inputs of the case, as tensors of its rank with A seen through the case's view.
fn ready_burn<'a>(
    device: &'a Device,
    case: &Case,
    a: &[u8],
    b: &[u8],
    reps: usize,
) -> Result<Ready<'a>, String> {
    if !device.supports_dtype(case.ty.burn()) {
        return Err(format!(
            "burn's wgpu device does not support {:?} tensors on this adapter",
            case.ty.burn()
        ));
    }
    let (ty, a_src, b_src) = (case.ty, &case.a_src, &case.b_src);
    let attempt = catch_unwind(AssertUnwindSafe(|| match case.out.len() {
        2 => {
            let source_a = source::<2>(device, ty, a_src, a);
            let a_view = match case.a_view {
                View::Plain => source_a,
                View::Transpose => source_a.transpose(),
                View::Slice => source_a.slice([0..case.out[0], 0..case.out[1]]),
                View::Permute201 => unreachable!("a 3-D view"),
            };
            ready_burn_with(device, a_view, source::<2>(device, ty, b_src, b), reps)
        }
        3 => {
            let source_a = source::<3>(device, ty, a_src, a);
            let a_view = match case.a_view {
                View::Plain => source_a,
                View::Permute201 => source_a.permute([2, 0, 1]),
                _ => unreachable!("a 2-D view"),
            };
            ready_burn_with(device, a_view, source::<3>(device, ty, b_src, b), reps)
        }
        4 => ready_burn_with(
            device,
            source::<4>(device, ty, a_src, a),
            source::<4>(device, ty, b_src, b),
            reps,
        ),
        rank => Err(format!("no burn form for rank {rank}")),
    }));
    attempt.unwrap_or_else(|panic| Err(format!("burn panicked: {}", panic_text(&*panic))))
}

fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "a panic".into())
}

/// The machine's load averages (`/proc/loadavg`), where it has them: on a software adapter
/// anything else running on the CPUs shows in every figure.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

fn micros(d: Duration) -> String {
    format!("{:.0}", d.as_secs_f64() * 1e6)
}

fn main() -> ExitCode {
    let settings = match parse_args() {
        Ok(s) => s,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("error: {e}\n");
            }
            eprintln!("{}", usage());
            return ExitCode::from(2);
        }
    };
    // Both libraries on Vulkan: burn's device is pinned to it below, and gpu-xor's
    // `Context::from_env` reads WGPU_BACKEND.
    if std::env::var_os("WGPU_BACKEND").is_none() {
        // SAFETY: single-threaded still; no other thread exists yet.
        unsafe { std::env::set_var("WGPU_BACKEND", "vulkan") };
    }

    let contexts = match our_contexts(&settings.tunings) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let (device, setup) = match Device::wgpu_options()
        .graphics_api(WgpuBackend::Vulkan)
        .init_with_setup()
    {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: burn's wgpu runtime on Vulkan: {e:?}");
            return ExitCode::from(2);
        }
    };

    let burn_adapter = setup.adapter.get_info();
    println!("# gpu-xor against burn 0.23.0-pre.1\n");
    println!(
        "- burn's adapter: {} ({:?}, driver {} {})",
        burn_adapter.name, burn_adapter.backend, burn_adapter.driver, burn_adapter.driver_info
    );
    for (tuning, ctx) in settings.tunings.iter().zip(&contexts) {
        let info = ctx.adapter_info();
        println!(
            "- gpu-xor's adapter under GPU_XOR_KERNELS={tuning}: {} ({:?}), tuning {:?}",
            info.name,
            info.backend,
            ctx.kernel_tuning()
        );
        if info.name != burn_adapter.name || info.backend != burn_adapter.backend {
            eprintln!(
                "warning: gpu-xor runs on {} ({:?}), burn on {} ({:?}): not the same adapter",
                info.name, info.backend, burn_adapter.name, burn_adapter.backend
            );
        }
    }
    println!(
        "- time per call: best of {} rounds; a round is N calls then one wait (burn: \
         `a.clone().bitwise_xor(b.clone())` N times, results dropped, in one `Device::profile` \
         window, then `device.sync()`; gpu-xor: a prepared DirectML BIT_XOR recorded N times \
         into one encoder, one submit, one wait), each timed on its device's clock where it \
         has one (the clocks are listed under the table), rounds of the libraries \
         interleaved{}",
        settings.rounds,
        if settings.quick { "; --quick" } else { "" }
    );
    println!("- load average at the start: {}\n", load_average());

    // On a GPU, sizes past its cache too.
    let mut all = Case::all();
    if burn_adapter.device_type != wgpu::DeviceType::Cpu {
        all.extend(Case::large());
    }
    let cases: Vec<Case> = all
        .into_iter()
        .filter(|c| {
            settings
                .filter
                .as_ref()
                .is_none_or(|f| c.name.contains(f.as_str()))
        })
        .collect();
    if cases.is_empty() {
        eprintln!("error: no case matches");
        return ExitCode::from(2);
    }

    let mut rows = Vec::new();
    let mut clocks: Vec<(&str, String)> = Vec::new();
    let mut failures = 0;
    let started = Instant::now();
    for (i, case) in cases.iter().enumerate() {
        let w = case.ty.width();
        let a: Vec<u8> = random_bytes(case.a_src.iter().product::<usize>() * w, 2 * i as u64 + 1);
        let b: Vec<u8> = random_bytes(case.b_src.iter().product::<usize>() * w, 2 * i as u64 + 2);
        let want = reference(case, &a, &b);
        let reps = settings.reps(case);
        eprintln!(
            "[{:>5.1}s] {} ({} calls a round)",
            started.elapsed().as_secs_f64(),
            case.name,
            reps
        );

        // Each library made ready (inputs made, warmed up, one call read back), then checked
        // against the host's XOR.
        let mut sides: Vec<(String, Result<Ready<'_>, String>)> = Vec::new();
        sides.push(("burn".into(), ready_burn(&device, case, &a, &b, reps)));
        for (tuning, ctx) in settings.tunings.iter().zip(&contexts) {
            sides.push((
                format!("gpu-xor ({tuning})"),
                ready_ours(ctx, case, &a, &b, reps).map_err(|e| e.to_string()),
            ));
        }
        let mut wrong = vec![false; sides.len()];
        for (k, (who, side)) in sides.iter().enumerate() {
            match side {
                Ok(ready) => {
                    if let Some(diff) = compare(&ready.output, &want) {
                        eprintln!("error: {}: {who}'s result is wrong: {diff}", case.name);
                        failures += 1;
                        wrong[k] = true;
                    }
                }
                Err(reason) if k == 0 => eprintln!("skipped: {}: burn: {reason}", case.name),
                Err(reason) => {
                    eprintln!("error: {}: {who}: {reason}", case.name);
                    failures += 1;
                }
            }
        }
        // Rounds interleaved (burn, then each tuning), so that drift on the machine touches
        // every library alike; the best round of each is kept.
        let mut best = vec![None::<Duration>; sides.len()];
        for _ in 0..settings.rounds {
            for (k, (who, side)) in sides.iter_mut().enumerate() {
                let Ok(ready) = side else { continue };
                match (ready.round)() {
                    Ok((t, clock)) => {
                        best[k] = Some(best[k].map_or(t, |b| b.min(t)));
                        let name = if k == 0 { "burn" } else { "gpu-xor" };
                        if !clocks.contains(&(name, clock.clone())) {
                            clocks.push((name, clock));
                        }
                    }
                    Err(e) => {
                        eprintln!("error: {}: {who}: {e}", case.name);
                        failures += 1;
                        *side = Err(e);
                        best[k] = None;
                    }
                }
            }
        }
        let cell = |k: usize| match (&sides[k].1, best[k]) {
            (Ok(_), Some(t)) if wrong[k] => format!("{} (WRONG)", micros(t)),
            (Ok(_), Some(t)) => micros(t),
            _ if k == 0 => "skipped".into(),
            _ => "error".into(),
        };
        let burn_cell = cell(0);
        let ours_cells: Vec<String> = (1..sides.len()).map(cell).collect();
        let ratio_cells: Vec<String> = (1..sides.len())
            .map(|k| match (best[0], best[k]) {
                (Some(theirs), Some(ours)) => {
                    format!("{:.2}", theirs.as_secs_f64() / ours.as_secs_f64())
                }
                _ => "-".into(),
            })
            .collect();
        let kernel_cells: Vec<String> = sides[1..]
            .iter()
            .map(|(_, side)| match side {
                Ok(ready) => ready.kernels.clone(),
                Err(_) => "-".into(),
            })
            .collect();
        drop(sides);
        device.memory_cleanup();
        // One kernel name where every tuning ran the same, else each tuning's.
        let kernel = if kernel_cells.windows(2).all(|w| w[0] == w[1]) {
            kernel_cells[0].clone()
        } else {
            settings
                .tunings
                .iter()
                .zip(&kernel_cells)
                .map(|(t, k)| format!("{t}: {k}"))
                .collect::<Vec<_>>()
                .join("; ")
        };
        rows.push((case.name, burn_cell, ours_cells, ratio_cells, kernel));
    }

    let mut header = "| case | burn µs |".to_string();
    let mut rule = "|---|---:|".to_string();
    for t in &settings.tunings {
        header.push_str(&format!(" gpu-xor {t} µs |"));
        rule.push_str("---:|");
    }
    for t in &settings.tunings {
        header.push_str(&format!(" burn / gpu-xor {t} |"));
        rule.push_str("---:|");
    }
    header.push_str(" our kernel |");
    rule.push_str("---|");
    println!("{header}\n{rule}");
    for (name, burn_cell, ours, ratios, kernel) in rows {
        println!(
            "| {name} | {burn_cell} | {} | {} | {kernel} |",
            ours.join(" | "),
            ratios.join(" | ")
        );
    }
    let clocks: Vec<String> = clocks
        .iter()
        .map(|(who, clock)| format!("{who}: {clock}"))
        .collect();
    println!("\nClocks: {}.", clocks.join("; "));
    println!(
        "\nburn / gpu-xor above 1: gpu-xor faster. {} cases in {:.0} s; load average at the \
         end: {}.",
        cases.len(),
        started.elapsed().as_secs_f64(),
        load_average()
    );
    if failures > 0 {
        eprintln!("{failures} failures");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
