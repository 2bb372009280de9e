//! k nearest in Hamming space: a search compiled ([`Knn`]), prepared on the caller's buffers
//! ([`KnnCall`]), and its one-call forms on tensors.
//!
//! A search never writes the distance matrix: the kernels count each query's codes at each
//! distance, find the distance of its k-th result, and write only the codes nearer than it
//! and the first ones at it (see `kernels/knn.wgsl`). What it writes besides its outputs is
//! its own scratch, made when it is prepared: per query a count for each distance, two words
//! for each chunk of codes, and the k results before they are sorted.

use std::sync::Arc;

use super::binding::{TensorBinding, require_usage};
use super::context::Context;
use super::tensor::Tensor;
use crate::desc::{DataType, KnnDesc, KnnLayout, SearchTensor, TensorDesc, TensorName};
use crate::error::{Error, WgpuError};
use crate::kernels::knn::{
    BOUND, CANDIDATES, FINISH, HISTOGRAM, KnnKernel, KnnPipelines, NEARER, PARAMS_BYTES, SORT,
    THRESHOLD, TIED, TIES, WORKGROUP,
};
use crate::scope::capture;

/// A search for the `k` codes nearest each query in Hamming space ([`KnnDesc`]), compiled for
/// a context: validated once, its kernels made when a call is first prepared.
///
/// ```no_run
/// use gpu_xor::{Context, DataType, Knn, KnnBindings, KnnDesc, TensorBinding, TensorDesc};
///
/// # fn main() -> Result<(), gpu_xor::Error> {
/// # let ctx = Context::from_env()?;
/// # let (queries, codes, distances, indices): (wgpu::Buffer, wgpu::Buffer, wgpu::Buffer, wgpu::Buffer) = unimplemented!();
/// // 1,000 queries against 10^6 codes of 256 bits, 10 results each.
/// let search = Knn::new(&ctx, &KnnDesc::new(
///     TensorDesc::new(DataType::U32, &[1000, 8]),
///     TensorDesc::new(DataType::U32, &[1_000_000, 8]),
///     10,
///     DataType::I64,
/// ))?;
/// // Bound once, recorded every time at no further cost.
/// let call = search.prepare(&KnnBindings::new(
///     TensorBinding::new(&queries),
///     TensorBinding::new(&codes),
///     TensorBinding::new(&distances),
///     TensorBinding::new(&indices),
/// ))?;
/// let mut encoder = ctx.device().create_command_encoder(&Default::default());
/// call.record(&mut encoder)?;
/// ctx.queue().submit([encoder.finish()]);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Knn {
    ctx: Context,
    desc: KnnDesc,
    layout: KnnLayout,
}

/// The buffers of one search: the queries, the codes, the outputs, and the allow-list when
/// the search has one.
#[derive(Clone, Copy, Debug)]
pub struct KnnBindings<'a> {
    /// The queries.
    pub queries: TensorBinding<'a>,
    /// The codes.
    pub codes: TensorBinding<'a>,
    /// The distances found.
    pub distances: TensorBinding<'a>,
    /// The indices found.
    pub indices: TensorBinding<'a>,
    /// The allow-list: given exactly when the description has one.
    pub allow: Option<TensorBinding<'a>>,
}

impl<'a> KnnBindings<'a> {
    /// The bindings of a search without an allow-list.
    pub fn new(
        queries: TensorBinding<'a>,
        codes: TensorBinding<'a>,
        distances: TensorBinding<'a>,
        indices: TensorBinding<'a>,
    ) -> KnnBindings<'a> {
        KnnBindings {
            queries,
            codes,
            distances,
            indices,
            allow: None,
        }
    }

    /// The same bindings with an allow-list.
    pub fn with_allow_list(mut self, allow: TensorBinding<'a>) -> KnnBindings<'a> {
        self.allow = Some(allow);
        self
    }
}

/// A search prepared on its buffers: its parameters, bind groups and scratch made once,
/// recorded any number of times with no further cost (it creates nothing and allocates
/// nothing when it records). It keeps its buffers alive; recordings of one prepared search
/// share its scratch, so they run one after another as the queue orders them.
#[derive(Clone)]
pub struct KnnCall {
    ctx: Context,
    inner: Arc<Prepared>,
}

