// The output as atomic u32 words, and the loader of scatter.wgsl. Other invocations change
// neighbouring lanes of an output word at the same time, so an input read through the output's
// binding is read with atomicLoad. Placed after shared/inputs_words_*.wgsl.

@group(0) @binding(1) var<storage, read_write> out_buf: array<atomic<u32>>;

// Word `w` of binding `src` (0 the output's, 1 in0, 2 in1).
fn load_word(src: u32, w: u32) -> u32 {
    switch src {
        case 0u: {
            return atomicLoad(&out_buf[w]);
        }
        case 1u: {
            return in0[w];
        }
        default: {
            return in1[w];
        }
    }
}
