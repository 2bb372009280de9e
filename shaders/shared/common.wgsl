// Shared part of every kernel, placed before each kernel's own source by src/kernels/shaders.rs.
//
// Overrides (set per pipeline, never formatted into the text):
//   WIDTH    bytes per element: 1, 2, 4 or 8. Kernels see only u32 words: a 64-bit element
//            is two words (low word first), an 8- or 16-bit element a lane inside a word.
//   FUNC     the element function: 0 XOR, 1 AND, 2 OR, 3 NOT (of A alone: the host binds A
//            in B's place too, and B's value is never used), word-wide; 4 shift left,
//            5 logical shift right, 6 arithmetic shift right, of A's element by B's, which
//            need WIDTH: an amount outside [0, bits) of the element (a negative one reads as
//            a large unsigned one) gives 0, or all ones for an arithmetic shift of a negative
//            value, whatever the lane's position in its word (WGSL would mask the amount);
//            7 the count of ones of A's element, of one input (BIT_COUNT), whose output may
//            have another width (IN_WIDTH).
//   LOGICAL  false: the function on the raw bits (DML BIT_*, OpenVINO Bitwise* on integers);
//            true: on truth values, `x != 0` at the element's full width, written as 0 or 1
//            of WIDTH bytes (DML LOGICAL_*, OpenVINO Logical* and Bitwise* on boolean).
//   A_SRC, B_SRC  which binding the input is read from: 0 = the output's (the buffer is
//            shared with the output; wgpu allows one writable binding per buffer), 1 = in0,
//            2 = in1.
//   A_MODE, B_MODE  how the input is read, for the kernels that have a choice (0 elsewhere):
//            rows.wgsl and shifted.wgsl 0 = a dense row, 1 = one element repeated across
//            the row;
//            contiguous.wgsl 0 = a dense run, 1 and 2 = one element repeated across each
//            row (2: rows of whole 16-byte blocks), 3 = one element over the whole run;
//            tile.wgsl 0 = straight from memory, 1 = staged through a workgroup tile;
//            block_tile.wgsl 0 = by words, 1 = staged, 2 = by 16-byte blocks.
//            Constants rather than metadata, so that the path not taken is compiled out.
//   RANK     the rank of the iteration space where the kernel has index arithmetic without
//            a loop of unknown length for it (1 to 4; `select::rank_constant` says which
//            kernel takes which), compiled in; 0 reads it from the metadata (any rank up
//            to 8). The tile kernels' (2 to 8) counts their batch's dimensions (`tile_row`).
//   DIRECT   contiguous.wgsl and rows.wgsl: the dispatch runs one record (record 0 of its
//            binding) whose operands all start at the first block of their bindings, so that
//            no record index is dynamic and no offset is read (`base`); the contiguous
//            kernel then indexes every operand by the invocation alone.
//   IN_WIDTH the inputs' element size where it is not the output's (BIT_COUNT: u64 in, u8
//            out), else 0. WIDTH is then the output's, and only the contiguous kernel
//            (`counted_block`) and the kernels that load and store element by element
//            (gather.wgsl, scatter.wgsl, through `combine_at`) run.
//   TAIL     contiguous.wgsl: whether the kernel writes a last partial block; without it
//            the code for one is not compiled in (the host gives a partial last block to a
//            dispatch of its own, or its records have none). rows.wgsl: whether a row ends
//            in a partial block (its row length is not a multiple of 16 bytes); without it
//            every block is stored whole, with no test.
//   SPREAD   shifted.wgsl: how a row's blocks are shared out among its invocations: false,
//            each takes a run of consecutive blocks (CPU adapters); true, invocation x takes
//            blocks x, x + runs, ..., so that neighbouring invocations write neighbouring
//            blocks (GPUs, whose lanes store together).
//
// Binding 0 holds the metadata records below (a uniform buffer bound at a dynamic offset):
// one record per call, and one call per workgroup layer of a dispatch (z), so that one
// dispatch can run many independent calls. There is no global call index: every accessor of
// the metadata takes the call explicitly, and each entry point derives it from its
// workgroup's z index (`let call = wg.z;`) before anything else, so that no kernel can read a
// record before it knows which one is its own (contiguous.wgsl's direct form, whose dispatch
// runs one record, takes the constant 0). Bindings 2 and 3 (the inputs) come from one of
// shared/inputs_*.wgsl, binding 1 (the output, read_write) and the loaders `load_word` (and
// `load` for 16-byte blocks) from shared/blocks.wgsl or words.wgsl; both are
// placed between this file and the kernel.
//
// Metadata (must match `Params` in core/src/schedule/params.rs; a test compares the layouts):
//   head.x  work units of the call (vec4s, words or elements, per kernel; the tile kernels:
//           tile rows a matrix)
//   head.y  rank of the iteration space (1 to 8)
//   head.z  invocations per row of the dispatch grid (the flat kernels' 2-D grid)
//   head.w  elements of the call (rows and tile kernels: rows / tile rows of this record)
//   base    element offsets of the first out / a / b element inside their bound windows;
//           base.w is the first row (rows kernel) or grid row (tile kernels: the batch's
//           tile rows, matrix by matrix, `tile_row`) of this record;
//           for the scatter kernel 1 where it runs one invocation per output word
//   sizes   sizes, outermost first, four per vec4
//   *_strides  element strides of out / a / b, four per vec4
//   size_magic, stride_magic, shifts  per dimension, the divisors of its size and of its
//           output stride as a multiplier and two shifts (`div_by`; `Divisor` in params.rs),
//           four per vec4; the flat kernels over rows (rows.wgsl, shifted.wgsl), whose
//           output's last stride is 1, keep the divisor by head.w there instead
//           (`div_row_units`), and the tile kernels the divisor by head.x in dimension 1's; the record is 256 bytes, the largest dynamic-offset alignment
//           WebGPU allows, so that any record can start a dispatch's binding