struct Prepared {
    pipelines: Arc<KnnPipelines>,
    bind_groups: Vec<wgpu::BindGroup>,
    steps: Vec<Step>,
    /// Kept alive with the bind groups that bind them.
    _params: wgpu::Buffer,
    _scratch: wgpu::Buffer,
}

#[derive(Clone, Copy, Debug)]
struct Step {
    entry: usize,
    group: usize,
    offset: u32,
    grid: [u32; 2],
}

impl std::fmt::Debug for KnnCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KnnCall")
            .field("dispatches", &self.inner.steps.len())
            .field("bind_groups", &self.inner.bind_groups.len())
            .finish()
    }
}

impl Knn {
    /// Validates `desc` ([`KnnDesc::validate`]). This makes no wgpu call.
    pub fn new(ctx: &Context, desc: &KnnDesc) -> Result<Knn, Error> {
        let layout = desc.validate()?;
        Ok(Knn {
            ctx: ctx.clone(),
            desc: desc.clone(),
            layout,
        })
    }

    /// The description it was made from.
    pub fn desc(&self) -> &KnnDesc {
        &self.desc
    }

    /// The validated layout.
    pub fn layout(&self) -> &KnnLayout {
        &self.layout
    }

    /// Checks the bindings (usage, offsets, bounds, outputs that overlap another tensor) and
    /// makes everything a recording needs: the kernels (on first use on the context), the
    /// parameters, the bind groups and the scratch.
    pub fn prepare(&self, bindings: &KnnBindings<'_>) -> Result<KnnCall, Error> {
        prepare(self, bindings)
    }

    /// Prepares and records one search into `encoder` (what [`Knn::prepare`] makes is made
    /// for this call and dropped after it: prepare once to record many times).
    pub fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        bindings: &KnnBindings<'_>,
    ) -> Result<(), Error> {
        self.prepare(bindings)?.record(encoder)
    }

    /// Records one search into a new encoder and submits it, without waiting.
    pub fn submit(&self, bindings: &KnnBindings<'_>) -> Result<(), Error> {
        self.submit_indexed(bindings).map(|_| ())
    }

    fn submit_indexed(&self, bindings: &KnnBindings<'_>) -> Result<wgpu::SubmissionIndex, Error> {
        let call = self.prepare(bindings)?;
        let shared = &*self.ctx.shared;
        let mut encoder = shared
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("gpu-xor search"),
            });
        call.record(&mut encoder)?;
        capture(
            &shared.device,
            &shared.late,
            |e| Error::Wgpu {
                call: "Queue::submit",
                source: WgpuError::new(e),
            },
            || shared.queue.submit([encoder.finish()]),
        )
        .map_err(|e| shared.fault("Queue::submit", e, &named(bindings)))
    }

    /// [`Knn::submit`], then waits without blocking until the device has finished.
    pub async fn run_async(&self, bindings: &KnnBindings<'_>) -> Result<(), Error> {
        self.submit(bindings)?;
        self.ctx.wait_async().await
    }

    /// [`Knn::submit`], then blocks until the search has finished (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn run(&self, bindings: &KnnBindings<'_>) -> Result<(), Error> {
        let index = self.submit_indexed(bindings)?;
        super::operator::wait_for(&self.ctx, index)
    }
}

impl KnnCall {
    /// Records the search into `encoder`, in a compute pass of its own.
    pub fn record(&self, encoder: &mut wgpu::CommandEncoder) -> Result<(), Error> {
        if let Some(lost) = self.ctx.shared.known_lost() {
            return Err(lost);
        }
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("gpu-xor search"),
            timestamp_writes: None,
        });
        self.encode(&mut pass);
        Ok(())
    }

    /// Records the search into a compute pass the caller already has open; it sets its own
    /// pipelines and bind group 0.
    pub fn record_in_pass(&self, pass: &mut wgpu::ComputePass<'_>) -> Result<(), Error> {
        if let Some(lost) = self.ctx.shared.known_lost() {
            return Err(lost);
        }
        self.encode(pass);
        Ok(())
    }

    /// The dispatches one recording records.
    pub fn dispatch_count(&self) -> usize {
        self.inner.steps.len()
    }

    fn encode(&self, pass: &mut wgpu::ComputePass<'_>) {
        let inner = &*self.inner;
        let mut current = usize::MAX;
        for step in &inner.steps {
            if step.entry != current {
                pass.set_pipeline(&inner.pipelines.pipelines[step.entry]);
                current = step.entry;
            }
            pass.set_bind_group(0, &inner.bind_groups[step.group], &[step.offset]);
            pass.dispatch_workgroups(step.grid[0], step.grid[1], 1);
        }
    }
}

