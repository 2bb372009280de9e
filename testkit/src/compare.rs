//! Buffers read back compared byte for byte with what they must hold: the output's elements
//! first, in logical order, then every other byte, which must be left as it was.

use crate::element::read_le;
use crate::layout::OutputLayout;

/// Compares every buffer read back (`got`) with what it must hold (`want`): each output
/// element first, in logical order, then every other byte. The error names the buffer (from
/// `names`, or its index), the byte, the element and its index where the byte belongs to
/// one, both values, and how many differ.
pub fn compare_buffers(
    names: &[String],
    got: &[Vec<u8>],
    want: &[Vec<u8>],
    output: Option<&OutputLayout>,
) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!(
            "read {} buffers back, expected {}",
            got.len(),
            want.len()
        ));
    }
    for (k, (got, want)) in got.iter().zip(want).enumerate() {
        let name = names.get(k).cloned().unwrap_or_else(|| k.to_string());
        let output = output.filter(|o| o.buffer == k);
        compare_buffer(&name, got, want, output)?;
    }
    Ok(())
}

/// [`compare_buffers`] for one buffer; `output` is the output tensor when this buffer holds
/// it.
pub fn compare_buffer(
    name: &str,
    got: &[u8],
    want: &[u8],
    output: Option<&OutputLayout>,
) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!(
            "buffer {name}: read {} bytes back, expected {}",
            got.len(),
            want.len()
        ));
    }
    if got == want {
        return Ok(());
    }
    let mut is_output = vec![false; got.len()];
    if let Some(out) = output {
        let width = out.width as usize;
        let offsets = out.byte_offsets();
        let element = |at: u64| read_le(got, at, out.width) != read_le(want, at, out.width);
        let bad: Vec<usize> = (0..offsets.len())
            .filter(|&i| element(offsets[i]))
            .collect();
        if let Some(&i) = bad.first() {
            let at = offsets[i];
            return Err(format!(
                "buffer {name}: output element {i} (index {:?}, byte {at}): got {:#x}, \
                 expected {:#x} ({} of {} elements differ)",
                out.index_of(i as u64),
                read_le(got, at, out.width),
                read_le(want, at, out.width),
                bad.len(),
                offsets.len()
            ));
        }
        for at in offsets {
            is_output[at as usize..at as usize + width].fill(true);
        }
    }
    let differs = |i: &usize| got[*i] != want[*i] && !is_output[*i];
    match (0..got.len()).find(differs) {
        None => Ok(()),
        Some(i) => Err(format!(
            "buffer {name}: byte {i}, outside the output, holds {:#04x}, expected {:#04x} \
             ({} such bytes)",
            got[i],
            want[i],
            (0..got.len()).filter(differs).count()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparison_names_element_and_byte() {
        let out = OutputLayout::packed(1, 2, 1, &[4]);
        let want = vec![vec![1, 2, 3], vec![9, 9, 10, 11, 12, 13, 9, 9]];
        assert_eq!(compare_buffers(&[], &want, &want, Some(&out)), Ok(()));

        let mut got = want.clone();
        got[1][5] = 0xfe;
        let e = compare_buffers(&["a".into(), "out".into()], &got, &want, Some(&out)).unwrap_err();
        assert!(
            e.contains("buffer out: output element 3 (index [3], byte 5)"),
            "{e}"
        );
        assert!(e.contains("got 0xfe, expected 0xd"), "{e}");
        assert!(e.contains("(1 of 4 elements differ)"), "{e}");

        let mut got = want.clone();
        got[1][7] = 0;
        got[0][0] = 0;
        let e = compare_buffers(&[], &got, &want, Some(&out)).unwrap_err();
        assert!(e.contains("buffer 0: byte 0, outside the output"), "{e}");
        let e = compare_buffer("out", &got[1], &want[1], Some(&out)).unwrap_err();
        assert!(
            e.contains("byte 7, outside the output, holds 0x00, expected 0x09 (1 such bytes)"),
            "{e}"
        );
    }

    #[test]
    fn a_wide_element_is_reported_whole_at_its_first_byte() {
        // Two u32 elements at bytes 4 and 12 (stride 2): bytes 8 to 11 are padding.
        let out = OutputLayout {
            buffer: 0,
            offset: 4,
            width: 4,
            sizes: vec![2],
            strides: vec![2],
        };
        let want = vec![0u8; 16];
        let mut got = want.clone();
        got[14] = 0x80;
        let e = compare_buffer("out", &got, &want, Some(&out)).unwrap_err();
        assert!(
            e.contains("output element 1 (index [1], byte 12): got 0x800000, expected 0x0"),
            "{e}"
        );
        // The padding between the elements is not part of the output.
        let mut got = want.clone();
        got[9] = 1;
        let e = compare_buffer("out", &got, &want, Some(&out)).unwrap_err();
        assert!(e.contains("byte 9, outside the output"), "{e}");
    }

    #[test]
    fn counts_and_lengths_must_agree() {
        let e = compare_buffers(&[], &[vec![0]], &[], None).unwrap_err();
        assert_eq!(e, "read 1 buffers back, expected 0");
        let e = compare_buffer("a", &[0, 0], &[0], None).unwrap_err();
        assert_eq!(e, "buffer a: read 2 bytes back, expected 1");
    }
}