override WIDTH: u32 = 4u;
override FUNC: u32 = 0u;
override LOGICAL: bool = false;
override A_SRC: u32 = 1u;
override B_SRC: u32 = 2u;
override A_MODE: u32 = 0u;
override B_MODE: u32 = 0u;
override RANK: u32 = 0u;
override DIRECT: bool = false;
override TAIL: bool = true;
override SPREAD: bool = false;
override IN_WIDTH: u32 = 0u;

const WORKGROUP: u32 = 256u;

struct Params {
    head: vec4<u32>,
    base: vec4<u32>,
    sizes: array<vec4<u32>, 2>,
    out_strides: array<vec4<u32>, 2>,
    a_strides: array<vec4<u32>, 2>,
    b_strides: array<vec4<u32>, 2>,
    size_magic: array<vec4<u32>, 2>,
    stride_magic: array<vec4<u32>, 2>,
    shifts: array<vec4<u32>, 2>,
}

@group(0) @binding(0) var<uniform> records: array<Params, RECORDS>;

// Records one binding holds: 16 KiB, the least uniform binding any wgpu device allows.
const RECORDS: u32 = 64u;

fn head(call: u32) -> vec4<u32> {
    return records[call].head;
}

// Under DIRECT every operand starts its binding: the offsets are the constant 0.
fn base(call: u32) -> vec4<u32> {
    if DIRECT {
        return vec4<u32>(0u, 0u, 0u, records[call].base.w);
    }
    return records[call].base;
}

fn unit_index(call: u32, gid: vec3<u32>) -> u32 {
    return gid.y * head(call).z + gid.x;
}

fn size_at(call: u32, d: u32) -> u32 {
    return records[call].sizes[d >> 2u][d & 3u];
}

fn out_stride_at(call: u32, d: u32) -> u32 {
    return records[call].out_strides[d >> 2u][d & 3u];
}

