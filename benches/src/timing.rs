//! The timers, and the statistics the report takes of their figures.
//!
//! Time is measured by recording `iters` repetitions of one call into one encoder, submitting
//! once and waiting ([`time`]): on a software adapter (lavapipe) this is the CPU time of the
//! kernels; on a GPU it is the kernels plus one submission, which is noise at the sizes
//! reported. The recording benchmark instead times the CPU cost of recording alone
//! ([`record_time`]), in each [`Way`](crate::Way) of recording the same small calls.

use std::time::{Duration, Instant};

use gpu_xor::Context;

/// Time per call, from `record` putting `iters` calls into one encoder, one submit and one
/// wait (only the submit and the wait are timed).
pub fn time(
    ctx: &Context,
    iters: u64,
    record: &dyn Fn(&mut wgpu::CommandEncoder, u64),
) -> Duration {
    let device = ctx.device();
    let mut encoder = device.create_command_encoder(&Default::default());
    record(&mut encoder, iters);
    let buffer = encoder.finish();
    let start = Instant::now();
    ctx.queue().submit([buffer]);
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("poll");
    start.elapsed() / iters.max(1) as u32
}

/// The wall time of a new encoder, `record`, `finish`, one submit and one wait.
pub(crate) fn submitted(ctx: &Context, record: &dyn Fn(&mut wgpu::CommandEncoder)) -> Duration {
    let start = Instant::now();
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    record(&mut encoder);
    ctx.queue().submit([encoder.finish()]);
    ctx.device()
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("poll");
    start.elapsed()
}

/// The CPU time of recording: a new encoder, `record`, `CommandEncoder::finish`. After the
/// clock stops, the command buffer is dropped unsubmitted, and an empty submit and a wait
/// follow: a buffer made `mapped_at_creation` (a metadata buffer) reaches the device through a
/// copy wgpu keeps, with its staging buffer, until the next submit, so without one the paths
/// that make metadata buffers would hold memory from every measurement (about 16 KiB a call
/// for `op.record`), and every later recording would slow down.
pub fn record_time(ctx: &Context, record: &dyn Fn(&mut wgpu::CommandEncoder)) -> Duration {
    record_split(ctx, record).0
}

/// [`record_time`], and the part of it that `CommandEncoder::finish` took (where wgpu-core
/// encodes the recorded passes for the driver).
pub(crate) fn record_split(
    ctx: &Context,
    record: &dyn Fn(&mut wgpu::CommandEncoder),
) -> (Duration, Duration) {
    let start = Instant::now();
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    record(&mut encoder);
    let finishing = Instant::now();
    let buffer = encoder.finish();
    let end = Instant::now();
    drop(buffer);
    ctx.queue().submit([]);
    ctx.device()
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("poll");
    (end - start, end - finishing)
}

/// GB/s for `traffic` bytes per `per_call`.
pub(crate) fn gbps(traffic: u64, per_call: Duration) -> f64 {
    traffic as f64 / per_call.as_secs_f64() / 1e9
}

/// Repetitions so that one measurement moves about `target` bytes (at least 2).
pub(crate) fn iterations(traffic: u64, target: u64) -> u64 {
    (target / traffic.max(1)).clamp(2, 10_000)
}

/// The median of `rounds` interleaved measurements of `a` and `b` (after two of each to warm
/// up), so that drift on the machine touches both alike.
pub(crate) fn paired(
    rounds: usize,
    a: impl Fn() -> Duration,
    b: impl Fn() -> Duration,
) -> (f64, f64) {
    for _ in 0..2 {
        a();
        b();
    }
    let mut x = Vec::with_capacity(rounds);
    let mut y = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        x.push(a().as_secs_f64());
        y.push(b().as_secs_f64());
    }
    (median(x), median(y))
}

/// The middle of `v` (the upper of the two middles of an even count).
pub(crate) fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}
