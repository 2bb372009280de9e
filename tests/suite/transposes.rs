//! Transposed and permuted inputs: the tile kernel in each of its forms, on every width,
//! under both fixed tunings, on every adapter.
//!
//! A GPU-tuned context stages a transposed input through workgroup memory for every width (8-
//! and 16-bit elements in the staged form, square tiles of words); a CPU-tuned context keeps
//! the 8- and 16-bit tiles in registers and gathers small 32- and 64-bit ones (64-bit ones
//! of whole 16-byte blocks run the block tile unless both inputs are transposed). A batch of
//! matrices (a permutation of 3 to 8 dimensions that swaps the innermost axis with another:
//! any number of batch dimensions, of any size, wherever they lie in memory) runs on one
//! grid. Each case is
//! checked byte for byte over whole buffers, and its kernel against the layout's own reading
//! ([`tile_kernel`]).

use gpu_xor::inspect::KernelKind;
use gpu_xor::{Context, ContextOptions, DataType, KernelTuning, TensorDesc};
use gpu_xor_testkit::expect::{tile_kernel, transposed_kernel};

use crate::common::{
    Check, DIRECTML, DmlCase, Operator, OperatorExt, assert_kernel, few_groups, grids_of_16,
    on_suite_device, small_windows, tuned,
};

/// Contexts on the suite's device with 4 KiB windows, tuned for GPUs and for CPU adapters.
fn small_windows_tuned() -> [Context; 2] {
    [KernelTuning::Gpu, KernelTuning::Cpu].map(|kernel_tuning| {
        on_suite_device(&ContextOptions {
            max_window_bytes: Some(small_windows().max_window_bytes()),
            kernel_tuning,
            ..ContextOptions::default()
        })
    })
}

/// The widths of the tile kernel's forms.
const TYPES: [DataType; 4] = [DataType::U8, DataType::U16, DataType::U32, DataType::U64];

/// Runs `a (op) b` into a packed output of `sizes` for every DirectML operator of the table
/// that takes `dt` (one-input ones read A alone), on both tunings; checks every byte, and that
/// the kernel is the one the layout calls for.
fn check(dt: DataType, sizes: &[u32], a: &[u32], b: Option<&[u32]>) {
    let out = TensorDesc::new(dt, sizes);
    let a = out.clone().with_strides(a);
    let b = b.map_or(out.clone(), |s| out.clone().with_strides(s));
    for op in DIRECTML.into_iter().filter(|op| op.takes(dt)) {
        let case = DmlCase::distinct(op, a.clone(), b.clone(), out.clone(), sizes.len() as u64);
        // A NOT reads its one input in B's place too.
        let inputs = if op.inputs() == 1 {
            [&case.a, &case.a]
        } else {
            [&case.a, &case.b]
        };
        for tuning in [KernelTuning::Gpu, KernelTuning::Cpu] {
            let kernel = tile_kernel(&case.out, inputs, tuning);
            let summary = case.check_on(tuned(tuning));
            assert_kernel(&summary, kernel);
        }
    }
}

#[test]
fn transposed_matrices_of_every_width_run_the_tile_kernel_exactly() {
    for dt in TYPES {
        // Rows not a multiple of any tile or block, columns whole words.
        check(dt, &[70, 52], &[1, 70], None);
        check(dt, &[43, 36], &[1, 43], None);
        // Both inputs transposed, the second one padded.
        check(dt, &[37, 44], &[1, 37], Some(&[1, 40]));
        // A matrix smaller than one tile.
        check(dt, &[5, 8], &[1, 5], None);
    }
}