fn a_stride_at(call: u32, d: u32) -> u32 {
    return records[call].a_strides[d >> 2u][d & 3u];
}

fn b_stride_at(call: u32, d: u32) -> u32 {
    return records[call].b_strides[d >> 2u][d & 3u];
}

// `mul_hi` and `div_by` (dividing by a divisor fixed per record) are in shared/math.wgsl,
// placed after this file.

// n / the size of dimension d.
fn div_size(call: u32, d: u32, n: u32) -> u32 {
    let q = d >> 2u;
    let l = d & 3u;
    return div_by(n, records[call].size_magic[q][l], records[call].shifts[q][l]);
}

// n / the output stride of dimension d.
fn div_out_stride(call: u32, d: u32, n: u32) -> u32 {
    let q = d >> 2u;
    let l = d & 3u;
    return div_by(n, records[call].stride_magic[q][l], records[call].shifts[q][l] >> 16u);
}

// n / head.w, the invocations a row of the flat kernels over rows (rows.wgsl, shifted.wgsl),
// whose grid is flat over every (row, unit) pair: the row of unit n. Their output's last
// stride is 1, so the host keeps this divisor in that dimension's stride slot.
fn div_row_units(call: u32, n: u32) -> u32 {
    return div_out_stride(call, rank(call) - 1u, n);
}

// Mask of one lane's bits, right-aligned.
fn lane_mask() -> u32 {
    if WIDTH == 1u {
        return 0xffu;
    }
    if WIDTH == 2u {
        return 0xffffu;
    }
    return 0xffffffffu;
}

// A word-wide function (FUNC 0 to 3) on whole words: every bit of the result is the function
// of the same bit of `a` and `b`, so it serves packed lanes, 64-bit halves and 16-byte blocks
// alike. NOT takes A alone. The shifts go through `combine_*` instead.
fn apply(a: u32, b: u32) -> u32 {
    switch FUNC {
        case 1u: {
            return a & b;
        }
        case 2u: {
            return a | b;
        }
        case 3u: {
            return ~a;
        }
        default: {
            return a ^ b;
        }
    }
}

fn apply4(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
    switch FUNC {
        case 1u: {
            return a & b;
        }
        case 2u: {
            return a | b;
        }
        case 3u: {
            return ~a;
        }
        default: {
            return a ^ b;
        }
    }
}

// 1 where `x` is nonzero, else 0, in one instruction.
fn nonzero(x: u32) -> u32 {
    return min(x, 1u);
}

// The logical function of two truth values (0 or 1) as 0 or 1: `apply` of them, whose XOR,
// AND and OR of 0s and 1s are 0 or 1 already; NOT's complement is cut to bit 0.
fn truth(a: u32, b: u32) -> u32 {
    if FUNC == 3u {
        return ~a & 1u;
    }
    return apply(a, b);
}

// Whether FUNC is a shift (4, 5 or 6), which needs the element's width.
fn is_shift() -> bool {
    return FUNC >= 4u && FUNC <= 6u;
}

// Whether FUNC counts ones (7).
fn is_count() -> bool {
    return FUNC == 7u;
}

// The inputs' element size: IN_WIDTH where it differs from the output's, else WIDTH.
fn in_width() -> u32 {
    return select(WIDTH, IN_WIDTH, IN_WIDTH != 0u);
}

// The count of ones of A's element `e`, of the inputs' width.
fn count_at(e: u32) -> u32 {
    let w = in_width();
    if w == 8u {
        return countOneBits(load_word(A_SRC, 2u * e)) + countOneBits(load_word(A_SRC, 2u * e + 1u));
    }
    return countOneBits(load_of_width(A_SRC, e, w));
}

