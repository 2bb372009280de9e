//! Encoding: the metadata buffers, bind groups and pipelines of a schedule, made once, and
//! the dispatches that record them into a compute pass as often as the caller likes.

use std::collections::HashMap;
use std::num::NonZeroU64;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::arena::{GROUPS_PER_SLAB, Lease};
use super::context::Context;
use super::kept::KeptGroup;
use super::shared::Shared;
use crate::desc::TensorName;
use crate::error::{Error, WgpuError};
use crate::schedule::lower::RecordSummary;
use crate::schedule::merge::{BindSet, MERGE_MAX, Schedule};
use crate::schedule::params::{Params, RECORD_BYTES};
use crate::scope::capture;

/// The most records one run of the arena holds (256 KiB): a schedule is cut into chunks of
/// at most this many, a dispatch never straddling two.
const CHUNK_RECORDS: usize = 1024;

/// A call (or a [`crate::Batch`] of calls) lowered, bound and encoded once, ready to record
/// any number of times: DirectML's compiled operator with its binding table.
///
/// Everything a recording needs was made when it was prepared: its metadata records (in the
/// context's shared metadata arena), the bind groups, the pipelines. Recording it
/// ([`Prepared::record`], or [`Prepared::record_in_pass`] into a compute pass the caller
/// already has open) creates no buffer, no bind group and no pipeline, and allocates nothing
/// on the host. Preparing writes the records on the host only; the first recording after
/// any preparation on the context takes every record written since to the device, one queue
/// write per arena buffer (wgpu stages it until the next submission), so that preparing a
/// graph of thousands of calls allocates nothing on the device per call.
///
/// It keeps its bound buffers alive; it reads and writes them each time it runs, at the
/// ranges it was prepared with. A bound buffer destroyed after it was prepared, or mapped
/// when the caller submits, is reported by the caller's `Queue::submit` (to the caller's
/// error scope or the device's uncaptured-error handler): prepare again with live buffers.
///
/// Cheap to clone (the wgpu objects inside are shared); `Send` and `Sync` on native targets.
///
/// ```no_run
/// use gpu_xor::{DmlBinary, BitXorDesc, Context, DataType, TensorBinding, Bindings};
///
/// # fn main() -> Result<(), gpu_xor::Error> {
/// # let ctx = Context::from_env()?;
/// # let (a, b, out): (wgpu::Buffer, wgpu::Buffer, wgpu::Buffer) = unimplemented!();
/// let op = DmlBinary::new(&ctx, &BitXorDesc::packed(DataType::U32, &[1024]))?;
/// // Checked, lowered and bound once...
/// let call = op.prepare(&Bindings::new(
///     TensorBinding::new(&a),
///     TensorBinding::new(&b),
///     TensorBinding::new(&out),
/// ))?;
/// // ...recorded every frame at no further cost.
/// for _frame in 0..3 {
///     let mut encoder = ctx.device().create_command_encoder(&Default::default());
///     call.record(&mut encoder)?;
///     ctx.queue().submit([encoder.finish()]);
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct Prepared {
    ctx: Context,
    encoded: Arc<Encoded>,
}

/// The wgpu objects of a prepared schedule.
struct Encoded {
    pipelines: Vec<wgpu::ComputePipeline>,
    bind_groups: Vec<wgpu::BindGroup>,
    steps: Vec<Step>,
    summaries: Vec<RecordSummary>,
    /// Its records in the context's arena, given back when the last clone is dropped.
    leases: Leases,
}

/// Runs of the arena held by one prepared schedule, and whether it was ever recorded.
struct Leases {
    shared: Arc<Shared>,
    leases: Vec<Lease<wgpu::Buffer>>,
    /// Set by every recording: records that an encoder may still hold are never written
    /// again (the arena's invariant 3).
    recorded: AtomicBool,
}

impl Drop for Leases {
    fn drop(&mut self) {
        let reusable = !self.recorded.load(Ordering::Relaxed);
        for lease in &self.leases {
            self.shared.arena.release(lease, reusable);
        }
    }
}

