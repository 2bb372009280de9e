//! Kernel choices measured on an adapter ([`KernelTuning::Measured`]): the key a choice is
//! kept under ([`TuningKey`]), the table of choices with its byte form ([`KernelChoices`]),
//! and the rule that turns timings into a choice ([`fastest`]). Timing itself needs a device
//! and lives in `gpu-xor`.
//!
//! [`KernelTuning::Measured`]: super::KernelTuning::Measured

use std::collections::BTreeMap;
use std::fmt;

use crate::error::Error;
use crate::layout::{KernelKind, Piece, Plan, Widths};

/// The class of layouts one measured choice holds for: the plan's kernel family, each
/// operand's kind of stride in each dimension (repeated, unit, or any other), the rank, the
/// element sizes, the output's size in steps of four, and the kernels that can run it on
/// bindings at its buffers' start ([`TuningKey::kernels`]).
///
/// The last keeps apart layouts that the rest cannot: a transpose of 16-bit elements
/// whose sides are multiples of 8 and one whose sides are not share everything else, but
/// only the first can run the block tile kernel. A choice measured on one of them, among
/// the kernels it can run, holds for the other only where both have the same kernels.
///
/// Only layouts with more than one kernel that can run them have a key: strided and
/// broadcast layouts (a gather or scatter plan) of one element size. A dense call has one
/// best kernel (the contiguous kernel) and `BIT_COUNT` of two element sizes one kernel per
/// layout, so neither is measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TuningKey {
    family: u8,
    rank: u8,
    width: u8,
    bucket: u8,
    /// One bit per kernel that can run the class ([`kernel_code`]).
    kernels: u16,
    strides: u64,
}

/// Bytes of a key in [`KernelChoices::to_bytes`], and of a key with its kernel.
const KEY_BYTES: usize = 14;
const ENTRY_BYTES: usize = KEY_BYTES + 1;

impl TuningKey {
    /// The key of one piece under a plan of family `planned`, where more than one kernel
    /// can run it; `None` where one kernel does. `kernels` gives the kernels that can run it
    /// on bindings at its buffers' start (`select::runnable_at_start`), asked only where the
    /// piece has a key. `select::tuning_key` and `select::key_of` make keys.
    pub(crate) fn of_piece(
        planned: KernelKind,
        piece: &Piece,
        widths: impl Into<Widths>,
        kernels: impl FnOnce() -> Vec<KernelKind>,
    ) -> Option<TuningKey> {
        let widths = widths.into();
        if !matches!(planned, KernelKind::Gather | KernelKind::Scatter)
            || !widths.uniform()
            || piece.sizes.is_empty()
        {
            return None;
        }
        let rank = piece.sizes.len().min(8);
        let mut strides = 0u64;
        for (o, operand) in piece.strides.iter().enumerate() {
            for (d, &stride) in operand.iter().take(8).enumerate() {
                let kind = match stride {
                    0 => 0u64,
                    1 => 1,
                    _ => 2,
                };
                strides |= kind << (2 * (8 * o + d));
            }
        }
        let bytes = piece
            .sizes
            .iter()
            .product::<u64>()
            .saturating_mul(widths.out())
            .max(1);
        let kernels = kernel_set(kernels());
        Some(TuningKey {
            family: kernel_code(planned),
            rank: rank as u8,
            width: widths.out() as u8,
            bucket: (bytes.ilog2() / 2) as u8,
            kernels,
            strides,
        })
    }

    /// The kernels that can run the class where every operand starts its buffer, with room
    /// to read whole 16-byte blocks at its end (the bindings a measurement makes): what a
    /// measurement times, in [`KernelKind::DISPATCHING`]'s order.
    pub fn kernels(&self) -> Vec<KernelKind> {
        KernelKind::DISPATCHING
            .into_iter()
            .filter(|&kernel| self.kernels & 1 << kernel_code(kernel) != 0)
            .collect()
    }

    /// The plan's kernel family: [`KernelKind::Gather`] (a dense output) or
    /// [`KernelKind::Scatter`] (a strided one).
    pub fn family(&self) -> KernelKind {
        kernel_of(self.family).unwrap_or(KernelKind::Gather)
    }

    /// The rank of the layout after coalescing.
    pub fn rank(&self) -> usize {
        usize::from(self.rank)
    }

