//! Cases measured together, round by round, against the baselines of their size.

use std::rc::Rc;
use std::time::Duration;

use gpu_xor::{Context, DataType};

use super::format::Row;
use crate::case::kernel_names;
use crate::timing::{gbps, iterations, time};
use crate::{Baselines, Case, Op, Path};

/// Records `n` calls of one case into an encoder.
type Recorder = Box<dyn Fn(&mut wgpu::CommandEncoder, u64)>;

/// Cases measured together: every round times each once, in turn, so that slow drifts of a
/// shared machine touch all of them alike; each keeps its best round.
#[derive(Default)]
pub(crate) struct Suite {
    entries: Vec<Entry>,
    /// The baselines of each size ([`Suite::baselines`]), for the in-place baseline
    /// ([`Suite::case`]).
    bases: Vec<Rc<Baselines>>,
}

/// One entry of a suite: a case or a baseline, how to record it, and its best time.
struct Entry {
    /// One of the baselines, not a case.
    baseline: bool,
    /// What tells apart cases of one operator, path and type on contexts of several kernel
    /// tunings ([`Suite::add`]); empty otherwise.
    tag: &'static str,
    op: &'static str,
    path: &'static str,
    data_type: String,
    bytes: u64,
    traffic: u64,
    dispatch: String,
    record: Recorder,
    best: Duration,
}

/// The copy kernel's row (operator, path).
pub(crate) const COPY_KERNEL: (&str, &str) = ("copy", "vec4<u32> kernel");
/// `copy_buffer_to_buffer`'s row (operator, path).
const COPY_BUFFER: (&str, &str) = ("copy", "copy_buffer_to_buffer");
/// The bare XOR kernel's row (operator, path).
pub(crate) const BARE_XOR: (&str, &str) = ("bare xor", "vec4<u32> kernel");
/// The bare XOR kernel in place's row (operator, path): the in-place cases' bare kernel.
pub(crate) const BARE_XOR_IN_PLACE: (&str, &str) = ("bare xor", "vec4<u32> kernel, in place");
/// The operator name of the plain strided kernel's rows (their path is the case's).
const PLAIN: &str = "plain strided";

impl Suite {
    /// The three baselines over `bytes` bytes: the copies count 2 x bytes of traffic, the bare
    /// XOR 3 x bytes, as the XOR cases count theirs. An in-place case adds one more, the bare
    /// XOR in place ([`Suite::case`]).
    pub(crate) fn baselines(&mut self, ctx: &Context, bytes: u64) {
        let base = Rc::new(Baselines::new(ctx, bytes));
        self.bases.push(base.clone());
        let (b, c) = (base.clone(), base.clone());
        let entry = |row, traffic, record| baseline_entry(row, bytes, traffic, record);
        self.entries.push(entry(
            COPY_KERNEL,
            2 * base.bytes,
            Box::new(move |e, n| b.record_copy_kernel(e, n)),
        ));
        self.entries.push(entry(
            COPY_BUFFER,
            2 * base.bytes,
            Box::new(move |e, n| c.record_copy_buffer(e, n)),
        ));
        self.entries.push(entry(
            BARE_XOR,
            3 * base.bytes,
            Box::new(move |e, n| base.record_bare_xor(e, n)),
        ));
    }

    /// A case of `op` on `path`, `dt`, about `bytes` bytes, its type named by
    /// [`Op::type_name`] (`u64 -> u8` for a `BIT_COUNT`); on a strided path BIT_XOR also gets
    /// the plain strided kernel on the same buffers, checked to write the same bytes; an
    /// in-place case, the bare XOR kernel in place over the baselines of its size (once a
    /// size), which its `/ bare xor` column is then against.
    pub(crate) fn case(&mut self, ctx: &Context, op: Op, path: Path, dt: DataType, bytes: u64) {
        let case = Case::new(ctx, op, path, dt, bytes);
        if path == Path::InPlace && self.baseline_of(BARE_XOR_IN_PLACE, case.bytes).is_none() {
            if let Some(base) = self.bases.iter().find(|b| b.bytes == case.bytes).cloned() {
                let bytes = base.bytes;
                self.entries.push(baseline_entry(
                    BARE_XOR_IN_PLACE,
                    bytes,
                    3 * bytes,
                    Box::new(move |e, n| base.record_bare_xor_in_place(e, n)),
                ));
            }
        }
        if path.strided() && op == Op::BitXor {
            // The fourth baseline, on the same buffers and layout, checked to write the same
            // bytes as the library's call (it computes XOR).
            // Not where a buffer is larger than one binding: the row's plain column says `-`.
            if let Some(plain) = case.plain(ctx) {
                let (ours, theirs) = case.outputs(ctx, &plain);
                assert!(
                    ours == theirs,
                    "the plain strided kernel disagrees with {} {} {dt}",
                    op.name(),
                    path.name()
                );
                self.entries.push(Entry {
                    baseline: false,
                    tag: "",
                    op: PLAIN,
                    path: path.name(),
                    data_type: dt.to_string(),
                    bytes: case.bytes,
                    traffic: case.traffic,
                    dispatch: "plain x1".into(),
                    record: Box::new(move |e, n| plain.record(e, n)),
                    best: Duration::MAX,
                });
            }
        }
        self.add(ctx, "", case);
    }