/// The tensors of a call, by name, for a fault's report.
fn named<'a>(b: &KnnBindings<'a>) -> Vec<(Option<TensorName>, &'a wgpu::Buffer)> {
    let mut v = vec![
        (
            Some(TensorName::Search(SearchTensor::Queries)),
            b.queries.buffer,
        ),
        (
            Some(TensorName::Search(SearchTensor::Codes)),
            b.codes.buffer,
        ),
        (
            Some(TensorName::Search(SearchTensor::Distances)),
            b.distances.buffer,
        ),
        (
            Some(TensorName::Search(SearchTensor::Indices)),
            b.indices.buffer,
        ),
    ];
    if let Some(a) = b.allow {
        v.push((Some(TensorName::Search(SearchTensor::AllowList)), a.buffer));
    }
    v
}

/// The parameters of one dispatch, as `Params` in `knn.wgsl`.
#[derive(Clone, Copy, Default)]
struct Params([u32; 28]);

/// A bound byte range: the window a binding gives a kernel.
#[derive(Clone, Copy, Debug)]
struct Window {
    offset: u64,
    size: u64,
}

/// One operand as the kernels read it: its binding, element size and strides.
struct Bound<'a> {
    binding: TensorBinding<'a>,
    width: u64,
    /// Element strides of a row and of a word.
    row: u64,
    word: u64,
}

impl Bound<'_> {
    /// The byte range of rows `[first, end)` from element `base`, with `span` elements of
    /// each row, bound from an aligned offset: the window and the first row's element
    /// offset in it.
    fn window(&self, base: u64, first: u64, end: u64, span: u64, align: u64) -> (Window, u64) {
        let start = self.binding.offset + (base + first * self.row) * self.width;
        let last = self.binding.offset + (base + (end - 1) * self.row + span) * self.width;
        let offset = start / align * align;
        let size = (last - offset).div_ceil(4) * 4;
        let size = size.min(self.binding.buffer.size() - offset);
        (Window { offset, size }, (start - offset) / self.width)
    }

    /// The most rows from `first` whose window fits `max` bytes.
    fn rows_fitting(&self, base: u64, first: u64, span: u64, max: u64, align: u64) -> u64 {
        let start = self.binding.offset + (base + first * self.row) * self.width;
        let Some(room) = max.checked_sub(start % align + span * self.width + 4) else {
            return 0;
        };
        match self.row * self.width {
            0 => u64::MAX,
            step => room / step + 1,
        }
    }
}

