// Rows kernel. Entry point: `main`.
//
// The iteration space is rows (every dimension but the last) of `L` elements (the last
// dimension). The output and every input whose innermost stride is 1 hold each row as a dense
// run that starts on a 16-byte boundary; an input whose innermost stride is 0 holds one
// element per row, repeated across it (broadcasting such as [4096, 4096] ^ [4096], or
// [n, 1] ^ [n, m]); A_MODE and B_MODE say which (common.wgsl). The grid is flat over every
// (row, block) pair, like the contiguous kernel's, so a short row leaves no invocation of a
// workgroup idle: invocation v combines block v % head.w of row v / head.w (a multiply-high
// by the record's divisor, `div_row_units`), with `vec4<u32>` loads and stores like the
// contiguous kernel. Where rows end in a partial block (TAIL), the last block of a row is
// written word by word, its last word through a mask, so bytes between rows keep their
// value; where they do not, that code is not compiled in and every store is whole. A
// dispatch of one record at its bindings' start runs the DIRECT form: record 0, no offsets.
// `head.x` is the number of (row, block) pairs, `head.z` the invocations per row of the
// dispatch grid, `head.w` the number of 16-byte blocks per row.
//
// Bindings: 0 records (common.wgsl); 1 out_buf, 2 in0, 3 in1 as 16-byte blocks
// (shared/inputs_blocks_*.wgsl, shared/blocks.wgsl).

// Input block x of the row that starts at element `row_start` (mode 0), or the row's one
// element repeated (mode 1).
fn load_input(src: u32, mode: u32, row_start: u32, x: u32) -> vec4<u32> {
    if mode == 1u {
        return splat(src, row_start);
    }
    return load(src, row_start * WIDTH / 16u + x);
}

@compute @workgroup_size(256)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(workgroup_id) wg: vec3<u32>,
) {
    let call = select(wg.z, 0u, DIRECT);
    let v = unit_index(call, gid);
    if v >= head(call).x {
        return;
    }
    let blocks = head(call).w;
    let row = div_row_units(call, v);
    let x = v - row * blocks;
    let inner = rank(call) - 1u;
    // Row start of each operand, in elements (over every dimension but the last).
    let at = offsets_of(call, row, rank(call) - 1u);
    let va = load_input(A_SRC, A_MODE, at.a, x);
    let vb = load_input(B_SRC, B_MODE, at.b, x);
    let r = combine4(va, vb);

    let block = at.o * WIDTH / 16u + x;
    if TAIL {
        store_block(block, r, x * 16u, size_at(call, inner) * WIDTH);
    } else {
        out_buf[block] = r;
    }
}