#[test]
fn transposes_of_whole_blocks_run_the_block_tile_exactly() {
    // Every width, its 16-byte blocks whole (E = 16 / width elements each): rows and columns
    // multiples of 16, each transposed input dense along the rows with its columns a multiple
    // of 16 elements apart.
    // Sizes, A's strides, B's (packed where none).
    type Case<'a> = (&'a [u32], &'a [u32], Option<&'a [u32]>);
    let cases: [Case; 7] = [
        // Smaller than one tile of 8-bit elements (a quarter of it filled, the least the
        // block tile takes); and over several (64 rows by 256 8-bit or 32 64-bit columns),
        // cut at both edges.
        (&[48, 96], &[1, 48], None),
        (&[144, 272], &[1, 144], None),
        // Both inputs transposed (the tile staged twice), the second padded.
        (&[80, 144], &[1, 80], Some(&[1, 96])),
        // B repeating one element per row, and B sliding by one element a row: read element
        // by element, not by blocks.
        (&[64, 80], &[1, 64], Some(&[1, 0])),
        (&[64, 80], &[1, 64], Some(&[1, 1])),
        // A batch of three 48 x 96 transposes, B's matrices padded 16 elements apart.
        (
            &[3, 48, 96],
            &[48 * 96, 1, 48],
            Some(&[48 * 96 + 16, 96, 1]),
        ),
        // The (0, 2, 1) permutation of a [2, 64, 128] tensor.
        (&[2, 128, 64], &[128 * 64, 1, 128], None),
    ];
    let types = [
        DataType::U8,
        DataType::I16,
        DataType::U32,
        DataType::F32,
        DataType::U64,
    ];
    for (sizes, a, b) in cases {
        for dt in types {
            // The expectation itself must reach the block tile, or this test proves nothing.
            let out = TensorDesc::new(dt, sizes);
            let b_desc = b.map_or(out.clone(), |s| out.clone().with_strides(s));
            let a_desc = out.clone().with_strides(a);
            // Both tunings, but two transposed inputs of 64-bit elements tuned for CPUs
            // (written in the inputs' order there). B is read across its rows where its
            // columns lie more than one element apart.
            let b_across = b.is_some_and(|s| s[s.len() - 1] > 1);
            for tuning in [KernelTuning::Gpu, KernelTuning::Cpu] {
                let kernel = tile_kernel(&out, [&a_desc, &b_desc], tuning);
                let wide_on_cpu = tuning == KernelTuning::Cpu && dt == DataType::U64 && b_across;
                assert_eq!(
                    kernel == KernelKind::BlockTile,
                    !wide_on_cpu,
                    "{dt} {sizes:?} {tuning:?}: {kernel:?}"
                );
            }
            check(dt, sizes, a, b);
        }
    }
    // Rows or columns that are not multiples of a block's elements keep the tile kernel.
    for (dt, sizes, a) in [
        (DataType::U64, [65, 64], [1, 65]),
        (DataType::U32, [66, 64], [1, 66]),
        (DataType::U32, [64, 66], [1, 64]),
        (DataType::U16, [64, 20], [1, 64]),
        (DataType::U8, [24, 64], [1, 24]),
    ] {
        let out = TensorDesc::new(dt, &sizes);
        let a = out.clone().with_strides(&a);
        assert_eq!(
            tile_kernel(&out, [&a, &out], KernelTuning::Gpu),
            transposed_kernel(dt, sizes[0], sizes[1])
        );
    }
}

#[test]
fn batches_of_transposes_run_on_the_tile_kernels() {
    for dt in TYPES {
        // (0, 2, 1) of a [3, 36, 45] cube: three 45 x 36 transposes.
        check(dt, &[3, 45, 36], &[45 * 36, 1, 45], None);
        // The same with B transposed too, its matrices padded apart.
        check(
            dt,
            &[3, 45, 36],
            &[45 * 36, 1, 45],
            Some(&[45 * 36 + 7, 1, 45]),
        );
        // (0, 3, 1, 2): NHWC [2, 5, 8, 6] read as NCHW [2, 6, 5, 8]; H and W merge into
        // rows of 40, a batch of two 6 x 40 matrices read across their rows.
        check(dt, &[2, 6, 5, 8], &[240, 1, 48, 6], None);
        // (2, 1, 0) of a [6, 5, 7] cube: the batch (5) between the rows and the columns.
        check(dt, &[7, 5, 6], &[1, 7, 35], None);
        // (0, 3, 2, 1) of [2, 4, 3, 8]: two batch dimensions that do not merge.
        check(dt, &[2, 8, 3, 4], &[96, 1, 8, 24], None);
    }
    let summary = DmlCase::distinct(
        Operator::BitXor,
        TensorDesc::new(DataType::U32, &[3, 45, 36]).with_strides(&[45 * 36, 1, 45]),
        TensorDesc::new(DataType::U32, &[3, 45, 36]),
        TensorDesc::new(DataType::U32, &[3, 45, 36]),
        9,
    )
    .check_on(tuned(KernelTuning::Gpu));
    assert_kernel(&summary, KernelKind::Tile);
}

/// The packed strides of `shape`.
fn packed(shape: &[u32]) -> Vec<u32> {
    let mut strides = vec![1; shape.len()];
    for d in (0..shape.len() - 1).rev() {
        strides[d] = strides[d + 1] * shape[d + 1];
    }
    strides
}

