// Bindings 1 to 3 with an atomic output, inputs `read_write`, and their loader; placed between
// common.wgsl and scatter.wgsl. Other invocations change neighbouring lanes of an output word
// at the same time, so an input read through the output's binding is read with atomicLoad.
//
// The read_write form binds inputs that lie in the output's buffer but cannot share the
// output's binding (too far from it, or read in place): wgpu allows one buffer in several
// bindings of a dispatch only when every one of them is writable.

@group(0) @binding(1) var<storage, read_write> out_buf: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> in0: array<u32>;
@group(0) @binding(3) var<storage, read_write> in1: array<u32>;

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
