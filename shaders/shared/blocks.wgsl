// The output as 16-byte blocks, and the loaders and the store of the kernels that move whole
// blocks (contiguous.wgsl, rows.wgsl). Placed after shared/inputs_blocks_*.wgsl.

@group(0) @binding(1) var<storage, read_write> out_buf: array<vec4<u32>>;

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

// Word `w` of binding `src`, read alone (not its whole block).
fn load_word(src: u32, w: u32) -> u32 {
    let i = w >> 2u;
    let k = w & 3u;
    switch src {
        case 0u: {
            return out_buf[i][k];
        }
        case 1u: {
            return in0[i][k];
        }
        default: {
            return in1[i][k];
        }
    }
}

// Stores `r` as output block `block`, which holds bytes `first_byte` .. + 16 of a run of
// `bytes` bytes: whole when it lies inside the run, else word by word and the last partial
// word through a mask, so that the bytes after the run keep their value.
fn store_block(block: u32, r: vec4<u32>, first_byte: u32, bytes: u32) {
    if first_byte + 16u <= bytes {
        out_buf[block] = r;
        return;
    }
    for (var k = 0u; k < 4u; k++) {
        let start = first_byte + k * 4u;
        if start >= bytes {
            break;
        }
        let inside = bytes - start;
        if inside >= 4u {
            out_buf[block][k] = r[k];
        } else {
            let mask = (1u << (inside * 8u)) - 1u;
            out_buf[block][k] = (out_buf[block][k] & ~mask) | (r[k] & mask);
        }
    }
}
