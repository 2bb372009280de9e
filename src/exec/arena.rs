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
//! 4. Slabs grow geometrically from [`FIRST_SLAB_RECORDS`] to [`MAX_SLAB_RECORDS`] (or to the
//!    run asked for), so a context with a few calls holds a few KiB, and a graph of thousands
//!    of calls about one record each.
//!
//! 5. Records are written into a host copy of their slab, and a slab's written span goes to
//!    the device in one queue write when the next recording needs it ([`Arena::flush`]):
//!    preparing a call allocates nothing on the device (a queue write per call would make a
//!    staging buffer per call, and drivers' allocators search longer the more buffers a
//!    program holds). Rewriting a span rewrites records already on the device, dead ones
//!    included, with the bytes they hold, which changes nothing an encoder reads.
//!
//! 6. A recording that finds nothing to flush may rely on every record written before it
//!    being on the queue already ([`SharedArena::flush`]): the mark that says records wait
//!    for the device is cleared only after their queue writes were made, under the lock. A
//!    mark cleared before the writes let a recording on another thread skip the flush and
//!    submit before the writes of its own records reached the queue: its dispatches read the
//!    slab's zeros (no work) and its output stayed as it was (the concurrency suite found
//!    it, owned inputs most often).
//!
//! The allocator is generic over the buffer it hands out, so that its rules are tested
//! without a device.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::sync::lock;

/// Records of the first slab: 16 KiB of records (and 16 KiB of room after them).
pub(crate) const FIRST_SLAB_RECORDS: usize = 64;

/// The most records a slab is grown to (1 MiB), unless one run needs more.
pub(crate) const MAX_SLAB_RECORDS: usize = 4096;

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

/// One shared buffer and the state of its records.
#[derive(Debug)]
struct Slab<B> {
    id: u64,
    buffer: B,
    /// Records that can be lent (the room after them excluded: invariant 2).
    capacity: usize,
    /// Records below this were lent at some point; above it, never.
    top: usize,
    /// Records lent now.
    live: usize,
    /// Runs given back before they were recorded, (first, len), sorted, never touching.
    free: Vec<(usize, usize)>,
    /// What the device should hold: every record written so far (invariant 5).
    host: Vec<u8>,
    /// Records `[dirty.0, dirty.1)` were written since the last flush (empty when equal).
    dirty: (usize, usize),
}

impl<B> Slab<B> {
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
}

/// Every slab of a context.
#[derive(Debug)]
pub(crate) struct Arena<B> {
    slabs: Vec<Slab<B>>,
    next_id: u64,
    /// Records of room after each slab's last lendable record (`MERGE_MAX`).
    room: usize,
    /// Bytes of one record.
    record_bytes: usize,
}

impl<B: Clone> Arena<B> {
    /// An empty arena of `record_bytes`-byte records whose slabs keep `room` records free
    /// after their last lendable one.
    pub fn new(room: usize, record_bytes: usize) -> Arena<B> {
        Arena {
            slabs: Vec::new(),
            next_id: 0,
            room,
            record_bytes,
        }
    }

    /// Writes `bytes` (whole records) at the start of `lease`'s run, on the host; the next
    /// [`Arena::flush`] takes them to the device.
    pub fn write(&mut self, lease: &Lease<B>, bytes: &[u8]) {
        let Some(slab) = self.slabs.iter_mut().find(|s| s.id == lease.slab) else {
            return;
        };
        let records = bytes.len() / self.record_bytes;
        debug_assert!(records <= lease.len);
        let at = lease.first * self.record_bytes;
        slab.host[at..at + bytes.len()].copy_from_slice(bytes);
        let (lo, hi) = slab.dirty;
        slab.dirty = if lo == hi {
            (lease.first, lease.first + records)
        } else {
            (lo.min(lease.first), hi.max(lease.first + records))
        };
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

    /// Lends a run of `len` records (at least one): from a slab that has one free, else from
    /// a new slab made by `make` with the number of records it must hold (its room
    /// included). On an error of `make` nothing changes.
    pub fn lease<E>(
        &mut self,
        len: usize,
        make: impl FnOnce(usize) -> Result<B, E>,
    ) -> Result<Lease<B>, E> {
        let len = len.max(1);
        for slab in self.slabs.iter_mut().rev() {
            if let Some(first) = slab.take(len) {
                return Ok(Lease {
                    slab: slab.id,
                    buffer: slab.buffer.clone(),
                    first,
                    len,
                });
            }
        }
        let grown = match self.slabs.last() {
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
            live: 0,
            free: Vec::new(),
            host: vec![0; capacity * self.record_bytes],
            dirty: (0, 0),
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
        if slab.live == 0 {
            if slab.top == 0 {
                // Everything came back unrecorded: the slab is as new. Keep the last one for
                // the next call; drop an older empty one.
                if i + 1 != self.slabs.len() {
                    self.slabs.remove(i);
                }
            } else {
                self.slabs.remove(i);
            }
        }
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
        }
    }
}

/// The arena of a context, shared by its threads, and whether records written into its host
/// copies still wait for the device (invariants 5 and 6).
#[derive(Debug)]
pub(crate) struct SharedArena<B> {
    arena: Mutex<Arena<B>>,
    /// Set with every write of records, cleared once every write made so far is on the
    /// queue; both under the lock (invariant 6).
    unflushed: AtomicBool,
}

impl<B: Clone> SharedArena<B> {
    /// An empty arena (see [`Arena::new`]).
    pub fn new(room: usize, record_bytes: usize) -> SharedArena<B> {
        SharedArena {
            arena: Mutex::new(Arena::new(room, record_bytes)),
            unflushed: AtomicBool::new(false),
        }
    }

    /// Lends a run for `bytes` (whole records, at least one) and writes them into its host
    /// copy, for the next [`SharedArena::flush`]; `make` makes a slab when none has room. On
    /// an error of `make` nothing changes.
    pub fn lease_and_write<E>(
        &self,
        bytes: &[u8],
        make: impl FnOnce(usize) -> Result<B, E>,
    ) -> Result<Lease<B>, E> {
        let mut arena = lock(&self.arena);
        let records = bytes.len() / arena.record_bytes;
        let lease = arena.lease(records, make)?;
        arena.write(&lease, bytes);
        self.unflushed.store(true, Ordering::Release);
        Ok(lease)
    }

    /// Takes a run back (see [`Arena::release`]).
    pub fn release(&self, lease: &Lease<B>, reusable: bool) {
        lock(&self.arena).release(lease, reusable);
    }

    /// What the arena holds now.
    pub fn usage(&self) -> ArenaUsage {
        lock(&self.arena).usage()
    }

    /// Hands every span written since the last flush to `write` (see [`Arena::flush`]);
    /// whether every write succeeded. When it returns `true`, every record written before
    /// the call, on any thread, has been handed to a `write` that succeeded (invariant 6):
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

    fn lease(arena: &mut Arena<usize>, made: &mut Vec<usize>, len: usize) -> Lease<usize> {
        arena
            .lease(len, |records| -> Result<usize, ()> {
                made.push(records);
                Ok(made.len() - 1)
            })
            .unwrap()
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
            .lease_and_write(&[7; 4], |_| -> Result<usize, ()> { Ok(0) })
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

    #[test]
    fn a_failed_slab_changes_nothing() {
        let (mut arena, _) = arena();
        let r: Result<Lease<usize>, &str> = arena.lease(3, |_| Err("no memory"));
        assert!(r.is_err());
        assert_eq!(arena.usage(), ArenaUsage::default());
    }
}
