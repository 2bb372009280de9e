// Contiguous kernel. Entry point: `main`.
//
// Every operand is a dense run of `head.w` elements that starts on a 16-byte boundary of its
// window (`base` holds element offsets; base * WIDTH is a multiple of 16). Invocation v
// combines the v-th 16 bytes of A and B into the v-th 16 bytes of the output: `head.x` is the
// number of 16-byte blocks. Windows end on a 16-byte boundary, so the last block can be read
// whole; it is written word by word, and its last word through a mask, so that the bytes after
// the tensor keep their value.
//
// Bindings: 0 records (common.wgsl); 1 out_buf, 2 in0, 3 in1 as 16-byte blocks
// (shared/bindings_blocks_*.wgsl).

@compute @workgroup_size(256)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(workgroup_id) wg: vec3<u32>,
) {
    call = wg.z;
    let v = unit_index(gid);
    if v >= head().x {
        return;
    }
    let o = base().x * WIDTH / 16u + v;
    let a = base().y * WIDTH / 16u + v;
    let b = base().z * WIDTH / 16u + v;
    let r = combine4(load(A_SRC, a), load(B_SRC, b));

    let bytes = head().w * WIDTH;
    let first_byte = v * 16u;
    if first_byte + 16u <= bytes {
        out_buf[o] = r;
        return;
    }
    // The last block: whole words, then the partial word through a mask.
    for (var k = 0u; k < 4u; k++) {
        let start = first_byte + k * 4u;
        if start >= bytes {
            break;
        }
        let inside = bytes - start;
        if inside >= 4u {
            out_buf[o][k] = r[k];
        } else {
            let mask = (1u << (inside * 8u)) - 1u;
            out_buf[o][k] = (out_buf[o][k] & ~mask) | (r[k] & mask);
        }
    }
}
