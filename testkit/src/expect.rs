//! The kernel a test expects for a layout, decided from the tensors themselves rather than
//! from the library's choice, which the native and the browser test suites both assert.

use gpu_xor::inspect::KernelKind;
use gpu_xor::{DataType, KernelTuning, TensorDesc};

/// The kernel of a two-dimensional call of `rows` by `cols` with a transposed input (a
/// transposed output is reordered into one) whose dense output does not hold whole 16-byte
/// blocks, on a context tuned for GPUs: the tile kernel for 32- and 64-bit elements, and
/// for 8- and 16-bit ones where each row holds whole words, where the matrix fills a quarter
/// of the tiles that cover it ([`tile_fill`]); otherwise the gather kernel.
pub fn transposed_kernel(data_type: DataType, rows: u32, cols: u32) -> KernelKind {
    let width = data_type.size_in_bytes();
    let fills = tile_fill(
        u64::from(rows),
        u64::from(cols),
        tile_side(KernelKind::Tile, u64::from(width), KernelTuning::Gpu),
    );
    if fills && (width >= 4 || (cols * width).is_multiple_of(4)) {
        KernelKind::Tile
    } else {
        KernelKind::Gather
    }
}

/// The rows and columns of the tiles of `kernel` (`Tile` or `BlockTile`) at `width`-byte
/// elements on a context of `tuning`: the block tile 64 rows of 64 words; the tile kernel
/// 32 x 32 for 32- and 64-bit elements, for narrower ones (L elements a word) 16L x 16L
/// tuned for GPUs and 8L x 32L tuned for CPUs.
pub fn tile_side(kernel: KernelKind, width: u64, tuning: KernelTuning) -> (u64, u64) {
    let lanes = 4 / width.clamp(1, 4);
    match kernel {
        KernelKind::BlockTile => (64, 64 * 4 / width.clamp(1, 8)),
        _ if width >= 4 => (32, 32),
        _ if tuning == KernelTuning::Cpu => (8 * lanes, 32 * lanes),
        _ => (16 * lanes, 16 * lanes),
    }
}

/// Whether a matrix of `rows` by `cols` fills at least a quarter of the tiles of `side`
/// (rows, columns) that cover it: the least the fixed rules run on a tile kernel.
pub fn tile_fill(rows: u64, cols: u64, side: (u64, u64)) -> bool {
    4 * rows * cols >= rows.next_multiple_of(side.0) * cols.next_multiple_of(side.1)
}

/// The kernel of a two-dimensional call (or a batch of them, of any number of dimensions and
/// any size, anywhere in memory) with a dense output once reordered (a transposed output is
/// reordered into one) and an input read across its rows, on a context of `tuning`
/// (resolved: `Gpu` or `Cpu`): the block tile kernel ([`KernelKind::BlockTile`]) where every
/// 16-byte block is whole (E = 16 / width elements: rows and columns multiples of E, the
/// output's rows and matrices, and each input read across its rows dense along them, its
/// columns and matrices, a multiple of E elements apart; the caller's to know: every tensor
/// starts on a 16-byte boundary, as DirectML's offsets do), but for 64-bit elements with
/// both inputs read across their rows on a context tuned for CPU adapters; otherwise, for
/// 64-bit elements and 32-bit ones up to 16 MiB of output or in a batch, a context tuned for
/// CPU adapters writes a single matrix in the inputs' order with the scatter kernel
/// ([`KernelKind::Spaced`]) where both inputs are read across their rows, and gathers
/// ([`KernelKind::Gather`]) otherwise; else the tile kernel, for 8- and 16-bit elements only
/// where every output row and matrix starts a word (else gathered). Either tile kernel only
/// where the matrix fills at least a quarter of the kernel's tiles that cover it
/// ([`tile_fill`], [`tile_side`]); else the next.
///
/// The dimensions are first put in the output's order (largest output stride first, sizes of
/// 1 dropped) and merged wherever every tensor allows; a tile needs two or more. The
/// matrix's columns are the last; its rows the one where the first input with an inner
/// stride above 1 (A, else B) has its smallest stride, if below that inner one; the others
/// are the batch. An input reads across its rows where its inner stride is above 1 and above
/// its stride along the rows.
pub fn tile_kernel(out: &TensorDesc, inputs: [&TensorDesc; 2], tuning: KernelTuning) -> KernelKind {
    let merged = matrix_order(merged_dims(out, inputs));
    let rank = merged.len();
    let matrix = rank >= 2;
    let across = |t: usize| {
        matrix && merged[rank - 1].1[t] > 1 && merged[rank - 2].1[t] < merged[rank - 1].1[t]
    };
    // Untiled on CPUs: 64-bit elements, and 32-bit ones up to 16 MiB of output or in a batch.
    let width = u64::from(out.data_type.size_in_bytes());
    let bytes = out.sizes.iter().map(|&s| u64::from(s)).product::<u64>() * width;
    let cpu_wide = tuning == KernelTuning::Cpu
        && (width == 8 || (width == 4 && (bytes <= 16 << 20 || rank > 2)));
    let word_rows = merged[..rank - 1]
        .iter()
        .all(|(_, strides)| (strides[0] * width).is_multiple_of(4));
    let fills = |kernel: KernelKind| {
        let side = tile_side(kernel, width, tuning);
        matrix && tile_fill(merged[rank - 2].0, merged[rank - 1].0, side)
    };
    if !(across(1) || across(2)) {
        // No input read across the rows of a matrix.
        KernelKind::Gather
    } else if !(tuning == KernelTuning::Cpu && width == 8 && across(1) && across(2))
        && whole_blocks(&merged, width, across)
        && fills(KernelKind::BlockTile)
    {
        KernelKind::BlockTile
    } else if cpu_wide && rank == 2 && across(1) && across(2) {
        KernelKind::Spaced
    } else if cpu_wide || !word_rows || !fills(KernelKind::Tile) {
        KernelKind::Gather
    } else {
        KernelKind::Tile
    }
}

