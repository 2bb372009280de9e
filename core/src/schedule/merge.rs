//! Merging lowered calls into dispatches, and the hazard rules that keep dependent calls
//! apart. Pure CPU: buffers are known by their index in the batch's table.

use std::collections::HashMap;

use super::fused::{FusedKernel, FusedParams, fused_key};
use super::key::PipelineKey;
use super::lower::{Access, LoweredPiece, MAX_SLOTS, Range};
use super::params::{Params, RECORDS_PER_BINDING};
use crate::layout::FUSED_OPERANDS;
use crate::layout::KernelKind;

/// Calls one dispatch can hold (one per workgroup layer in z).
pub const MERGE_MAX: usize = RECORDS_PER_BINDING;

/// What one bind group binds: a range per slot (buffers by index), with read-only or
/// read-write inputs, in an operator's layout of bindings (output, A, B) or a fused
/// expression's (output and four inputs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BindSet {
    /// The range bound in each slot (output, A, B, then a fused expression's third and
    /// fourth inputs); `None` for an unused slot.
    pub slots: [Option<Range>; MAX_SLOTS],
    /// Whether the input slots are bound `read_write`.
    pub inputs_rw: bool,
    /// Whether the bind group has a fused expression's layout (six bindings).
    pub fused: bool,
}

/// One dispatch: consecutive records run by one pipeline on one bind group.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    /// The pipeline.
    pub key: PipelineKey,
    /// Index into [`Schedule::bind_sets`].
    pub bind: usize,
    /// Workgroups in x and y (z counts its records).
    pub grid: [u32; 2],
    /// Index of its first record in [`Schedule::records`].
    pub first: usize,
    /// How many records it runs.
    pub count: usize,
    /// What its calls touch, to keep dependent calls out.
    accesses: Vec<Access>,
}

/// The direct form of `key` for a dispatch whose one record is `record`, where every operand
/// starts its binding: no record index and no offsets to read (see contiguous.wgsl, and the
/// fused block form's `FusedKernel::direct`). `None` for other kernels and for records with
/// offsets.
pub fn direct_form(key: &PipelineKey, record: &Params) -> Option<PipelineKey> {
    if let Some(fused) = &key.fused {
        let record: FusedParams = bytemuck::cast(*record);
        let direct = fused.form == KernelKind::FusedBlocks
            && fused.vectors
            && !fused.direct
            && record.base[..FUSED_OPERANDS] == [0; FUSED_OPERANDS];
        return direct.then(|| {
            fused_key(FusedKernel {
                direct: true,
                ..(**fused).clone()
            })
        });
    }
    let direct_kernel = matches!(key.kernel, KernelKind::Contiguous | KernelKind::Rows);
    (direct_kernel && record.base[..3] == [0, 0, 0]).then(|| {
        let mut direct = key.clone();
        direct.overrides.direct = true;
        direct
    })
}

/// Two indices: (first, count) of a chunk's records, or (chunk, offset) of a group's.
pub type Span = (usize, usize);

/// Calls merged into dispatches: every record, the dispatches that run them, and the distinct
/// sets of bound ranges.
#[derive(Clone, Debug, Default)]
pub struct Schedule {
    /// Every record, in the order the groups run them.
    pub records: Vec<Params>,
    /// The dispatches.
    pub groups: Vec<Group>,
    /// The distinct sets of bound ranges.
    pub bind_sets: Vec<BindSet>,
    bind_index: HashMap<BindSet, usize>,
    /// The most records one dispatch runs, where it is below [`MERGE_MAX`].
    merge_limit: Option<usize>,
}

impl Schedule {
    /// An empty schedule for a device whose grids are at most `max_groups` workgroups a side:
    /// a dispatch runs at most that many records (its z), and at most [`MERGE_MAX`]. (The
    /// default holds [`MERGE_MAX`], as every device that keeps WebGPU's default limits
    /// allows.)
    pub fn with_max_groups(max_groups: u32) -> Schedule {
        let limit = usize::try_from(max_groups).unwrap_or(MERGE_MAX).max(1);
        Schedule {
            merge_limit: (limit < MERGE_MAX).then_some(limit),
            ..Schedule::default()
        }
    }