    /// The element size in bytes.
    pub fn element_bytes(&self) -> u64 {
        u64::from(self.width)
    }

    /// The output's size class: outputs of `4^k` to `4^(k+1) - 1` bytes share it.
    pub fn size_class(&self) -> u32 {
        u32::from(self.bucket)
    }

    fn to_bytes(self) -> [u8; KEY_BYTES] {
        let mut out = [0u8; KEY_BYTES];
        out[0] = self.family;
        out[1] = self.rank;
        out[2] = self.width;
        out[3] = self.bucket;
        out[4..6].copy_from_slice(&self.kernels.to_le_bytes());
        out[6..].copy_from_slice(&self.strides.to_le_bytes());
        out
    }

    fn from_bytes(bytes: &[u8]) -> Option<TuningKey> {
        let key = TuningKey {
            family: bytes[0],
            rank: bytes[1],
            width: bytes[2],
            bucket: bytes[3],
            kernels: u16::from_le_bytes(bytes[4..6].try_into().ok()?),
            strides: u64::from_le_bytes(bytes[6..KEY_BYTES].try_into().ok()?),
        };
        let valid = matches!(key.family(), KernelKind::Gather | KernelKind::Scatter)
            && kernel_of(key.family).is_some()
            && key.kernels & !kernel_set(KernelKind::DISPATCHING) == 0
            && key.kernels & 1 << key.family != 0
            && (1..=8).contains(&key.rank)
            && matches!(key.width, 1 | 2 | 4 | 8)
            && key.bucket < 32;
        valid.then_some(key)
    }
}

impl fmt::Display for TuningKey {
    /// `gather rank 2, 4-byte elements, 4^12 bytes, strides out [n 1] a [1 n] b [n 1],
    /// kernels [Gather, Tile, BlockTile]`, with `0` for a repeated element, `1` for a unit
    /// stride and `n` for any other.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let family = match self.family() {
            KernelKind::Scatter => "scatter",
            _ => "gather",
        };
        write!(
            f,
            "{family} rank {}, {}-byte elements, 4^{} bytes, strides",
            self.rank, self.width, self.bucket
        )?;
        for (o, name) in ["out", "a", "b"].iter().enumerate() {
            write!(f, " {name} [")?;
            for d in 0..usize::from(self.rank) {
                let kind = (self.strides >> (2 * (8 * o + d))) & 3;
                let sep = if d == 0 { "" } else { " " };
                write!(f, "{sep}{}", ["0", "1", "n", "?"][kind as usize])?;
            }
            write!(f, "]")?;
        }
        write!(f, ", kernels {:?}", self.kernels())
    }
}

/// Bytes from each operand's first element to the end of its last (`OUT`, `A`, `B`), rounded
/// up to 16: the buffers a measurement of `plan` binds.
pub fn footprints(plan: &Plan) -> [u64; 3] {
    let widths = plan.widths();
    std::array::from_fn(|o| {
        let reach: u64 = plan
            .layout
            .sizes
            .iter()
            .zip(&plan.layout.strides[o])
            .map(|(&n, &s)| (n - 1).saturating_mul(s))
            .fold(0u64, u64::saturating_add);
        reach
            .saturating_add(1)
            .saturating_mul(widths.of(o))
            .div_ceil(16)
            .saturating_mul(16)
    })
}

/// A set of kernels as one bit per kernel code.
fn kernel_set(kernels: impl IntoIterator<Item = KernelKind>) -> u16 {
    kernels
        .into_iter()
        .fold(0, |set, kernel| set | 1 << kernel_code(kernel))
}

/// Stable codes of the kernels in [`KernelChoices::to_bytes`].
fn kernel_code(kernel: KernelKind) -> u8 {
    match kernel {
        KernelKind::Empty => 0,
        KernelKind::Contiguous => 1,
        KernelKind::Rows => 2,
        KernelKind::ShiftedRows => 3,
        KernelKind::Gather => 4,
        KernelKind::Tile => 5,
        KernelKind::Scatter => 6,
        KernelKind::Spaced => 7,
        KernelKind::FusedBlocks => 8,
        KernelKind::FusedElements => 9,
        KernelKind::BlockTile => 10,
        KernelKind::FusedReduce => 11,
        KernelKind::FusedTiled => 12,
    }
}