/// One dispatch: pipeline and bind group by index, the dynamic offset of its first record.
#[derive(Clone, Copy, Debug)]
struct Step {
    pipeline: usize,
    bind_group: usize,
    offset: u32,
    grid: [u32; 2],
    count: u32,
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prepared")
            .field("calls", &self.encoded.summaries.len())
            .field("dispatches", &self.encoded.steps.len())
            .field("bind_groups", &self.encoded.bind_groups.len())
            .field("pipelines", &self.encoded.pipelines.len())
            .finish()
    }
}

impl Prepared {
    /// Makes the wgpu objects of `schedule` on `ctx`; `buffers` is the schedule's buffer
    /// table, and `named` gives the tensor of a buffer, to name a refused one. A `one_shot`
    /// call, recorded once and dropped ([`Prepared::retire_after`]), takes its bind groups
    /// from those kept on its records' slab where one binds the same, and keeps those it
    /// makes there.
    ///
    /// Every object is made inside error scopes: a lost device is [`Error::DeviceLost`] and a
    /// bound buffer that was destroyed (or belongs to another device) is
    /// [`Error::InvalidBuffer`].
    // In a browser wgpu's objects are neither `Send` nor `Sync`, and neither is a prepared
    // call; the `Arc` is what native threads share.
    #[cfg_attr(
        target_arch = "wasm32",
        expect(
            clippy::arc_with_non_send_sync,
            reason = "one thread in a browser; Send and Sync on native"
        )
    )]
    pub(crate) fn new(
        ctx: &Context,
        schedule: &Schedule,
        buffers: &[wgpu::Buffer],
        summaries: Vec<RecordSummary>,
        named: &[(TensorName, &wgpu::Buffer)],
        one_shot: bool,
    ) -> Result<Prepared, Error> {
        let shared = &*ctx.shared;
        if let Some(lost) = shared.known_lost() {
            return Err(lost);
        }
        let fault = |call: &'static str, e: wgpu::Error| {
            let mut bound: Vec<(Option<TensorName>, &wgpu::Buffer)> = Vec::new();
            for buffer in buffers {
                let tensor = named.iter().find(|(_, b)| *b == buffer).map(|(t, _)| *t);
                bound.push((tensor, buffer));
            }
            shared.fault(call, e, &bound)
        };
        let (chunks, placed) = schedule.chunks(CHUNK_RECORDS);
        // Each chunk's records on a run of the context's arena. Until `Encoded` holds them,
        // the runs go back (reusable: nothing has recorded them) if a later step fails.
        let mut leases = Leases {
            shared: ctx.shared.clone(),
            leases: Vec::with_capacity(chunks.len()),
            recorded: AtomicBool::new(false),
        };
        for &(first, n) in &chunks {
            let lease = lease_records(shared, &schedule.records[first..first + n], one_shot)?;
            leases.leases.push(lease);
        }
        let mut pipelines: Vec<wgpu::ComputePipeline> = Vec::new();
        let mut keys = Vec::new();
        // (chunk, bind set) of each bind group, and the index of each.
        let mut sets: Vec<(usize, usize)> = Vec::new();
        let mut set_index: HashMap<(usize, usize), usize> = HashMap::new();
        let mut steps = Vec::with_capacity(schedule.groups.len());
        for (g, &(chunk, at)) in schedule.groups.iter().zip(&placed) {
            let key = schedule.dispatch_key(g);
            let pipeline = match keys.iter().position(|k| *k == key) {
                Some(i) => i,
                None => {
                    pipelines.push(
                        shared
                            .kernels
                            .pipeline(&shared.device, &shared.late, &key)?,
                    );
                    keys.push(key);
                    pipelines.len() - 1
                }
            };
            let bind_group = *set_index.entry((chunk, g.bind)).or_insert_with(|| {
                sets.push((chunk, g.bind));
                sets.len() - 1
            });
            let record = leases.leases[chunk].first + at;
            steps.push(Step {
                pipeline,
                bind_group,
                // Runs hold at most CHUNK_RECORDS records and slabs at most
                // MAX_SLAB_RECORDS: every offset is under 1 MiB.
                offset: (record as u64 * RECORD_BYTES) as u32,
                grid: g.grid,
                count: g.count as u32,
            });
        }
        // A one-shot call's bind groups, where its slab keeps one that binds the same.
        let mut kept: Vec<Option<wgpu::BindGroup>> = vec![None; sets.len()];
        if one_shot {
            for (group, &(chunk, set)) in kept.iter_mut().zip(&sets) {
                let set = &schedule.bind_sets[set];
                *group = shared
                    .arena
                    .with_groups(&leases.leases[chunk], |groups| {
                        let at = groups.iter().position(|g| g.binds_set(set, buffers))?;
                        // Most recently used last.
                        let hit = groups.remove(at);
                        let group = hit.group.clone();
                        groups.push(hit);
                        Some(group)
                    })
                    .flatten();
            }
        }
        // A destroyed buffer, or one of another device, is refused here (wgpu-core checks
        // bindings when the bind group is made); the scope keeps it from the device's
        // uncaptured-error handler.
        let made = capture(
            &shared.device,
            &shared.late,
            |e| Error::Wgpu {
                call: "Device::create_bind_group",
                source: WgpuError::new(e),
            },
            || {
                sets.iter()
                    .zip(&kept)
                    .filter(|(_, kept)| kept.is_none())
                    .map(|(&(chunk, set), _)| {
                        let records = &leases.leases[chunk].buffer;
                        bind_group(shared, records, &schedule.bind_sets[set], buffers)
                    })
                    .collect::<Vec<_>>()
            },
        )
        .map_err(|e| fault("Device::create_bind_group", e))?;
        let mut made = made.into_iter();
        let mut bind_groups = Vec::with_capacity(sets.len());
        for (&(chunk, set), kept) in sets.iter().zip(kept) {
            let group = match kept {
                Some(group) => group,
                None => {
                    let group = made.next().expect("one made for each set not kept");
                    if one_shot {
                        keep_group(
                            shared,
                            &leases.leases[chunk],
                            &schedule.bind_sets[set],
                            buffers,
                            &group,
                        );
                    }
                    group
                }
            };
            bind_groups.push(group);
        }
        Ok(Prepared {
            ctx: ctx.clone(),
            encoded: Arc::new(Encoded {
                pipelines,
                bind_groups,
                steps,
                summaries,
                leases,
            }),
        })
    }

    /// Records the prepared work into `encoder`, in a compute pass of its own.
    ///
    /// Creates nothing and checks nothing on the device (the first recording after a
    /// preparation writes the new records through the queue): [`Error::DeviceLost`] when the
    /// loss is already known, or when the queue refuses that write. The commands are
    /// validated when the caller finishes the encoder.
    pub fn record(&self, encoder: &mut wgpu::CommandEncoder) -> Result<(), Error> {
        if let Some(lost) = self.ctx.shared.known_lost() {
            return Err(lost);
        }
        if self.encoded.steps.is_empty() {
            return Ok(());
        }
        flush_records(&self.ctx.shared)?;
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("gpu-xor"),
            timestamp_writes: None,
        });
        self.encode(&mut pass);
        Ok(())
    }

    /// Records the prepared work into a compute pass the caller already has open (on an
    /// encoder of the context's device), between the caller's own dispatches.
    ///
    /// It sets its own pipelines and bind group 0: the caller sets its pipeline and bind
    /// groups again before dispatching anything of its own afterwards. Dispatches in one
    /// pass run in order with respect to storage writes, so a dispatch recorded after it sees
    /// its output.
    ///
    /// ```no_run
    /// # fn f(ctx: &gpu_xor::Context, call: &gpu_xor::Prepared) -> Result<(), gpu_xor::Error> {
    /// let mut encoder = ctx.device().create_command_encoder(&Default::default());
    /// {
    ///     let mut pass = encoder.begin_compute_pass(&Default::default());
    ///     // ... the caller's own dispatches ...
    ///     call.record_in_pass(&mut pass)?;
    ///     // ... more of the caller's dispatches, with their pipeline and bind groups set again ...
    /// }
    /// ctx.queue().submit([encoder.finish()]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn record_in_pass(&self, pass: &mut wgpu::ComputePass<'_>) -> Result<(), Error> {
        if let Some(lost) = self.ctx.shared.known_lost() {
            return Err(lost);
        }
        flush_records(&self.ctx.shared)?;
        self.encode(pass);
        Ok(())
    }

    /// Records the prepared work into `encoder` inside error scopes, for the one-call forms.
    pub(crate) fn record_checked(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        named: &[(TensorName, &wgpu::Buffer)],
    ) -> Result<(), Error> {
        if self.encoded.steps.is_empty() {
            return Ok(());
        }
        let shared = &*self.ctx.shared;
        // Pass commands are checked when the caller's encoder is finished; the scope catches
        // whatever wgpu reports while they are recorded.
        capture(
            &shared.device,
            &shared.late,
            |e| Error::Wgpu {
                call: "ComputePass",
                source: WgpuError::new(e),
            },
            || self.record(encoder),
        )
        .map_err(|e| {
            let buffers: Vec<_> = named.iter().map(|&(t, b)| (Some(t), b)).collect();
            shared.fault("ComputePass", e, &buffers)
        })?
    }

    /// Gives the records of a call recorded once (into `encoder`) and dropped back to the
    /// arena when the work recorded into `encoder` has finished on the GPU, or when `encoder`
    /// is dropped unsubmitted: the arena's invariant 4. A call never recorded, or one still
    /// cloned, goes back as any prepared call does.
    pub(crate) fn retire_after(mut self, encoder: &wgpu::CommandEncoder) {
        let Some(encoded) = Arc::get_mut(&mut self.encoded) else {
            return;
        };
        if !encoded.leases.recorded.load(Ordering::Relaxed) {
            return;
        }
        let leases = std::mem::take(&mut encoded.leases.leases);
        let returning = self.ctx.shared.arena.retire(&leases);
        encoder.on_submitted_work_done(move || drop(returning));
    }

    /// Marks its records as recorded (never lent again once it is dropped): a read, and a
    /// write the first time only, so that recording a graph every frame writes nothing.
    pub(super) fn mark_recorded(&self) {
        let recorded = &self.encoded.leases.recorded;
        if !recorded.load(Ordering::Relaxed) {
            recorded.store(true, Ordering::Relaxed);
        }
    }

    /// Each dispatch a recording records: its pipeline, bind group, record offset and grid.
    pub(super) fn dispatches(
        &self,
    ) -> impl Iterator<Item = (&wgpu::ComputePipeline, &wgpu::BindGroup, u32, [u32; 3])> {
        let encoded = &*self.encoded;
        encoded.steps.iter().map(|step| {
            (
                &encoded.pipelines[step.pipeline],
                &encoded.bind_groups[step.bind_group],
                step.offset,
                [step.grid[0], step.grid[1], step.count],
            )
        })
    }

    fn encode(&self, pass: &mut wgpu::ComputePass<'_>) {
        self.mark_recorded();
        let encoded = &*self.encoded;
        let mut current = usize::MAX;
        for step in &encoded.steps {
            if step.pipeline != current {
                pass.set_pipeline(&encoded.pipelines[step.pipeline]);
                current = step.pipeline;
            }
            pass.set_bind_group(0, &encoded.bind_groups[step.bind_group], &[step.offset]);
            pass.dispatch_workgroups(step.grid[0], step.grid[1], step.count);
        }
    }

    /// What each call did, in the order they were pushed: one for a prepared call.
    pub fn summaries(&self) -> &[RecordSummary] {
        &self.encoded.summaries
    }

    /// The dispatches one recording records.
    pub fn dispatch_count(&self) -> usize {
        self.encoded.steps.len()
    }

    /// The context it records on.
    pub fn context(&self) -> &Context {
        &self.ctx
    }
}

