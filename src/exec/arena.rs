//! The metadata arena: the records of every prepared call on a context live in a few shared
//! uniform buffers ("slabs"), suballocated in runs of consecutive 256-byte records and given
//! back when the [`crate::Prepared`] that holds them is dropped.
//!
//! # Invariants
//!
//! 1. A run is consecutive records of one slab: a dispatch binds `MERGE_MAX` records from its
//!    first one (a dynamic offset), so every record of a dispatch must follow its first.
//! 2. Every slab has `MERGE_MAX` records of room after its last allocatable record, so that a
//!    binding of `MERGE_MAX` records fits at any record. They are never handed out.
//! 3. Records that were recorded into an encoder are never written again. A caller may drop a
//!    prepared call while an encoder that holds its dispatches is still unsubmitted (wgpu keeps
//!    the objects alive), and a new call's records, written through the queue, would land
//!    before that encoder runs. Such records are dead: the slab keeps them until it has no
//!    live record left, and is then dropped (wgpu keeps the buffer for encoders that still
//!    name it). Records never recorded are reused at once.
//! 4. Records recorded by a call that is dropped at once (a one-shot call: `record`, `run`,
//!    `submit`, a `Batch` recorded once) are *pending*, not dead: the call hands them to a
//!    [`Returning`] guard that the encoder it was recorded into holds
//!    (`CommandEncoder::on_submitted_work_done`). When that encoder's submission has finished
//!    on the GPU, or the encoder is dropped without being submitted (nothing of it will ever
//!    run), the guard gives the runs back, and the next lease takes them back into the free
//!    runs ([`SharedArena::drain`]). So a steady loop of one-shot calls reuses the same
//!    records and makes no buffer after its first few. A slab is kept while any of its
//!    records is lent or pending; at most one slab with nothing lent, pending or dead is kept
//!    (the largest), for the next call; the others are dropped.
//!
//! 5. Each slab keeps a few bind groups made for one-shot calls, keyed by what they bind
//!    ([`Arena::groups`]): they name the slab's buffer, so they go with it, and a slab's
//!    cache is bounded.
//!
//! 6. Slabs grow geometrically from [`FIRST_SLAB_RECORDS`] to [`MAX_SLAB_RECORDS`] (or to the
//!    run asked for), so a context with a few calls holds a few KiB, and a graph of thousands
//!    of calls about one record each.
//!
//! 7. Records are written into a host copy of their slab, and a slab's written span goes to
//!    the device in one queue write when the next recording needs it ([`Arena::flush`]):
//!    preparing a call allocates nothing on the device (a queue write per call would make a
//!    staging buffer per call, and drivers' allocators search longer the more buffers a
//!    program holds). Rewriting a span rewrites records already on the device, dead ones
//!    included, with the bytes they hold, which changes nothing an encoder reads.
//!
//! 8. A recording that finds nothing to flush may rely on every record written before it
//!    being on the queue already ([`SharedArena::flush`]): the mark that says records wait
//!    for the device is cleared only after their queue writes were made, under the lock. A
//!    mark cleared before the writes let a recording on another thread skip the flush and
//!    submit before the writes of its own records reached the queue: its dispatches read the
//!    slab's zeros (no work) and its output stayed as it was (the concurrency suite found
//!    it, owned inputs most often).
//!
//! The allocator is generic over the buffer it hands out, so that its rules are tested
//! without a device.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crate::sync::lock;

/// Records of the first slab: 16 KiB of records (and 16 KiB of room after them).
pub(crate) const FIRST_SLAB_RECORDS: usize = 64;

/// The most records a slab is grown to (1 MiB), unless one run needs more.
pub(crate) const MAX_SLAB_RECORDS: usize = 4096;

/// The most bind groups one slab keeps for one-shot calls (invariant 5).
pub(crate) const GROUPS_PER_SLAB: usize = 16;

/// A run of records by slab, first record and length: what a [`Returning`] guard gives back.
pub(crate) type Run = (u64, usize, usize);

/// Consecutive records of one slab, lent to one prepared call's chunk of dispatches.
#[derive(Clone, Debug)]
pub(crate) struct Lease<B> {
    slab: u64,
    /// The slab's buffer, for the bind groups that name it.
    pub buffer: B,
    /// The first record of the run, counted from the start of the slab.
    pub first: usize,
    /// Records in the run.
    pub len: usize,
}