    /// A case made already, on `ctx` (its own context), under `tag`: cases of one operator,
    /// path and type on contexts of several kernel tunings, told apart by their tags
    /// ([`Suite::tagged`]). Its kernels are the ones a call recorded now runs: under
    /// `KernelTuning::Measured`, tune its operator first.
    pub(crate) fn add(&mut self, ctx: &Context, tag: &'static str, case: Case) {
        let mut encoder = ctx.device().create_command_encoder(&Default::default());
        let dispatch = kernel_names(&case.record_summary(&mut encoder));
        let ctx = ctx.clone();
        self.entries.push(Entry {
            baseline: false,
            tag,
            op: case.op.name(),
            path: case.path.name(),
            data_type: case.op.type_name(case.data_type),
            bytes: case.bytes,
            traffic: case.traffic,
            dispatch,
            record: Box::new(move |e, n| case.record_many(&ctx, e, n)),
            best: Duration::MAX,
        });
    }

    /// Times every entry once to warm up, then `rounds` rounds, each entry in turn.
    pub(crate) fn run(&mut self, ctx: &Context, rounds: usize) {
        for e in &self.entries {
            time(ctx, 1, &*e.record);
        }
        for _ in 0..rounds {
            for e in &mut self.entries {
                let t = time(ctx, iterations(e.traffic, 256 << 20), &*e.record);
                e.best = e.best.min(t);
            }
        }
    }

    fn gbps(&self, op: &str, path: &str, data_type: &str, bytes: u64) -> f64 {
        self.entries
            .iter()
            .find(|e| e.op == op && e.path == path && e.data_type == data_type && e.bytes == bytes)
            .map_or(0.0, |e| gbps(e.traffic, e.best))
    }

    /// The baseline entry of this row and size, where the suite has one.
    fn baseline_of(&self, (op, path): (&str, &str), bytes: u64) -> Option<&Entry> {
        self.entries
            .iter()
            .find(|e| e.baseline && e.op == op && e.path == path && e.bytes == bytes)
    }

    /// The case of this operator, path and type ([`Op::type_name`]).
    fn entry(&self, op: &str, path: &str, data_type: &str) -> Option<&Entry> {
        self.entries
            .iter()
            .find(|e| !e.baseline && e.op == op && e.path == path && e.data_type == data_type)
    }

    /// The GB/s of the case of this tag ([`Suite::add`]), operator, path and type, its kernels,
    /// and its bytes (of one operand over the output's elements).
    pub(crate) fn tagged(
        &self,
        tag: &str,
        op: &str,
        path: &str,
        data_type: &str,
    ) -> Option<(f64, String, u64)> {
        self.entries
            .iter()
            .find(|e| {
                !e.baseline
                    && e.tag == tag
                    && e.op == op
                    && e.path == path
                    && e.data_type == data_type
            })
            .map(|e| (gbps(e.traffic, e.best), e.dispatch.clone(), e.bytes))
    }

    /// The best time of one call of a case, and its kernels.
    pub(crate) fn best(&self, op: &str, path: &str, data_type: &str) -> Option<(Duration, String)> {
        self.entry(op, path, data_type)
            .map(|e| (e.best, e.dispatch.clone()))
    }

    /// The GB/s of a case's best call: its bytes read plus bytes written over its time.
    pub(crate) fn case_gbps(&self, op: &str, path: &str, data_type: &str) -> Option<f64> {
        self.entry(op, path, data_type)
            .map(|e| gbps(e.traffic, e.best))
    }

    /// The GB/s of a baseline for a case of `bytes` bytes: the baseline of that size or of the
    /// closest one, whichever is faster.
    fn baseline(&self, (op, path): (&str, &str), bytes: u64) -> f64 {
        self.gbps(op, path, "-", bytes)
            .max(self.gbps(op, path, "-", self.baseline_size(bytes)))
    }

    /// The table, each row against the baselines of its own size.
    pub(crate) fn rows(&self) -> Vec<Row> {
        self.entries
            .iter()
            .map(|e| {
                let g = gbps(e.traffic, e.best);
                // An in-place case against the bare kernel in place where the suite has it.
                let bare = if !e.baseline
                    && e.path == Path::InPlace.name()
                    && self.baseline_of(BARE_XOR_IN_PLACE, e.bytes).is_some()
                {
                    BARE_XOR_IN_PLACE
                } else {
                    BARE_XOR
                };
                Row {
                    op: e.op,
                    path: e.path,
                    data_type: e.data_type.clone(),
                    bytes: e.bytes,
                    gbps: g,
                    kernel: g / self.baseline(COPY_KERNEL, e.bytes),
                    copy: g / self.baseline(COPY_BUFFER, e.bytes),
                    bare: g / self.baseline(bare, e.bytes),
                    plain: (e.op != PLAIN)
                        .then(|| self.gbps(PLAIN, e.path, &e.data_type, e.bytes))
                        .filter(|&p| p > 0.0)
                        .map(|p| g / p),
                    dispatch: e.dispatch.clone(),
                }
            })
            .collect()
    }

    /// The baseline size closest to `bytes` (2-D cases round their sizes).
    fn baseline_size(&self, bytes: u64) -> u64 {
        self.entries
            .iter()
            .filter(|e| e.baseline)
            .map(|e| e.bytes)
            .min_by_key(|&b| b.abs_diff(bytes))
            .unwrap_or(bytes)
    }
}

/// A baseline's entry: `row` (operator, path) over `bytes` bytes.
fn baseline_entry(
    (op, path): (&'static str, &'static str),
    bytes: u64,
    traffic: u64,
    record: Recorder,
) -> Entry {
    Entry {
        baseline: true,
        tag: "",
        op,
        path,
        data_type: "-".into(),
        bytes,
        traffic,
        dispatch: "-".into(),
        record,
        best: Duration::MAX,
    }
}