/// Lends `records` a run of the arena and writes them into its host copy; the next recording
/// takes them to the device ([`flush_records`]). Nothing is allocated on the device unless a
/// new arena buffer is needed.
///
/// A new arena buffer is made inside error scopes, mapped: on a lost device its mapping
/// cannot be had, the first sign of the loss that a preparation meets.
fn lease_records(
    shared: &Shared,
    records: &[Params],
    one_shot: bool,
) -> Result<Lease<wgpu::Buffer>, Error> {
    shared
        .arena
        .lease_and_write(bytemuck::cast_slice(records), one_shot, |n| {
            // Made mapped, so that wgpu holds the whole buffer initialised (zeros) from the
            // start. Otherwise it zero-fills, at a submission, the never-written records that
            // a dispatch's 16 KiB binding covers, and on another thread that fill can land
            // after the queued write of a call prepared in the meantime, erasing its records.
            let buffer = shared.create_buffer(&wgpu::BufferDescriptor {
                label: Some("gpu-xor records"),
                size: n as u64 * RECORD_BYTES,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: true,
            })?;
            // On a lost device the buffer is invalid: its mapping cannot be had, and unmapping
            // it would be an error for the device's uncaptured-error handler.
            buffer
                .get_mapped_range_mut(..)
                .map_err(|e| shared.lost_or(Error::Map(WgpuError::new(e))))?;
            crate::scope::unmap(&shared.device, &buffer);
            shared.created.buffers.fetch_add(1, Ordering::Relaxed);
            Ok::<_, Error>(buffer)
        })
}