/// One shared buffer, the state of its records, and the bind groups kept on it.
#[derive(Debug)]
struct Slab<B, G> {
    id: u64,
    buffer: B,
    /// Records that can be lent (the room after them excluded: invariant 2).
    capacity: usize,
    /// Records below this were lent at some point; above it, never.
    top: usize,
    /// Whether it lends to one-shot calls only (invariant 4), or to prepared calls only.
    one_shot: bool,
    /// Records lent now.
    live: usize,
    /// Records recorded by one-shot calls whose work may not have finished (invariant 4).
    pending: usize,
    /// Runs given back before they were recorded, (first, len), sorted, never touching.
    free: Vec<(usize, usize)>,
    /// What the device should hold: every record written so far (invariant 7).
    host: Vec<u8>,
    /// Records `[dirty.0, dirty.1)` were written since the last flush (empty when equal).
    dirty: (usize, usize),
    /// Bind groups made for one-shot calls on this slab's records, most recently used last
    /// (invariant 5).
    groups: Vec<G>,
}

impl<B, G> Slab<B, G> {
    /// Nothing lent, pending or dead: the slab is as new.
    fn is_empty(&self) -> bool {
        self.live == 0 && self.pending == 0 && self.top == 0
    }

    /// The first record of a run of `len` in this slab, taken from the free runs first.
    fn take(&mut self, len: usize) -> Option<usize> {
        if let Some(i) = self.free.iter().position(|&(_, n)| n >= len) {
            let (first, n) = self.free[i];
            if n == len {
                self.free.remove(i);
            } else {
                self.free[i] = (first + len, n - len);
            }
            self.live += len;
            return Some(first);
        }
        if self.capacity - self.top >= len {
            let first = self.top;
            self.top += len;
            self.live += len;
            return Some(first);
        }
        None
    }

    /// Gives a run back to the free runs, merged with its neighbours; a run that ends at
    /// `top` lowers it instead.
    fn put_back(&mut self, first: usize, len: usize) {
        let at = self.free.partition_point(|&(f, _)| f < first);
        self.free.insert(at, (first, len));
        // Merge with the next run, then with the previous.
        if at + 1 < self.free.len() && self.free[at].0 + self.free[at].1 == self.free[at + 1].0 {
            self.free[at].1 += self.free[at + 1].1;
            self.free.remove(at + 1);
        }
        if at > 0 && self.free[at - 1].0 + self.free[at - 1].1 == self.free[at].0 {
            self.free[at - 1].1 += self.free[at].1;
            self.free.remove(at);
        }
        if let Some(&(f, n)) = self.free.last()
            && f + n == self.top
        {
            self.top = f;
            self.free.pop();
        }
    }
}

/// What the arena holds now.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ArenaUsage {
    /// Slabs alive.
    pub buffers: u64,
    /// Records the slabs hold, lendable or not, the room after each included.
    pub records: u64,
    /// Records lent to prepared calls alive now.
    pub live_records: u64,
    /// Records of one-shot calls whose work may not have finished.
    pub pending_records: u64,
    /// Bind groups kept for one-shot calls.
    pub groups: u64,
}

/// Every slab of a context; `G` is what a slab keeps of the bind groups made on it.
#[derive(Debug)]
pub(crate) struct Arena<B, G = ()> {
    slabs: Vec<Slab<B, G>>,
    next_id: u64,
    /// Records of room after each slab's last lendable record (`MERGE_MAX`).
    room: usize,
    /// Bytes of one record.
    record_bytes: usize,
}

impl<B: Clone, G> Arena<B, G> {
    /// An empty arena of `record_bytes`-byte records whose slabs keep `room` records free
    /// after their last lendable one.
    pub fn new(room: usize, record_bytes: usize) -> Arena<B, G> {
        Arena {
            slabs: Vec::new(),
            next_id: 0,
            room,
            record_bytes,
        }
    }

