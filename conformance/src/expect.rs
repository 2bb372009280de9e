//! The kernel a test expects for a layout, decided from the tensors themselves rather than
//! from the library's choice, which the native and the browser test suites both assert.

use gpu_xor::{DataType, KernelKind, TensorDesc};

/// The kernel of a two-dimensional call with a transposed input (a transposed output is
/// reordered into one) whose dense output has rows of `cols` elements: the tile kernel for
/// 32- and 64-bit elements, and for 8- and 16-bit ones where each row holds whole words;
/// otherwise the gather kernel.
pub fn transposed_kernel(data_type: DataType, cols: u32) -> KernelKind {
    let width = data_type.size_in_bytes();
    if width >= 4 || (cols * width).is_multiple_of(4) {
        KernelKind::Tile
    } else {
        KernelKind::Gather
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

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(transposed_kernel(DataType::U8, 4), KernelKind::Tile);
        assert_eq!(transposed_kernel(DataType::U16, 5), KernelKind::Gather);
        assert_eq!(transposed_kernel(DataType::F32, 5), KernelKind::Tile);
    }
}
