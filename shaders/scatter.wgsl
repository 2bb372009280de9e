// Scatter kernel. Entry point: `main`.
//
// The output itself is strided (padded rows, or an order no permutation makes dense): each
// invocation owns one output element, found by unravelling its index over the iteration
// space for all three operands. 32- and 64-bit elements own their words and are stored
// whole. 8- and 16-bit elements share a word with their neighbours, which other invocations
// write at the same time, so a plain read-modify-write of the word would race: the lane is
// changed with one atomicXor of (old lane ^ new lane), which leaves every other lane as it
// is. Only this invocation ever changes this lane, so the old value it reads stays valid.
// Because the output is atomic, an input read through the output's binding is read with
// atomicLoad as well.
//
// Bindings: 0 records (common.wgsl), 1 out_buf (read_write, array<atomic<u32>>), 2 in0 and
// 3 in1 (read, or read_write where they share the output's buffer: shared/inputs_*.wgsl),
// as array<u32>.

@group(0) @binding(1) var<storage, read_write> out_buf: array<atomic<u32>>;

fn load_word(src: u32, i: u32) -> u32 {
    switch src {
        case 0u: {
            return atomicLoad(&out_buf[i]);
        }
        case 1u: {
            return in0[i];
        }
        default: {
            return in1[i];
        }
    }
}

fn load_lane(src: u32, e: u32) -> u32 {
    if WIDTH == 4u {
        return load_word(src, e);
    }
    let byte = e * WIDTH;
    return (load_word(src, byte >> 2u) >> ((byte & 3u) * 8u)) & lane_mask();
}

@compute @workgroup_size(256)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(workgroup_id) wg: vec3<u32>,
) {
    call = wg.z;
    let u = unit_index(gid);
    if u >= head().x {
        return;
    }
    var o = base().x;
    var a = base().y;
    var b = base().z;
    if RANK == 1u {
        o += u * out_stride_at(0u);
        a += u * a_stride_at(0u);
        b += u * b_stride_at(0u);
    } else if RANK == 2u {
        let n = size_at(1u);
        let q = u / n;
        let r = u - q * n;
        o += q * out_stride_at(0u) + r * out_stride_at(1u);
        a += q * a_stride_at(0u) + r * a_stride_at(1u);
        b += q * b_stride_at(0u) + r * b_stride_at(1u);
    } else {
        // The outermost index needs no division: it is what is left.
        var rest = u;
        for (var k = head().y - 1u; k > 0u; k--) {
            let n = size_at(k);
            let q = rest / n;
            let r = rest - q * n;
            o += r * out_stride_at(k);
            a += r * a_stride_at(k);
            b += r * b_stride_at(k);
            rest = q;
        }
        o += rest * out_stride_at(0u);
        a += rest * a_stride_at(0u);
        b += rest * b_stride_at(0u);
    }

    if WIDTH == 8u {
        let va = vec2<u32>(load_word(A_SRC, 2u * a), load_word(A_SRC, 2u * a + 1u));
        let vb = vec2<u32>(load_word(B_SRC, 2u * b), load_word(B_SRC, 2u * b + 1u));
        let r = combine_pair(va, vb);
        atomicStore(&out_buf[2u * o], r.x);
        atomicStore(&out_buf[2u * o + 1u], r.y);
        return;
    }
    let value = combine_lane(load_lane(A_SRC, a), load_lane(B_SRC, b));
    if WIDTH == 4u {
        atomicStore(&out_buf[o], value);
        return;
    }
    let byte = o * WIDTH;
    let word = byte >> 2u;
    let shift = (byte & 3u) * 8u;
    let old = (atomicLoad(&out_buf[word]) >> shift) & lane_mask();
    let change = old ^ value;
    if change != 0u {
        atomicXor(&out_buf[word], change << shift);
    }
}