    /// Appends the pieces of one call, whose buffer keys `buffers` maps to indices of the
    /// batch's table. Consecutive pieces join the last dispatch where that is safe: the same
    /// pipeline, bind group and grid, room for another record, and no hazard (a call must not
    /// touch what another call in the dispatch writes, nor write what it reads). A piece's
    /// own records touch disjoint rows and always share its dispatch.
    pub fn add_call(&mut self, pieces: &[LoweredPiece], buffers: &[usize]) {
        let global = |r: Option<Range>| {
            r.map(|r| Range {
                buffer: buffers[r.buffer],
                ..r
            })
        };
        for piece in pieces {
            let set = BindSet {
                slots: piece.slots.map(global),
                inputs_rw: piece.inputs_rw,
                fused: piece.key.fused.is_some(),
            };
            let bind = match self.bind_index.get(&set) {
                Some(&i) => i,
                None => {
                    self.bind_sets.push(set);
                    self.bind_index.insert(set, self.bind_sets.len() - 1);
                    self.bind_sets.len() - 1
                }
            };
            let accesses: Vec<Access> = piece
                .accesses
                .iter()
                .map(|a| Access {
                    buffer: buffers[a.buffer],
                    ..*a
                })
                .collect();
            self.add_piece(piece, bind, accesses);
        }
    }

    fn add_piece(&mut self, piece: &LoweredPiece, bind: usize, accesses: Vec<Access>) {
        let single = piece.records.len() == 1;
        for (i, d) in piece.records.iter().enumerate() {
            let index = self.records.len();
            self.records.push(d.params);
            let joins = self.groups.last().is_some_and(|g| {
                g.key == piece.key
                    && g.bind == bind
                    && g.grid == d.groups
                    && g.count < self.merge_limit.unwrap_or(MERGE_MAX)
                    && (i > 0
                        || (single
                            && !g
                                .accesses
                                .iter()
                                .any(|x| accesses.iter().any(|y| x.conflicts(y)))))
            });
            if joins {
                let g = self.groups.last_mut().expect("a last group");
                g.count += 1;
                if i == 0 {
                    g.accesses.extend_from_slice(&accesses);
                }
            } else {
                self.groups.push(Group {
                    key: piece.key.clone(),
                    bind,
                    grid: d.groups,
                    first: index,
                    count: 1,
                    accesses: accesses.clone(),
                });
            }
        }
    }

    /// The pipeline that runs `group`: its own, or its [`direct_form`] where the dispatch runs
    /// one record. Decided here rather than when the call is lowered, because only the
    /// finished schedule knows which dispatches hold one record.
    pub fn dispatch_key(&self, group: &Group) -> PipelineKey {
        if group.count == 1
            && let Some(direct) = direct_form(&group.key, &self.records[group.first])
        {
            return direct;
        }
        group.key.clone()
    }