// A shift of one element of at most 32 bits, right-aligned in `a` and `b` with nothing set
// above the lane; the result likewise. Every amount is checked against the lane's own width,
// never masked: `b >= bits` is out of range, a negative amount included.
fn shift_lane(a: u32, b: u32) -> u32 {
    // min: a pipeline of 64-bit elements compiles this function too, and never calls it.
    let bits = min(WIDTH, 4u) * 8u;
    if FUNC == 4u {
        return select(0u, (a << min(b, 31u)) & lane_mask(), b < bits);
    }
    if FUNC == 5u {
        return select(0u, a >> min(b, 31u), b < bits);
    }
    // Arithmetic: the lane sign-extended to 32 bits, shifted by at most bits - 1 (an amount
    // out of range gives the sign in every bit, as a shift by bits - 1 does).
    let up = 32u - bits;
    let v = bitcast<i32>(a << up) >> up;
    return bitcast<u32>(v >> min(b, bits - 1u)) & lane_mask();
}

// A shift of every lane of a word of packed elements (WIDTH <= 4) by the same lane of `b`,
// lane by lane with shifts and masks. Measured on the CPU adapters (benches/shifts-and-count-*.md):
// this loop against `extractBits`/`insertBits` per lane, 0.91 against 0.90 of XOR's speed on
// lavapipe for 8-bit lanes and 0.30 against 0.21 on SwiftShader; against a shift of all lanes
// at once, bit by bit of the amounts (SWAR), 0.91 against 0.52 on lavapipe.
fn shift_word(a: u32, b: u32) -> u32 {
    if WIDTH >= 4u {
        return shift_lane(a, b);
    }
    // min: a pipeline of wider elements compiles this function too, and never calls it.
    let bits = min(WIDTH, 2u) * 8u;
    var r = 0u;
    for (var k = 0u; k < 32u; k += bits) {
        r |= shift_lane((a >> k) & lane_mask(), (b >> k) & lane_mask()) << k;
    }
    return r;
}

// A shift of one 64-bit element (low word, high word) by the amount (low, high): math.wgsl's
// `shift64` for this pipeline's function.
fn shift_pair(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return shift64(a, b, FUNC);
}

// One element of at most 32 bits, right-aligned in `a` and `b`; the result is right-aligned
// too, with nothing set above the lane (NOT's complement is masked to it).
fn combine_lane(a: u32, b: u32) -> u32 {
    if LOGICAL {
        return truth(nonzero(a), nonzero(b));
    }
    if is_shift() {
        return shift_lane(a & lane_mask(), b & lane_mask());
    }
    if is_count() {
        return countOneBits(a & lane_mask());
    }
    return apply(a, b) & lane_mask();
}

// Bit 7 of each byte set where that byte is nonzero: the low seven bits carry into bit 7
// when any is set (0x7f + 0x7f cannot carry out of the byte), and bit 7 is taken as it is.
// The other bits are left as they come: callers keep bit 7 alone.
fn nonzero_bytes(x: u32) -> u32 {
    return ((x & 0x7f7f7f7fu) + 0x7f7f7f7fu) | x;
}

// The same for the two 16-bit halves (bit 15 of each).
fn nonzero_halves(x: u32) -> u32 {
    return ((x & 0x7fff7fffu) + 0x7fff7fffu) | x;
}

// A whole word of packed elements (WIDTH <= 4): four bytes, two halves or one word at once.
// The logical forms reduce each lane to its top bit, apply the function to those bits (the
// function of each bit is the function of the same bit of its inputs, so the other bits do
// not disturb it), and move the top bits down to bit 0 of the lane.
fn combine_word(a: u32, b: u32) -> u32 {
    if is_shift() {
        return shift_word(a, b);
    }
    if is_count() {
        return lane_counts(a, WIDTH);
    }
    if !LOGICAL {
        return apply(a, b);
    }
    // OR: a lane of `a | b` is nonzero where a lane of either is, so one reduction serves.
    if FUNC == 2u && WIDTH == 1u {
        return (nonzero_bytes(a | b) >> 7u) & 0x01010101u;
    }
    if FUNC == 2u && WIDTH == 2u {
        return (nonzero_halves(a | b) >> 15u) & 0x00010001u;
    }
    if WIDTH == 1u {
        return (apply(nonzero_bytes(a), nonzero_bytes(b)) >> 7u) & 0x01010101u;
    }
    if WIDTH == 2u {
        return (apply(nonzero_halves(a), nonzero_halves(b)) >> 15u) & 0x00010001u;
    }
    return truth(nonzero(a), nonzero(b));
}