/// Takes the records written since the last flush to the device, one queue write per arena
/// buffer, so that the next submission on the queue sees them: what a recording does first.
/// When it returns `Ok`, every record prepared before it, on any thread, is on the queue
/// (the arena's invariant 8), so the submission that follows sees it. On a lost device the
/// queue refuses the write.
pub(crate) fn flush_records(shared: &Shared) -> Result<(), Error> {
    let written = shared.arena.flush(|buffer, offset, bytes| {
        let Some(size) = NonZeroU64::new(bytes.len() as u64) else {
            return true;
        };
        match shared.queue.write_buffer_with(buffer, offset, size) {
            Some(mut view) => {
                view.copy_from_slice(bytes);
                true
            }
            None => false,
        }
    });
    if written {
        return Ok(());
    }
    Err(shared.lost_or(Error::Map(WgpuError::message_only(
        "the queue refused to write the calls' metadata".to_string(),
    ))))
}

/// Keeps `group`, made for `set` on `buffers`, on the slab of `lease` for later one-shot calls,
/// dropping the least recently used where the slab keeps [`GROUPS_PER_SLAB`] already. Where
/// another thread kept one that binds the same since this call looked, that one stays alone.
fn keep_group(
    shared: &Shared,
    lease: &Lease<wgpu::Buffer>,
    set: &BindSet,
    buffers: &[wgpu::Buffer],
    group: &wgpu::BindGroup,
) {
    let kept = KeptGroup {
        inputs_rw: set.inputs_rw,
        fused: set.fused,
        slots: std::array::from_fn(|s| {
            set.slots[s].map(|r| (buffers[r.buffer].clone(), r.start, r.end))
        }),
        group: group.clone(),
    };
    shared.arena.with_groups(lease, |groups| {
        if groups.iter().any(|g| g.binds_set(set, buffers)) {
            return;
        }
        if groups.len() >= GROUPS_PER_SLAB {
            groups.remove(0);
        }
        groups.push(kept);
    });
}