fn kernel_of(code: u8) -> Option<KernelKind> {
    Some(match code {
        0 => KernelKind::Empty,
        1 => KernelKind::Contiguous,
        2 => KernelKind::Rows,
        3 => KernelKind::ShiftedRows,
        4 => KernelKind::Gather,
        5 => KernelKind::Tile,
        6 => KernelKind::Scatter,
        7 => KernelKind::Spaced,
        8 => KernelKind::FusedBlocks,
        9 => KernelKind::FusedElements,
        10 => KernelKind::BlockTile,
        11 => KernelKind::FusedReduce,
        12 => KernelKind::FusedTiled,
        _ => return None,
    })
}

/// The kernel measured fastest per [`TuningKey`] on one adapter, named by its identity (the
/// adapter's name, vendor, device, driver and backend, as `gpu-xor` writes them).
///
/// A choice is a preference, never a licence: lowering takes it only where that kernel can
/// run the piece with its bindings (alignment, rows, grid), and keeps its fixed rule
/// otherwise, so any table, even a hand-made one, gives exact results.
///
/// Its byte form ([`KernelChoices::to_bytes`]) carries the identity, the crate's version and
/// a checksum, so that a runtime saves what it measured and starts warm the next time;
/// [`KernelChoices::from_bytes`] refuses a table of another adapter, of another version of
/// the crate, or damaged.
///
/// ```
/// use gpu_xor_core::schedule::tune::KernelChoices;
/// use gpu_xor_core::ErrorKind;
///
/// let saved = KernelChoices::new("lavapipe").to_bytes();
/// assert!(KernelChoices::from_bytes(&saved, "lavapipe").unwrap().is_empty());
/// let err = KernelChoices::from_bytes(&saved, "another adapter").unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::KernelChoicesForeign);
/// let err = KernelChoices::from_bytes(&saved[..10], "lavapipe").unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::KernelChoicesCorrupt);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelChoices {
    identity: String,
    entries: BTreeMap<TuningKey, KernelKind>,
}

/// The first bytes of every table.
const MAGIC: &[u8; 8] = b"GXCHOICE";
/// The layout of the byte form; a change of it, or of the crate's version, refuses old
/// tables as stale. Format 2 added each key's kernels.
const FORMAT: u32 = 2;
/// The crate's version, inside every table.
const VERSION: &str = env!("CARGO_PKG_VERSION");

impl KernelChoices {
    /// An empty table for the adapter named `identity`.
    pub fn new(identity: impl Into<String>) -> KernelChoices {
        KernelChoices {
            identity: identity.into(),
            entries: BTreeMap::new(),
        }
    }

    /// The adapter the choices were measured on.
    pub fn identity(&self) -> &str {
        &self.identity
    }

    /// The kernel chosen for `key`, if one was.
    pub fn get(&self, key: &TuningKey) -> Option<KernelKind> {
        self.entries.get(key).copied()
    }

    /// Chooses `kernel` for `key`; gives back the earlier choice.
    pub fn insert(&mut self, key: TuningKey, kernel: KernelKind) -> Option<KernelKind> {
        self.entries.insert(key, kernel)
    }

