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
// (shared/inputs_blocks_*.wgsl, shared/blocks.wgsl).

@compute @workgroup_size(256)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(workgroup_id) wg: vec3<u32>,
) {
    let call = wg.z;
    let v = unit_index(call, gid);
    if v >= head(call).x {
        return;
    }
    let o = base(call).x * WIDTH / 16u + v;
    let a = base(call).y * WIDTH / 16u + v;
    let b = base(call).z * WIDTH / 16u + v;
    let r = combine4(load(A_SRC, a), load(B_SRC, b));

    store_block(o, r, v * 16u, head(call).w * WIDTH);
}