// One 64-bit element as (low word, high word). Zero means both words zero.
fn combine_pair(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    if is_shift() {
        return shift_pair(a, b);
    }
    if !LOGICAL {
        return vec2<u32>(apply(a.x, b.x), apply(a.y, b.y));
    }
    return vec2<u32>(truth(nonzero(a.x | a.y), nonzero(b.x | b.y)), 0u);
}

// Element `e` of `width` bytes (1, 2 or 4) of binding `src`, right-aligned.
fn load_of_width(src: u32, e: u32, width: u32) -> u32 {
    if width >= 4u {
        return load_word(src, e);
    }
    let byte = e * width;
    let lane = select(0xffu, 0xffffu, width == 2u);
    return (load_word(src, byte >> 2u) >> ((byte & 3u) * 8u)) & lane;
}

// Element `e` of binding `src` (WIDTH <= 4), right-aligned.
fn load_lane(src: u32, e: u32) -> u32 {
    return load_of_width(src, e, WIDTH);
}

// The output element (WIDTH <= 4) of A's element `ea` and B's element `eb`, right-aligned:
// what the kernels that go element by element store. A count of ones reads A at the inputs'
// own width (IN_WIDTH).
fn combine_at(ea: u32, eb: u32) -> u32 {
    if is_count() {
        return count_at(ea);
    }
    return combine_lane(load_lane(A_SRC, ea), load_lane(B_SRC, eb));
}

// Element `e` of binding `src` repeated across a 16-byte block (lanes line up with elements
// that start on a multiple of WIDTH): a broadcast input's one element across its row.
fn splat(src: u32, e: u32) -> vec4<u32> {
    if WIDTH == 8u {
        let lo = load_word(src, 2u * e);
        let hi = load_word(src, 2u * e + 1u);
        return vec4<u32>(lo, hi, lo, hi);
    }
    let v = load_lane(src, e);
    if WIDTH == 4u {
        return vec4<u32>(v);
    }
    if WIDTH == 2u {
        return vec4<u32>(v | (v << 16u));
    }
    return vec4<u32>(v * 0x01010101u);
}

// A 16-byte block of packed elements.
fn combine4(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
    if WIDTH == 8u {
        return vec4<u32>(combine_pair(a.xy, b.xy), combine_pair(a.zw, b.zw));
    }
    if !LOGICAL && FUNC <= 3u {
        return apply4(a, b);
    }
    return vec4<u32>(
        combine_word(a.x, b.x),
        combine_word(a.y, b.y),
        combine_word(a.z, b.z),
        combine_word(a.w, b.w),
    );
}

// Where a workgroup of the tile kernels (tile.wgsl, block_tile.wgsl) works: the tile row
// inside its matrix, and each operand's first element of that matrix. A record holds the
// matrix's rows and columns in dimensions 0 and 1 and its batch, of any number of dimensions
// up to six, outermost first, in dimensions 2 to RANK - 1; the grid's rows run over the
// batch's tile rows matrix by matrix, `head.x` of them a matrix, whose divisor the host keeps
// in dimension 1's stride slot (the output's columns are dense: nothing divides by their
// stride). RANK (2 to 8) compiles in the batch's dimensions: at 2 the grid runs one matrix
// and none of this arithmetic is compiled in, at 3 one division finds the matrix, and each
// batch dimension after the first costs one more. Computed once per invocation, before any
// load.
struct TileRow {
    row: u32,
    out: u32,
    a: u32,
    b: u32,
}