/// Every permutation of `0 .. n`.
fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    permutations(n - 1)
        .into_iter()
        .flat_map(|p| {
            (0..n).map(move |at| {
                let mut q = p.clone();
                q.insert(at, n - 1);
                q
            })
        })
        .collect()
}

#[test]
fn every_permutation_of_3d_and_4d_inputs_is_exact_on_its_kernel() {
    // A packed tensor of `shape` read with its axes permuted (output axis k reads the
    // input's axis p[k]), XOR a packed B, under both tunings: each on the kernel its layout
    // calls for, the tile kernels in their matrix order whichever axes are the batch. One
    // shape of each rank whose sides are multiples of 16 (16-byte blocks whole at every
    // width) and one whose sides are not.
    let shapes: [&[u32]; 4] = [&[16, 2, 32], &[5, 7, 9], &[2, 16, 3, 32], &[3, 5, 2, 6]];
    for shape in shapes {
        for p in permutations(shape.len()) {
            for dt in TYPES {
                check_permutation(dt, shape, &p);
            }
        }
    }
}

/// A packed tensor of `shape` read with its axes permuted by `p` (output axis k reads the
/// input's axis p[k]) as A, XOR a packed B into a packed output.
fn permuted(dt: DataType, shape: &[u32], p: &[usize]) -> DmlCase {
    let input = packed(shape);
    let sizes: Vec<u32> = p.iter().map(|&k| shape[k]).collect();
    let a: Vec<u32> = p.iter().map(|&k| input[k]).collect();
    let out = TensorDesc::new(dt, &sizes);
    DmlCase::distinct(
        Operator::BitXor,
        out.clone().with_strides(&a),
        out.clone(),
        out,
        sizes.len() as u64,
    )
}

/// [`permuted`] under both tunings: every byte, and where the inner axis moved (a
/// transpose) the kernel the layout calls for. Returns the kernels that ran.
fn check_permutation(dt: DataType, shape: &[u32], p: &[usize]) -> Vec<KernelKind> {
    let case = permuted(dt, shape, p);
    let mut ran = Vec::new();
    for tuning in [KernelTuning::Gpu, KernelTuning::Cpu] {
        let summary = case.check_on(tuned(tuning));
        if p.last() != Some(&(shape.len() - 1)) {
            assert_kernel(&summary, tile_kernel(&case.out, [&case.a, &case.b], tuning));
        }
        ran.extend(summary.dispatches);
    }
    ran
}

#[test]
fn permutations_of_five_to_eight_dimensions_tile_their_batch_of_any_rank() {
    // Batches of three to six dimensions that do not merge: a sample of the 5-D permutations
    // that move the innermost axis (every seventh, of a shape whose 16s can make whole
    // 16-byte blocks and of one whose sides cannot), depth-to-space and space-to-depth (6-D,
    // as ONNX DepthToSpace and SpaceToDepth permute), and full reversals at 7-D and 8-D.
    let mut cases: Vec<(&[u32], Vec<usize>)> = Vec::new();
    for shape in [&[16, 2, 3, 2, 16][..], &[3, 2, 5, 2, 3]] {
        let moved = permutations(5).into_iter().filter(|p| p[4] != 4);
        cases.extend(moved.step_by(7).map(|p| (shape, p)));
    }
    // [N, r, r, C, H, W] to [N, C, H, r, W, r], and [N, C, H, r, W, r] to [N, C, r, r, H, W].
    cases.push((&[2, 2, 2, 3, 4, 8], vec![0, 3, 4, 1, 5, 2]));
    cases.push((&[2, 3, 4, 2, 8, 2], vec![0, 1, 3, 5, 2, 4]));
    cases.push((&[2, 3, 2, 2, 3, 2, 16], (0..7).rev().collect()));
    cases.push((&[2, 2, 3, 2, 2, 2, 2, 16], (0..8).rev().collect()));
    let mut reached = Vec::new();
    for (shape, p) in &cases {
        for dt in TYPES {
            reached.extend(check_permutation(dt, shape, p));
        }
    }
    // The test reaches both tile kernels, not only the gather kernel.
    for kernel in [KernelKind::Tile, KernelKind::BlockTile] {
        assert!(reached.contains(&kernel), "no case ran {kernel:?}");
    }
    // And on a device of 16 workgroups a side, tuned for GPUs: 3 x 2 x 2 x 2 matrices of
    // 32 x 64 bytes or 32 x 16 words (48 KiB, one window), a tile row each, in records of
    // 16 tile rows.
    let reversed: Vec<usize> = (0..6).rev().collect();
    for (dt, cols) in [(DataType::U8, 64), (DataType::U32, 16)] {
        let case = permuted(dt, &[cols, 2, 2, 2, 3, 32], &reversed);
        let kernel = tile_kernel(&case.out, [&case.a, &case.b], KernelTuning::Gpu);
        assert!(
            matches!(kernel, KernelKind::Tile | KernelKind::BlockTile),
            "{dt}: {kernel:?}"
        );
        assert_kernel(&case.check_on(grids_of_16()), kernel);
    }
}

