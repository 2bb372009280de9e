// Bindings 1 to 3 as u32 words, inputs `read_write`, and their loader; placed between common.wgsl
// and a kernel that moves words (gather.wgsl, tile.wgsl).
//
// The read_write form binds inputs that lie in the output's buffer but cannot share the
// output's binding (too far from it, or read in place): wgpu allows one buffer in several
// bindings of a dispatch only when every one of them is writable.

@group(0) @binding(1) var<storage, read_write> out_buf: array<u32>;
@group(0) @binding(2) var<storage, read_write> in0: array<u32>;
@group(0) @binding(3) var<storage, read_write> in1: array<u32>;

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