/// `merged` dimensions in a tile's order: the batch in its order, then the rows, then the
/// columns (the last), the rows being where the first input with an inner stride above 1
/// has its smallest stride (the innermost of equal ones) when that is below its inner one.
fn matrix_order(mut merged: Vec<(u64, [u64; 3])>) -> Vec<(u64, [u64; 3])> {
    let Some(cols) = merged.len().checked_sub(1).filter(|&c| c > 0) else {
        return merged;
    };
    let rows_of = |t: usize| {
        let mut best: Option<usize> = None;
        for d in 0..cols {
            let stride = merged[d].1[t];
            if stride > 0 && best.is_none_or(|b| stride <= merged[b].1[t]) {
                best = Some(d);
            }
        }
        best.filter(|&d| merged[cols].1[t] > 1 && merged[d].1[t] < merged[cols].1[t])
    };
    if let Some(rows) = rows_of(1).or_else(|| rows_of(2)) {
        let dim = merged.remove(rows);
        merged.insert(cols - 1, dim);
    }
    merged
}

/// Whether every 16-byte block (E = 16 / `width` elements) of a transpose of `merged`
/// dimensions (in a tile's order: the batch, rows, columns) is whole: rows and
/// columns multiples of E, the output's rows (and matrices) a multiple of E elements apart,
/// and each input that reads `across` its rows dense along them, its columns (and matrices)
/// a multiple of E apart.
fn whole_blocks(merged: &[(u64, [u64; 3])], width: u64, across: impl Fn(usize) -> bool) -> bool {
    let rank = merged.len();
    let (rows, cols) = (&merged[rank - 2], &merged[rank - 1]);
    let whole = |x: u64| x.is_multiple_of(16 / width);
    let batch = |t: usize| merged[..rank - 2].iter().all(|(_, s)| whole(s[t]));
    whole(rows.0)
        && whole(cols.0)
        && cols.1[0] == 1
        && whole(rows.1[0])
        && batch(0)
        && (1..3)
            .filter(|&t| across(t))
            .all(|t| rows.1[t] == 1 && whole(cols.1[t]) && batch(t))
}

/// The dimensions of a call in the output's order (largest output stride first, sizes of 1
/// dropped) as (size, strides of out, A, B), merged wherever each tensor steps over the inner
/// dimension's whole extent with its outer stride.
fn merged_dims(out: &TensorDesc, inputs: [&TensorDesc; 2]) -> Vec<(u64, [u64; 3])> {
    let all = [out, inputs[0], inputs[1]].map(TensorDesc::effective_strides);
    let mut dims: Vec<usize> = (0..out.sizes.len()).filter(|&d| out.sizes[d] > 1).collect();
    dims.sort_by_key(|&d| std::cmp::Reverse(all[0][d]));
    let mut merged: Vec<(u64, [u64; 3])> = Vec::new();
    for d in dims {
        let next = (u64::from(out.sizes[d]), [0, 1, 2].map(|t| all[t][d]));
        match merged.last_mut() {
            Some((size, strides)) if (0..3).all(|t| strides[t] == next.1[t] * next.0) => {
                *size *= next.0;
                *strides = next.1;
            }
            _ => merged.push(next),
        }
    }
    merged
}

