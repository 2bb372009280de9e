//! The recording section: the CPU time of recording 1,000 small calls in each way the API
//! offers, with wgpu alone for scale.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use gpu_xor::Context;

use super::Target;
use crate::timing::record_split;
use crate::{Baselines, Recording, Way};

/// One way of recording the 1,000 small calls, and its best time.
struct Recorded<'a> {
    name: String,
    dispatches: String,
    /// Metadata buffers and bind groups one recording makes.
    objects: String,
    record: RecordFn<'a>,
    /// (total, of which `finish`), from the round with the best total.
    best: (Duration, Duration),
}

/// Records every call of one row into an encoder.
type RecordFn<'a> = Box<dyn Fn(&mut wgpu::CommandEncoder) + 'a>;

impl<'a> Recorded<'a> {
    fn new(name: String, dispatches: u64, objects: String, record: RecordFn<'a>) -> Self {
        Recorded {
            name,
            dispatches: dispatches.to_string(),
            objects,
            record,
            best: (Duration::MAX, Duration::ZERO),
        }
    }

    /// A row of wgpu alone, for scale.
    fn wgpu_alone(name: &str, dispatches: u64, record: RecordFn<'a>) -> Self {
        Recorded::new(
            format!("wgpu alone: {name}"),
            dispatches,
            "-".into(),
            record,
        )
    }
}

/// The recording section: its text (notes and table) and the totals the targets use, in µs
/// per call.
pub(crate) struct RecordingReport {
    /// The notes and tables.
    pub(crate) text: String,
    /// (a), prepared calls each `Prepared::record`ed.
    pub(crate) prepared: f64,
    /// (b), prepared calls through `record_in_pass`.
    pub(crate) in_pass: f64,
    /// (c), one `Batch` built and recorded.
    pub(crate) batch: f64,
    /// (e), one-shot `record` calls.
    pub(crate) one_shot: f64,
    /// Metadata buffers and bind groups made by the first recording of (e) on a new context
    /// of the same device.
    pub(crate) one_shot_first: (u64, u64),
    /// The same, made by one recording of (e) after the timed rounds.
    pub(crate) one_shot_steady: (u64, u64),
    /// The loop of `run` calls against the loop of prepared calls.
    pub(crate) run_loop: RunLoop,
    /// wgpu alone: 1,000 passes of one dispatch each, what (a) records.
    pub(crate) wgpu_passes: f64,
}

