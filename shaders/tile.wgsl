// Tile kernel. Entry point: `main`. For 32- and 64-bit elements (WIDTH 4 or 8).
//
// Two dimensions [rows, cols]; the output is dense, and at least one input is read across
// its rows (a transposed view: its stride along `rows` is the small one). Each 16 x 16
// workgroup owns a 16 x 16 tile of the output. First every invocation reads one element of
// each tiled input with the workgroup's `x` running along `rows`, so that neighbouring
// invocations read neighbouring addresses, and parks it in workgroup memory; after the
// barrier each invocation combines one output element, taking tiled inputs from workgroup
// memory (transposed back) and the others straight from their buffers, and stores it. Each
// element is owned by one invocation; no word is shared, since elements are 4 or 8 bytes.
// `base.w` says which inputs are tiled: bit 0 A, bit 1 B. `head.z` is the number of tile
// rows per z slice of the grid.
//
// Bindings: 0 params (common.wgsl), 1 out_buf (read_write), 2 in0 and 3 in1 (read, or
// read_write where they share the output's buffer: shared/inputs_*.wgsl), all as array<u32>.

@group(0) @binding(1) var<storage, read_write> out_buf: array<u32>;

const TILE: u32 = 16u;

// One padding column keeps the transposed reads off a single memory bank.
var<workgroup> tile_a: array<array<vec2<u32>, 17>, 16>;
var<workgroup> tile_b: array<array<vec2<u32>, 17>, 16>;

fn load_word(src: u32, i: u32) -> u32 {
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

// Element `e` of the window as (low word, high word); the high word is 0 for WIDTH 4.
fn load_element(src: u32, e: u32) -> vec2<u32> {
    if WIDTH == 8u {
        return vec2<u32>(load_word(src, 2u * e), load_word(src, 2u * e + 1u));
    }
    return vec2<u32>(load_word(src, e), 0u);
}

@compute @workgroup_size(16, 16)
fn main(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(local_invocation_id) l: vec3<u32>,
) {
    let rows = size_at(0u);
    let cols = size_at(1u);
    let r0 = (wg.z * params.head.z + wg.y) * TILE;
    let c0 = wg.x * TILE;
    let tiled_a = (params.base.w & 1u) != 0u;
    let tiled_b = (params.base.w & 2u) != 0u;

    // Phase 1: l.x runs along rows.
    let pr = r0 + l.x;
    let pc = c0 + l.y;
    if pr < rows && pc < cols {
        if tiled_a {
            tile_a[l.y][l.x] = load_element(A_SRC, params.base.y + pr * a_stride_at(0u) + pc * a_stride_at(1u));
        }
        if tiled_b {
            tile_b[l.y][l.x] = load_element(B_SRC, params.base.z + pr * b_stride_at(0u) + pc * b_stride_at(1u));
        }
    }
    workgroupBarrier();

    // Phase 2: l.x runs along cols, like the output.
    let r = r0 + l.y;
    let c = c0 + l.x;
    if r >= rows || c >= cols {
        return;
    }
    var va: vec2<u32>;
    if tiled_a {
        va = tile_a[l.x][l.y];
    } else {
        va = load_element(A_SRC, params.base.y + r * a_stride_at(0u) + c * a_stride_at(1u));
    }
    var vb: vec2<u32>;
    if tiled_b {
        vb = tile_b[l.x][l.y];
    } else {
        vb = load_element(B_SRC, params.base.z + r * b_stride_at(0u) + c * b_stride_at(1u));
    }
    let o = params.base.x + r * out_stride_at(0u) + c * out_stride_at(1u);
    if WIDTH == 8u {
        let v = combine_pair(va, vb);
        out_buf[2u * o] = v.x;
        out_buf[2u * o + 1u] = v.y;
    } else {
        out_buf[o] = combine_lane(va.x, vb.x);
    }
}