/// Whether a call is a broadcast that the contiguous kernel runs with an input splat: merged,
/// either one dense run with an input repeating one element over all of it (a tensor and a
/// scalar), or two dimensions `[rows, L]` of at least 16 bytes a row, the output packed (rows
/// one after the other), each input packed like it or repeating one element across each row,
/// one at least repeating (a channel broadcast). Its dense operands must also start on
/// 16-byte boundaries, and every binding hold whole 16-byte blocks (the caller's to know).
pub fn channel_broadcast(out: &TensorDesc, inputs: [&TensorDesc; 2]) -> bool {
    let merged = merged_dims(out, inputs);
    match merged[..] {
        [(_, strides)] => {
            strides[0] == 1 && (1..3).all(|t| strides[t] <= 1) && (1..3).any(|t| strides[t] == 0)
        }
        [(_, outer), (l, inner)] => {
            let width = u64::from(out.data_type.size_in_bytes());
            let dense = |t: usize| outer[t] == l && inner[t] == 1;
            let repeated = |t: usize| inner[t] == 0;
            l * width >= 16
                && dense(0)
                && (1..3).all(|t| dense(t) || repeated(t))
                && (1..3).any(repeated)
        }
        _ => false,
    }
}

/// The kernel of a strided output that the scatter kernel takes, from its elements' byte
/// offsets: [`KernelKind::Spaced`] where each element starts at least 4 bytes after the one
/// before it in memory (so none shares a word with another), else [`KernelKind::Scatter`].
pub fn scatter_kind(out: &TensorDesc) -> KernelKind {
    let width = u64::from(out.data_type.size_in_bytes());
    let strides = out.effective_strides();
    let mut offsets = vec![0u64];
    for (&size, &stride) in out.sizes.iter().zip(&strides) {
        offsets = offsets
            .iter()
            .flat_map(|&o| (0..u64::from(size)).map(move |i| o + i * stride * width))
            .collect();
    }
    offsets.sort_unstable();
    if offsets.windows(2).all(|p| p[1] - p[0] >= 4) {
        KernelKind::Spaced
    } else {
        KernelKind::Scatter
    }
}

/// The kernel of a call whose rows (the output's innermost dimension, at least 128 bytes)
/// are dense in the output and start on 16-byte boundaries, the output's rows lying in memory
/// in index order, and dense or repeated in each input: the contiguous kernel for a
/// [`channel_broadcast`], else the shifted-rows kernel where an input repeats one element
/// across each row (a column broadcast of padded rows: four blocks per invocation beat the
/// rows kernel's block and splat), the rows kernel where every input's rows are dense.
pub fn rows_kernel(out: &TensorDesc, inputs: [&TensorDesc; 2]) -> KernelKind {
    if channel_broadcast(out, inputs) {
        KernelKind::Contiguous
    } else if inputs.iter().any(|t| repeats_along_rows(out, t)) {
        KernelKind::ShiftedRows
    } else {
        KernelKind::Rows
    }
}