    /// Writes `bytes` (whole records) at the start of `lease`'s run, on the host; the next
    /// [`Arena::flush`] takes them to the device. Records that already hold those bytes are
    /// not written again (a one-shot call repeated on the same bindings finds its own
    /// records of the last time): whether anything waits for a flush.
    pub fn write(&mut self, lease: &Lease<B>, bytes: &[u8]) -> bool {
        let Some(slab) = self.slabs.iter_mut().find(|s| s.id == lease.slab) else {
            return false;
        };
        let records = bytes.len() / self.record_bytes;
        debug_assert!(records <= lease.len);
        let at = lease.first * self.record_bytes;
        // The host copy is what the device holds once the pending flush is made (invariant
        // 7): equal bytes need no write.
        if slab.host[at..at + bytes.len()] == *bytes {
            return false;
        }
        slab.host[at..at + bytes.len()].copy_from_slice(bytes);
        let (lo, hi) = slab.dirty;
        slab.dirty = if lo == hi {
            (lease.first, lease.first + records)
        } else {
            (lo.min(lease.first), hi.max(lease.first + records))
        };
        true
    }

    /// Whether records were written since the last flush.
    #[cfg(test)]
    pub fn is_dirty(&self) -> bool {
        self.slabs.iter().any(|s| s.dirty.0 != s.dirty.1)
    }

    /// Hands each slab's written span to `write` (the buffer, the byte offset, the bytes) and
    /// forgets it where `write` succeeds; returns whether every write succeeded.
    pub fn flush(&mut self, mut write: impl FnMut(&B, u64, &[u8]) -> bool) -> bool {
        let record_bytes = self.record_bytes;
        let mut all = true;
        for slab in &mut self.slabs {
            let (lo, hi) = slab.dirty;
            if lo == hi {
                continue;
            }
            let bytes = &slab.host[lo * record_bytes..hi * record_bytes];
            if write(&slab.buffer, (lo * record_bytes) as u64, bytes) {
                slab.dirty = (0, 0);
            } else {
                all = false;
            }
        }
        all
    }

    /// Lends a run of `len` records (at least one) for a prepared call, or a `one_shot` call:
    /// from a slab of that kind that has one free, else from a new slab made by `make` with
    /// the number of records it must hold (its room included). On an error of `make` nothing
    /// changes.
    ///
    /// The two kinds never share a slab: a prepared call dropped after it was recorded
    /// leaves dead records, which would keep a slab of one-shot calls from ever being empty.
    pub fn lease<E>(
        &mut self,
        len: usize,
        one_shot: bool,
        make: impl FnOnce(usize) -> Result<B, E>,
    ) -> Result<Lease<B>, E> {
        let len = len.max(1);
        for slab in self
            .slabs
            .iter_mut()
            .rev()
            .filter(|s| s.one_shot == one_shot)
        {
            if let Some(first) = slab.take(len) {
                return Ok(Lease {
                    slab: slab.id,
                    buffer: slab.buffer.clone(),
                    first,
                    len,
                });
            }
        }
        let grown = match self.slabs.iter().rev().find(|s| s.one_shot == one_shot) {
            Some(last) => (last.capacity * 4).min(MAX_SLAB_RECORDS),
            None => FIRST_SLAB_RECORDS,
        };
        let capacity = grown.max(len);
        let buffer = make(capacity + self.room)?;
        let id = self.next_id;
        self.next_id += 1;
        let mut slab = Slab {
            id,
            buffer,
            capacity,
            top: 0,
            one_shot,
            live: 0,
            pending: 0,
            free: Vec::new(),
            host: vec![0; capacity * self.record_bytes],
            dirty: (0, 0),
            groups: Vec::new(),
        };
        let first = slab.take(len).expect("a new slab holds the run");
        let lease = Lease {
            slab: id,
            buffer: slab.buffer.clone(),
            first,
            len,
        };
        self.slabs.push(slab);
        Ok(lease)
    }

    /// Takes a run back. `reusable` says that it was never recorded into an encoder, so that
    /// it can be lent again at once (invariant 3); otherwise its records stay dead until the
    /// slab has no live record and is dropped.
    pub fn release(&mut self, lease: &Lease<B>, reusable: bool) {
        let Some(i) = self.slabs.iter().position(|s| s.id == lease.slab) else {
            return;
        };
        let slab = &mut self.slabs[i];
        slab.live -= lease.len;
        if reusable {
            slab.put_back(lease.first, lease.len);
        }
        self.tidy(i);
    }