fn bind_group(
    shared: &Shared,
    records: &wgpu::Buffer,
    set: &BindSet,
    buffers: &[wgpu::Buffer],
) -> wgpu::BindGroup {
    let storage = |slot: usize| match set.slots[slot] {
        Some(r) => wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer: &buffers[r.buffer],
            offset: r.start,
            size: NonZeroU64::new(r.end - r.start),
        }),
        None => shared.dummy.as_entire_binding(),
    };
    shared.created.bind_groups.fetch_add(1, Ordering::Relaxed);
    // The records, the output, then the inputs: two for an operator, four for a fused
    // expression.
    let entries = [
        wgpu::BindGroupEntry {
            binding: 0,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: records,
                offset: 0,
                size: NonZeroU64::new(MERGE_MAX as u64 * RECORD_BYTES),
            }),
        },
        wgpu::BindGroupEntry {
            binding: 1,
            resource: storage(0),
        },
        wgpu::BindGroupEntry {
            binding: 2,
            resource: storage(1),
        },
        wgpu::BindGroupEntry {
            binding: 3,
            resource: storage(2),
        },
        wgpu::BindGroupEntry {
            binding: 4,
            resource: storage(3),
        },
        wgpu::BindGroupEntry {
            binding: 5,
            resource: storage(4),
        },
    ];
    shared.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("gpu-xor"),
        layout: shared.kernels.bind_group_layout(set.inputs_rw, set.fused),
        entries: &entries[..if set.fused { 6 } else { 4 }],
    })
}