    /// The metadata buffers: consecutive groups packed into chunks of at most `chunk` records
    /// (a dispatch never straddles two). Returns each chunk's (first record, records) and
    /// each group's (chunk, record offset in it).
    pub fn chunks(&self, chunk: usize) -> (Vec<Span>, Vec<Span>) {
        let mut chunks: Vec<(usize, usize)> = Vec::new();
        let mut placed = Vec::with_capacity(self.groups.len());
        for g in &self.groups {
            let last = chunks.len().wrapping_sub(1);
            match chunks.last_mut() {
                Some((_, n)) if *n + g.count <= chunk => {
                    placed.push((last, *n));
                    *n += g.count;
                }
                _ => {
                    chunks.push((g.first, g.count));
                    placed.push((chunks.len() - 1, 0));
                }
            }
        }
        (chunks, placed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::KernelKind;
    use crate::schedule::dispatch::Dispatch;
    use crate::schedule::key::Overrides;

    fn key(kernel: KernelKind) -> PipelineKey {
        PipelineKey {
            fused: None,
            kernel,
            inputs_rw: false,
            overrides: Overrides {
                width: 4,
                function: 0,
                logical: false,
                a_src: 1,
                b_src: 2,
                a_mode: 0,
                b_mode: 0,
                rank: 0,
                direct: false,
                tail: false,
                spread: false,
                in_width: 0,
            },
        }
    }

    /// A one-record piece over bytes `[at, at + len)` of each of the call's three buffers
    /// (keys 0 = output, 1 = A, 2 = B), with whole-buffer bindings.
    fn piece(at: u64, len: u64, records: usize, grid: [u32; 2]) -> LoweredPiece {
        let range = |buffer| {
            Some(Range {
                buffer,
                start: 0,
                end: 1 << 20,
            })
        };
        let access = |buffer, write| Access {
            buffer,
            start: at,
            end: at + len,
            write,
        };
        LoweredPiece {
            key: key(KernelKind::Contiguous),
            records: vec![
                Dispatch {
                    params: Params::default(),
                    groups: grid,
                };
                records
            ],
            slots: [range(0), range(1), range(2), None, None],
            inputs_rw: false,
            accesses: vec![access(0, true), access(1, false), access(2, false)],
        }
    }

    #[test]
    fn independent_calls_on_the_same_buffers_share_a_dispatch_and_a_bind_group() {
        let mut s = Schedule::default();
        for i in 0..10 {
            s.add_call(&[piece(i * 4096, 4096, 1, [1, 1])], &[0, 1, 2]);
        }
        assert_eq!(s.records.len(), 10);
        assert_eq!(s.groups.len(), 1);
        assert_eq!(s.groups[0].count, 10);
        assert_eq!(s.bind_sets.len(), 1);
    }

    /// Only a contiguous or rows dispatch of one record whose operands start their bindings
    /// runs the direct form: merged records, offsets and other kernels keep the key they
    /// were lowered with.
    #[test]
    fn only_a_contiguous_or_rows_dispatch_of_one_record_at_its_bindings_start_is_direct() {
        let mut s = Schedule::default();
        // Two merged calls, then one call alone (it writes what the first two read).
        s.add_call(&[piece(0, 4096, 1, [1, 1])], &[0, 1, 2]);
        s.add_call(&[piece(4096, 4096, 1, [1, 1])], &[0, 1, 2]);
        s.add_call(&[piece(0, 4096, 1, [2, 1])], &[0, 1, 2]);
        let mut offset = piece(0, 4096, 1, [3, 1]);
        offset.records[0].params.base[1] = 4;
        s.add_call(&[offset], &[0, 1, 2]);
        let mut rows = piece(0, 4096, 1, [4, 1]);
        rows.key = key(KernelKind::Rows);
        s.add_call(&[rows], &[0, 1, 2]);
        let mut gather = piece(0, 4096, 1, [5, 1]);
        gather.key = key(KernelKind::Gather);
        s.add_call(&[gather], &[0, 1, 2]);
        let direct: Vec<bool> = s
            .groups
            .iter()
            .map(|g| s.dispatch_key(g).overrides.direct)
            .collect();
        assert_eq!(direct, [false, true, false, true, false]);
        assert_eq!(s.groups[0].count, 2);
        // The direct key differs from the lowered one in that alone.
        let mut lowered = s.dispatch_key(&s.groups[1]);
        lowered.overrides.direct = false;
        assert_eq!(lowered, s.groups[1].key);
    }

    /// `piece` with each operand's accessed bytes starting at `at` (output, A, B).
    fn piece_at(at: [u64; 3], len: u64) -> LoweredPiece {
        let mut p = piece(0, len, 1, [1, 1]);
        for (access, at) in p.accesses.iter_mut().zip(at) {
            access.start = at;
            access.end = at + len;
        }
        p
    }

    #[test]
    fn calls_that_touch_what_another_call_of_the_dispatch_writes_start_a_dispatch() {
        let mut s = Schedule::default();
        // A in the output's buffer (both are buffer 0 of the table), B in buffer 2.
        let table = [0, 0, 2];
        s.add_call(&[piece_at([0, 8192, 0], 4096)], &table);
        // Reads A's bytes again, writes elsewhere: no hazard.
        s.add_call(&[piece_at([16384, 8192, 0], 4096)], &table);
        assert_eq!(s.groups.len(), 1);
        // Reads what the first call wrote: a new dispatch.
        s.add_call(&[piece_at([32768, 0, 0], 4096)], &table);
        assert_eq!(s.groups.len(), 2);
        // Writes what a call of this dispatch wrote: a new dispatch.
        s.add_call(&[piece_at([32768, 65536, 0], 4096)], &table);
        assert_eq!(s.groups.len(), 3);
        // Writes what a call of this dispatch reads (its A): a new dispatch.
        s.add_call(&[piece_at([65536, 90000, 0], 4096)], &table);
        assert_eq!(s.groups.len(), 4);
        // Ranges that only touch end to end are no hazard.
        s.add_call(&[piece_at([200_000, 300_000, 0], 16)], &table);
        s.add_call(&[piece_at([200_016, 300_000, 0], 16)], &table);
        assert_eq!(s.groups.len(), 4);
        assert_eq!(s.bind_sets.len(), 1);
    }

    #[test]
    fn different_grids_kernels_or_bindings_do_not_merge() {
        let mut s = Schedule::default();
        s.add_call(&[piece(0, 16, 1, [1, 1])], &[0, 1, 2]);
        s.add_call(&[piece(16, 16, 1, [2, 1])], &[0, 1, 2]);
        let mut other = piece(32, 16, 1, [2, 1]);
        other.key = key(KernelKind::Gather);
        s.add_call(&[other], &[0, 1, 2]);
        s.add_call(&[piece(48, 16, 1, [2, 1])], &[0, 1, 4]);
        assert_eq!(s.groups.len(), 4);
        assert_eq!(s.bind_sets.len(), 2);
    }

    #[test]
    fn a_dispatch_holds_at_most_merge_max_records() {
        let mut s = Schedule::default();
        for i in 0..(MERGE_MAX as u64 * 2 + 1) {
            s.add_call(&[piece(i * 16, 16, 1, [1, 1])], &[0, 1, 2]);
        }
        let counts: Vec<usize> = s.groups.iter().map(|g| g.count).collect();
        assert_eq!(counts, [MERGE_MAX, MERGE_MAX, 1]);
        // On a device of fewer workgroups a side than that, as many as its grids allow.
        for (max_groups, want) in [(3, vec![3, 3, 1]), (65535, vec![7])] {
            let mut s = Schedule::with_max_groups(max_groups);
            for i in 0..7 {
                s.add_call(&[piece(i * 16, 16, 1, [1, 1])], &[0, 1, 2]);
            }
            let counts: Vec<usize> = s.groups.iter().map(|g| g.count).collect();
            assert_eq!(counts, want);
        }
    }

    #[test]
    fn a_piece_of_several_records_starts_a_dispatch_that_keeps_them_together() {
        let mut s = Schedule::default();
        s.add_call(&[piece(0, 16, 1, [1, 1])], &[0, 1, 2]);
        // Several records (the rows of a rows piece): they start a dispatch and stay in it;
        // an independent call may still join it afterwards.
        s.add_call(&[piece(4096, 16, 3, [1, 1])], &[0, 1, 2]);
        s.add_call(&[piece(8192, 16, 1, [1, 1])], &[0, 1, 2]);
        let counts: Vec<usize> = s.groups.iter().map(|g| g.count).collect();
        assert_eq!(counts, [1, 4]);
        assert_eq!(s.groups[1].first, 1);
    }

    #[test]
    fn chunks_never_split_a_dispatch() {
        let mut s = Schedule::default();
        for i in 0..5 {
            // Two records each, kept apart by their hazards.
            s.add_call(&[piece(0, 16, 2, [1, 1])], &[i, 10, 11]);
            s.add_call(&[piece(0, 16, 1, [1, 1])], &[12, i, 11]);
        }
        let (chunks, placed) = s.chunks(4);
        for (g, &(chunk, at)) in s.groups.iter().zip(&placed) {
            assert!(at + g.count <= chunks[chunk].1);
            assert_eq!(chunks[chunk].0 + at, g.first);
        }
        assert_eq!(chunks.iter().map(|c| c.1).sum::<usize>(), s.records.len());
    }
}