    /// Takes a run back that was recorded by a one-shot call: pending until [`Arena::revive`]
    /// says its work has finished (invariant 4).
    pub fn retire(&mut self, lease: &Lease<B>) {
        let Some(slab) = self.slabs.iter_mut().find(|s| s.id == lease.slab) else {
            return;
        };
        slab.live -= lease.len;
        slab.pending += lease.len;
    }

    /// Makes a pending run lendable again: the work that recorded it has finished, or will
    /// never run. A run of a slab already dropped is forgotten.
    pub fn revive(&mut self, (id, first, len): Run) {
        let Some(i) = self.slabs.iter().position(|s| s.id == id) else {
            return;
        };
        let slab = &mut self.slabs[i];
        slab.pending -= len;
        slab.put_back(first, len);
        self.tidy(i);
    }

    /// Drops slab `i` when nothing of it is lent or pending, unless it is as new and no
    /// larger slab of its kind is (invariant 4): then it is kept, and a smaller empty one
    /// dropped.
    fn tidy(&mut self, i: usize) {
        let slab = &self.slabs[i];
        if slab.live != 0 || slab.pending != 0 {
            return;
        }
        if slab.top != 0 {
            // Dead records only: nothing can be lent from them again.
            self.slabs.remove(i);
            return;
        }
        let capacity = slab.capacity;
        let one_shot = slab.one_shot;
        let other = (0..self.slabs.len())
            .find(|&j| j != i && self.slabs[j].is_empty() && self.slabs[j].one_shot == one_shot);
        if let Some(j) = other {
            // Keep the larger of the two (the later one on a tie).
            let drop = if self.slabs[j].capacity > capacity
                || (self.slabs[j].capacity == capacity && j > i)
            {
                i
            } else {
                j
            };
            self.slabs.remove(drop);
        }
    }

    /// The bind groups kept on the slab of `lease` (invariant 5); `None` once it is dropped.
    pub fn groups(&mut self, lease: &Lease<B>) -> Option<&mut Vec<G>> {
        self.slabs
            .iter_mut()
            .find(|s| s.id == lease.slab)
            .map(|s| &mut s.groups)
    }

    /// Every bind group kept, slab by slab.
    pub fn all_groups(&mut self) -> impl Iterator<Item = &mut Vec<G>> {
        self.slabs.iter_mut().map(|s| &mut s.groups)
    }

    /// Drops every kept bind group, and every slab with nothing lent, pending or dead.
    pub fn trim(&mut self) {
        for slab in &mut self.slabs {
            slab.groups.clear();
        }
        self.slabs.retain(|s| !s.is_empty());
    }

    /// What the arena holds now.
    pub fn usage(&self) -> ArenaUsage {
        ArenaUsage {
            buffers: self.slabs.len() as u64,
            records: self
                .slabs
                .iter()
                .map(|s| (s.capacity + self.room) as u64)
                .sum(),
            live_records: self.slabs.iter().map(|s| s.live as u64).sum(),
            pending_records: self.slabs.iter().map(|s| s.pending as u64).sum(),
            groups: self.slabs.iter().map(|s| s.groups.len() as u64).sum(),
        }
    }
}

/// Pending runs of one one-shot call, given back when the guard is dropped: by the callback
/// of the encoder it was recorded into once its submission has finished, or with that
/// encoder when it is dropped unsubmitted (invariant 4). It holds no wgpu object, so that the
/// callback is `Send` on every platform.
#[derive(Debug)]
pub(crate) struct Returning {
    returned: Arc<Mutex<Vec<Run>>>,
    runs: Vec<Run>,
}

impl Drop for Returning {
    fn drop(&mut self) {
        // The lock of the returned runs alone: a callback may run inside any wgpu call that
        // polls the device, on any thread, and must not wait on the arena's lock.
        lock(&self.returned).append(&mut self.runs);
    }
}

/// The arena of a context, shared by its threads, and whether records written into its host
/// copies still wait for the device (invariants 7 and 8).
#[derive(Debug)]
pub(crate) struct SharedArena<B, G = ()> {
    arena: Mutex<Arena<B, G>>,
    /// Set with every write of records, cleared once every write made so far is on the
    /// queue; both under the lock (invariant 8).
    unflushed: AtomicBool,
    /// Pending runs whose work has finished, taken back by the next lease (invariant 4).
    returned: Arc<Mutex<Vec<Run>>>,
}