// The tile row of grid row `g` (the record's first, `base.w`, plus the workgroup's y).
fn tile_row(call: u32, g: u32) -> TileRow {
    let b = base(call);
    if RANK <= 2u {
        return TileRow(g, b.x, b.y, b.z);
    }
    let m = div_out_stride(call, 1u, g);
    var at = TileRow(g - m * head(call).x, b.x, b.y, b.z);
    // The matrix's index over the batch, unravelled from its innermost dimension out; the
    // outermost (dimension 2) takes what is left, with no division.
    var rest = m;
    for (var k = RANK - 1u; k > 2u; k--) {
        let q = div_size(call, k, rest);
        let i = rest - q * size_at(call, k);
        at.out += i * out_stride_at(call, k);
        at.a += i * a_stride_at(call, k);
        at.b += i * b_stride_at(call, k);
        rest = q;
    }
    at.out += rest * out_stride_at(call, 2u);
    at.a += rest * a_stride_at(call, 2u);
    at.b += rest * b_stride_at(call, 2u);
    return at;
}

// An input's first element and its strides over the two dimensions of a tile kernel's
// matrix, in its own elements.
struct Plane {
    first: u32,
    outer: u32,
    inner: u32,
}

// Input `k`'s plane in the matrix of tile row `at`: A's (0) or B's (1).
fn input_plane(call: u32, at: TileRow, k: u32) -> Plane {
    if k == 0u {
        return Plane(at.a, a_stride_at(call, 0u), a_stride_at(call, 1u));
    }
    return Plane(at.b, b_stride_at(call, 0u), b_stride_at(call, 1u));
}

// The element offset of (r, c) in plane `p`.
fn plane_at(p: Plane, r: u32, c: u32) -> u32 {
    return p.first + r * p.outer + c * p.inner;
}

// Element offsets of out, a and b for index `i` over the first `dims` dimensions (the rest
// are not visited), and the index along the last of them.
struct Offsets {
    o: u32,
    a: u32,
    b: u32,
    inner: u32,
}

// With `dims` a constant 1 or 2 (from RANK) no loop is compiled in; otherwise the index is
// unravelled dimension by dimension, the outermost needing no division.
fn offsets_of(call: u32, i: u32, dims: u32) -> Offsets {
    let b = base(call);
    if dims == 1u {
        return Offsets(
            b.x + i * out_stride_at(call, 0u),
            b.y + i * a_stride_at(call, 0u),
            b.z + i * b_stride_at(call, 0u),
            i,
        );
    }
    if dims == 2u {
        let n = size_at(call, 1u);
        let q = div_size(call, 1u, i);
        let r = i - q * n;
        return Offsets(
            b.x + q * out_stride_at(call, 0u) + r * out_stride_at(call, 1u),
            b.y + q * a_stride_at(call, 0u) + r * a_stride_at(call, 1u),
            b.z + q * b_stride_at(call, 0u) + r * b_stride_at(call, 1u),
            r,
        );
    }
    var rest = i;
    var at = Offsets(b.x, b.y, b.z, 0u);
    for (var k = dims - 1u; k > 0u; k--) {
        let n = size_at(call, k);
        let q = div_size(call, k, rest);
        let r = rest - q * n;
        if k == dims - 1u {
            at.inner = r;
        }
        at.o += r * out_stride_at(call, k);
        at.a += r * a_stride_at(call, k);
        at.b += r * b_stride_at(call, k);
        rest = q;
    }
    at.o += rest * out_stride_at(call, 0u);
    at.a += rest * a_stride_at(call, 0u);
    at.b += rest * b_stride_at(call, 0u);
    return at;
}

// The rank of the iteration space: RANK where it is compiled in, else the record's.
fn rank(call: u32) -> u32 {
    return select(head(call).y, RANK, RANK != 0u);
}
