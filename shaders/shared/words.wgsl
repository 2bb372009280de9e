// The output as u32 words, and the loader of the kernels that move words (gather.wgsl,
// tile.wgsl). Placed after shared/inputs_words_*.wgsl.

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