/// Times each way of recording 1,000 BIT_XOR u32 calls of 4 KiB: every round times each row
/// of a phase once, in turn, and each row keeps its best round (round 0 warms up).
///
/// The phases follow wgpu-core's cost model: it sizes each compute pass's resource tracking
/// to the high-water mark of its buffer indices (`UsageScope::new_pooled`), so a pass costs
/// more the more buffers have ever been alive at once on the device, while a dispatch inside
/// a pass does not. wgpu alone is measured first, before anything is prepared; then the
/// prepared ways and the batch; then the one-shot `record` calls (which once made a metadata
/// buffer for every call or two, raising the mark, and now take their records from a few
/// kept ones); then (a), (c) and wgpu alone again. Each phase times wgpu's one-dispatch
/// passes next to its dispatches in one pass, whose ratio shows the per-pass cost whatever
/// the machine's speed at the time.
///
/// Then a loop of 10,000 one-shot `run` calls of one 4 KiB call against the same loop of
/// that call prepared ([`run_loop`]).
pub(crate) fn recording(ctx: &Context, rounds: usize) -> RecordingReport {
    let calls = 1000;
    let measure = |rows: &mut [Recorded]| {
        for round in 0..=rounds {
            for row in rows.iter_mut() {
                let t = record_split(ctx, &*row.record);
                if round > 0 && t.0 < row.best.0 {
                    row.best = t;
                }
            }
        }
    };
    let base = Baselines::new(ctx, 4096);
    let passes = || {
        Recorded::wgpu_alone(
            "1,000 passes of one dispatch (copy kernel)",
            calls,
            Box::new(|e| base.record_copy_passes(e, calls)),
        )
    };
    let dispatches = || {
        Recorded::wgpu_alone(
            "1,000 dispatches in one pass (copy kernel)",
            calls,
            Box::new(|e| base.record_copy_dispatches(e, calls)),
        )
    };
    let mut before = [passes(), dispatches()];
    measure(&mut before);

    let made_before = ctx.recording_objects();
    let rec = Recording::new(ctx, calls, 4096);
    let made = ctx.recording_objects();
    let row = |way: Way| {
        let (buffers, bind_groups) = rec.objects(ctx, way);
        let rec = &rec;
        Recorded::new(
            way.describe().to_string(),
            rec.dispatches(way) as u64,
            format!("{buffers} + {bind_groups}"),
            Box::new(move |e| rec.record(ctx, way, e)),
        )
    };
    let mut main: Vec<Recorded> = [
        Way::Prepared,
        Way::PreparedInPass,
        Way::Batch,
        Way::PreparedBatch,
    ]
    .into_iter()
    .map(row)
    .collect();
    main.push(passes());
    main.push(dispatches());
    main.push(Recorded::wgpu_alone(
        "1,000 empty passes",
        0,
        Box::new(|e| base.record_empty_passes(e, calls)),
    ));
    measure(&mut main);
    let mut one_shot = [row(Way::OneShot)];
    // The table's first recording of (e) finds what (c), recorded once, kept on the same
    // buffers: the first one-shot calls of a context are counted on a new one of the same
    // device.
    let one_shot_first = {
        let fresh = Context::new(ctx.device().clone(), ctx.queue().clone());
        Recording::new(&fresh, calls, 4096).objects(&fresh, Way::OneShot)
    };
    measure(&mut one_shot);
    let one_shot_steady = rec.objects(ctx, Way::OneShot);
    let mut after = [row(Way::Prepared), row(Way::Batch), passes(), dispatches()];
    measure(&mut after);

    let ms = |r: &Recorded| r.best.0.as_secs_f64() * 1e3;
    let us = |r: &Recorded| ms(r) * 1e3 / calls as f64;
    let batch = us(&main[2]);
    let mut table = String::from(
        "| recording 1,000 calls of 4 KiB | dispatches | buffers + bind groups made by its first recording | total ms | µs per call | / (c) | of which `finish` ms |\n|---|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in main[..4].iter().chain(&one_shot).chain(&main[4..]) {
        let _ = writeln!(
            table,
            "| {} | {} | {} | {:.2} | {:.2} | {:.2} | {:.2} |",
            r.name,
            r.dispatches,
            r.objects,
            ms(r),
            us(r),
            us(r) / batch,
            r.best.1.as_secs_f64() * 1e3
        );
    }
    let mut passes_table = String::from(
        "| wgpu alone (copy kernel) | 1,000 one-dispatch passes ms | 1,000 dispatches in one pass ms | passes / dispatches | (a) / (c), same rounds |\n|---|---:|---:|---:|---:|\n",
    );
    let after_preparing = format!(
        "after preparing them ({} metadata buffers and the 3 operand buffers alive)",
        made.buffers - made_before.buffers
    );
    let phases: [(&str, &[Recorded], Option<f64>); 3] = [
        ("before the calls were prepared", &before, None),
        (&after_preparing, &main[4..6], Some(us(&main[0]) / batch)),
        (
            "after the one-shot calls (e)",
            &after[2..],
            Some(us(&after[0]) / us(&after[1])),
        ),
    ];
    for (name, rows, prepared) in phases {
        let _ = writeln!(
            passes_table,
            "| {name} | {:.2} | {:.2} | {:.2} | {} |",
            ms(&rows[0]),
            ms(&rows[1]),
            ms(&rows[0]) / ms(&rows[1]),
            prepared.map_or("-".to_string(), |r| format!("{r:.2}"))
        );
    }
    let run_loop = run_loop(ctx, &rec, 10_000);
    let text = format!(
        "CPU time of recording 1,000 BIT_XOR u32 calls of 4 KiB (three 4 MiB buffers, call `i` at offset `i * 4096`, pipelines warmed up with `warm_up`): a new encoder, the recording, `CommandEncoder::finish`; nothing submitted. Best of {rounds} rounds, measured before the other sections; rows (a) to (d) and wgpu alone timed together, round by round, and (e) after them. Ratios are to (c), one `Batch` built and recorded. Preparing the 1,000 calls one by one and their batch once made {} metadata buffers and {} bind groups (`Context::recording_objects`).\n\n{table}\nwgpu-core sizes each compute pass's resource tracking to the high-water mark of its buffer indices, so a pass costs more the more buffers have ever been alive at once on the device; a dispatch in a pass does not. Timed in three phases, each with its own rounds:\n\n{passes_table}\nOne-shot calls (e) take each call's record from the context's one-shot metadata buffers (grown to hold 1,000 records at once, given back when the encoder has run or is dropped) and their bind group from those the context keeps, one per metadata buffer on these buffers. Their first recording on a new context of the same device made {} metadata buffers and {} bind groups; the table's first recording of (e) found those (c), recorded once on the same buffers, had kept; one more recording after the timed rounds made {} buffers and {} bind groups. Steady state, (e) / (a) = {:.2}.\n\n{}",
        made.buffers - made_before.buffers,
        made.bind_groups - made_before.bind_groups,
        one_shot_first.0,
        one_shot_first.1,
        one_shot_steady.0,
        one_shot_steady.1,
        us(&one_shot[0]) / us(&main[0]),
        run_loop.text,
    );
    RecordingReport {
        text,
        prepared: us(&main[0]),
        in_pass: us(&main[1]),
        batch,
        one_shot: us(&one_shot[0]),
        one_shot_first,
        one_shot_steady,
        run_loop,
        wgpu_passes: us(&main[4]),
    }
}

