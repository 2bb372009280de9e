//! The recording section: the CPU time of recording 1,000 small calls in each way the API
//! offers, with wgpu alone for scale.

use std::fmt::Write as _;
use std::time::Duration;

use gpu_xor::Context;

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
    /// (e), one-shot `op.record` calls.
    pub(crate) one_shot: f64,
    /// wgpu alone: 1,000 passes of one dispatch each, what (a) records.
    pub(crate) wgpu_passes: f64,
}

/// Times each way of recording 1,000 BIT_XOR u32 calls of 4 KiB: every round times each row
/// of a phase once, in turn, and each row keeps its best round (round 0 warms up).
///
/// The phases follow wgpu-core's cost model: it sizes each compute pass's resource tracking
/// to the high-water mark of its buffer indices (`UsageScope::new_pooled`), so a pass costs
/// more the more buffers have ever been alive at once on the device, while a dispatch inside
/// a pass does not. wgpu alone is measured first, before anything is prepared; then the ways
/// that make at most one buffer; then the one-shot `record` calls, whose 1,000 metadata
/// buffers, alive together until the encoder is dropped, raise the mark; then (a), (c) and
/// wgpu alone again. Each phase times wgpu's one-dispatch passes next to its dispatches in
/// one pass, whose ratio shows the per-pass cost whatever the machine's speed at the time.
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
    measure(&mut one_shot);
    let mut after = [row(Way::Prepared), row(Way::Batch), passes(), dispatches()];
    measure(&mut after);

    let ms = |r: &Recorded| r.best.0.as_secs_f64() * 1e3;
    let us = |r: &Recorded| ms(r) * 1e3 / calls as f64;
    let batch = us(&main[2]);
    let mut table = String::from(
        "| recording 1,000 calls of 4 KiB | dispatches | buffers + bind groups made | total ms | µs per call | / (c) | of which `finish` ms |\n|---|---:|---:|---:|---:|---:|---:|\n",
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
            "after (e) (1,000 more metadata buffers alive at once)",
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
    let text = format!(
        "CPU time of recording 1,000 BIT_XOR u32 calls of 4 KiB (three 4 MiB buffers, call `i` at offset `i * 4096`, pipelines warmed up with `warm_up`): a new encoder, the recording, `CommandEncoder::finish`; nothing submitted. Best of {rounds} rounds, measured before the other sections; rows (a) to (d) and wgpu alone timed together, round by round, and (e) after them. Ratios are to (c), one `Batch` built and recorded. Preparing the 1,000 calls one by one and their batch once made {} metadata buffers and {} bind groups (`Context::recording_objects`).\n\n{table}\nwgpu-core sizes each compute pass's resource tracking to the high-water mark of its buffer indices, so a pass costs more the more buffers have ever been alive at once on the device; a dispatch in a pass does not. Timed in three phases, each with its own rounds:\n\n{passes_table}",
        made.buffers - made_before.buffers,
        made.bind_groups - made_before.bind_groups,
    );
    RecordingReport {
        text,
        prepared: us(&main[0]),
        in_pass: us(&main[1]),
        batch,
        one_shot: us(&one_shot[0]),
        wgpu_passes: us(&main[4]),
    }
}