#[test]
fn any_number_of_matrices_runs_on_one_tile_grid() {
    // 1,025 transposes of 16 x 64 and 1,100 of 32 x 32, and both on a device whose grids
    // are 16 workgroups a side, tuned for GPUs, whose windows (64 KiB: `grids_of_16`) cut
    // them into batches of 16 to 64 matrices counted on one grid, whose tile rows run in
    // records of 16; and on one of 3 a side, whose windows of 2,304 bytes hold two matrices
    // of 8-bit elements (less than one of 32-bit ones, whose pieces are gathered).
    for (sizes, a) in [
        ([1025, 16, 64], [1024, 1, 16]),
        ([1100, 32, 32], [1024, 1, 32]),
    ] {
        for dt in [DataType::U8, DataType::U32] {
            check(dt, &sizes, &a, None);
            let case = DmlCase::distinct(
                Operator::BitXor,
                TensorDesc::new(dt, &sizes).with_strides(&a),
                TensorDesc::new(dt, &sizes),
                TensorDesc::new(dt, &sizes),
                3,
            );
            let kernel = tile_kernel(&case.out, [&case.a, &case.b], KernelTuning::Gpu);
            assert!(
                matches!(kernel, KernelKind::Tile | KernelKind::BlockTile),
                "{dt} {sizes:?}: {kernel:?}"
            );
            assert_kernel(&case.check_on(tuned(KernelTuning::Gpu)), kernel);
            assert_kernel(&case.check_on(grids_of_16()), kernel);
            let summary = case.check_on(few_groups());
            if dt == DataType::U8 {
                assert!(
                    summary
                        .dispatches
                        .iter()
                        .all(|k| matches!(k, KernelKind::Tile | KernelKind::BlockTile)),
                    "{summary:?}"
                );
            }
        }
    }
}

#[test]
fn narrow_transposes_off_word_boundaries_read_lane_by_lane() {
    for dt in [DataType::U8, DataType::U16] {
        // Columns an odd number of elements apart: no column starts a word.
        check(dt, &[40, 32], &[1, 41], None);
        // Rows read with a step of two: no word holds a column's neighbouring rows.
        check(dt, &[30, 24], &[2, 61], None);
        // A batch whose matrices start off word boundaries.
        check(dt, &[3, 20, 16], &[323, 1, 20], None);
    }
}

#[test]
fn batches_of_transposes_larger_than_a_window_are_exact() {
    // 4 KiB windows cut these into pieces of whole and part matrices, each on the kernel its
    // own layout calls for, under both tunings.
    let contexts = small_windows_tuned();
    for (ctx, dt) in contexts.iter().flat_map(|c| TYPES.map(|dt| (c, dt))) {
        // A batch outside its matrices, and one between their rows and columns (the (2, 1, 0)
        // permutation of a [40, 4, 40] tensor).
        for (sizes, a) in [([4, 40, 40], [1600, 1, 40]), ([40, 4, 40], [1, 40, 160])] {
            let case = DmlCase::distinct(
                Operator::BitXor,
                TensorDesc::new(dt, &sizes).with_strides(&a),
                TensorDesc::new(dt, &sizes),
                TensorDesc::new(dt, &sizes),
                5,
            );
            assert!(case.a.total_size().unwrap() > ctx.max_window_bytes());
            let summary = case.check_on(ctx);
            assert!(summary.dispatches.len() >= 2, "{summary:?}");
        }
    }
}