/// A loop of one call run to completion again and again, one-shot against prepared.
pub(crate) struct RunLoop {
    /// µs per call of `op.run`.
    pub(crate) run: f64,
    /// µs per call of a new encoder, `Prepared::record`, submit and a wait for it.
    pub(crate) prepared: f64,
    /// Metadata bytes the context holds after the loops, the device idle, above before them.
    pub(crate) held_bytes: i64,
    /// Bind groups the context keeps then.
    pub(crate) kept_groups: u64,
    /// The table.
    pub(crate) text: String,
}

/// `calls` one-shot `run`s of the first 4 KiB call of `rec` against as many of it prepared (a
/// new encoder, `Prepared::record`, submit, a wait for that submission), in ten rounds that
/// alternate the two loops, each a tenth of the calls, on the wall clock (the host's costs: a
/// call's GPU time is the same either way). The metadata the context holds is read before
/// the loops and after them, once the device is idle.
pub(crate) fn run_loop(ctx: &Context, rec: &Recording, calls: u64) -> RunLoop {
    let (op, bindings) = rec.first_call();
    let prepared = rec.first_prepared();
    op.run(&bindings).expect("run");
    ctx.wait().expect("wait");
    let before = ctx.recording_objects();
    let rounds = 10;
    let per_round = calls / rounds;
    let (mut run, mut ready) = (Duration::ZERO, Duration::ZERO);
    for _ in 0..rounds {
        let start = Instant::now();
        for _ in 0..per_round {
            op.run(&bindings).expect("run");
        }
        run += start.elapsed();
        let start = Instant::now();
        for _ in 0..per_round {
            let mut encoder = ctx.device().create_command_encoder(&Default::default());
            prepared.record(&mut encoder).expect("record");
            let index = ctx.queue().submit([encoder.finish()]);
            ctx.device()
                .poll(wgpu::PollType::Wait {
                    submission_index: Some(index),
                    timeout: None,
                })
                .expect("poll");
        }
        ready += start.elapsed();
    }
    ctx.wait().expect("wait");
    let after = ctx.recording_objects();
    let per_call = |d: Duration| d.as_secs_f64() * 1e6 / (rounds * per_round) as f64;
    let (run, prepared) = (per_call(run), per_call(ready));
    let held_bytes = after.metadata_bytes_alive as i64 - before.metadata_bytes_alive as i64;
    let text = format!(
        "A loop of {calls} calls of one 4 KiB BIT_XOR u32 call, each run to completion (wall clock, ten alternating rounds of {per_round} calls):\n\n| loop | µs per call | / prepared | buffers + bind groups made |\n|---|---:|---:|---:|\n| `op.run` each (one-shot: record, submit, wait) | {run:.1} | {:.2} | {} + {} |\n| prepared: new encoder, `Prepared::record`, submit, wait for it | {prepared:.1} | 1.00 | - |\n\nMetadata the context holds once the loops are over and the device is idle: {held_bytes} bytes above before them ({} metadata buffers alive, {} bind groups kept).\n",
        run / prepared,
        after.buffers - before.buffers,
        after.bind_groups - before.bind_groups,
        after.metadata_buffers_alive,
        after.bind_groups_kept,
    );
    RunLoop {
        run,
        prepared,
        held_bytes,
        kept_groups: after.bind_groups_kept,
        text,
    }
}

/// The one-shot calls' targets: steady-state recording against prepared calls, the objects
/// 1,000 calls make, the loop of `run` calls against prepared ones, and the memory held after.
pub(crate) fn one_shot_targets(r: &RecordingReport) -> Vec<Target> {
    let l = &r.run_loop;
    vec![
        (
            "one-shot `record` of a 4 KiB call, steady state, <= 3 x `Prepared::record`: (e) / (a)"
                .to_string(),
            format!(
                "{:.2} ({:.2} / {:.2} µs per call)",
                r.one_shot / r.prepared,
                r.one_shot,
                r.prepared
            ),
            r.one_shot / r.prepared <= 3.0,
        ),
        (
            "1,000 one-shot calls on the same buffers make <= 4 metadata buffers and <= 4 bind groups"
                .to_string(),
            format!(
                "first recording on a new context {} + {}; a later one {} + {}",
                r.one_shot_first.0, r.one_shot_first.1, r.one_shot_steady.0, r.one_shot_steady.1
            ),
            r.one_shot_first.0 <= 4 && r.one_shot_first.1 <= 4,
        ),
        (
            "a loop of 10,000 `run` calls of 4 KiB <= 1.5 x the same loop of prepared calls"
                .to_string(),
            format!(
                "{:.2} ({:.1} / {:.1} µs per call)",
                l.run / l.prepared,
                l.run,
                l.prepared
            ),
            l.run / l.prepared <= 1.5,
        ),
        (
            "metadata held after the loop, the device idle, <= 1 MiB above before it".to_string(),
            format!("{} bytes ({} bind groups kept)", l.held_bytes, l.kept_groups),
            l.held_bytes <= 1 << 20,
        ),
    ]
}