impl<B: Clone, G> SharedArena<B, G> {
    /// An empty arena (see [`Arena::new`]).
    pub fn new(room: usize, record_bytes: usize) -> SharedArena<B, G> {
        SharedArena {
            arena: Mutex::new(Arena::new(room, record_bytes)),
            unflushed: AtomicBool::new(false),
            returned: Arc::new(Mutex::new(Vec::new())),
        }
    }

    /// The arena, its returned runs taken back first (invariant 4).
    fn drain(&self) -> std::sync::MutexGuard<'_, Arena<B, G>> {
        let mut arena = lock(&self.arena);
        let mut returned = lock(&self.returned);
        for run in returned.drain(..) {
            arena.revive(run);
        }
        drop(returned);
        arena
    }

    /// Takes back the runs of a one-shot call that was recorded: pending until the guard it
    /// gives is dropped (invariant 4).
    pub fn retire(&self, leases: &[Lease<B>]) -> Returning {
        let mut arena = lock(&self.arena);
        for lease in leases {
            arena.retire(lease);
        }
        Returning {
            returned: self.returned.clone(),
            runs: leases.iter().map(|l| (l.slab, l.first, l.len)).collect(),
        }
    }

    /// Runs `f` on the bind groups kept on the slab of `lease` (`None` once it is dropped),
    /// under the arena's lock.
    pub fn with_groups<R>(&self, lease: &Lease<B>, f: impl FnOnce(&mut Vec<G>) -> R) -> Option<R> {
        lock(&self.arena).groups(lease).map(f)
    }

    /// Keeps, of every slab's bind groups, those `keep` accepts.
    pub fn retain_groups(&self, mut keep: impl FnMut(&G) -> bool) {
        for groups in lock(&self.arena).all_groups() {
            groups.retain(&mut keep);
        }
    }

    /// Lends a run for `bytes` (whole records, at least one) and writes them into its host
    /// copy, for the next [`SharedArena::flush`]; `make` makes a slab when none has room. On
    /// an error of `make` nothing changes.
    pub fn lease_and_write<E>(
        &self,
        bytes: &[u8],
        one_shot: bool,
        make: impl FnOnce(usize) -> Result<B, E>,
    ) -> Result<Lease<B>, E> {
        let mut arena = self.drain();
        let records = bytes.len() / arena.record_bytes;
        let lease = arena.lease(records, one_shot, make)?;
        if arena.write(&lease, bytes) {
            self.unflushed.store(true, Ordering::Release);
        }
        Ok(lease)
    }

    /// Takes a run back (see [`Arena::release`]).
    pub fn release(&self, lease: &Lease<B>, reusable: bool) {
        lock(&self.arena).release(lease, reusable);
    }

    /// Drops every kept bind group and every idle slab (see [`Arena::trim`]), the runs given
    /// back so far taken back first.
    pub fn trim(&self) {
        self.drain().trim();
    }

    /// What the arena holds now, the runs given back so far taken back.
    pub fn usage(&self) -> ArenaUsage {
        self.drain().usage()
    }

    /// Hands every span written since the last flush to `write` (see [`Arena::flush`]);
    /// whether every write succeeded. When it returns `true`, every record written before
    /// the call, on any thread, has been handed to a `write` that succeeded (invariant 8):
    /// by this call, or by one that held the lock before it.
    pub fn flush(&self, write: impl FnMut(&B, u64, &[u8]) -> bool) -> bool {
        if !self.unflushed.load(Ordering::Acquire) {
            return true;
        }
        let mut arena = lock(&self.arena);
        let written = arena.flush(write);
        if written {
            // Only now: a recording that sees the mark clear must find its records on the
            // queue, not on their way there.
            self.unflushed.store(false, Ordering::Release);
        }
        written
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An arena of numbered buffers; `made` counts the slabs made, with their sizes.
    fn arena() -> (Arena<usize>, Vec<usize>) {
        (Arena::new(64, 4), Vec::new())
    }

    /// A run of `len` for a prepared call, or a `one_shot` one; a new slab is numbered by the
    /// slabs made before it.
    fn lease_of(
        arena: &mut Arena<usize>,
        made: &mut Vec<usize>,
        len: usize,
        one_shot: bool,
    ) -> Lease<usize> {
        arena
            .lease(len, one_shot, |records| -> Result<usize, ()> {
                made.push(records);
                Ok(made.len() - 1)
            })
            .unwrap()
    }

    fn lease(arena: &mut Arena<usize>, made: &mut Vec<usize>, len: usize) -> Lease<usize> {
        lease_of(arena, made, len, false)
    }

    #[test]
    fn runs_are_consecutive_and_never_overlap_a_live_run() {
        let (mut arena, mut made) = arena();
        let mut live: Vec<Lease<usize>> = Vec::new();
        // A deterministic mix of sizes, releases (recorded or not) and new leases.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for step in 0..20_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            if !live.is_empty() && state.is_multiple_of(3) {
                let gone = live.swap_remove((state as usize / 3) % live.len());
                arena.release(&gone, state.is_multiple_of(2));
            } else {
                let len = 1 + (state as usize >> 8) % if step % 97 == 0 { 2000 } else { 9 };
                let new = lease(&mut arena, &mut made, len);
                let slab = arena
                    .slabs
                    .iter()
                    .find(|s| s.id == new.slab)
                    .expect("its slab is alive");
                // Invariant 2: room after the run for a whole binding.
                assert!(new.first + new.len <= slab.capacity);
                assert_eq!(made[new.buffer], slab.capacity + 64);
                for old in live.iter().filter(|l| l.slab == new.slab) {
                    assert!(
                        new.first + new.len <= old.first || old.first + old.len <= new.first,
                        "{new:?} overlaps {old:?}"
                    );
                }
                live.push(new);
            }
            let used: u64 = live.iter().map(|l| l.len as u64).sum();
            assert_eq!(arena.usage().live_records, used);
        }
    }

    #[test]
    fn recorded_runs_are_never_lent_again() {
        let (mut arena, mut made) = arena();
        let keep = lease(&mut arena, &mut made, 1);
        let recorded = lease(&mut arena, &mut made, 4);
        arena.release(&recorded, false);
        for _ in 0..50 {
            let l = lease(&mut arena, &mut made, 2);
            assert!(
                l.slab != recorded.slab
                    || l.first >= recorded.first + 4
                    || l.first + 2 <= recorded.first,
                "{l:?} reuses recorded records {recorded:?}"
            );
        }
        arena.release(&keep, true);
    }

    #[test]
    fn unrecorded_runs_are_lent_again_at_once() {
        let (mut arena, mut made) = arena();
        let _keep = lease(&mut arena, &mut made, 1);
        let a = lease(&mut arena, &mut made, 5);
        arena.release(&a, true);
        let b = lease(&mut arena, &mut made, 3);
        assert_eq!((b.slab, b.first), (a.slab, a.first));
        assert_eq!(made.len(), 1);
    }

    #[test]
    fn preparing_and_dropping_forever_holds_a_bounded_arena() {
        let (mut arena, mut made) = arena();
        let mut most = ArenaUsage::default();
        // Recorded and dropped (the one-shot calls), and dropped unrecorded, in turns.
        for i in 0..100_000 {
            let l = lease(&mut arena, &mut made, 1 + i % 3);
            arena.release(&l, i % 2 == 0);
            let now = arena.usage();
            most.buffers = most.buffers.max(now.buffers);
            most.records = most.records.max(now.records);
        }
        assert!(most.buffers <= 2, "{most:?}");
        assert!(
            most.records <= 2 * (MAX_SLAB_RECORDS as u64 + 64),
            "{most:?}"
        );
        assert_eq!(arena.usage().live_records, 0);
    }

    #[test]
    fn a_graph_holds_about_one_record_per_call() {
        let (mut arena, mut made) = arena();
        let calls: Vec<_> = (0..10_000)
            .map(|_| lease(&mut arena, &mut made, 1))
            .collect();
        let usage = arena.usage();
        assert_eq!(usage.live_records, 10_000);
        // Slabs of 64, 256, 1024 and then 4096 records, each with 64 of room.
        assert!(
            usage.records <= 10_000 + 4096 + 64 * usage.buffers,
            "{usage:?}"
        );
        for c in &calls {
            arena.release(c, false);
        }
        assert_eq!(arena.usage().buffers, 0);
    }

    #[test]
    fn a_run_larger_than_any_slab_gets_a_slab_of_its_own() {
        let (mut arena, mut made) = arena();
        let big = lease(&mut arena, &mut made, MAX_SLAB_RECORDS * 2 + 1);
        assert_eq!(big.first, 0);
        assert_eq!(made, [MAX_SLAB_RECORDS * 2 + 1 + 64]);
    }

    #[test]
    fn writes_reach_the_device_in_one_span_per_slab_at_the_flush() {
        let (mut arena, mut made) = arena();
        let leases: Vec<_> = (0..5).map(|_| lease(&mut arena, &mut made, 2)).collect();
        assert!(!arena.is_dirty());
        arena.write(&leases[1], &[1; 8]);
        arena.write(&leases[3], &[3; 4]);
        assert!(arena.is_dirty());
        let mut device = vec![0u8; (64 + 64) * 4];
        let mut writes = 0;
        assert!(arena.flush(|_, offset, bytes| {
            writes += 1;
            let at = offset as usize;
            device[at..at + bytes.len()].copy_from_slice(bytes);
            true
        }));
        assert_eq!(writes, 1);
        assert!(!arena.is_dirty());
        // Records 2..4 hold 1s, record 6 holds 3s, the span between them what it held.
        assert_eq!(&device[8..16], &[1; 8]);
        assert_eq!(&device[16..24], &[0; 8]);
        assert_eq!(&device[24..28], &[3; 4]);
        assert_eq!(&device[28..32], &[0; 4]);
        // A refused write keeps the span for the next flush.
        arena.write(&leases[0], &[9; 8]);
        assert!(!arena.flush(|_, _, _| false));
        assert!(arena.is_dirty());
        assert!(arena.flush(|_, offset, bytes| {
            assert_eq!((offset, bytes), (0, &[9u8; 8][..]));
            true
        }));
    }

    /// Invariant 6, with two threads: a flush that starts while another thread's flush is
    /// still writing does not return before those writes are made.
    #[test]
    #[expect(
        clippy::disallowed_methods,
        reason = "the test holds one thread inside a flush until the other has tried"
    )]
    fn a_flush_never_returns_while_another_is_still_writing() {
        use std::sync::mpsc;
        use std::time::Duration;

        let shared: SharedArena<usize> = SharedArena::new(64, 4);
        shared
            .lease_and_write(&[7; 4], false, |_| -> Result<usize, ()> { Ok(0) })
            .unwrap();
        let (entered_tx, entered_rx) = mpsc::channel();
        let (returned_tx, returned_rx) = mpsc::channel();
        std::thread::scope(|scope| {
            let shared = &shared;
            let writer = scope.spawn(move || {
                let mut overtaken = false;
                assert!(shared.flush(|_, _, bytes| {
                    assert_eq!(bytes, [7; 4]);
                    entered_tx.send(()).unwrap();
                    // The other flush returning now would be a recording that submits before
                    // these records reach the queue.
                    overtaken = returned_rx.recv_timeout(Duration::from_millis(300)).is_ok();
                    true
                }));
                overtaken
            });
            entered_rx.recv().unwrap();
            let mut wrote = 0;
            assert!(shared.flush(|_, _, _| {
                wrote += 1;
                true
            }));
            let _ = returned_tx.send(());
            assert!(
                !writer.join().unwrap(),
                "a flush returned while another thread's writes were still being made"
            );
            // The first flush took every record: the second found nothing left to write.
            assert_eq!(wrote, 0);
        });
    }

    fn one_shot(arena: &mut Arena<usize>, made: &mut Vec<usize>, len: usize) -> Lease<usize> {
        lease_of(arena, made, len, true)
    }

    #[test]
    fn pending_runs_are_lent_again_only_once_revived() {
        let (mut arena, mut made) = arena();
        let first = one_shot(&mut arena, &mut made, 2);
        arena.retire(&first);
        assert_eq!(arena.usage().pending_records, 2);
        // While pending, every new run lies elsewhere.
        let second = one_shot(&mut arena, &mut made, 2);
        assert!(second.slab != first.slab || second.first >= first.first + 2);
        arena.retire(&second);
        arena.revive((first.slab, first.first, first.len));
        let third = one_shot(&mut arena, &mut made, 2);
        assert_eq!((third.slab, third.first), (first.slab, first.first));
        assert_eq!(made.len(), 1);
    }

    #[test]
    fn prepared_and_one_shot_calls_never_share_a_slab() {
        let (mut arena, mut made) = arena();
        let prepared = lease(&mut arena, &mut made, 1);
        let shot = one_shot(&mut arena, &mut made, 1);
        assert_ne!(prepared.slab, shot.slab);
        // A prepared call dropped after it was recorded leaves a dead record; the one-shot
        // slab is untouched by it and is kept, as new, when its run comes back.
        arena.release(&prepared, false);
        arena.retire(&shot);
        arena.revive((shot.slab, shot.first, shot.len));
        assert_eq!(arena.usage().buffers, 1);
        let again = one_shot(&mut arena, &mut made, 1);
        assert_eq!((again.slab, again.first), (shot.slab, shot.first));
    }

    #[test]
    fn a_loop_of_one_shot_calls_keeps_one_slab_and_at_most_one_idle_one() {
        let (mut arena, mut made) = arena();
        // 1,000 calls recorded together, then all revived; ten rounds.
        for _ in 0..10 {
            let runs: Vec<_> = (0..1000)
                .map(|_| one_shot(&mut arena, &mut made, 1))
                .collect();
            for run in &runs {
                arena.retire(run);
            }
            for run in &runs {
                arena.revive((run.slab, run.first, run.len));
            }
            let usage = arena.usage();
            assert_eq!((usage.live_records, usage.pending_records), (0, 0));
            assert_eq!(usage.buffers, 1, "{usage:?}");
        }
        // Slabs of 64, 256 and 1024 records in the first round; none after it.
        assert_eq!(made.len(), 3, "{made:?}");
        arena.trim();
        assert_eq!(arena.usage().buffers, 0);
    }

    #[test]
    fn a_run_given_back_after_its_slab_was_dropped_is_forgotten() {
        let (mut arena, mut made) = arena();
        let a = one_shot(&mut arena, &mut made, 1);
        arena.retire(&a);
        arena.trim();
        // Pending: the slab stays.
        assert_eq!(arena.usage().buffers, 1);
        arena.revive((a.slab, a.first, a.len));
        arena.trim();
        assert_eq!(arena.usage().buffers, 0);
        arena.revive((a.slab, a.first, a.len));
        assert_eq!(arena.usage(), ArenaUsage::default());
    }

    #[test]
    fn records_that_hold_the_bytes_already_are_not_written_again() {
        let (mut arena, mut made) = arena();
        let l = one_shot(&mut arena, &mut made, 2);
        assert!(!arena.write(&l, &[0; 8]), "a new slab holds zeros");
        assert!(arena.write(&l, &[5; 8]));
        assert!(arena.flush(|_, _, _| true));
        assert!(!arena.write(&l, &[5; 8]));
        assert!(!arena.is_dirty());
        assert!(arena.write(&l, &[5, 5, 5, 5, 6, 6, 6, 6]));
    }

    #[test]
    fn a_returning_guard_gives_its_runs_back_when_dropped_on_any_thread() {
        let shared: SharedArena<usize> = SharedArena::new(64, 4);
        let lease = shared
            .lease_and_write(&[1; 4], true, |_| -> Result<usize, ()> { Ok(0) })
            .unwrap();
        let guard = shared.retire(std::slice::from_ref(&lease));
        assert_eq!(shared.usage().pending_records, 1);
        std::thread::spawn(move || drop(guard)).join().unwrap();
        assert_eq!(shared.usage().pending_records, 0);
        let again = shared
            .lease_and_write(&[2; 4], true, |_| -> Result<usize, ()> { Ok(1) })
            .unwrap();
        assert_eq!((again.buffer, again.first), (0, lease.first));
    }

    #[test]
    fn a_failed_slab_changes_nothing() {
        let (mut arena, _) = arena();
        let r: Result<Lease<usize>, &str> = arena.lease(3, false, |_| Err("no memory"));
        assert!(r.is_err());
        assert_eq!(arena.usage(), ArenaUsage::default());
    }
}