    /// Every key with its kernel, in the keys' order.
    pub fn iter(&self) -> impl Iterator<Item = (TuningKey, KernelKind)> + '_ {
        self.entries.iter().map(|(k, v)| (*k, *v))
    }

    /// How many keys have a choice.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no key has a choice.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Takes every choice of `other` (same adapter assumed), its choice winning for a key
    /// both hold.
    pub fn extend(&mut self, other: &KernelChoices) {
        self.entries
            .extend(other.entries.iter().map(|(k, v)| (*k, *v)));
    }

    /// The table as bytes: the magic `GXCHOICE`, the format, the crate's version, the
    /// adapter's identity, the entries, and a 64-bit FNV-1a checksum of all before it.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(64 + self.identity.len() + self.len() * ENTRY_BYTES);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&FORMAT.to_le_bytes());
        for text in [VERSION, self.identity.as_str()] {
            out.extend_from_slice(&(text.len() as u32).to_le_bytes());
            out.extend_from_slice(text.as_bytes());
        }
        out.extend_from_slice(&(self.entries.len() as u32).to_le_bytes());
        for (key, kernel) in &self.entries {
            out.extend_from_slice(&key.to_bytes());
            out.push(kernel_code(*kernel));
        }
        let sum = fnv1a(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// A table saved by [`KernelChoices::to_bytes`], if it was measured on the adapter named
    /// `identity` by this version of the crate: otherwise
    /// [`Error::KernelChoicesForeign`] (another adapter), [`Error::KernelChoicesStale`]
    /// (another version or format) or [`Error::KernelChoicesCorrupt`] (not such a table, or
    /// damaged). Nothing of a refused table is used.
    pub fn from_bytes(bytes: &[u8], identity: &str) -> Result<KernelChoices, Error> {
        let corrupt = |reason: &str| Error::KernelChoicesCorrupt {
            reason: reason.to_string(),
        };
        if bytes.len() < MAGIC.len() + 8 || &bytes[..MAGIC.len()] != MAGIC {
            return Err(corrupt("it does not start as a table of kernel choices"));
        }
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        if fnv1a(body).to_le_bytes() != sum {
            return Err(corrupt("its checksum does not match its bytes"));
        }
        let mut reader = Reader {
            bytes: &body[MAGIC.len()..],
        };
        let format = reader.u32().ok_or_else(|| corrupt("it ends early"))?;
        let version = reader.text().ok_or_else(|| corrupt("it ends early"))?;
        if format != FORMAT || version != VERSION {
            return Err(Error::KernelChoicesStale {
                found: format!("{version} (format {format})"),
                expected: format!("{VERSION} (format {FORMAT})"),
            });
        }
        let found = reader.text().ok_or_else(|| corrupt("it ends early"))?;
        if found != identity {
            return Err(Error::KernelChoicesForeign {
                found: found.to_string(),
                expected: identity.to_string(),
            });
        }
        let count = reader.u32().ok_or_else(|| corrupt("it ends early"))? as usize;
        if reader.bytes.len() != count.saturating_mul(ENTRY_BYTES) {
            return Err(corrupt("its entries do not fill it"));
        }
        let mut choices = KernelChoices::new(identity);
        for entry in reader.bytes.chunks_exact(ENTRY_BYTES) {
            let key = TuningKey::from_bytes(&entry[..KEY_BYTES])
                .ok_or_else(|| corrupt("it holds a key no layout has"))?;
            let kernel = kernel_of(entry[KEY_BYTES])
                .filter(|k| !matches!(k, KernelKind::Empty))
                .ok_or_else(|| corrupt("it names no kernel"))?;
            choices.insert(key, kernel);
        }
        Ok(choices)
    }
}

/// Reads the fields of a table in order.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.bytes.len() < n {
            return None;
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Some(head)
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn text(&mut self) -> Option<&'a str> {
        let n = self.u32()? as usize;
        std::str::from_utf8(self.take(n)?).ok()
    }
}