// In a browser wgpu's objects are neither `Send` nor `Sync`, and neither is a prepared
// search; the `Arc` is what native threads share.
#[cfg_attr(
    target_arch = "wasm32",
    expect(
        clippy::arc_with_non_send_sync,
        reason = "one thread in a browser; Send and Sync on native"
    )
)]
fn prepare(op: &Knn, b: &KnnBindings<'_>) -> Result<KnnCall, Error> {
    let shared = &*op.ctx.shared;
    if let Some(lost) = shared.known_lost() {
        return Err(lost);
    }
    let l = &op.layout;
    let desc = &op.desc;
    let name = |t| TensorName::Search(t);
    match (&desc.allow, b.allow) {
        (Some(_), None) => {
            return Err(Error::MissingBinding {
                tensor: name(SearchTensor::AllowList),
            });
        }
        (None, Some(_)) => {
            return Err(Error::ExtraBinding {
                operator: crate::desc::Operator::BitAnd,
                tensor: name(SearchTensor::AllowList),
            });
        }
        _ => {}
    }
    // Every binding: the usage, the offset's alignment, the bounds, the size.
    let mut ranges = Vec::new();
    let tensors = [
        (SearchTensor::Queries, &desc.queries, b.queries),
        (SearchTensor::Codes, &desc.codes, b.codes),
        (SearchTensor::Distances, &desc.distances, b.distances),
        (SearchTensor::Indices, &desc.indices, b.indices),
    ];
    let allow = desc
        .allow
        .as_ref()
        .zip(b.allow)
        .map(|(d, b)| (SearchTensor::AllowList, d, b));
    for (t, d, binding) in tensors.into_iter().chain(allow) {
        require_usage(binding.buffer, Some(name(t)), wgpu::BufferUsages::STORAGE)?;
        check(name(t), d, &binding)?;
        ranges.push((
            t,
            binding.buffer,
            binding.offset,
            binding.offset + d.total_size()?,
        ));
    }
    // Outputs overlap nothing.
    for &(t, buffer, start, end) in &ranges[2..4] {
        for &(u, other, s, e) in &ranges {
            if u != t && other == buffer && start < e && s < end {
                return Err(Error::KnnOverlap {
                    tensor: name(t),
                    range: (start, end),
                    other: name(u),
                    other_range: (s, e),
                });
            }
        }
    }
    let outputs = [b.distances.buffer, b.indices.buffer];
    let inputs_rw = [Some(b.queries), Some(b.codes), b.allow]
        .into_iter()
        .flatten()
        .any(|i| outputs.contains(&i.buffer));

    // The codes as the kernels read them: whole rows of u32 words where every row starts on
    // 4 bytes and its elements are contiguous, else element by element.
    let width = u64::from(l.data_type.size_in_bytes());
    let mut q = Bound {
        binding: b.queries,
        width,
        row: l.strides[0][0],
        word: l.strides[0][1],
    };
    let mut c = Bound {
        binding: b.codes,
        width,
        row: l.strides[1][0],
        word: l.strides[1][1],
    };
    let batches = l.batches();
    let offsets: Vec<[u64; 4]> = (0..batches).map(|i| l.batch_offsets(i)).collect();
    let mut words = l.words;
    let whole = |o: &Bound<'_>, at: usize| {
        (o.word == 1 || words == 1)
            && o.binding.offset.is_multiple_of(4)
            && (o.row * width).is_multiple_of(4)
            && offsets.iter().all(|x| (x[at] * width).is_multiple_of(4))
    };
    // Element offsets and strides in the kernels' elements: u32 words for whole rows.
    let (mut num, mut den) = (1, 1);
    if width != 4 && (words * width).is_multiple_of(4) && whole(&q, 0) && whole(&c, 1) {
        (num, den) = (width, 4);
        words = words * width / 4;
        for o in [&mut q, &mut c] {
            o.width = 4;
            o.row = o.row * num / den;
            o.word = 1;
        }
    } else if words == 1 {
        q.word = 1;
        c.word = 1;
    }
    let kernel_width = q.width as u32;
    let base = |x: u64| x * num / den;
    let kernel = KnnKernel::new(kernel_width, words as u32, l.m, inputs_rw);
    let pipelines = shared
        .knn
        .pipelines(&shared.device, &shared.late, &kernel)?;

    let align = shared.windows.offset_alignment;
    let max = shared.windows.max_window;
    let max_groups = u64::from(shared.max_groups);
    let chunk = u64::from(WORKGROUP) * l.n.div_ceil(256 * 256).clamp(1, 64);
    let span = |o: &Bound<'_>| (words - 1) * o.word + 1;
    let dist = Bound {
        binding: b.distances,
        width: 4,
        row: l.strides[2][0],
        word: l.strides[2][1],
    };
    let idx = Bound {
        binding: b.indices,
        width: if l.wide_indices { 8 } else { 4 },
        row: l.strides[3][0],
        word: l.strides[3][1],
    };
    let k = u64::from(l.k);
    let out_span = |o: &Bound<'_>| (k - 1) * o.word + 1;

    // The windows of codes of each batch: rows that fit one binding, at most `max_groups`
    // chunks.
    let mut code_windows: Vec<Vec<(u64, u64)>> = Vec::with_capacity(offsets.len());
    let mut chunks = 0;
    let mut batch_chunks = Vec::with_capacity(offsets.len());
    for x in &offsets {
        let mut windows = Vec::new();
        let mut first = 0;
        let mut count = 0;
        while first < l.n {
            let fit = c
                .rows_fitting(base(x[1]), first, span(&c), max, align)
                .min(chunk * max_groups)
                .min(l.n - first);
            if fit == 0 {
                return Err(Error::SharedBufferSpanTooLarge {
                    span: span(&c) * c.width,
                    limit: max,
                });
            }
            windows.push((first, first + fit));
            count += fit.div_ceil(chunk);
            first += fit;
        }
        chunks = chunks.max(count);
        batch_chunks.push(count);
        code_windows.push(windows);
    }
    let bins = u64::from(kernel.bins);
    // Per query: counts, state, two words a chunk, the results, the candidates.
    let results = k.max(SORT);
    let stride = bins + 8 + 2 * chunks + 2 * results + 2 * CANDIDATES;
    // The bound's sample: enough codes that an eighth of the candidates' room holds the
    // codes under it (`k` in `sample`, so about `k N / sample` in all; each candidate costs
    // an atomic), within 4,096 (or `4 k`) and 65,536.
    let sample = (k * l.n)
        .div_ceil(CANDIDATES / 8)
        .clamp((4 * k).max(4096), 65536);
    // The windows of queries: rows whose queries, outputs and scratch fit one binding.
    // The scratch is the search's own buffer: its bindings follow the device's limit, not
    // the windows the context was asked for.
    let device_max = shared.device.limits().max_storage_buffer_binding_size;
    let scratch_rows = device_max / (stride * 4);
    let mut query_windows: Vec<Vec<(u64, u64)>> = Vec::with_capacity(offsets.len());
    let mut most = 1;
    for x in &offsets {
        let mut windows = Vec::new();
        let mut first = 0;
        while first < l.m {
            let fit = q
                .rows_fitting(base(x[0]), first, span(&q), max, align)
                .min(dist.rows_fitting(x[2], first, out_span(&dist), max, align))
                .min(idx.rows_fitting(x[3], first, out_span(&idx), max, align))
                .min(scratch_rows)
                .min(max_groups)
                .min(l.m - first);
            if fit == 0 {
                return Err(Error::SharedBufferSpanTooLarge {
                    span: stride * 4,
                    limit: max,
                });
            }
            windows.push((first, first + fit));
            most = most.max(fit);
            first += fit;
        }
        query_windows.push(windows);
    }
    let scratch_bytes = most * stride * 4;
    let scratch = shared.create_buffer(&wgpu::BufferDescriptor {
        label: Some("gpu-xor search scratch"),
        size: scratch_bytes,
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    })?;

    // One block of parameters and one bind group for each batch, window of queries and
    // window of codes; the dispatches in the order of `knn.wgsl`.
    let mut params: Vec<Params> = Vec::new();
    let mut sets: Vec<[Window; 6]> = Vec::new();
    let mut steps = Vec::new();
    let allow_bound = b.allow;
    for (bi, x) in offsets.iter().enumerate() {
        for &(m0, m1) in &query_windows[bi] {
            let mw = m1 - m0;
            let (qw, q_base) = q.window(base(x[0]), m0, m1, span(&q), align);
            let (dw, d_base) = dist.window(x[2], m0, m1, out_span(&dist), align);
            let (iw, i_base) = idx.window(x[3], m0, m1, out_span(&idx), align);
            let mut blocks = Vec::new();
            let mut chunk0 = 0;
            for &(n0, n1) in &code_windows[bi] {
                let (cw, c_base) = c.window(base(x[1]), n0, n1, span(&c), align);
                let (aw, a_base) = match allow_bound {
                    Some(a) => {
                        let start = a.offset * 8 + n0;
                        let offset = start / 8 / align * align;
                        let end = (a.offset * 8 + n1).div_ceil(32) * 4;
                        (
                            Window {
                                offset,
                                size: (end - offset).min(a.buffer.size() - offset),
                            },
                            start - offset * 8,
                        )
                    }
                    None => (Window { offset: 0, size: 4 }, 0),
                };
                let chunks_here = (n1 - n0).div_ceil(chunk);
                let p = [
                    mw,
                    n1 - n0,
                    k,
                    chunk,
                    chunk0,
                    n0,
                    batch_chunks[bi],
                    stride,
                    q_base,
                    q.row,
                    q.word,
                    u64::from(allow_bound.is_some()),
                    c_base,
                    c.row,
                    c.word,
                    a_base,
                    d_base,
                    dist.row,
                    dist.word,
                    0,
                    i_base,
                    idx.row,
                    idx.word,
                    if l.wide_indices { 2 } else { 1 },
                    bins + 8 + 2 * batch_chunks[bi] + 2 * results,
                    CANDIDATES,
                    sample,
                    0,
                ];
                params.push(Params(p.map(|v| v as u32)));
                sets.push([
                    qw,
                    cw,
                    aw,
                    Window {
                        offset: 0,
                        size: mw * stride * 4,
                    },
                    dw,
                    iw,
                ]);
                blocks.push((params.len() - 1, chunks_here));
                chunk0 += chunks_here;
            }
            let step = |entry, block: usize, grid: [u64; 2]| Step {
                entry,
                group: block,
                offset: (block as u64 * PARAMS_BYTES) as u32,
                grid: grid.map(|g| g as u32),
            };
            // The per-query kernels run on the first window's block; the others once per
            // window of codes, a workgroup per chunk (and per query group, or per query).
            let (first, groups) = (blocks[0].0, mw.div_ceil(u64::from(kernel.queries)));
            let per_chunk = |steps: &mut Vec<Step>, entry, rows: u64| {
                for &(block, chunks) in &blocks {
                    steps.push(step(entry, block, [chunks, rows]));
                }
            };
            steps.push(step(BOUND, first, [mw, 1]));
            per_chunk(&mut steps, HISTOGRAM, groups);
            steps.push(step(THRESHOLD, first, [mw, 1]));
            per_chunk(&mut steps, NEARER, groups);
            steps.push(step(TIES, first, [mw, 1]));
            per_chunk(&mut steps, TIED, mw);
            steps.push(step(FINISH, first, [mw, 1]));
        }
    }
    let params_buffer = shared.create_buffer(&wgpu::BufferDescriptor {
        label: Some("gpu-xor search parameters"),
        size: params.len() as u64 * PARAMS_BYTES,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })?;
    let mut bytes = Vec::with_capacity(params.len() * PARAMS_BYTES as usize);
    for p in &params {
        bytes.extend(p.0.iter().flat_map(|v| v.to_le_bytes()));
        bytes.resize(bytes.len().next_multiple_of(PARAMS_BYTES as usize), 0);
    }
    shared.queue.write_buffer(&params_buffer, 0, &bytes);
    let buffers = [
        b.queries.buffer,
        b.codes.buffer,
        b.allow.map_or(&shared.dummy, |a| a.buffer),
        &scratch,
        b.distances.buffer,
        b.indices.buffer,
    ];
    let bind_groups = capture(
        &shared.device,
        &shared.late,
        |e| Error::Wgpu {
            call: "Device::create_bind_group",
            source: WgpuError::new(e),
        },
        || {
            sets.iter()
                .map(|set| {
                    let mut entries = vec![wgpu::BindGroupEntry {
                        binding: 0,
                        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                            buffer: &params_buffer,
                            offset: 0,
                            size: std::num::NonZeroU64::new(PARAMS_BYTES),
                        }),
                    }];
                    for (i, (w, buffer)) in set.iter().zip(buffers).enumerate() {
                        entries.push(wgpu::BindGroupEntry {
                            binding: i as u32 + 1,
                            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                                buffer,
                                offset: w.offset,
                                size: std::num::NonZeroU64::new(w.size),
                            }),
                        });
                    }
                    shared.device.create_bind_group(&wgpu::BindGroupDescriptor {
                        label: Some("gpu-xor search"),
                        layout: &pipelines.layout,
                        entries: &entries,
                    })
                })
                .collect::<Vec<_>>()
        },
    )
    .map_err(|e| shared.fault("Device::create_bind_group", e, &named(b)))?;
    Ok(KnnCall {
        ctx: op.ctx.clone(),
        inner: Arc::new(Prepared {
            pipelines,
            bind_groups,
            steps,
            _params: params_buffer,
            _scratch: scratch,
        }),
    })
}

