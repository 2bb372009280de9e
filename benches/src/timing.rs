//! The timers, and the statistics the report takes of their figures.
//!
//! Throughput is measured by recording `iters` repetitions of one call into one encoder,
//! submitting once and waiting ([`time`]). Where the device has `TIMESTAMP_QUERY`, the time is
//! the GPU's own: timestamps written by an empty compute pass before the calls and another
//! after them (a pass's end timestamp is written once every command before it has finished),
//! resolved and read back. A fast GPU runs a 64 MiB call in about 50 µs, and a submit with its
//! wait costs about 150 µs, so the wall clock would measure the queue, not the kernels. Where
//! the device has no timestamps, or they do not advance, the wall clock around the submit and
//! the wait is taken instead, and [`clock_line`] says so under every table. A graph's frames
//! are timed the same way ([`frame`]). The recording benchmark times the CPU cost of recording
//! alone ([`record_time`]), and the small-call latencies the wall time of a whole call
//! ([`submitted`]): those are the host's costs, and stay on the wall clock.

use std::sync::atomic::{AtomicU8, Ordering};
use std::time::{Duration, Instant};

use gpu_xor::Context;

/// Which clocks the throughput figures were timed by so far: bit 0 the GPU's, bit 1 the
/// wall's.
static CLOCKS_USED: AtomicU8 = AtomicU8::new(0);
/// The clock of the last figure.
static LAST_CLOCK: AtomicU8 = AtomicU8::new(0);
const GPU: u8 = 1;
const WALL: u8 = 2;

/// What timing on the GPU's clock needs: two timestamps, the buffer they resolve into, and a
/// mappable copy of it. Made for each measurement (a query set and two 16-byte buffers, made
/// outside the timed span): a cache keyed by device would need a device identity that holds
/// across wgpu instances, and the benchmarks' contexts may each have their own.
struct Stamps {
    queries: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    read: wgpu::Buffer,
}

/// The device's timestamp set, where it has `TIMESTAMP_QUERY`.
fn stamps(ctx: &Context) -> Option<Stamps> {
    let device = ctx.device();
    if !device.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
        return None;
    }
    let buffer = |label, usage| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: 16,
            usage,
            mapped_at_creation: false,
        })
    };
    Some(Stamps {
        queries: device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("bench timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count: 2,
        }),
        resolve: buffer(
            "bench timestamps",
            wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
        ),
        read: buffer(
            "bench timestamps read",
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        ),
    })
}

impl Stamps {
    /// An empty compute pass that writes timestamp `index` at its start (0) or its end (1).
    fn mark(&self, encoder: &mut wgpu::CommandEncoder, index: u32) {
        let _ = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("bench timestamp"),
            timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                query_set: &self.queries,
                beginning_of_pass_write_index: (index == 0).then_some(0),
                end_of_pass_write_index: (index == 1).then_some(1),
            }),
        });
    }

    /// Resolves both timestamps and copies them where the host can map them.
    fn resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.resolve_query_set(&self.queries, 0..2, &self.resolve, 0);
        encoder.copy_buffer_to_buffer(&self.resolve, 0, &self.read, 0, 16);
    }

    /// The time between the two timestamps of the submission that just finished; `None`
    /// where they did not advance.
    fn elapsed(&self, ctx: &Context) -> Option<Duration> {
        let slice = self.read.slice(..);
        slice.map_async(wgpu::MapMode::Read, |r| r.expect("timestamps mapped"));
        ctx.device()
            .poll(wgpu::PollType::wait_indefinitely())
            .expect("poll");
        let ticks = {
            let bytes = slice.get_mapped_range().expect("timestamps mapped");
            let at = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().expect("8 bytes"));
            at(8).checked_sub(at(0)).filter(|&t| t > 0)
        };
        self.read.unmap();
        let period = f64::from(ctx.queue().get_timestamp_period());
        ticks.map(|t| Duration::from_secs_f64(t as f64 * period * 1e-9))
    }
}

/// Time per call, from `record` putting `iters` calls into one encoder, one submit and one
/// wait: between GPU timestamps around the calls where the device has them, else the wall
/// time of the submit and the wait.
pub fn time(
    ctx: &Context,
    iters: u64,
    record: &dyn Fn(&mut wgpu::CommandEncoder, u64),
) -> Duration {
    let device = ctx.device();
    let stamps = stamps(ctx);
    let mut encoder = device.create_command_encoder(&Default::default());
    if let Some(s) = &stamps {
        s.mark(&mut encoder, 0);
    }
    record(&mut encoder, iters);
    if let Some(s) = &stamps {
        s.mark(&mut encoder, 1);
        s.resolve(&mut encoder);
    }
    let buffer = encoder.finish();
    let start = Instant::now();
    ctx.queue().submit([buffer]);
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("poll");
    let wall = start.elapsed();
    per_call(ctx, stamps.as_ref(), wall, iters)
}

/// The GPU's time of the submission just waited for, or `wall`, over `iters` calls; records
/// which clock it was.
fn per_call(ctx: &Context, stamps: Option<&Stamps>, wall: Duration, iters: u64) -> Duration {
    let total = match stamps.and_then(|s| s.elapsed(ctx)) {
        Some(gpu) => {
            CLOCKS_USED.fetch_or(GPU, Ordering::Relaxed);
            LAST_CLOCK.store(GPU, Ordering::Relaxed);
            gpu
        }
        None => {
            CLOCKS_USED.fetch_or(WALL, Ordering::Relaxed);
            LAST_CLOCK.store(WALL, Ordering::Relaxed);
            wall
        }
    };
    total / iters.max(1) as u32
}

/// The time of one frame: a new encoder, one compute pass holding `body`, one submit, one
/// wait. On the GPU's clock the pass's own timestamps (start and end) give the time of the
/// work in it; on the wall clock the whole frame, encoder to wait, is timed.
pub fn frame(ctx: &Context, body: impl FnOnce(&mut wgpu::ComputePass<'_>)) -> Duration {
    let stamps = stamps(ctx);
    let start = Instant::now();
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("bench frame"),
            timestamp_writes: stamps.as_ref().map(|s| wgpu::ComputePassTimestampWrites {
                query_set: &s.queries,
                beginning_of_pass_write_index: Some(0),
                end_of_pass_write_index: Some(1),
            }),
        });
        body(&mut pass);
    }
    if let Some(s) = &stamps {
        s.resolve(&mut encoder);
    }
    ctx.queue().submit([encoder.finish()]);
    ctx.device()
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("the frame finished");
    let wall = start.elapsed();
    per_call(ctx, stamps.as_ref(), wall, 1)
}

/// The clock of the last throughput figure: `GPU timestamps`, or `wall clock` where the
/// device has none or they did not advance.
pub fn clock_used() -> String {
    match LAST_CLOCK.load(Ordering::Relaxed) {
        GPU => "GPU timestamps".to_string(),
        _ => "wall clock".to_string(),
    }
}

/// What the throughput figures so far were timed by, for the line under a table.
pub(crate) fn clock_line() -> String {
    let used = CLOCKS_USED.load(Ordering::Relaxed);
    let gpu = "the GPU's clock (timestamp queries around the calls)";
    let wall = "the wall clock around one submit and its wait (no GPU timestamps on this device)";
    match used {
        GPU => format!("Timed on {gpu}."),
        WALL => format!("Timed on {wall}."),
        0 => String::new(),
        _ => {
            format!("Timed on {gpu}, except where its timestamps did not advance: on {wall} there.")
        }
    }
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
