// Baseline for the benchmarks of strided layouts: the plain strided XOR kernel, as a
// framework writes it. One output element per invocation, the offsets of all three operands
// unravelled from the element's index through a strides uniform; no windows, no tiles, no
// masks beyond the element count. Entry point: `main`.
//
// WIDTH (an override) is the element size in bytes:
//   4: one word per invocation;  8: one element (two words) per invocation;
//   1, 2: the natural word-wise form. With a dense output (PACKED_OUT) one output word per
//   invocation, its lanes gathered one by one; with a strided output one element per
//   invocation, its lane changed in place with one atomicXor (neighbouring elements share
//   words). The benchmark harness puts `array<atomic<u32>>` or `array<u32>` in place of
//   OUT_TYPE, and the matching store in place of store_lane.
//
// Bindings: 0 a, 1 b (read), 2 out (read_write), 3 the shape (uniform, `Shape`). Strides and
// offsets count elements.

override WIDTH: u32 = 4u;
override PACKED_OUT: bool = false;

struct Shape {
    // x: elements, y: rank, z: invocations per grid row, w: output words (PACKED_OUT).
    head: vec4<u32>,
    // Element offsets of a, b and out in their bindings.
    base: vec4<u32>,
    sizes: array<vec4<u32>, 2>,
    a: array<vec4<u32>, 2>,
    b: array<vec4<u32>, 2>,
    o: array<vec4<u32>, 2>,
}

@group(0) @binding(0) var<storage, read> a_buf: array<u32>;
@group(0) @binding(1) var<storage, read> b_buf: array<u32>;
@group(0) @binding(2) var<storage, read_write> out_buf: OUT_TYPE;
@group(0) @binding(3) var<uniform> shape: Shape;


// Element offsets (a, b, out) of element `i`.
fn offsets(i: u32) -> vec3<u32> {
    var rest = i;
    var off = shape.base.xyz;
    for (var d = shape.head.y; d > 0u; d--) {
        let k = d - 1u;
        let q = k >> 2u;
        let l = k & 3u;
        let n = shape.sizes[q][l];
        let r = rest % n;
        rest = rest / n;
        off += r * vec3<u32>(shape.a[q][l], shape.b[q][l], shape.o[q][l]);
    }
    return off;
}

fn lane_mask() -> u32 {
    return select(0xffffu, 0xffu, WIDTH == 1u);
}

fn lane_a(e: u32) -> u32 {
    let byte = e * WIDTH;
    return (a_buf[byte >> 2u] >> ((byte & 3u) * 8u)) & lane_mask();
}

fn lane_b(e: u32) -> u32 {
    let byte = e * WIDTH;
    return (b_buf[byte >> 2u] >> ((byte & 3u) * 8u)) & lane_mask();
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.y * shape.head.z + gid.x;
    if WIDTH == 4u {
        if i < shape.head.x {
            let c = offsets(i);
            store_word(c.z, a_buf[c.x] ^ b_buf[c.y]);
        }
        return;
    }
    if WIDTH == 8u {
        if i < shape.head.x {
            let c = offsets(i);
            store_word(2u * c.z, a_buf[2u * c.x] ^ b_buf[2u * c.y]);
            store_word(2u * c.z + 1u, a_buf[2u * c.x + 1u] ^ b_buf[2u * c.y + 1u]);
        }
        return;
    }
    if PACKED_OUT {
        // Output word `i` of a dense output starting on a word.
        if i >= shape.head.w {
            return;
        }
        let per = max(4u / WIDTH, 1u); // 1 where the path is not taken
        var value = 0u;
        var mask = 0u;
        for (var l = 0u; l < per; l++) {
            let e = i * per + l;
            if e < shape.head.x {
                let c = offsets(e);
                value |= (lane_a(c.x) ^ lane_b(c.y)) << (l * WIDTH * 8u);
                mask |= lane_mask() << (l * WIDTH * 8u);
            }
        }
        let w = shape.base.z / per + i;
        if mask == 0xffffffffu {
            store_word(w, value);
        } else {
            store_word(w, (load_out(w) & ~mask) | value);
        }
        return;
    }
    if i < shape.head.x {
        let c = offsets(i);
        let byte = c.z * WIDTH;
        store_lane(byte >> 2u, (byte & 3u) * 8u, lane_a(c.x) ^ lane_b(c.y));
    }
}