/// The binding rules of one tensor of a search: the offset a multiple of the element size,
/// the range within the buffer and at least the tensor's total size.
fn check(tensor: TensorName, desc: &TensorDesc, b: &TensorBinding<'_>) -> Result<(), Error> {
    let element = u64::from(desc.data_type.size_in_bytes());
    let required = desc.total_size()?;
    if !b.offset.is_multiple_of(element) {
        return Err(Error::BindingOffsetMisaligned {
            tensor,
            offset: b.offset,
            required: element,
        });
    }
    let buffer_size = b.buffer.size();
    let size = b
        .size
        .unwrap_or_else(|| buffer_size.saturating_sub(b.offset));
    if b.offset
        .checked_add(size)
        .is_none_or(|end| end > buffer_size)
    {
        return Err(Error::BindingOutOfBounds {
            tensor,
            offset: b.offset,
            size,
            buffer_size,
        });
    }
    if size < required {
        return Err(Error::BindingTooSmall {
            tensor,
            size,
            required,
        });
    }
    Ok(())
}

impl Context {
    /// The `k` codes nearest each query in Hamming space: `queries` (`[.., M, W]`) and
    /// `codes` (`[.., N, W]`) hold packed binary codes in words of one integer type; the
    /// result is the distances (`UINT32`, `[.., M, k]`), ascending, and the indices of their
    /// codes (`INT64`, as FAISS returns them), ties broken by the lower index. The search is
    /// a [`Knn`]; to record it many times on your own buffers, prepare that instead.
    ///
    /// ```no_run
    /// use gpu_xor::{Context, Tensor};
    ///
    /// # fn main() -> Result<(), gpu_xor::Error> {
    /// let ctx = Context::from_env()?;
    /// // One query and four codes of 32 bits.
    /// let queries = Tensor::from_slice(&ctx, &[1, 1], &[0u32])?;
    /// let codes = Tensor::from_slice(&ctx, &[4, 1], &[0xffu32, 1, 3, 1])?;
    /// let (distances, indices) = ctx.k_nearest(&queries, &codes, 3)?;
    /// assert_eq!(distances.to_vec::<u32>()?, [1, 1, 2]);
    /// assert_eq!(indices.to_vec::<i64>()?, [1, 3, 2]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn k_nearest(
        &self,
        queries: &Tensor,
        codes: &Tensor,
        k: u32,
    ) -> Result<(Tensor, Tensor), Error> {
        self.search(queries, codes, None, k)
    }

    /// [`Context::k_nearest`] among the codes whose bit in `allow` is set (a dense tensor of
    /// any integer type, bit `n` for code `n`); results past the allowed codes are the
    /// sentinel: distance `u32::MAX`, index `-1`.
    ///
    /// ```no_run
    /// use gpu_xor::{Context, Tensor};
    ///
    /// # fn main() -> Result<(), gpu_xor::Error> {
    /// let ctx = Context::from_env()?;
    /// let queries = Tensor::from_slice(&ctx, &[1, 1], &[0u32])?;
    /// let codes = Tensor::from_slice(&ctx, &[4, 1], &[0xffu32, 1, 3, 1])?;
    /// // Codes 0 and 2 only.
    /// let allow = Tensor::from_slice(&ctx, &[1], &[0b0101u8])?;
    /// let (distances, indices) = ctx.k_nearest_allowed(&queries, &codes, &allow, 3)?;
    /// assert_eq!(distances.to_vec::<u32>()?, [2, 8, u32::MAX]);
    /// assert_eq!(indices.to_vec::<i64>()?, [2, 0, -1]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn k_nearest_allowed(
        &self,
        queries: &Tensor,
        codes: &Tensor,
        allow: &Tensor,
        k: u32,
    ) -> Result<(Tensor, Tensor), Error> {
        self.search(queries, codes, Some(allow), k)
    }

    fn search(
        &self,
        queries: &Tensor,
        codes: &Tensor,
        allow: Option<&Tensor>,
        k: u32,
    ) -> Result<(Tensor, Tensor), Error> {
        let mut desc = KnnDesc::new(queries.dml_desc()?, codes.dml_desc()?, k, DataType::I64);
        if let Some(a) = allow {
            desc = desc.with_allow_list(a.dml_desc()?);
        }
        let op = Knn::new(self, &desc)?;
        let shape = |d: &TensorDesc| d.sizes.iter().map(|&s| s as usize).collect::<Vec<_>>();
        let distances = Tensor::zeros(self, DataType::U32, &shape(&desc.distances))?;
        let indices = Tensor::zeros(self, DataType::I64, &shape(&desc.indices))?;
        let mut bindings = KnnBindings::new(
            queries.binding(),
            codes.binding(),
            distances.binding(),
            indices.binding(),
        );
        if let Some(a) = allow {
            bindings = bindings.with_allow_list(a.binding());
        }
        op.submit(&bindings)?;
        Ok((distances, indices))
    }
}