/// Whether `t` repeats one element along the rows of `out`: its stride is 0 along the
/// output's innermost dimension (the one of least stride among those of more than one
/// element).
pub fn repeats_along_rows(out: &TensorDesc, t: &TensorDesc) -> bool {
    let out_strides = out.effective_strides();
    let row = (0..out.sizes.len())
        .filter(|&d| out.sizes[d] > 1)
        .min_by_key(|&d| out_strides[d]);
    row.is_some_and(|d| t.effective_strides()[d] == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_repeat_along_the_outputs_innermost_dimension() {
        let out = TensorDesc::new(DataType::U32, &[8, 64]);
        let column = TensorDesc::new(DataType::U32, &[8, 64]).with_strides(&[1, 0]);
        let row = TensorDesc::new(DataType::U32, &[8, 64]).with_strides(&[0, 1]);
        assert_eq!(rows_kernel(&out, [&out, &column]), KernelKind::Contiguous);
        assert_eq!(rows_kernel(&out, [&row, &out]), KernelKind::Rows);
        // Padded output rows: no channel broadcast.
        let padded = out.clone().with_strides(&[65, 1]);
        assert_eq!(
            rows_kernel(&padded, [&out, &column]),
            KernelKind::ShiftedRows
        );
        // The output transposed: its rows run along the first dimension, packed, and a
        // broadcast row repeats one element across each of them.
        let t_out = out.clone().with_strides(&[1, 8]);
        assert_eq!(rows_kernel(&t_out, [&row, &row]), KernelKind::Contiguous);
        assert_eq!(rows_kernel(&t_out, [&column, &column]), KernelKind::Rows);
    }

    #[test]
    fn spacing_is_read_off_the_element_offsets() {
        let t = TensorDesc::new(DataType::U8, &[4, 5]);
        assert_eq!(
            scatter_kind(&t.clone().with_strides(&[20, 4])),
            KernelKind::Spaced
        );
        assert_eq!(
            scatter_kind(&t.clone().with_strides(&[10, 2])),
            KernelKind::Scatter
        );
        // Rows 4 elements apart but the last of one row 2 bytes before the next row.
        assert_eq!(
            scatter_kind(&t.clone().with_strides(&[18, 4])),
            KernelKind::Scatter
        );
        let u32s = TensorDesc::new(DataType::U32, &[4, 5]).with_strides(&[7, 1]);
        assert_eq!(scatter_kind(&u32s), KernelKind::Spaced);
        assert_eq!(transposed_kernel(DataType::U8, 64, 4), KernelKind::Gather);
        assert_eq!(transposed_kernel(DataType::U8, 64, 16), KernelKind::Tile);
        assert_eq!(transposed_kernel(DataType::U16, 64, 5), KernelKind::Gather);
        assert_eq!(transposed_kernel(DataType::F32, 32, 8), KernelKind::Tile);
        assert_eq!(transposed_kernel(DataType::F32, 32, 7), KernelKind::Gather);
    }

    #[test]
    fn cpu_tuning_writes_transposed_outputs_of_wide_elements_in_the_inputs_order() {
        use KernelKind::{BlockTile, Gather, Spaced, Tile};
        // Type, sizes, then the kernels of two transposed inputs (a transposed output) and of
        // one, tuned for CPUs and for GPUs. Whole 16-byte blocks run the block tile but for
        // two transposed inputs of 64-bit elements on CPUs; off them, wide elements are
        // written in the inputs' order or gathered on CPUs; a matrix that fills less than a
        // quarter of its tiles is gathered.
        for (dt, sizes, both, one) in [
            (
                DataType::U32,
                [32, 32],
                [BlockTile, BlockTile],
                [BlockTile, BlockTile],
            ),
            (DataType::U32, [33, 31], [Spaced, Tile], [Gather, Tile]),
            (
                DataType::I64,
                [32, 16],
                [Spaced, BlockTile],
                [BlockTile, BlockTile],
            ),
            (DataType::I64, [33, 31], [Spaced, Tile], [Gather, Tile]),
            (DataType::U8, [60, 100], [Tile, Tile], [Tile, Tile]),
            (
                DataType::U8,
                [64, 256],
                [BlockTile, BlockTile],
                [BlockTile, BlockTile],
            ),
            // Two rows: a sixteenth of a tile, gathered on GPUs too.
            (DataType::U32, [64, 2], [Spaced, Gather], [Gather, Gather]),
        ] {
            let t = TensorDesc::new(dt, &sizes);
            let t_out = t.clone().with_strides(&[1, sizes[0]]);
            let t_in = t.clone().with_strides(&[1, sizes[0]]);
            for (k, tuning) in [KernelTuning::Cpu, KernelTuning::Gpu]
                .into_iter()
                .enumerate()
            {
                let why = format!("{dt} {sizes:?} {tuning:?}");
                assert_eq!(tile_kernel(&t_out, [&t, &t], tuning), both[k], "{why}");
                assert_eq!(tile_kernel(&t, [&t_in, &t_in], tuning), both[k], "{why}");
                assert_eq!(tile_kernel(&t, [&t_in, &t], tuning), one[k], "{why}");
            }
        }
    }
}