#[test]
fn transposes_and_permutations_past_a_window_are_cut_into_few_blocks() {
    // Transposed and reversed inputs, and a transposed output, two to four times a window of
    // 4 KiB: where the output and an input are widest along different dimensions, no range
    // of one dimension fits, and the call is cut into blocks of a few parts each way (fixing
    // the outer indices one by one cut it into a piece or two per row, 48 to 460 of them
    // here). Every byte is checked under both tunings.
    let contexts = small_windows_tuned();
    let square = |dt: DataType| match dt {
        DataType::U8 => 96,
        DataType::U16 => 68,
        DataType::U32 => 48,
        _ => 34,
    };
    // About 8 to 15 KiB an operand.
    let cube = |dt: DataType| -> [u32; 5] {
        match dt {
            DataType::U8 => [5, 6, 7, 8, 9],
            DataType::U16 => [4, 5, 6, 7, 8],
            DataType::U32 => [3, 4, 5, 6, 7],
            _ => [3, 3, 4, 5, 6],
        }
    };
    let four = |dt: DataType| -> [u32; 4] {
        match dt {
            DataType::U8 => [8, 9, 10, 14],
            DataType::U16 => [6, 7, 8, 14],
            DataType::U32 => [5, 6, 7, 8],
            _ => [4, 5, 6, 7],
        }
    };
    for (ctx, dt) in contexts.iter().flat_map(|c| TYPES.map(|dt| (c, dt))) {
        let n = square(dt);
        let transposed_output = DmlCase::distinct(
            Operator::BitXor,
            TensorDesc::new(dt, &[n, n]),
            TensorDesc::new(dt, &[n, n]),
            TensorDesc::new(dt, &[n, n]).with_strides(&[1, n]),
            2,
        );
        for case in [
            permuted(dt, &[n, n], &[1, 0]),
            transposed_output,
            permuted(dt, &cube(dt), &[4, 3, 2, 1, 0]),
            permuted(dt, &four(dt), &[3, 1, 2, 0]),
        ] {
            let bytes = case.out.total_size().unwrap();
            let windows = bytes.div_ceil(ctx.max_window_bytes());
            assert!(windows >= 2, "{}", case.describe());
            let summary = case.check_on(ctx);
            // At most one part per window each way, and one more where the parts are uneven.
            let most = (windows as usize + 1).pow(2);
            assert!(
                summary.dispatches.len() <= most,
                "{} dispatches for at most {most}: {}",
                summary.dispatches.len(),
                case.describe()
            );
        }
    }
}

#[test]
fn transposes_into_padded_and_sliced_outputs_run_on_a_tile_kernel() {
    // A transposed A written into rows of a wider tensor (a slice of a concatenation), and
    // into every other matrix of a batch: the output's columns dense, its rows and matrices
    // strided. Tuned for GPUs a tile kernel takes them; every byte is checked under both
    // tunings.
    for dt in TYPES {
        for (sizes, out, a) in [
            (vec![64u32, 64], vec![80u32, 1], vec![1u32, 64]),
            (
                vec![3, 48, 64],
                vec![2 * 48 * 64, 64, 1],
                vec![48 * 64, 1, 48],
            ),
        ] {
            let case = DmlCase::distinct(
                Operator::BitXor,
                TensorDesc::new(dt, &sizes).with_strides(&a),
                TensorDesc::new(dt, &sizes),
                TensorDesc::new(dt, &sizes).with_strides(&out),
                9,
            );
            let gpu = case.check_on(tuned(KernelTuning::Gpu));
            assert!(
                gpu.dispatches
                    .iter()
                    .all(|k| matches!(k, KernelKind::Tile | KernelKind::BlockTile)),
                "{dt} {sizes:?}: {:?}",
                gpu.dispatches
            );
            case.check_on(tuned(KernelTuning::Cpu));
        }
    }
    // Rows of 8- and 16-bit elements that end inside a word, their starts a word apart: the
    // bytes after each row are not the output's and keep their value.
    for dt in [DataType::U8, DataType::U16] {
        for (cols, row) in [(62u32, 80u32), (63, 64), (33, 36)] {
            let sizes = [40, cols];
            let case = DmlCase::distinct(
                Operator::BitXor,
                TensorDesc::new(dt, &sizes).with_strides(&[1, 40]),
                TensorDesc::new(dt, &sizes),
                TensorDesc::new(dt, &sizes).with_strides(&[row, 1]),
                10,
            );
            for tuning in [KernelTuning::Gpu, KernelTuning::Cpu] {
                case.check_on(tuned(tuning));
            }
        }
    }
}
