// Bindings 1 to 3 as 16-byte blocks, inputs `read`, and their loaders; placed between
// common.wgsl and a kernel that moves whole blocks (contiguous.wgsl, rows.wgsl).

@group(0) @binding(1) var<storage, read_write> out_buf: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> in0: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read> in1: array<vec4<u32>>;

// Block `i` of binding `src` (0 the output's, 1 in0, 2 in1).
fn load(src: u32, i: u32) -> vec4<u32> {
    switch src {
        case 0u: {
            return out_buf[i];
        }
        case 1u: {
            return in0[i];
        }
        default: {
            return in1[i];
        }
    }
}

// Word `w` of binding `src`.
fn load_word(src: u32, w: u32) -> u32 {
    return load(src, w >> 2u)[w & 3u];
}
