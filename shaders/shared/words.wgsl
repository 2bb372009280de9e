// The output as u32 words, the loader of the kernels that move words (gather.wgsl, tile.wgsl,
// shifted.wgsl), and the stores of scatter.wgsl where no two output elements share a word.
// Placed after shared/inputs_words_*.wgsl.

@group(0) @binding(1) var<storage, read_write> out_buf: array<u32>;

// Word `w` of binding `src` (0 the output's, 1 in0, 2 in1).
fn load_word(src: u32, w: u32) -> u32 {
    switch src {
        case 0u: {
            return out_buf[w];
        }
        case 1u: {
            return in0[w];
        }
        default: {
            return in1[w];
        }
    }
}

// Stores word `w`, which this invocation owns.
fn store_word(w: u32, value: u32) {
    out_buf[w] = value;
}

// Sets the lane `shift` bits into word `w` to `value` (right-aligned), through a mask: the
// word's other bytes are no element's, so no other invocation writes them.
fn store_lane(w: u32, shift: u32, value: u32) {
    let mask = lane_mask() << shift;
    out_buf[w] = (out_buf[w] & ~mask) | (value << shift);
}
