// The output as atomic u32 words, and the loader and stores of scatter.wgsl where output
// elements share words. Other invocations change neighbouring lanes of an output word at the
// same time, so an input read through the output's binding is read with atomicLoad, and a lane
// is changed with one atomicXor of (old lane ^ new lane), which leaves every other lane as it
// is (only this invocation ever changes this lane, so the old value it reads stays valid).
// Placed after shared/inputs_words_*.wgsl.

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

// Stores word `w`, which this invocation owns.
fn store_word(w: u32, value: u32) {
    atomicStore(&out_buf[w], value);
}

// Sets the lane `shift` bits into word `w` to `value` (right-aligned), leaving the other lanes
// of the word, which other invocations may be changing, as they are.
fn store_lane(w: u32, shift: u32, value: u32) {
    let old = (atomicLoad(&out_buf[w]) >> shift) & lane_mask();
    let change = old ^ value;
    if change != 0u {
        atomicXor(&out_buf[w], change << shift);
    }
}