/// 64-bit FNV-1a.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The candidate with the least sample; on a tie the earlier one (candidates come with the
/// fixed rule's choice first). The least rather than the median: whatever else the device or
/// the machine does during a sample only adds to it, so the least of a few samples is the
/// closest to the kernel's own time. Samples that are not finite are ignored, and a
/// candidate without a finite one is never chosen; `None` when no candidate has one.
pub fn fastest(timings: &[(KernelKind, Vec<f64>)]) -> Option<KernelKind> {
    let mut best: Option<(KernelKind, f64)> = None;
    for (kernel, samples) in timings {
        let least = samples
            .iter()
            .copied()
            .filter(|s| s.is_finite())
            .min_by(f64::total_cmp);
        if let Some(t) = least
            && best.is_none_or(|(_, b)| t < b)
        {
            best = Some((*kernel, t));
        }
    }
    best.map(|(k, _)| k)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn piece(sizes: &[u64], strides: [&[u64]; 3]) -> Piece {
        Piece::test(sizes, strides)
    }

    fn transposed(n: u64) -> Piece {
        piece(&[n, n], [&[n, 1], &[1, n], &[n, 1]])
    }

    #[test]
    fn the_least_sample_wins_and_ties_keep_the_rule() {
        use KernelKind::{BlockTile, Gather, Spaced, Tile};
        // Fake timings: the gather kernel's least sample is the least, whatever its others.
        let timings = [
            (Tile, vec![3.0, 3.1, 2.9]),
            (Gather, vec![2.0, 9.0, 2.1]),
            (Spaced, vec![2.5, 2.5, 2.5]),
        ];
        assert_eq!(fastest(&timings), Some(Gather));
        // Swap the timings and the choice follows.
        let timings = [
            (Tile, vec![1.0, 1.1, 0.9]),
            (Gather, vec![2.0, 9.0, 2.1]),
            (Spaced, vec![2.5, 2.5, 2.5]),
        ];
        assert_eq!(fastest(&timings), Some(Tile));
        // One disturbed sample of the fastest does not hand the choice to a slower kernel
        // (as on lavapipe, block tile against gather at 64 MiB): a median of two would.
        let timings = [
            (BlockTile, vec![0.050, 0.200]),
            (Gather, vec![0.120, 0.123]),
        ];
        assert_eq!(fastest(&timings), Some(BlockTile));
        // A tie keeps the first (the rule's), a candidate without samples is never chosen.
        assert_eq!(
            fastest(&[(Tile, vec![1.0]), (Gather, vec![1.0])]),
            Some(Tile)
        );
        assert_eq!(
            fastest(&[(Tile, vec![]), (Gather, vec![f64::NAN, 5.0])]),
            Some(Gather)
        );
        assert_eq!(
            fastest(&[(Tile, vec![f64::NAN]), (Gather, vec![f64::INFINITY])]),
            None
        );
        assert_eq!(fastest(&[(Tile, vec![])]), None);
    }

    #[test]
    fn tables_round_trip_and_refuse_what_is_not_theirs() {
        let mut choices = KernelChoices::new("adapter one");
        let tiles = || vec![KernelKind::Gather, KernelKind::Tile, KernelKind::BlockTile];
        let a = TuningKey::of_piece(KernelKind::Gather, &transposed(4096), 4, tiles).unwrap();
        let b = TuningKey::of_piece(
            KernelKind::Scatter,
            &piece(&[8, 10], [&[40, 4], &[10, 1], &[10, 1]]),
            1,
            || vec![KernelKind::Scatter, KernelKind::Spaced],
        )
        .unwrap();
        choices.insert(a, KernelKind::Gather);
        choices.insert(b, KernelKind::Spaced);
        let bytes = choices.to_bytes();
        let back = KernelChoices::from_bytes(&bytes, "adapter one").unwrap();
        assert_eq!(back, choices);
        assert_eq!(back.get(&a), Some(KernelKind::Gather));
        assert_eq!(back.len(), 2);

        let err = KernelChoices::from_bytes(&bytes, "adapter two").unwrap_err();
        assert_eq!(
            err,
            Error::KernelChoicesForeign {
                found: "adapter one".into(),
                expected: "adapter two".into()
            }
        );
        // Every single flipped byte is caught, by the checksum or a field.
        for i in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[i] ^= 0x40;
            assert!(
                KernelChoices::from_bytes(&bad, "adapter one").is_err(),
                "{i}"
            );
        }
        // Cut short, or empty.
        for n in [0, 8, 20, bytes.len() - 1] {
            let err = KernelChoices::from_bytes(&bytes[..n], "adapter one").unwrap_err();
            assert_eq!(err.kind(), crate::ErrorKind::KernelChoicesCorrupt, "{n}");
        }
        // Another version of the crate: the version field rewritten, checksum made anew.
        let mut stale = bytes[..bytes.len() - 8].to_vec();
        let at = MAGIC.len() + 8;
        assert_eq!(&stale[at..at + VERSION.len()], VERSION.as_bytes());
        stale[at] = b'9';
        let sum = fnv1a(&stale);
        stale.extend_from_slice(&sum.to_le_bytes());
        let err = KernelChoices::from_bytes(&stale, "adapter one").unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::KernelChoicesStale);
        // A valid checksum over a kernel code no kernel has.
        let mut odd = bytes[..bytes.len() - 8].to_vec();
        let last = odd.len() - 1;
        odd[last] = 200;
        let sum = fnv1a(&odd);
        odd.extend_from_slice(&sum.to_le_bytes());
        let err = KernelChoices::from_bytes(&odd, "adapter one").unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::KernelChoicesCorrupt);
    }
}
