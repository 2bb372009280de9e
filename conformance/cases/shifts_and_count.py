#!/usr/bin/env python3
"""Conformance cases for the shift operators and bit_count: writes tests/data/shifts_and_count.json.

Regenerate (Python 3, standard library only; the output is deterministic):

    python3 conformance/cases/shifts_and_count.py            # writes tests/data/shifts_and_count.json
    python3 conformance/cases/shifts_and_count.py OUT.json   # writes elsewhere

The helpers shared with and_or_not.py and onnx_nodes.py (layouts, SplitMix64, digests, shape
broadcasting, JSON writing) are in conformance/cases/casefmt.py.

The format is that of tests/data/xor.json and tests/data/and_or_not.json (a JSON list, one
case object per line), with these `op` names:

    DirectML (described tensors, strides, feature levels, DML_TENSOR_FLAGS):
      bit_shift_left   DML_ELEMENT_WISE_BIT_SHIFT_LEFT   (FL 2.1: u8 u16 u32, exactly 4-D;
                                                          FL 3.0: u8 u16 u32, 1 to 8-D;
                                                          FL 4.1: u64 too)
      bit_shift_right  DML_ELEMENT_WISE_BIT_SHIFT_RIGHT  (the same)
      The shifts refuse every other type (i8 i16 i32 i64 f16 f32 f64) at every level.
      bit_count        DML_ELEMENT_WISE_BIT_COUNT        (one input; FL 3.0: input u8 u16 u32;
                                                          FL 4.1: all 11 DML types; the output
                                                          u8 or u32 at both; 1 to 8-D; below
                                                          FL 3.0 the operator does not exist)
    OpenVINO (shapes and auto_broadcast; any rank, scalars and zero-size dimensions):
      bitwise_left_shift_broadcast   BitwiseLeftShift-15   (u8 i8 u16 i16 u32 i32 u64 i64;
                                                            boolean and floats are refused)
      bitwise_right_shift_broadcast  BitwiseRightShift-15  (the same)

For the shifts, A is the value to shift, B the amount; A, B and the output have one type. Id
prefixes: bshl_ bshr_ bcnt_ (DirectML), ovshl_ ovshr_ (OpenVINO); `_err_` marks an error case.
`source` names the specification page or the test that each case comes from.

One definition serves every standard (it is ONNX BitShift-28's): elements are bit patterns of
their type, and the amount b is read as a value of the element type (signed for i8 to i64).

    0 <= b < bits (bits = 8 * width):
        left   (a << b) mod 2^bits (two's complement wrap for signed types)
        right  logical for unsigned types; arithmetic (sign-filling, floor(a / 2^b)) for signed
    b < 0 or b >= bits:
        0, except a right shift of a negative value, which gives -1 (all bits set).

DirectML and ONNX BitShift-11 say nothing of an amount at or above the width, and OpenVINO
calls it (and a negative amount) undefined or implementation-defined; these cases hold every
operator to the rule above. A negative amount of a signed type is, as a bit pattern, an
unsigned amount of at least 2^(bits-1) >= bits, so reading the amount signed or unsigned gives
the same result under this rule.

bit_count is a one-input case, like bit_not in and_or_not.json: `a`, `a_shape`, `a_strides` and A's
other fields, and no `b` field at all. `dtype` is the input's type and `out_dtype`, present in
every bit_count case (valid or error), the output's: u8 or u32 (any other output type is an
`unsupported_dtype` error). Each output element is the number of set bits of the input element's
whole bit pattern (float patterns included: NaN payloads, -0.0 and infinities count as raw
bits), written as a value of the output type; `expected`, `expected_head`, `expected_tail` and
`expected_sha256` (over the output type's little-endian bytes) are output-type values. Input and
output have the same DimensionCount and Sizes (else `rank_mismatch` or `shape_mismatch`) and may
each have strides; `*_min_bytes`, `*_physical_len` and the alignment rules take each tensor's
own element width (the output's min bytes use the output type's width). The DirectML page lists
no in-place execution for BIT_COUNT, so an output bound to the input's range (`alias` `out=a`)
is refused with the error kind `in_place_not_supported`, added to the format's error kinds by
this file, whether the two types differ or not. The tag `all_counts` marks cases that hold
every count from 0 to the width and every single bit.

Every expected value is computed here with Python integers, from these rules alone (a shift by
the rule above, a bit count as bin(x).count("1")), independently of the library; the examples
taken from the specifications and test suites are also checked against the values they list.
Like and_or_not.json, the file is meant for the conformance runner and for checking the library's
CPU reference in the conformance crate's unit tests.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from casefmt import (OV_INTS, SPEC, SRC_BCAST, SRC_BINDING, SRC_FLAGS, SRC_FLH,  # noqa: E402
                     SRC_STRIDES, TPL, WIDTH, Rng, indices, mask, min_bytes, ov_shape,
                     ov_source_index, output_path, packed, physical_len, prod,
                     set_expected_digest, sha, stream, write_cases)

DML_UINTS = ["u8", "u16", "u32", "u64"]
DML_REFUSED = ["i8", "i16", "i32", "i64", "f16", "f32", "f64"]

DML_OPS = {"bit_shift_left", "bit_shift_right"}
LEFT = {"bit_shift_left", "bitwise_left_shift_broadcast"}

# Sources.
SRC_BSHL = ("DirectML docs: DML_ELEMENT_WISE_BIT_SHIFT_LEFT_OPERATOR_DESC "
            "(MicrosoftDocs/sdk-api ns-directml-dml_element_wise_bit_shift_left_operator_desc.md)")
SRC_BSHR = ("DirectML docs: DML_ELEMENT_WISE_BIT_SHIFT_RIGHT_OPERATOR_DESC "
            "(MicrosoftDocs/sdk-api ns-directml-dml_element_wise_bit_shift_right_operator_desc.md)")
SRC_DML = {"bit_shift_left": SRC_BSHL, "bit_shift_right": SRC_BSHR}
SRC_OV = {
    "bitwise_left_shift_broadcast": SPEC + "bitwise/bitwise-left-shift-15.rst",
    "bitwise_right_shift_broadcast": SPEC + "bitwise/bitwise-right-shift-15.rst",
}
SRC_TPL = {
    "bitwise_left_shift_broadcast": TPL + "bitwise_left_shift.cpp",
    "bitwise_right_shift_broadcast": TPL + "bitwise_right_shift.cpp",
}
SRC_OV_TYPES = ("OpenVINO core: op/util/binary_elementwise_bitwise.cpp, elementwise_args.cpp, "
                "op/bitwise_left_shift.cpp, op/bitwise_right_shift.cpp; tests "
                "type_prop/bitwise_ops.hpp (BitwiseOperatorNotBoolean)")
SRC_ONNX11 = "ONNX docs/Operators.md: BitShift-11 (the example in the description)"
SRC_ONNX28 = ("ONNX onnx/defs/logical/defs.cc: BitShift-28 (signed types; an amount below 0 "
              "or at least the width gives 0, or -1 for a right shift of a negative value)")
SRC_ONNX_TEST = "ONNX onnx/backend/test/case/node/bitshift.py"

# ----- element functions -------------------------------------------------------------------


def signed(dtype):
    return dtype.startswith("i")


def value(dtype, x):
    """The number that bit pattern `x` stands for (two's complement for signed types)."""
    bits = 8 * WIDTH[dtype]
    x &= mask(dtype)
    if signed(dtype) and x >> (bits - 1):
        return x - (1 << bits)
    return x


def shift(op, dtype, x, y):
    """One element of `op` on raw bit patterns, by the ONNX BitShift-28 rule."""
    bits, m = 8 * WIDTH[dtype], mask(dtype)
    a, b = value(dtype, x), value(dtype, y)
    if 0 <= b < bits:
        if op in LEFT:
            return (a << b) & m
        return (a >> b) & m  # Python's >> floors: arithmetic for negative a, logical otherwise
    return m if (op not in LEFT and a < 0) else 0


def pats(dtype, values):
    """Bit patterns of signed or unsigned numbers."""
    return [v & mask(dtype) for v in values]


# ----- data ---------------------------------------------------------------------------------

_data_seed = [3000]


def rand(dtype, n):
    """Deterministic pseudo-random element values (every bit pattern of the type)."""
    _data_seed[0] += 1
    return stream(_data_seed[0], n, "bits", dtype)


def rand_amounts(dtype, n):
    """Deterministic shift amounts, mostly near the useful range: 0 to bits+2 (signed types
    from -3), and about one in sixteen a full-width bit pattern."""
    _data_seed[0] += 1
    bits, m = 8 * WIDTH[dtype], mask(dtype)
    r, out = Rng(_data_seed[0]), []
    for _ in range(n):
        z = r.next()
        if z >> 60 == 0xF:
            out.append(z & m)
        elif signed(dtype):
            out.append(((z % (bits + 6)) - 3) & m)
        else:
            out.append(z % (bits + 3))
    return out


# ----- cases --------------------------------------------------------------------------------

CASES = []


def add(case):
    assert case["id"] not in {c["id"] for c in CASES}, case["id"]
    CASES.append(case)


def dml_min_level(dtype, rank):
    """UINT64 from FL 4.1; UINT8/16/32 from FL 2.1 when 4-D, else from FL 3.0 (1 to 8-D)."""
    if dtype == "u64":
        return "4_1"
    return "2_1" if rank == 4 else "3_0"


def dml(id, op, dtype, shape, a, b, a_strides=None, b_strides=None, out_strides=None,
        alias=None, tags=(), source=None, notes=None, extra=None, check=None):
    """A valid DirectML case. `a` and `b` are physical buffers when their strides are given,
    else logical row-major data; the expected output is read off them element by element.
    `check`, when given, is the output the source lists (as signed or unsigned numbers)."""
    sa = a_strides or packed(shape)
    sb = b_strides or packed(shape)
    so = out_strides or packed(shape)
    assert len(a) == physical_len(shape, sa), id
    assert len(b) == physical_len(shape, sb), id
    if alias == "a=b":
        assert a == b and sa == sb, id
    if alias in ("out=a", "out=a=b"):
        assert sa == so, id
    if alias == "out=b":
        assert sb == so, id
    expected = []
    for idx in indices(shape):
        x = a[sum(i * s for i, s in zip(idx, sa))]
        y = b[sum(i * s for i, s in zip(idx, sb))]
        expected.append(shift(op, dtype, x, y))
    if check is not None:
        assert expected == pats(dtype, check), (id, expected)
    c = {"id": id, "op": op, "dtype": dtype, "a_shape": shape, "b_shape": shape,
         "out_shape": shape}
    if a_strides:
        c["a_strides"] = a_strides
    if b_strides:
        c["b_strides"] = b_strides
    if out_strides:
        c["out_strides"] = out_strides
    if alias:
        c["alias"] = alias
    c["min_feature_level"] = dml_min_level(dtype, len(shape))
    for t, s in [("a", sa), ("b", sb), ("out", so)]:
        c[t + "_min_bytes"] = min_bytes(shape, s, dtype)
    for t, s in [("a", sa), ("b", sb), ("out", so)]:
        c[t + "_physical_len"] = physical_len(shape, s)
    if extra:
        c.update(extra)
    c["a"] = a
    c["b"] = b
    c["expected"] = expected
    c["tags"] = list(tags)
    c["source"] = source or SRC_DML[op]
    if notes:
        c["notes"] = notes
    add(c)


def err(id, op, dtype, a_shape, kind, message, b_shape="same", tags=(), source=None,
        notes=None, **fields):
    """An error case: no expected output; `error_kind` is the rule the refusal names."""
    c = {"id": id, "op": op, "dtype": dtype, "a_shape": a_shape}
    c["b_shape"] = a_shape if b_shape == "same" else b_shape
    if op in DML_OPS and "out_shape" not in fields:
        c["out_shape"] = a_shape
    c.update(fields)
    c["expect_error"] = message
    c["error_kind"] = kind
    c["tags"] = ["error"] + list(tags)
    c["source"] = source or (SRC_DML[op] if op in DML_OPS else SRC_OV[op])
    if notes:
        c["notes"] = notes
    add(c)


def ov_expected(op, dtype, a_shape, a, b_shape, b, broadcast, axis):
    out_shape = ov_shape(a_shape, b_shape, broadcast, axis)
    assert out_shape is not None, (a_shape, b_shape, broadcast, axis)
    a_at = len(out_shape) - len(a_shape)
    b_at = axis if (broadcast == "pdpd" and axis != -1) else len(out_shape) - len(b_shape)
    expected = []
    for idx in indices(out_shape):
        x = a[ov_source_index(idx, a_shape, a_at)]
        y = b[ov_source_index(idx, b_shape, b_at)]
        expected.append(shift(op, dtype, x, y))
    return out_shape, expected


def ov(id, op, dtype, a_shape, a, b_shape, b, broadcast="numpy", axis=None, alias=None,
       tags=(), source=None, notes=None, explicit_broadcast=True, check=None):
    assert len(a) == prod(a_shape), id
    assert len(b) == prod(b_shape), id
    ax = -1 if axis is None else axis
    out_shape, expected = ov_expected(op, dtype, a_shape, a, b_shape, b, broadcast, ax)
    if check is not None:
        assert expected == pats(dtype, check), (id, expected)
    if alias == "out=a":
        assert out_shape == list(a_shape), id
    if alias == "out=b":
        assert out_shape == list(b_shape), id
    c = {"id": id, "op": op, "dtype": dtype, "a_shape": a_shape, "b_shape": b_shape}
    if explicit_broadcast:
        c["broadcast"] = broadcast
    if axis is not None:
        c["pdpd_axis"] = axis
    c["out_shape"] = out_shape
    if alias:
        c["alias"] = alias
    c["a"] = a
    c["b"] = b
    c["expected"] = expected
    c["tags"] = list(tags)
    c["source"] = source or SRC_OV[op]
    if notes:
        c["notes"] = notes
    add(c)


def generated(id, op, dtype, a_shape, seeds, modes, b_shape=None, a_strides=None, tags=(),
              source=None, notes=None, broadcast=None):
    """A large case: SplitMix64 inputs (A's and B's `mode` each), the output by digest, count,
    head and tail."""
    mode_a, mode_b = modes
    is_dml = op in DML_OPS
    sa = a_strides or packed(a_shape)
    a_count = physical_len(a_shape, sa) if is_dml else prod(a_shape)
    a = stream(seeds[0], a_count, mode_a, dtype)
    c = {"id": id, "op": op, "dtype": dtype, "a_shape": a_shape}
    if is_dml:
        b_count = prod(a_shape)
        b = stream(seeds[1], b_count, mode_b, dtype)
        expected = []
        for i, idx in enumerate(indices(a_shape)):
            x = a[sum(p * s for p, s in zip(idx, sa))]
            expected.append(shift(op, dtype, x, b[i]))
        c["b_shape"] = a_shape
        c["out_shape"] = a_shape
        if a_strides:
            c["a_strides"] = a_strides
        c["min_feature_level"] = dml_min_level(dtype, len(a_shape))
        for t, s in [("a", sa), ("b", packed(a_shape)), ("out", packed(a_shape))]:
            c[t + "_min_bytes"] = min_bytes(a_shape, s, dtype)
            c[t + "_physical_len"] = physical_len(a_shape, s)
    else:
        b_count = prod(b_shape)
        b = stream(seeds[1], b_count, mode_b, dtype)
        bc = broadcast or "numpy"
        out_shape, expected = ov_expected(op, dtype, a_shape, a, b_shape, b, bc, -1)
        c["b_shape"] = b_shape
        c["broadcast"] = bc
        c["out_shape"] = out_shape
    c["generator"] = {"algo": "splitmix64",
                      "a": {"seed": seeds[0], "count": a_count, "mode": mode_a},
                      "b": {"seed": seeds[1], "count": b_count, "mode": mode_b}}
    c["a_sha256"] = sha(a, dtype)
    c["b_sha256"] = sha(b, dtype)
    set_expected_digest(c, expected, dtype)
    c["tags"] = ["generator", "large"] + list(tags)
    c["source"] = source or (SRC_DML[op] if is_dml else SRC_OV[op])
    if notes:
        c["notes"] = notes
    add(c)


# ----- special values ------------------------------------------------------------------------


def specials(dtype):
    """Bit patterns worth shifting: zero, one, the high bit, all ones, alternating bits, half
    words (for signed types: 0, 1, 2, max, min, min+1, -2, -1, ...)."""
    w = 8 * WIDTH[dtype]
    m = (1 << w) - 1
    alt = int("01" * (w // 2), 2)
    return [0, 1, 2, m >> 1, 1 << (w - 1), (1 << (w - 1)) | 1, m - 1, m, alt, m ^ alt,
            (1 << (w // 2)) - 1, m ^ ((1 << (w // 2)) - 1)]


def dedupe(xs):
    out = []
    for x in xs:
        if x not in out:
            out.append(x)
    return out


def shift_amounts(dtype):
    """Amounts around every edge: 0, 1, bits-1, bits, bits+1, 2*bits, the 32-bit edges 31, 32,
    33 (which a 32-bit shift masks to 31, 0, 1), patterns whose low byte or low five bits are
    small but whose value is out of range, the largest values; for signed types also -1,
    -(bits-1), -bits, -(bits+1), -33 and the minimum."""
    w = 8 * WIDTH[dtype]
    m = (1 << w) - 1
    xs = [0, 1, 2, w // 2, w - 1, w, w + 1, 2 * w, 31, 32, 33]
    xs += {8: [0x81], 16: [0x101, 0x8001], 32: [63, 64, 0x101, 0x80000001],
           64: [63, 64, 65, 0xFFFFFFFF, 0x100000000, 0x100000001, 0x8000000000000001]}[w]
    xs += [m >> 1, 1 << (w - 1), m]
    if signed(dtype):
        xs += pats(dtype, [-1, -(w - 1), -w, -(w + 1), -33])
    return dedupe([x & m for x in xs])


def cross(vals, amts):
    """A (rows: values) and B (columns: amounts) of a values x amounts table."""
    return [v for v in vals for _ in amts], [s for _ in vals for s in amts]


def fill(n, dtype, seed):
    return stream(seed, n, "bits", dtype)


RULE_NOTE = ("An amount at or above the width (or below zero) gives 0, or all ones for a "
             "right shift of a negative value (ONNX BitShift-28); it is not masked to the "
             "width.")

# ===== DirectML BIT_SHIFT_LEFT, BIT_SHIFT_RIGHT ================================================

# u64 values and amounts across the 32-bit word boundary.
WORD_VALS = [1, 0x80000000, 0xFFFFFFFF, 0x100000000, 0x0000000180000001, 0x8000000000000000,
             0xFFFFFFFFFFFFFFFF, 0x0123456789ABCDEF]
WORD_AMTS = [0, 1, 31, 32, 33, 63, 64, 65, 0x20 | (1 << 32), 0x100000000, 0x100000001,
             0xFFFFFFFF, 0x8000000000000000, 0xFFFFFFFFFFFFFFFF]

# 8-bit lanes: four lanes to a 32-bit word, each with its own amount. Amounts 8 to 31 are in
# range for a 32-bit shift and out of range for 8 bits; 32 and above, taken modulo 32 as a
# 32-bit shift does (33 -> 1, 64 -> 0, 0x88 -> 8, 0xE1 -> 1), look small.
LANE8_VALS = [0xFF, 0x80, 0x81, 0xC3, 0x7F, 0x01, 0xA5, 0x5A] * 4
LANE8_AMTS = [0, 7, 8, 9, 1, 15, 16, 31,
              32, 33, 64, 0x88, 0xE1, 255, 3, 6,
              1, 2, 3, 4, 5, 6, 7, 0,
              7, 0, 40, 1, 128, 2, 9, 4]
# 16-bit lanes: two to a word. 0x101 and 0x8001 have a low byte (or low five bits) of 1.
LANE16_VALS = [0xFFFF, 0x8000, 0x8001, 0x00FF, 0xFF00, 0x7FFF] * 4
LANE16_AMTS = [0, 15, 16, 17, 31, 32,
               33, 48, 0x101, 0xFFFF, 0x8000, 1,
               14, 0x10F, 0x20, 0x21, 2, 0x1F,
               8, 0x8001, 4, 0x7FFF, 12, 7]

for op, pre in [("bit_shift_left", "bshl"), ("bit_shift_right", "bshr")]:
    src = SRC_DML[op]
    left = op in LEFT
    # The ONNX BitShift-11 description's example, and ONNX's backend tests (unsigned types).
    if left:
        dml(f"{pre}_doc_onnx_example_u8", op, "u8", [2], [1, 2], [1, 2], check=[2, 8],
            tags=["doc", "onnx", "seed"], source=SRC_ONNX11 + "; " + src,
            notes="ONNX's example: LEFT, X = [1, 2], Y = [1, 2] -> [2, 8].")
    else:
        dml(f"{pre}_doc_onnx_example_u8", op, "u8", [2], [1, 4], [1, 1], check=[0, 2],
            tags=["doc", "onnx", "seed"], source=SRC_ONNX11 + "; " + src,
            notes="ONNX's example: RIGHT, X = [1, 4], Y = [1, 1] -> [0, 2].")
    for dt in DML_UINTS:
        dml(f"{pre}_onnx_{dt}", op, dt, [3], [16, 4, 1], [1, 2, 3],
            check=[32, 16, 8] if left else [8, 1, 0], tags=["onnx"],
            source=SRC_ONNX_TEST + f" (test_bitshift_{'left' if left else 'right'}_uint"
                                   f"{8 * WIDTH[dt]}); " + src)
    # Every value against every amount edge, per type.
    for dt in DML_UINTS:
        vals, amts = specials(dt), shift_amounts(dt)
        a, b = cross(vals, amts)
        dml(f"{pre}_amounts_cross_{dt}", op, dt, [len(vals), len(amts)], a, b,
            tags=["specials", "extreme_int", "out_of_range_amount"],
            source=src + "; " + SRC_FLH + "; " + SRC_ONNX28,
            notes="Rows: values with high bits set; columns: amounts 0, 1, bits-1, bits, "
                  "bits+1, ..., the largest. " + RULE_NOTE)
    # Exactly 4-D: valid from FL 2.1 (UINT64 from FL 4.1).
    for dt in DML_UINTS:
        shape = [2, 1, 3, 2] if dt == "u64" else [1, 2, 3, 4]
        n = prod(shape)
        dml(f"{pre}_4d_{dt}", op, dt, shape, rand(dt, n), rand_amounts(dt, n),
            tags=["feature_level"], source=src + "; " + SRC_FLH,
            notes="4-D: the only DimensionCount below DML_FEATURE_LEVEL_3_0 (introduced in "
                  "DML_FEATURE_LEVEL_2_1); UINT64 from DML_FEATURE_LEVEL_4_1.")
    # Lanes of one 32-bit word, each with its own amount.
    dml(f"{pre}_lanes_u8", op, "u8", [4, 8], LANE8_VALS, LANE8_AMTS,
        tags=["lanes", "out_of_range_amount", "extreme_int"], source=src + "; " + SRC_ONNX28,
        notes="Four 8-bit lanes to a word, neighbours with different amounts: no bit crosses "
              "into a neighbouring lane, and every amount from 8 to 255 gives 0, where an "
              "amount taken modulo 32 (33 -> 1, 64 -> 0) or modulo 8 (9 -> 1) does not. "
              + RULE_NOTE)
    dml(f"{pre}_lanes_u16", op, "u16", [4, 6], LANE16_VALS, LANE16_AMTS,
        tags=["lanes", "out_of_range_amount", "extreme_int"], source=src + "; " + SRC_ONNX28,
        notes="Two 16-bit lanes to a word, neighbours with different amounts; 0x101 and 0x8001 "
              "are out of range though their low byte is 1. " + RULE_NOTE)
    a, b = cross(WORD_VALS, WORD_AMTS)
    dml(f"{pre}_word_boundary_u64", op, "u64", [len(WORD_VALS), len(WORD_AMTS)], a, b,
        tags=["word_boundary", "out_of_range_amount", "extreme_int"],
        source=src + "; " + SRC_ONNX28,
        notes="64-bit elements shifted by 31, 32, 33, 63, 64, 65: bits cross the 32-bit word "
              "boundary. Amounts 2^32, 2^32+1, 2^32+32 have a small low word but are out of "
              "range. " + RULE_NOTE)
    # Odd lengths and ranks.
    for dt, n in [("u8", 1), ("u8", 7), ("u16", 5), ("u32", 3), ("u64", 3), ("u8", 4099),
                  ("u16", 1023)]:
        dml(f"{pre}_len{n}_{dt}", op, dt, [n], rand(dt, n), rand_amounts(dt, n),
            tags=["odd_length"])
    shape = [2, 1, 3, 1, 2, 1, 2, 2]
    dml(f"{pre}_rank8_u16", op, "u16", shape, rand("u16", 48), rand_amounts("u16", 48),
        tags=["rank8"])
    shape = [1, 2, 1, 2, 1, 3, 1, 2]
    dml(f"{pre}_rank8_u64", op, "u64", shape, rand("u64", 24), rand_amounts("u64", 24),
        tags=["rank8"])
    # Strides: padded rows, zero-stride broadcasts of the amount and of the value, a padded
    # output, a transposed input.
    dml(f"{pre}_strides_padded_a_u8", op, "u8", [3, 5], fill(3 * 7 - 2, "u8", 7),
        rand_amounts("u8", 15), a_strides=[7, 1], tags=["strides", "padded"],
        source=SRC_STRIDES)
    dml(f"{pre}_strides_zero_row_broadcast_amount_u32", op, "u32", [4, 6], rand("u32", 24),
        [0, 1, 31, 32, 17, 0x80000000], b_strides=[0, 1], tags=["strides", "zero_stride"],
        source=SRC_STRIDES, notes="One row of amounts, repeated down the rows with stride 0.")
    dml(f"{pre}_strides_zero_col_broadcast_value_u16", op, "u16", [5, 3], [0xFFFF, 0x8001,
        0x1234, 0x00FF, 0x7FFF], rand_amounts("u16", 15), a_strides=[1, 0],
        tags=["strides", "zero_stride"], source=SRC_STRIDES,
        notes="One value per row, read at every column with stride 0, shifted by a different "
              "amount in each.")
    dml(f"{pre}_strides_scalar_amount_u8", op, "u8", [3, 4], rand("u8", 12), [3],
        b_strides=[0, 0], tags=["strides", "zero_stride"], source=SRC_STRIDES,
        notes="One amount read at every index with Strides {0,0}.")
    dml(f"{pre}_out_strides_padded_u16", op, "u16", [3, 4], rand("u16", 12),
        rand_amounts("u16", 12), out_strides=[6, 1],
        tags=["strides", "out_strides", "padded"], source=SRC_STRIDES,
        notes="Output rows 6 elements apart: the 2 padding elements of each row keep their "
              "bytes.")
    dml(f"{pre}_strides_transposed_a_u64", op, "u64", [4, 3], rand("u64", 12),
        rand_amounts("u64", 12), a_strides=[1, 4], out_strides=[4, 1],
        tags=["strides", "transposed", "out_strides", "padded"], source=SRC_STRIDES)
    # In place, every alias.
    dml(f"{pre}_inplace_out_aliases_a_padded_u16", op, "u16", [2, 4], rand("u16", 11),
        rand_amounts("u16", 8), a_strides=[7, 1], out_strides=[7, 1], alias="out=a",
        tags=["in_place", "padded"], source=src + "; " + SRC_BINDING,
        notes="'This operator supports in-place execution': the output bound to A's range.")
    dml(f"{pre}_inplace_out_aliases_b_u32", op, "u32", [9], rand("u32", 9),
        rand_amounts("u32", 9), alias="out=b", tags=["in_place"],
        source=src + "; " + SRC_BINDING,
        notes="The output bound to the amounts' range: each amount is read before its element "
              "is written.")
    same = [0, 1, 2, 3, 7, 8, 9, 0x80, 0xFF, 5]
    dml(f"{pre}_inputs_same_buffer_u8", op, "u8", [10], same, same, alias="a=b",
        tags=["aliasing", "out_of_range_amount"], source=src + "; " + SRC_BINDING,
        notes="A and B bound to one range: each element shifted by itself.")
    same = [0, 1, 5, 31, 32, 0x80000003]
    dml(f"{pre}_inplace_all_one_range_u32", op, "u32", [2, 3], same, same, alias="out=a=b",
        tags=["in_place", "aliasing", "out_of_range_amount"], source=src + "; " + SRC_BINDING,
        notes="'OutputTensor is permitted to alias one of the input tensors'; here A and B "
              "share the range too.")
    dml(f"{pre}_inplace_out_aliases_a_u64", op, "u64", [5], WORD_VALS[:5],
        [1, 31, 32, 33, 64], alias="out=a", tags=["in_place", "word_boundary"],
        source=src + "; " + SRC_BINDING)
    dml(f"{pre}_inplace_out_aliases_b_u8", op, "u8", [13], rand("u8", 13),
        rand_amounts("u8", 13), alias="out=b", tags=["in_place", "odd_length"],
        source=src + "; " + SRC_BINDING)
    # Binding offsets, a larger TotalTensorSizeInBytes, GuaranteedBaseOffsetAlignment.
    dml(f"{pre}_binding_offsets_u32", op, "u32", [6], rand("u32", 6), rand_amounts("u32", 6),
        extra={"a_offset_bytes": 16, "b_offset_bytes": 32, "out_offset_bytes": 48,
               "out_total_bytes": 32, "b_guaranteed_alignment": 32},
        tags=["binding_offset", "total_bytes", "alignment"], source=SRC_BINDING,
        notes="Offsets are multiples of 16 (and of B's GuaranteedBaseOffsetAlignment 32); the "
              "output's TotalTensorSizeInBytes is 8 bytes above DMLCalcBufferTensorSize.")
    # OWNED_BY_DML input.
    if left:
        dml(f"{pre}_owned_by_dml_b_u16", op, "u16", [5], rand("u16", 5), [0, 1, 15, 16, 3],
            extra={"b_flags": "OWNED_BY_DML"}, tags=["owned_by_dml"],
            source=src + "; " + SRC_FLAGS,
            notes="The amounts are the operator's own copy (initializer-owned); calls bind A "
                  "and the output.")
    else:
        dml(f"{pre}_owned_by_dml_a_u32", op, "u32", [5], rand("u32", 5), [0, 1, 31, 32, 4],
            extra={"a_flags": "OWNED_BY_DML"}, tags=["owned_by_dml"],
            source=src + "; " + SRC_FLAGS,
            notes="The values are the operator's own copy; calls bind B and the output.")

    # Errors: types at every level, feature levels, ranks.
    for dt in DML_REFUSED:
        err(f"{pre}_err_{dt}", op, dt, [4], "unsupported_dtype",
            f"{dt}: only UINT8, UINT16, UINT32 (FL 2.1) and UINT64 (FL 4.1) at any level",
            source=src + "; " + SRC_FLH)
    err(f"{pre}_err_bool_dtype", op, "bool", [4], "unsupported_dtype",
        "bool is not a DML_TENSOR_DATA_TYPE")
    err(f"{pre}_err_i32_4d_at_fl2_1", op, "i32", [1, 1, 2, 2], "unsupported_dtype",
        "INT32 is not supported at DML_FEATURE_LEVEL_2_1", feature_level="2_1",
        tags=["feature_level"], source=src + "; " + SRC_FLH)
    err(f"{pre}_err_i16_at_fl3_0", op, "i16", [6], "unsupported_dtype",
        "INT16 is not supported at DML_FEATURE_LEVEL_3_0", feature_level="3_0",
        tags=["feature_level"], source=src + "; " + SRC_FLH)
    err(f"{pre}_err_i64_at_fl6_4", op, "i64", [3], "unsupported_dtype",
        "INT64 is not supported at any level", feature_level="6_4",
        tags=["feature_level"], source=src + "; " + SRC_FLH)
    err(f"{pre}_err_u64_at_fl3_0", op, "u64", [4], "unsupported_dtype",
        "UINT64 requires DML_FEATURE_LEVEL_4_1", feature_level="3_0",
        tags=["feature_level"], source=src + "; " + SRC_FLH)
    err(f"{pre}_err_u64_4d_at_fl2_1", op, "u64", [1, 1, 2, 2], "unsupported_dtype",
        "UINT64 requires DML_FEATURE_LEVEL_4_1", feature_level="2_1",
        tags=["feature_level"], source=src + "; " + SRC_FLH)
    err(f"{pre}_err_u8_4d_at_fl2_0", op, "u8", [1, 1, 2, 2], "unsupported_dtype",
        "the operator was introduced in DML_FEATURE_LEVEL_2_1", feature_level="2_0",
        tags=["feature_level"], source=src + "; " + SRC_FLH)
    err(f"{pre}_err_u32_4d_at_fl1_0", op, "u32", [1, 2, 1, 2], "unsupported_dtype",
        "the operator was introduced in DML_FEATURE_LEVEL_2_1", feature_level="1_0",
        tags=["feature_level"], source=src + "; " + SRC_FLH)
    err(f"{pre}_err_u16_rank2_at_fl2_1", op, "u16", [2, 2], "rank_out_of_range",
        "below DML_FEATURE_LEVEL_3_0 exactly 4 dimensions", feature_level="2_1",
        tags=["feature_level"], source=src + "; " + SRC_FLH)
    err(f"{pre}_err_u32_rank5_at_fl2_1", op, "u32", [1, 1, 1, 2, 2], "rank_out_of_range",
        "below DML_FEATURE_LEVEL_3_0 exactly 4 dimensions", feature_level="2_1",
        tags=["feature_level"], source=src + "; " + SRC_FLH)
    err(f"{pre}_err_u8_rank1_at_fl2_1", op, "u8", [4], "rank_out_of_range",
        "below DML_FEATURE_LEVEL_3_0 exactly 4 dimensions", feature_level="2_1",
        tags=["feature_level"], source=src + "; " + SRC_FLH)
    err(f"{pre}_err_dtype_mismatch_a_u8_b_u16", op, "u8", [4], "dtype_mismatch",
        "ATensor, BTensor and OutputTensor must have the same DataType", b_dtype="u16")
    err(f"{pre}_err_dtype_mismatch_amount_u32_value_u64", op, "u64", [4], "dtype_mismatch",
        "ATensor, BTensor and OutputTensor must have the same DataType (a UINT32 amount for "
        "UINT64 values)", b_dtype="u32")
    err(f"{pre}_err_dtype_mismatch_out_i32_in_u32", op, "u32", [4], "dtype_mismatch",
        "same width, different DataType", out_dtype="i32")
    err(f"{pre}_err_shape_mismatch_b", op, "u16", [2, 3], "shape_mismatch",
        "Sizes differ: no broadcasting in DirectML (a 1-row amount tensor needs stride 0)",
        b_shape=[1, 3])
    err(f"{pre}_err_shape_mismatch_out", op, "u8", [2, 3], "shape_mismatch",
        "ATensor and OutputTensor must have the same Sizes", out_shape=[3, 2])
    err(f"{pre}_err_rank9", op, "u8", [2, 1, 1, 1, 1, 1, 1, 1, 2], "rank_out_of_range",
        "DimensionCount 9 > 8")
    err(f"{pre}_err_output_zero_stride", op, "u32", [3, 3], "output_overlap",
        "output Strides {0,1} overlap (library policy: writes would race)",
        out_strides=[0, 1], notes="Library policy, not a DirectML rule.")
    err(f"{pre}_err_inplace_total_bytes_differ", op, "u8", [8], "alias_desc_mismatch",
        "in-place binding requires the same TotalTensorSizeInBytes", alias="out=a",
        a_total_bytes=8, out_total_bytes=16, tags=["in_place"], source=src + "; " + SRC_BINDING)
    if not left:
        continue  # the layout rules below are the same for both: BIT_SHIFT_LEFT has them
    err(f"{pre}_err_rank_mismatch", op, "u8", [6], "rank_mismatch",
        "DimensionCount differs", b_shape=[2, 3])
    err(f"{pre}_err_zero_size_dim", op, "u32", [2, 0], "zero_size_dim", "a Size of 0")
    err(f"{pre}_err_strides_length", op, "u8", [2, 3], "strides_length_mismatch",
        "Strides has 1 entry for 2 dimensions", b_strides=[1], source=SRC_STRIDES)
    err(f"{pre}_err_total_bytes_too_small", op, "u16", [3], "total_bytes_too_small",
        "TotalTensorSizeInBytes 4 < DMLCalcBufferTensorSize 8", b_total_bytes=4)
    err(f"{pre}_err_binding_offset_misaligned", op, "u8", [4], "binding_offset_misaligned",
        "a binding offset must be a multiple of 16", b_offset_bytes=8, source=SRC_BINDING)
    err(f"{pre}_err_offset_below_guaranteed_alignment", op, "u32", [4],
        "binding_offset_misaligned",
        "the offset 16 is not a multiple of GuaranteedBaseOffsetAlignment 32",
        a_guaranteed_alignment=32, a_offset_bytes=16, source=SRC_BINDING)
    err(f"{pre}_err_alignment_below_element_size", op, "u64", [4], "invalid_alignment",
        "GuaranteedBaseOffsetAlignment 4 < element size 8", out_guaranteed_alignment=4)
    err(f"{pre}_err_owned_by_dml_on_output", op, "u8", [4], "owned_by_dml_on_output",
        "OWNED_BY_DML on an output", out_flags="OWNED_BY_DML", tags=["owned_by_dml"],
        source=SRC_FLAGS)

generated("bshl_large_u8_100003", "bit_shift_left", "u8", [100003], [301, 302],
          ("bits", "bits"), tags=["out_of_range_amount"],
          notes="Amounts are every byte: about 1 in 32 is in range, the rest give 0.")
generated("bshr_large_u8_strided_257x389", "bit_shift_right", "u8", [257, 389], [303, 304],
          ("bits", "bits"), a_strides=[392, 1],
          tags=["strides", "padded", "out_of_range_amount"],
          source=SRC_BSHR + "; " + SRC_STRIDES)
generated("bshl_large_u32_65537_amounts_0_1", "bit_shift_left", "u32", [65537], [305, 306],
          ("bits", "bool"), notes="B's `bool` stream: amounts 0 and 1.")
generated("bshr_large_u64_40009_amounts_0_1", "bit_shift_right", "u64", [40009], [307, 308],
          ("bits", "bool"), notes="B's `bool` stream: amounts 0 and 1.")
generated("bshl_large_u16_70001_sparse_amounts", "bit_shift_left", "u16", [70001], [309, 310],
          ("bits", "sparse"), tags=["out_of_range_amount"],
          notes="B's `sparse` stream: about half the amounts 0 (the value unchanged), the rest "
                "mostly out of range (0).")

# ===== OpenVINO BitwiseLeftShift-15, BitwiseRightShift-15 ======================================

SV = [0, 0, 1, -1, 3, -3, 2, -2, 64, -64]           # the template tests' signed values
UV = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 51, 64]          # and unsigned values
MIN32 = -2147483648
# The template tests' outputs for values x amounts tables, by amount (checked, not used).
TPL_LEFT_ROWS = {
    0: SV,
    1: [0, 0, 2, -2, 6, -6, 4, -4, 128, -128],
    2: [0, 0, 4, -4, 12, -12, 8, -8, 256, -256],
    3: [0, 0, 8, -8, 24, -24, 16, -16, 512, -512],
    8: [0, 0, 256, -256, 768, -768, 512, -512, 16384, -16384],
}
TPL_RIGHT_ROWS = {
    0: SV,
    1: [0, 0, 0, -1, 1, -2, 1, -1, 32, -32],
    2: [0, 0, 0, -1, 0, -1, 0, -1, 16, -16],
    3: [0, 0, 0, -1, 0, -1, 0, -1, 8, -8],
    4: [0, 0, 0, -1, 0, -1, 0, -1, 4, -4],
    7: [0, 0, 0, -1, 0, -1, 0, -1, 0, -1],
    8: [0, 0, 0, -1, 0, -1, 0, -1, 0, -1],
    16: [0, 0, 0, -1, 0, -1, 0, -1, 0, -1],
    31: [0, 0, 0, -1, 0, -1, 0, -1, 0, -1],
}
TPL_U_LEFT_ROWS = {
    0: UV,
    1: [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 102, 128],
    2: [0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 204, 256],
    3: [0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 408, 512],
    4: [0, 16, 32, 48, 64, 80, 96, 112, 128, 144, 816, 1024],
    7: [0, 128, 256, 384, 512, 640, 768, 896, 1024, 1152, 6528, 8192],
    8: [0, 256, 512, 768, 1024, 1280, 1536, 1792, 2048, 2304, 13056, 16384],
    63: [0, 1 << 63] * 5 + [1 << 63, 0],
}
TPL_U_RIGHT_ROWS = {
    0: UV,
    1: [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 25, 32],
    2: [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 12, 16],
    3: [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 6, 8],
    4: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 4],
    7: [0] * 12,
    8: [0] * 12,
    63: [0] * 12,
}


TPL_I8_LEFT_ROWS = {
    0: SV,
    1: [0, 0, 2, -2, 6, -6, 4, -4, -128, -128],
    2: [0, 0, 4, -4, 12, -12, 8, -8, 0, 0],
    3: [0, 0, 8, -8, 24, -24, 16, -16, 0, 0],
    4: [0, 0, 16, -16, 48, -48, 32, -32, 0, 0],
    7: [0, 0, -128, -128, -128, -128, 0, 0, 0, 0],
}
TPL_U8_LEFT_ROWS = {
    0: UV,
    1: [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 102, 128],
    2: [0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 204, 0],
    3: [0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 152, 0],
    4: [0, 16, 32, 48, 64, 80, 96, 112, 128, 144, 48, 0],
    7: [0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 128, 0],
}
TPL_WIDE_LEFT_ROWS = {
    ("i64", 31): [0, 0, 2147483648, MIN32, 6442450944, -6442450944, 4294967296, -4294967296,
                  137438953472, -137438953472],
    ("i32", 31): [0, 0, MIN32, MIN32, MIN32, MIN32, 0, 0, 0, 0],
    ("i16", 15): [0, 0, -32768, -32768, -32768, -32768, 0, 0, 0, 0],
}


def tpl_rows(op, dtype, amounts):
    """The output the template test lists for its values table shifted by `amounts`, row by
    row, as bit patterns."""
    if op not in LEFT:
        rows = TPL_U_RIGHT_ROWS if dtype.startswith("u") else TPL_RIGHT_ROWS
    elif dtype == "u8":
        rows = TPL_U8_LEFT_ROWS
    elif dtype.startswith("u"):
        rows = TPL_U_LEFT_ROWS
    elif dtype == "i8":
        rows = TPL_I8_LEFT_ROWS
    else:
        rows = dict(TPL_LEFT_ROWS)
        rows.update({s: r for (dt, s), r in TPL_WIDE_LEFT_ROWS.items() if dt == dtype})
    return [v for s in amounts for v in rows[s]]


def tpl_amounts(dtype, left):
    """The template test's amounts for its 6 x 1 x 1 amount tensor of each type."""
    if dtype in ("u8", "u16", "u32", "i8"):
        return [0, 1, 2, 3, 4, 7]
    if dtype == "u64":
        return [0, 1, 2, 3, 8, 63]
    if dtype == "i16":
        return [0, 1, 2, 3, 8, 15 if left else 16]
    return [0, 1, 2, 3, 8, 31]


ONNX28_SIGNED = {
    # name: (dtype, x, y, listed z) from ONNX's backend tests, by direction.
    "bitwise_right_shift_broadcast": [
        ("right_int8_negative_input", "i8", [-8, -1, -128], [1, 1, 1], [-4, -1, -64]),
        ("right_int32_negative_input", "i32", [-8, -1, MIN32], [1, 1, 1],
         [-4, -1, -1073741824]),
        ("right_int8_shift_ge_width", "i8", [-8, 4, -1], [8, 9, 127], [-1, 0, -1]),
        ("right_int32_shift_ge_width", "i32", [-8, 4, -1], [32, 33, 100], [-1, 0, -1]),
        ("right_int8_negative_shift", "i8", [-8, 4, -1], [-1, -8, -16], [-1, 0, -1]),
        ("right_int32_negative_shift", "i32", [-8, 4, -1], [-1, -32, -64], [-1, 0, -1]),
    ],
    "bitwise_left_shift_broadcast": [
        ("left_int8_overflow", "i8", [64, 1, -64], [1, 7, 1], [-128, -128, -128]),
        ("left_int32_overflow", "i32", [1073741824, 1, -1073741824], [1, 31, 1],
         [MIN32, MIN32, MIN32]),
        ("left_int8_shift_ge_width", "i8", [-8, 4, -1], [8, 9, 127], [0, 0, 0]),
        ("left_int32_shift_ge_width", "i32", [-8, 4, -1], [32, 33, 100], [0, 0, 0]),
        ("left_int8_negative_shift", "i8", [-8, 4, -1], [-1, -8, -16], [0, 0, 0]),
        ("left_int32_negative_shift", "i32", [-8, 4, -1], [-1, -32, -64], [0, 0, 0]),
    ],
}

# Signed 64-bit amounts across the word boundary: 2^32 and -2^32 have a zero low word,
# 0xFFFFFFFF00000020 (negative) has a low word of 32.
I64_WORD_VALS = pats("i64", [1, -1, 0x80000000, -0x80000000, 0x0000000180000001,
                             -0x0123456789ABCDEF, (1 << 63) - 1, -(1 << 63)])
I64_WORD_AMTS = pats("i64", [0, 1, 31, 32, 33, 63, 64, 65, -1, -32, -33, -64, 1 << 32,
                             (1 << 32) + 1, -(1 << 32), 0xFFFFFFFF, -0xFFFFFFE0,
                             (1 << 63) - 1, -(1 << 63)])
# i8 lanes with negative and too-large amounts beside in-range ones; -7 and -15 have a low
# three (or four) bits of 1.
I8_LANE_VALS = pats("i8", [-1, -128, -127, -61, 127, 1, -91, 90] * 4)
I8_LANE_AMTS = pats("i8", [0, 7, 8, 9, -1, -7, -8, -128,
                           1, 127, 2, 33, -15, 3, 64, 6,
                           -2, 4, 5, -9, 6, 16, 7, 0,
                           7, -33, 31, 1, 32, 2, -127, 4])
I16_LANE_VALS = pats("i16", [-1, -32768, -32767, 255, -256, 32767] * 4)
I16_LANE_AMTS = pats("i16", [0, 15, 16, 17, -1, -15,
                             -16, 31, 32, 33, 0x101, -32768,
                             14, 1, 32767, -0xFF, 2, 8,
                             -17, 0x10F, 4, 7, 12, 3])

for op, pre in [("bitwise_left_shift_broadcast", "ovshl"),
                ("bitwise_right_shift_broadcast", "ovshr")]:
    spec, tpl = SRC_OV[op], SRC_TPL[op]
    left = op in LEFT
    word = "left" if left else "right"
    # The template plugin's tests: [10] x [1], [2,5] x [1,1] and [2,1], values x amounts.
    if left:
        one = TPL_LEFT_ROWS[1]
        ov(f"{pre}_template_10_x_1_i32", op, "i32", [10], pats("i32", SV), [1], [1],
           tags=["openvino_test", "numpy"], source=tpl, check=one)
        ov(f"{pre}_template_2x5_x_1x1_i32", op, "i32", [2, 5], pats("i32", SV), [1, 1], [1],
           tags=["openvino_test", "numpy"], source=tpl, check=one)
        ov(f"{pre}_template_2x5_x_2x1_i32", op, "i32", [2, 5], pats("i32", SV), [2, 1], [1, 2],
           tags=["openvino_test", "numpy"], source=tpl,
           check=[0, 0, 2, -2, 6, -12, 8, -8, 256, -256])
        ov(f"{pre}_template_10_x_1_i8", op, "i8", [10], pats("i8", SV), [1], [1],
           tags=["openvino_test", "numpy", "extreme_int"], source=tpl,
           check=[0, 0, 2, -2, 6, -6, 4, -4, -128, -128],
           notes="64 << 1 wraps to -128 in i8.")
    else:
        one = TPL_RIGHT_ROWS[1]
        ov(f"{pre}_template_10_x_1_i32", op, "i32", [10], pats("i32", SV), [1], [1],
           tags=["openvino_test", "numpy"], source=tpl, check=one)
        ov(f"{pre}_template_5x2_x_1x1_i32", op, "i32", [5, 2], pats("i32", SV), [1, 1], [1],
           tags=["openvino_test", "numpy"], source=tpl, check=one)
        ov(f"{pre}_template_2x5_x_2x1_i32", op, "i32", [2, 5], pats("i32", SV), [2, 1], [1, 2],
           tags=["openvino_test", "numpy"], source=tpl,
           check=[0, 0, 0, -1, 1, -1, 0, -1, 16, -16])
        ov(f"{pre}_template_10_x_1_i8", op, "i8", [10], pats("i8", SV), [1], [1],
           tags=["openvino_test", "numpy"], source=tpl, check=one)
    for dt in ["i64", "i32", "i16", "i8", "u8", "u16", "u32", "u64"]:
        amts = tpl_amounts(dt, left)
        vals = UV if dt.startswith("u") else SV
        shape = [2, 6] if dt.startswith("u") else [2, 5]
        ov(f"{pre}_template_{shape[0]}x{shape[1]}_x_6x1x1_{dt}", op, dt, shape,
           pats(dt, vals), [6, 1, 1], pats(dt, amts), tags=["openvino_test", "numpy"],
           source=tpl, check=tpl_rows(op, dt, amts),
           notes=f"Amounts {amts}: the output is 6 x {shape[0]} x {shape[1]}.")
    ov(f"{pre}_template_negative_amount_1x10_x_1_i32", op, "i32", [1, 10], pats("i32", SV),
       [1], pats("i32", [-1]), tags=["openvino_test", "numpy", "negative_amount"],
       source=tpl + " (commented out there: 'Negative shift, Implementation defined or "
                    "undefined behavior'); " + SRC_ONNX28,
       check=[0] * 10 if left else [0, 0, 0, -1, 0, -1, 0, -1, 0, -1],
       notes="The template test lists this output but leaves the case out as implementation-"
             "defined; the ONNX BitShift-28 rule gives the same values. " + RULE_NOTE)
    # ONNX: the BitShift-11 description's example and the backend tests of every type.
    if left:
        ov(f"{pre}_doc_onnx_example_u32", op, "u32", [2], [1, 2], [2], [1, 2], check=[2, 8],
           tags=["doc", "onnx", "seed"], source=SRC_ONNX11 + "; " + spec,
           notes="ONNX's example: LEFT, X = [1, 2], Y = [1, 2] -> [2, 8].")
    else:
        ov(f"{pre}_doc_onnx_example_u32", op, "u32", [2], [1, 4], [2], [1, 1], check=[0, 2],
           tags=["doc", "onnx", "seed"], source=SRC_ONNX11 + "; " + spec,
           notes="ONNX's example: RIGHT, X = [1, 4], Y = [1, 1] -> [0, 2].")
    for dt in OV_INTS:
        name = ("int" if signed(dt) else "uint") + str(8 * WIDTH[dt])
        ov(f"{pre}_onnx_{dt}", op, dt, [3], [16, 4, 1], [3], [1, 2, 3],
           check=[32, 16, 8] if left else [8, 1, 0], tags=["onnx"],
           source=SRC_ONNX_TEST + f" (test_bitshift_{word}_{name}); " + spec)
    for name, dt, x, y, z in ONNX28_SIGNED[op]:
        tags = ["onnx", "extreme_int"]
        if "negative_shift" in name:
            tags.append("negative_amount")
        if "ge_width" in name or "negative_shift" in name:
            tags.append("out_of_range_amount")
        ov(f"{pre}_onnx_{name}", op, dt, [3], pats(dt, x), [3], pats(dt, y), check=z,
           tags=tags, source=SRC_ONNX_TEST + f" (test_bitshift_{name}); " + SRC_ONNX28)
    # Every value against every amount edge, per type: A [n,1] x B [1,m] (numpy).
    for dt in OV_INTS:
        vals, amts = specials(dt), shift_amounts(dt)
        tags = ["specials", "extreme_int", "out_of_range_amount", "numpy"]
        if signed(dt):
            tags.append("negative_amount")
        ov(f"{pre}_amounts_cross_{dt}", op, dt, [len(vals), 1], vals, [1, len(amts)], amts,
           tags=tags, source=spec + "; " + SRC_ONNX28,
           notes="Values (a column) against amounts (a row), broadcast both ways. " + RULE_NOTE)
    # 64-bit elements across the word boundary; lanes of one 32-bit word.
    a, b = I64_WORD_VALS, I64_WORD_AMTS
    ov(f"{pre}_word_boundary_i64", op, "i64", [len(a), 1], a, [len(b)], b,
       tags=["word_boundary", "out_of_range_amount", "negative_amount", "extreme_int",
             "numpy"], source=spec + "; " + SRC_ONNX28,
       notes="Amounts 31, 32, 33, 63, 64, 65 cross the word boundary; 2^32, -2^32 and "
             "-0xFFFFFFE0 have a low word of 0 or 32 but are out of range. " + RULE_NOTE)
    a, b = cross(WORD_VALS, WORD_AMTS)
    ov(f"{pre}_word_boundary_u64", op, "u64", [len(WORD_VALS), len(WORD_AMTS)], a,
       [len(WORD_VALS), len(WORD_AMTS)], b, broadcast="none",
       tags=["word_boundary", "out_of_range_amount", "extreme_int", "none"],
       source=spec + "; " + SRC_ONNX28, notes=RULE_NOTE)
    ov(f"{pre}_lanes_i8", op, "i8", [4, 8], I8_LANE_VALS, [4, 8], I8_LANE_AMTS,
       tags=["lanes", "out_of_range_amount", "negative_amount", "extreme_int"],
       source=spec + "; " + SRC_ONNX28,
       notes="Four 8-bit lanes to a word with different amounts, negative and too large "
             "beside in-range ones; negative values. " + RULE_NOTE)
    ov(f"{pre}_lanes_i16", op, "i16", [4, 6], I16_LANE_VALS, [4, 6], I16_LANE_AMTS,
       tags=["lanes", "out_of_range_amount", "negative_amount", "extreme_int"],
       source=spec + "; " + SRC_ONNX28, notes=RULE_NOTE)
    ov(f"{pre}_lanes_u8", op, "u8", [4, 8], LANE8_VALS, [4, 8], LANE8_AMTS,
       tags=["lanes", "out_of_range_amount", "extreme_int"], source=spec + "; " + SRC_ONNX28,
       notes=RULE_NOTE)
    # Broadcasts: the spec's numpy example, pdpd, none, the default, scalars.
    ov(f"{pre}_numpy_doc_8x1x6x1_x_7x1x5_i16", op, "i16", [8, 1, 6, 1], rand("i16", 48),
       [7, 1, 5], rand_amounts("i16", 35), tags=["doc", "numpy"],
       source=spec + " (Example 2); " + SRC_BCAST)
    ov(f"{pre}_numpy_amount_row_4x5_x_5_u32", op, "u32", [4, 5], rand("u32", 20), [5],
       [0, 1, 16, 31, 32], tags=["numpy"], source=SRC_BCAST,
       notes="Broadcasting the amount: one row of amounts for every row of values.")
    ov(f"{pre}_numpy_amount_col_3x4_x_3x1_i64", op, "i64", [3, 4], rand("i64", 12), [3, 1],
       pats("i64", [1, 33, -1]), tags=["numpy", "negative_amount"], source=SRC_BCAST)
    ov(f"{pre}_numpy_value_row_1x5_x_3x5_u16", op, "u16", [1, 5],
       [0xFFFF, 0x8000, 0x0001, 0x00FF, 0x1234], [3, 5], rand_amounts("u16", 15),
       tags=["numpy"], source=SRC_BCAST,
       notes="Broadcasting the value: one row of values shifted by three rows of amounts.")
    ov(f"{pre}_numpy_value_scalar_x_9_i8", op, "i8", [], pats("i8", [-100]), [9],
       pats("i8", [-3, -1, 0, 1, 2, 6, 7, 8, 9]),
       tags=["numpy", "scalar", "negative_amount", "out_of_range_amount"], source=SRC_BCAST,
       notes="A scalar value shifted by each of nine amounts. " + RULE_NOTE)
    ov(f"{pre}_numpy_amount_scalar_3x4_x_scalar_u32", op, "u32", [3, 4], rand("u32", 12),
       [], [5], tags=["numpy", "scalar"], source=SRC_BCAST)
    ov(f"{pre}_numpy_onnx_3x4x5_x_5_u64", op, "u64", [3, 4, 5], rand("u64", 60), [5],
       [0, 1, 32, 63, 64], tags=["onnx", "numpy"],
       source="ONNX docs/Broadcasting.md and onnx/backend/test/case/node (shapes); "
              + SRC_BCAST)
    ov(f"{pre}_numpy_default_1x3_x_2x1_i32", op, "i32", [1, 3], rand("i32", 3), [2, 1],
       pats("i32", [3, -3]), tags=["numpy", "negative_amount"], explicit_broadcast=False,
       notes="No `broadcast` field: numpy is the default.")
    ov(f"{pre}_pdpd_2x3x4x5_x_3x4_axis1_u16", op, "u16", [2, 3, 4, 5], rand("u16", 120),
       [3, 4], rand_amounts("u16", 12), broadcast="pdpd", axis=1, tags=["doc", "pdpd"],
       source=SRC_BCAST)
    ov(f"{pre}_pdpd_2x3x4x5_x_3x1_axis1_i8", op, "i8", [2, 3, 4, 5], rand("i8", 120),
       [3, 1], pats("i8", [1, -1, 7]), broadcast="pdpd", axis=1,
       tags=["doc", "pdpd", "negative_amount"], source=SRC_BCAST)
    ov(f"{pre}_pdpd_2x3x4x5_x_4x5_default_u8", op, "u8", [2, 3, 4, 5], rand("u8", 120),
       [4, 5], rand_amounts("u8", 20), broadcast="pdpd", tags=["doc", "pdpd"],
       source=SRC_BCAST)
    ov(f"{pre}_pdpd_2x3x4x5_x_scalar_i32", op, "i32", [2, 3, 4, 5], rand("i32", 120), [],
       [9], broadcast="pdpd", tags=["doc", "pdpd", "scalar"], source=SRC_BCAST)
    ov(f"{pre}_none_2x3_i64", op, "i64", [2, 3], rand("i64", 6), [2, 3],
       rand_amounts("i64", 6), broadcast="none", tags=["none"])
    ov(f"{pre}_scalar_x_scalar_i16", op, "i16", [], pats("i16", [-12345]), [],
       [3], tags=["scalar"])
    ov(f"{pre}_rank10_u8", op, "u8", [2, 1, 2, 1, 1, 2, 1, 1, 3, 1], rand("u8", 24),
       [1, 2, 1, 1, 1, 1, 1, 3, 2], rand_amounts("u8", 12), tags=["rank_gt_8", "numpy"],
       source=spec + "; " + SRC_BCAST, notes="OpenVINO has no rank limit.")
    ov(f"{pre}_rank9_i32", op, "i32", [1, 2, 1, 3, 1, 1, 2, 1, 2], rand("i32", 24),
       [1, 2, 1, 3, 1, 1, 2, 1, 2], rand_amounts("i32", 24), broadcast="none",
       tags=["rank_gt_8", "none"], source=spec, notes="OpenVINO has no rank limit.")
    ov(f"{pre}_zero_size_2x0_x_1_u16", op, "u16", [2, 0], [], [1], [7], tags=["zero_size"],
       source=SRC_BCAST)
    ov(f"{pre}_zero_size_0_x_scalar_i64", op, "i64", [0], [], [], [1],
       tags=["zero_size", "scalar"], source=SRC_BCAST)
    ov(f"{pre}_zero_size_3x0x1_x_1x4_i8", op, "i8", [3, 0, 1], [], [1, 4],
       pats("i8", [0, 1, -1, 8]), tags=["zero_size", "numpy"], source=SRC_BCAST,
       notes="The output is 3 x 0 x 4: no element.")
    # In place, odd lengths.
    ov(f"{pre}_inplace_out_aliases_a_u32", op, "u32", [3, 4], rand("u32", 12), [4],
       [0, 1, 31, 32], alias="out=a", tags=["in_place", "out_of_range_amount"],
       notes="The output (A's shape) bound to A's range.")
    ov(f"{pre}_inplace_out_aliases_b_i16", op, "i16", [5],
       pats("i16", [-1, -32768, 3, 255, -300]), [2, 5], rand_amounts("i16", 10),
       alias="out=b", tags=["in_place"],
       notes="The output (B's shape) bound to the amounts' range.")
    ov(f"{pre}_len4099_i8", op, "i8", [4099], rand("i8", 4099), [4099],
       rand_amounts("i8", 4099), tags=["odd_length"])
    ov(f"{pre}_len7_x_scalar_u64", op, "u64", [7], rand("u64", 7), [], [33],
       tags=["odd_length", "scalar", "word_boundary"])
    # Errors.
    err(f"{pre}_err_boolean", op, "bool", [2, 2], "unsupported_dtype",
        "The element type of the input tensor must be integer number.",
        source=spec + "; " + SRC_OV_TYPES,
        notes="Unlike BitwiseAnd/Or/Xor-13, the shifts take no boolean.")
    for dt in ["f32", "f16", "f64"]:
        err(f"{pre}_err_float_{dt}", op, dt, [3], "unsupported_dtype",
            "The element type of the input tensor must be integer number.",
            source=spec + "; " + SRC_OV_TYPES)
    err(f"{pre}_err_dtype_mismatch_i32_u32", op, "i32", [3], "dtype_mismatch",
        "Arguments do not have the same element type (arg0 element type: i32, arg1 element "
        "type: u32).", b_dtype="u32", source=SRC_OV_TYPES)
    err(f"{pre}_err_dtype_mismatch_amount_i32_value_i64", op, "i64", [3], "dtype_mismatch",
        "Arguments do not have the same element type (arg0 element type: i64, arg1 element "
        "type: i32).", b_dtype="i32", source=SRC_OV_TYPES)
    err(f"{pre}_err_numpy_3_x_4", op, "i32", [3], "shape_inconsistent",
        "Argument shapes are inconsistent.", b_shape=[4], broadcast="numpy", source=SRC_BCAST)
    err(f"{pre}_err_none_256x56_x_56", op, "u8", [256, 56], "shape_inconsistent",
        "Argument shapes are inconsistent.", b_shape=[56], broadcast="none", source=SRC_BCAST)
    err(f"{pre}_err_pdpd_b_onto_a_only", op, "i32", [8, 1, 6, 1], "shape_inconsistent",
        "Argument shapes are inconsistent.", b_shape=[7, 1, 5], broadcast="pdpd",
        pdpd_axis=1, source=SRC_BCAST)
    err(f"{pre}_err_pdpd_dst_smaller_than_src", op, "u16", [2, 3, 4, 1], "shape_inconsistent",
        "Argument shapes are inconsistent.", b_shape=[2, 3, 4, 5], broadcast="pdpd",
        source=SRC_BCAST + "; OpenVINO tests type_prop/bitwise_ops.hpp")
    err(f"{pre}_err_explicit", op, "u8", [2], "unsupported_broadcast",
        "Unsupported auto broadcast specification", broadcast="explicit", source=SRC_BCAST)

generated("ovshl_doc_example1_none_256x56_u8", "bitwise_left_shift_broadcast", "u8", [256, 56],
          [311, 312], ("bits", "bits"), b_shape=[256, 56], broadcast="none",
          tags=["doc", "none", "out_of_range_amount"],
          source=SRC_OV["bitwise_left_shift_broadcast"] + " (Example 1)")
generated("ovshr_doc_example1_none_256x56_i8", "bitwise_right_shift_broadcast", "i8",
          [256, 56], [313, 314], ("bits", "bits"), b_shape=[256, 56], broadcast="none",
          tags=["doc", "none", "out_of_range_amount", "negative_amount"],
          source=SRC_OV["bitwise_right_shift_broadcast"] + " (Example 1)")
generated("ovshl_large_i32_outer_613x1_x_1x619", "bitwise_left_shift_broadcast", "i32",
          [613, 1], [315, 316], ("bits", "bool"), b_shape=[1, 619], tags=["numpy"],
          notes="B's `bool` stream: amounts 0 and 1.")
generated("ovshr_large_i8_131071", "bitwise_right_shift_broadcast", "i8", [131071],
          [317, 318], ("bits", "bits"), b_shape=[131071],
          tags=["out_of_range_amount", "negative_amount"],
          notes="Amounts are every byte: 8 in 256 in range; the rest give 0 or -1.")
generated("ovshr_large_i64_65537_amounts_0_1", "bitwise_right_shift_broadcast", "i64",
          [65537], [319, 320], ("bits", "bool"), b_shape=[65537],
          notes="B's `bool` stream: amounts 0 and 1 (arithmetic shift of negative values).")


# ===== DirectML BIT_COUNT =======================================================================

SRC_BCNT = ("DirectML docs: DML_ELEMENT_WISE_BIT_COUNT_OPERATOR_DESC "
            "(MicrosoftDocs/sdk-api ns-directml-dml_element_wise_bit_count_operator_desc.md)")
BCNT_TYPES = ["u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64", "f16", "f32", "f64"]
BCNT_FL3 = ["u8", "u16", "u32"]
BCNT_OUTS = ["u8", "u32"]
FLOAT_NOTE = ("Float bit patterns are counted as raw bits ('the tensor data type is ignored "
              "except for determining the width of each element'): -0.0 counts 1, NaN payloads "
              "and the sign bit count like any other bit.")
INPLACE_NOTE = ("The BIT_COUNT page, unlike BIT_NOT's ('This operator supports in-place "
                "execution'), lists no in-place execution: the library refuses an output bound "
                "to the input's range, whatever the two types and descriptions.")


def popcount(dtype, x):
    """One element of bit_count: the set bits of `x` over the whole width of `dtype`."""
    return bin(x & mask(dtype)).count("1")


def bcnt_level(dtype):
    """UINT8/16/32 inputs from FL 3.0 (1 to 8-D); the other eight DML types from FL 4.1."""
    return "3_0" if dtype in BCNT_FL3 else "4_1"


_bcnt_seed = [5000]


def bcnt_rand(dtype, n):
    """Deterministic pseudo-random inputs (every bit pattern of the type)."""
    _bcnt_seed[0] += 1
    return stream(_bcnt_seed[0], n, "bits", dtype)


def bcnt(id, dtype, out, shape, a, a_strides=None, out_strides=None, tags=(), source=None,
         notes=None, extra=None, check=None):
    """A valid bit_count case: `dtype` is the input's type, `out` the output's (u8 or u32).
    `a` is the physical buffer when `a_strides` is given, else the logical row-major data."""
    assert dtype in BCNT_TYPES and out in BCNT_OUTS, id
    sa = a_strides or packed(shape)
    so = out_strides or packed(shape)
    assert 1 <= len(shape) <= 8 and 0 not in shape, id
    assert len(a) == physical_len(shape, sa), id
    assert all(0 <= x <= mask(dtype) for x in a), id
    expected = [popcount(dtype, a[sum(i * s for i, s in zip(idx, sa))])
                for idx in indices(shape)]
    if check is not None:
        assert expected == check, (id, expected)
    c = {"id": id, "op": "bit_count", "dtype": dtype, "out_dtype": out, "a_shape": shape,
         "out_shape": shape}
    if a_strides:
        c["a_strides"] = a_strides
    if out_strides:
        c["out_strides"] = out_strides
    c["min_feature_level"] = bcnt_level(dtype)
    c["a_min_bytes"] = min_bytes(shape, sa, dtype)
    c["out_min_bytes"] = min_bytes(shape, so, out)
    c["a_physical_len"] = physical_len(shape, sa)
    c["out_physical_len"] = physical_len(shape, so)
    if extra:
        c.update(extra)
    c["a"] = a
    c["expected"] = expected
    c["tags"] = list(tags)
    c["source"] = source or SRC_BCNT
    if notes:
        c["notes"] = notes
    add(c)


def bcnt_err(id, dtype, out, a_shape, kind, message, tags=(), source=None, notes=None,
             **fields):
    """A bit_count error case: one input (no `b` field), `out_dtype` always present."""
    c = {"id": id, "op": "bit_count", "dtype": dtype, "out_dtype": out, "a_shape": a_shape}
    if "out_shape" not in fields:
        c["out_shape"] = a_shape
    c.update(fields)
    c["expect_error"] = message
    c["error_kind"] = kind
    c["tags"] = ["error"] + list(tags)
    c["source"] = source or SRC_BCNT
    if notes:
        c["notes"] = notes
    add(c)


def bcnt_generated(id, dtype, out, shape, seed, mode, a_strides=None, tags=(), source=None,
                   notes=None):
    """A large bit_count case: a SplitMix64 input, the output by digest (over the output
    type's little-endian bytes), count, head and tail."""
    sa = a_strides or packed(shape)
    count = physical_len(shape, sa)
    a = stream(seed, count, mode, dtype)
    expected = [popcount(dtype, a[sum(i * s for i, s in zip(idx, sa))])
                for idx in indices(shape)]
    c = {"id": id, "op": "bit_count", "dtype": dtype, "out_dtype": out, "a_shape": shape,
         "out_shape": shape}
    if a_strides:
        c["a_strides"] = a_strides
    c["min_feature_level"] = bcnt_level(dtype)
    c["a_min_bytes"] = min_bytes(shape, sa, dtype)
    c["out_min_bytes"] = min_bytes(shape, packed(shape), out)
    c["a_physical_len"] = count
    c["out_physical_len"] = prod(shape)
    c["generator"] = {"algo": "splitmix64", "a": {"seed": seed, "count": count, "mode": mode}}
    c["a_sha256"] = sha(a, dtype)
    set_expected_digest(c, expected, out)
    c["tags"] = ["generator", "large"] + list(tags)
    c["source"] = source or SRC_BCNT
    if notes:
        c["notes"] = notes
    add(c)


def bcnt_specials(dtype):
    """Patterns worth counting: zero, all ones, single bits (low, high, middle), alternating
    bits (0x55.., 0xaa..), nibble and byte patterns, half words, values with the high bits set;
    for 64-bit types words of different counts; for floats +-0, +-1, +-inf, quiet and signalling
    NaNs with payloads, all-ones NaNs, subnormals, the largest finite values."""
    w = 8 * WIDTH[dtype]
    m = (1 << w) - 1
    if dtype == "f16":
        return [0x0000, 0x8000, 0x3C00, 0xBC00, 0x7C00, 0xFC00, 0x7E00, 0x7D55, 0xFE01,
                0x7FFF, 0xFFFF, 0x0001, 0x03FF, 0x0400, 0x7BFF, 0x83FF, 0x3555]
    if dtype == "f32":
        return [0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x7F800000, 0xFF800000,
                0x7FC00000, 0x7FA5A5A5, 0xFFC00001, 0x7FFFFFFF, 0xFFFFFFFF, 0x00000001,
                0x007FFFFF, 0x00800000, 0x7F7FFFFF, 0x807FFFFF, 0x3EAAAAAB]
    if dtype == "f64":
        return [0, 1 << 63, 0x3FF0000000000000, 0xBFF0000000000000, 0x7FF0000000000000,
                0xFFF0000000000000, 0x7FF8000000000000, 0x7FF4A5A5A5A5A5A5,
                0xFFF8000000000001, 0x7FFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFF, 1,
                0x000FFFFFFFFFFFFF, 0x0010000000000000, 0x7FEFFFFFFFFFFFFF,
                0x800FFFFFFFFFFFFF, 0x3FD5555555555555]
    alt = int("01" * (w // 2), 2)
    nib = int("0f" * (w // 8), 16)
    half = (1 << (w // 2)) - 1
    xs = [0, m, 1, 1 << (w - 1), 1 << (w // 2), 1 << (w // 2 - 1), alt, m ^ alt, nib, m ^ nib,
          half, m ^ half, m >> 1, m - 1, (1 << (w - 1)) | 1, 0xFF << (w - 8), m ^ (1 << (w // 2))]
    if w == 64:
        xs += [0xFFFFFFFF00000001, 0x00000001FFFFFFFF, 0x8000000080000000, 0x0000000100000000,
               0x0000000080000000, 0x0123456789ABCDEF]
    return dedupe(xs)


def all_counts(dtype):
    """Every count from 0 to the width three ways (the low c bits, the high c bits, c bits
    spread across the word), then every single bit."""
    w = 8 * WIDTH[dtype]
    m = (1 << w) - 1
    xs = []
    for c in range(w + 1):
        xs.append((1 << c) - 1)
        xs.append(m ^ ((1 << (w - c)) - 1))
        xs.append(sum(1 << (i * w // c) for i in range(c)) if c else 0)
    xs += [1 << k for k in range(w)]
    return xs


# u64 values whose two 32-bit words have different counts (low | high).
BCNT_WORDS = [0x00000000FFFFFFFF, 0xFFFFFFFF00000000, 0x0000000100000003, 0x80000000FFFFFFFE,
              0x7FFFFFFF80000000, 0x0000000100000000, 0xFFFFFFFFFFFFFFFE, 0x5555555500000000,
              0x00000000AAAAAAAA, 0x0123456789ABCDEF, 0xFEDCBA9876543210, 0x8000000000000003,
              0x00000003FFFFFFFF, 0xE00000000000000F, 0x000000FF0000FFFF, 0xFFFFFFFF7FFFFFFF]
assert all(bin(x >> 32).count("1") != bin(x & 0xFFFFFFFF).count("1") for x in BCNT_WORDS)
BCNT_F64_WORDS = [0x7FF0000000000001, 0x000FFFFFFFFFFFFF, 0x3FF0000000000000, 0xC00FFFFF00000000,
                  0x00000000FFFFFFFF, 0x8000000000000000, 0x7FF80000FFFFFFFF, 0xFFFFFFFFFFFFFFFF]
# 8-bit lanes: four to a 32-bit word, counts from 0 to the width mixed within each word.
BCNT_LANE8 = [0xFF, 0x00, 0x01, 0x80, 0x7F, 0xFE, 0x55, 0xAA,
              0x0F, 0xF0, 0x81, 0x18, 0x3C, 0xC3, 0xE7, 0x00,
              0x00, 0xFF, 0x00, 0xFF, 0x01, 0x03, 0x07, 0x0F,
              0x1F, 0x3F, 0x7F, 0xFF, 0x80, 0xC0, 0xE0, 0xF0]
BCNT_LANE16 = [0xFFFF, 0x0000, 0x0001, 0x8000, 0x7FFF, 0xFFFE, 0x5555, 0xAAAA,
               0x00FF, 0xFF00, 0x8001, 0x0180, 0x0F0F, 0xF0F0, 0x7FFE, 0x0000,
               0x0003, 0xC000, 0x1234, 0xFEDC, 0x0000, 0xFFFF, 0x00F0, 0x0F00]

bcnt("bcnt_doc_example_u32_to_u32", "u32", "u32", [2, 2], [0, 123, 456, 789], check=[0, 6, 4, 5],
     tags=["doc", "seed"],
     notes="The page's example: [[0,123],[456,789]] -> [[0,6],[4,5]] (UINT32 in and out).")
bcnt("bcnt_doc_example_u32_to_u8", "u32", "u8", [2, 2], [0, 123, 456, 789], check=[0, 6, 4, 5],
     tags=["doc", "seed"], notes="The page's example with a UINT8 output.")
# Every input type at its first level, with both output types.
for dt in BCNT_TYPES:
    vals = bcnt_specials(dt)
    is_float = dt.startswith("f")
    for out in BCNT_OUTS:
        bcnt(f"bcnt_specials_{dt}_to_{out}", dt, out, [len(vals)], vals,
             tags=["specials", "float_bits" if is_float else "extreme_int"],
             source=SRC_BCNT + "; " + SRC_FLH, notes=FLOAT_NOTE if is_float else None)
# Every count from 0 to the width; every single bit.
for dt, out in [("u8", "u32"), ("i8", "u8"), ("u16", "u8"), ("i16", "u32"), ("u32", "u8"),
                ("i32", "u32"), ("u64", "u8"), ("i64", "u32"), ("f16", "u8"), ("f32", "u32"),
                ("f64", "u8")]:
    vals = all_counts(dt)
    w = 8 * WIDTH[dt]
    bcnt(f"bcnt_all_counts_{dt}_to_{out}", dt, out, [len(vals)], vals,
         tags=["all_counts", "extreme_int"] + (["float_bits"] if dt.startswith("f") else []),
         notes=f"Counts 0 to {w}, each as the low bits, the high bits and bits spread over the "
               f"element, then each of the {w} single bits.")
# 64-bit elements: the two 32-bit words have different counts.
bcnt("bcnt_word_boundary_u64_to_u8", "u64", "u8", [4, 4], BCNT_WORDS,
     tags=["word_boundary", "extreme_int"],
     notes="Each value's low and high words have different counts: counting one word, or "
           "the same word twice, gives a wrong result.")
bcnt("bcnt_word_boundary_u64_to_u32", "u64", "u32", [16], BCNT_WORDS,
     tags=["word_boundary", "extreme_int"])
bcnt("bcnt_word_boundary_i64_to_u8", "i64", "u8", [2, 8], BCNT_WORDS[::-1],
     tags=["word_boundary", "extreme_int"],
     notes="Negative INT64 values count every bit of their two's complement pattern.")
bcnt("bcnt_word_boundary_f64_to_u32", "f64", "u32", [8], BCNT_F64_WORDS,
     tags=["word_boundary", "float_bits"], notes=FLOAT_NOTE)
# Narrow lanes of one 32-bit word.
bcnt("bcnt_lanes_u8_to_u8", "u8", "u8", [4, 8], BCNT_LANE8, tags=["lanes"],
     notes="Four 8-bit lanes to a word in and out, counts 0 to 8 mixed within each word.")
bcnt("bcnt_lanes_u8_to_u32", "u8", "u32", [4, 8], BCNT_LANE8, tags=["lanes"],
     notes="Each 8-bit lane of an input word gives a whole 32-bit output word.")
bcnt("bcnt_lanes_u16_to_u8", "u16", "u8", [4, 6], BCNT_LANE16, tags=["lanes"],
     notes="Two 16-bit lanes to an input word; an output word takes four counts from two "
           "input words.")
bcnt("bcnt_lanes_i8_to_u8", "i8", "u8", [2, 16], BCNT_LANE8, tags=["lanes", "extreme_int"])
# Odd lengths: UINT8 outputs that end inside a 32-bit word.
for dt, out, n in [("u64", "u8", 1), ("u32", "u8", 3), ("u16", "u8", 5), ("u8", "u8", 7),
                   ("i64", "u8", 17), ("u8", "u32", 33), ("f16", "u8", 33), ("i32", "u8", 6),
                   ("u16", "u32", 1023), ("i8", "u8", 4099)]:
    bcnt(f"bcnt_len{n}_{dt}_to_{out}", dt, out, [n], bcnt_rand(dt, n), tags=["odd_length"],
         notes=f"{n} UINT8 counts end inside a 32-bit word." if out == "u8" and n % 4 else None)
# Ranks 1 to 8.
for dt, out, shape, tags in [("u16", "u8", [3, 5], []), ("i32", "u8", [2, 3, 5], []),
                             ("u8", "u32", [2, 1, 3, 4], []), ("u32", "u8", [1, 2, 1, 3, 3], []),
                             ("f32", "u32", [2, 1, 2, 1, 3, 2], []),
                             ("u64", "u8", [2, 1, 2, 1, 3, 1, 2, 2], ["rank8"]),
                             ("u8", "u32", [1, 2, 1, 2, 1, 3, 1, 2], ["rank8"]),
                             ("f64", "u8", [1, 1, 1, 1, 1, 1, 1, 5], ["rank8", "float_bits"])]:
    r = len(shape)
    bcnt(f"bcnt_rank{r}_{dt}_to_{out}", dt, out, shape, bcnt_rand(dt, prod(shape)), tags=tags)
# Strides: padded, transposed and broadcast (zero-stride) inputs; padded outputs.
bcnt("bcnt_strides_padded_u64_to_u8", "u64", "u8", [3, 5], bcnt_rand("u64", 2 * 7 + 5),
     a_strides=[7, 1], tags=["strides", "padded"], source=SRC_STRIDES,
     notes="Input rows 7 elements apart; the padding elements are read by no index.")
bcnt("bcnt_strides_padded_u8_to_u32", "u8", "u32", [3, 5], bcnt_rand("u8", 2 * 6 + 5),
     a_strides=[6, 1], tags=["strides", "padded"], source=SRC_STRIDES)
bcnt("bcnt_strides_transposed_u64_to_u8", "u64", "u8", [4, 3], bcnt_rand("u64", 12),
     a_strides=[1, 4], tags=["strides", "transposed"], source=SRC_STRIDES)
bcnt("bcnt_strides_transposed_u8_to_u32", "u8", "u32", [3, 5], bcnt_rand("u8", 15),
     a_strides=[1, 3], tags=["strides", "transposed"], source=SRC_STRIDES)
bcnt("bcnt_strides_transposed_f32_to_u8", "f32", "u8", [5, 3], bcnt_specials("f32")[:15],
     a_strides=[1, 5], tags=["strides", "transposed", "float_bits"], source=SRC_STRIDES)
bcnt("bcnt_strides_3d_every_other_u64_to_u32", "u64", "u32", [2, 3, 4],
     bcnt_rand("u64", 20 + 16 + 6 + 1), a_strides=[20, 8, 2],
     tags=["strides", "padded"], source=SRC_STRIDES,
     notes="Every other element of padded rows.")
bcnt("bcnt_strides_zero_scalar_u64_to_u8", "u64", "u8", [3, 4], [0xFFFFFFFF00000001],
     a_strides=[0, 0], tags=["strides", "zero_stride", "word_boundary"], source=SRC_STRIDES,
     notes="One element read at every index with Strides {0,0}: 33 set bits.")
bcnt("bcnt_strides_zero_row_broadcast_u8_to_u32", "u8", "u32", [4, 6],
     [0x00, 0x01, 0x55, 0xAA, 0xFE, 0xFF], a_strides=[0, 1],
     tags=["strides", "zero_stride"], source=SRC_STRIDES,
     notes="One row of input repeated down the rows with stride 0.")
bcnt("bcnt_strides_zero_col_broadcast_i16_to_u8", "i16", "u8", [5, 3],
     [0xFFFF, 0x8000, 0x7FFF, 0x0101, 0x5555], a_strides=[1, 0],
     tags=["strides", "zero_stride", "extreme_int"], source=SRC_STRIDES)
bcnt("bcnt_out_strides_padded_u64_to_u8", "u64", "u8", [3, 5], bcnt_rand("u64", 15),
     out_strides=[7, 1], tags=["strides", "out_strides", "padded"], source=SRC_STRIDES,
     notes="UINT8 output rows 7 elements apart: rows 1 and 2 start inside a 32-bit word; the "
           "2 padding bytes of each row keep their bytes.")
bcnt("bcnt_out_strides_padded_u8_to_u32", "u8", "u32", [3, 4], bcnt_rand("u8", 12),
     out_strides=[6, 1], tags=["strides", "out_strides", "padded"], source=SRC_STRIDES)
bcnt("bcnt_out_strides_padded_u32_to_u8", "u32", "u8", [5, 3], bcnt_rand("u32", 15),
     out_strides=[5, 1], tags=["strides", "out_strides", "padded", "odd_length"],
     source=SRC_STRIDES, notes="Three UINT8 counts every 5 bytes: rows end mid-word.")
bcnt("bcnt_out_strides_transposed_u8_to_u8", "u8", "u8", [3, 5], bcnt_rand("u8", 15),
     out_strides=[1, 3], tags=["strides", "out_strides", "transposed"], source=SRC_STRIDES,
     notes="The output written transposed: logical element (i, j) at byte 3*j + i.")
bcnt("bcnt_strides_both_u16_to_u8", "u16", "u8", [4, 3], bcnt_rand("u16", 12),
     a_strides=[1, 4], out_strides=[9, 2],
     tags=["strides", "transposed", "out_strides", "padded"], source=SRC_STRIDES,
     notes="A transposed input and a padded output, every other output byte.")
bcnt("bcnt_strides_zero_padded_out_f16_to_u32", "f16", "u32", [2, 3], [0x7E00, 0x8000, 0xFFFF],
     a_strides=[0, 1], out_strides=[4, 1],
     tags=["strides", "zero_stride", "out_strides", "padded", "float_bits"], source=SRC_STRIDES)
# Binding offsets, larger TotalTensorSizeInBytes, GuaranteedBaseOffsetAlignment; OWNED_BY_DML.
bcnt("bcnt_binding_offsets_u64_to_u8", "u64", "u8", [6], bcnt_rand("u64", 6),
     extra={"a_offset_bytes": 16, "out_offset_bytes": 48, "out_total_bytes": 16,
            "out_guaranteed_alignment": 16},
     tags=["binding_offset", "total_bytes", "alignment"], source=SRC_BINDING,
     notes="The output (6 UINT8 counts, DMLCalcBufferTensorSize 8) at byte 48 of its buffer "
           "with a TotalTensorSizeInBytes of 16.")
bcnt("bcnt_out_binding_offset_u8_to_u32", "u8", "u32", [5], [0xFF, 0x80, 0x00, 0x7F, 0x11],
     extra={"out_offset_bytes": 32}, tags=["binding_offset", "odd_length"],
     source=SRC_BINDING, notes="The output alone at a binding offset.")
bcnt("bcnt_total_bytes_above_min_u16_to_u8", "u16", "u8", [7], bcnt_rand("u16", 7),
     extra={"a_total_bytes": 32, "out_total_bytes": 12, "a_guaranteed_alignment": 8},
     tags=["total_bytes", "alignment", "odd_length"], source=SRC_BINDING,
     notes="TotalTensorSizeInBytes above DMLCalcBufferTensorSize (16 and 8).")
bcnt("bcnt_owned_by_dml_input_u32_to_u8", "u32", "u8", [6], bcnt_rand("u32", 6),
     extra={"a_flags": "OWNED_BY_DML"}, tags=["owned_by_dml"], source=SRC_BCNT + "; " + SRC_FLAGS,
     notes="The input is the operator's own copy: calls bind the output alone.")

# Errors: levels and types.
SRC_BL = SRC_BCNT + "; " + SRC_FLH
bcnt_err("bcnt_err_u8_at_fl2_1", "u8", "u8", [4], "unsupported_dtype",
         "the operator was introduced in DML_FEATURE_LEVEL_3_0", feature_level="2_1",
         tags=["feature_level"], source=SRC_BL)
bcnt_err("bcnt_err_u32_4d_at_fl2_1", "u32", "u32", [1, 1, 2, 2], "unsupported_dtype",
         "the operator was introduced in DML_FEATURE_LEVEL_3_0", feature_level="2_1",
         tags=["feature_level"], source=SRC_BL,
         notes="Unlike the shifts, no 4-D form exists below DML_FEATURE_LEVEL_3_0.")
bcnt_err("bcnt_err_u16_at_fl2_0", "u16", "u8", [1, 2, 2, 2], "unsupported_dtype",
         "the operator was introduced in DML_FEATURE_LEVEL_3_0", feature_level="2_0",
         tags=["feature_level"], source=SRC_BL)
bcnt_err("bcnt_err_u32_at_fl1_0", "u32", "u32", [1, 1, 1, 4], "unsupported_dtype",
         "the operator was introduced in DML_FEATURE_LEVEL_3_0", feature_level="1_0",
         tags=["feature_level"], source=SRC_BL)
for dt, out in [("i8", "u8"), ("i16", "u32"), ("i32", "u8"), ("i64", "u32"), ("u64", "u8"),
                ("f16", "u8"), ("f32", "u32"), ("f64", "u8")]:
    bcnt_err(f"bcnt_err_{dt}_to_{out}_at_fl3_0", dt, out, [4], "unsupported_dtype",
             "below DML_FEATURE_LEVEL_4_1 the input is UINT8, UINT16 or UINT32",
             feature_level="3_0", tags=["feature_level"], source=SRC_BL)
bcnt_err("bcnt_err_bool_input", "bool", "u8", [4], "unsupported_dtype",
         "bool is not a DML_TENSOR_DATA_TYPE")
for dt, out in [("u8", "u16"), ("u32", "u64"), ("u8", "i8"), ("u32", "i32"), ("f32", "f32"),
                ("u16", "bool"), ("i64", "i64"), ("u64", "u64"), ("f16", "f16")]:
    bcnt_err(f"bcnt_err_out_{out}_from_{dt}", dt, out, [4], "unsupported_dtype",
             "OutputTensor DataType must be UINT32 or UINT8",
             notes="The output takes UINT32 or UINT8 at every level, whatever the input type."
             if out == dt else None)
bcnt_err("bcnt_err_out_u16_from_u16_at_fl3_0", "u16", "u16", [4], "unsupported_dtype",
         "OutputTensor DataType must be UINT32 or UINT8", feature_level="3_0",
         tags=["feature_level"], source=SRC_BL)
# In place: refused, with the same or different types.
SRC_IP = SRC_BCNT + "; " + SRC_BINDING
bcnt_err("bcnt_err_inplace_u32_to_u8", "u32", "u8", [4], "in_place_not_supported",
         "in-place execution is not supported by BIT_COUNT", alias="out=a", tags=["in_place"],
         source=SRC_IP, notes=INPLACE_NOTE)
bcnt_err("bcnt_err_inplace_u32_to_u8_same_total_bytes", "u32", "u8", [4],
         "in_place_not_supported", "in-place execution is not supported by BIT_COUNT",
         alias="out=a", a_total_bytes=16, out_total_bytes=16, tags=["in_place", "total_bytes"],
         source=SRC_IP,
         notes="Both descriptions 16 bytes, so only the binding is at fault. " + INPLACE_NOTE)
bcnt_err("bcnt_err_inplace_u8_to_u8", "u8", "u8", [2, 3], "in_place_not_supported",
         "in-place execution is not supported by BIT_COUNT", alias="out=a", tags=["in_place"],
         source=SRC_IP,
         notes="The same type and description in and out. " + INPLACE_NOTE)
bcnt_err("bcnt_err_inplace_u32_to_u32", "u32", "u32", [5], "in_place_not_supported",
         "in-place execution is not supported by BIT_COUNT", alias="out=a", tags=["in_place"],
         source=SRC_IP, notes="The same type and description in and out. " + INPLACE_NOTE)
bcnt_err("bcnt_err_inplace_u8_to_u8_padded_at_fl3_0", "u8", "u8", [2, 3],
         "in_place_not_supported", "in-place execution is not supported by BIT_COUNT",
         alias="out=a", a_strides=[4, 1], out_strides=[4, 1], feature_level="3_0",
         tags=["in_place", "padded", "feature_level"], source=SRC_IP, notes=INPLACE_NOTE)
# Errors: shapes, layouts, bindings.
bcnt_err("bcnt_err_shape_mismatch_out_transposed", "u8", "u32", [2, 3], "shape_mismatch",
         "InputTensor and OutputTensor must have the same Sizes", out_shape=[3, 2])
bcnt_err("bcnt_err_shape_mismatch_out_wider", "u64", "u8", [2, 3], "shape_mismatch",
         "InputTensor and OutputTensor must have the same Sizes", out_shape=[2, 4])
bcnt_err("bcnt_err_rank_mismatch_out", "u32", "u8", [6], "rank_mismatch",
         "InputTensor and OutputTensor must have the same DimensionCount", out_shape=[1, 6])
bcnt_err("bcnt_err_rank9", "u16", "u8", [1, 1, 1, 1, 1, 1, 1, 2, 2], "rank_out_of_range",
         "DimensionCount 9 > 8")
bcnt_err("bcnt_err_rank0", "u32", "u32", [], "rank_out_of_range", "DimensionCount 0 < 1",
         notes="DirectML has no scalar tensor: Sizes {} is out of range.")
bcnt_err("bcnt_err_zero_size_dim", "u8", "u32", [2, 0], "zero_size_dim", "a Size of 0",
         tags=["zero_size"])
bcnt_err("bcnt_err_strides_length_a", "u8", "u8", [2, 3], "strides_length_mismatch",
         "Strides has 1 entry for 2 dimensions", a_strides=[1], source=SRC_STRIDES)
bcnt_err("bcnt_err_strides_length_out", "u64", "u32", [2, 3], "strides_length_mismatch",
         "Strides has 3 entries for 2 dimensions", out_strides=[3, 1, 1], source=SRC_STRIDES)
bcnt_err("bcnt_err_out_total_bytes_own_width_u8_to_u32", "u8", "u32", [5],
         "total_bytes_too_small", "TotalTensorSizeInBytes 8 < DMLCalcBufferTensorSize 20",
         out_total_bytes=8, tags=["total_bytes"],
         notes="8 bytes would hold the five counts as UINT8 (or the UINT8 input), not as UINT32: "
               "the output's size is counted in its own width.")
bcnt_err("bcnt_err_out_total_bytes_u64_to_u8", "u64", "u8", [9], "total_bytes_too_small",
         "TotalTensorSizeInBytes 8 < DMLCalcBufferTensorSize 12", out_total_bytes=8,
         tags=["total_bytes", "odd_length"])
bcnt_err("bcnt_err_a_total_bytes_u64_to_u8", "u64", "u8", [3], "total_bytes_too_small",
         "TotalTensorSizeInBytes 16 < DMLCalcBufferTensorSize 24", a_total_bytes=16,
         tags=["total_bytes"],
         notes="16 bytes would hold the output, not the UINT64 input.")
bcnt_err("bcnt_err_a_offset_misaligned", "u8", "u32", [4], "binding_offset_misaligned",
         "a binding offset must be a multiple of 16", a_offset_bytes=4,
         tags=["binding_offset"], source=SRC_BINDING)
bcnt_err("bcnt_err_out_offset_misaligned", "u64", "u8", [4], "binding_offset_misaligned",
         "a binding offset must be a multiple of 16", out_offset_bytes=8,
         tags=["binding_offset"], source=SRC_BINDING)
bcnt_err("bcnt_err_out_offset_below_guaranteed_alignment", "u32", "u8", [4],
         "binding_offset_misaligned",
         "the offset 16 is not a multiple of GuaranteedBaseOffsetAlignment 32",
         out_guaranteed_alignment=32, out_offset_bytes=16, tags=["binding_offset", "alignment"],
         source=SRC_BINDING)
bcnt_err("bcnt_err_a_alignment_below_element_size", "u64", "u8", [4], "invalid_alignment",
         "GuaranteedBaseOffsetAlignment 4 < element size 8", a_guaranteed_alignment=4,
         tags=["alignment"])
bcnt_err("bcnt_err_out_alignment_below_out_element_size", "u8", "u32", [4],
         "invalid_alignment", "GuaranteedBaseOffsetAlignment 2 < element size 4",
         out_guaranteed_alignment=2, tags=["alignment"],
         notes="2 is at least the input's element size; the output's is 4.")
bcnt_err("bcnt_err_owned_by_dml_on_output", "u32", "u8", [4], "owned_by_dml_on_output",
         "OWNED_BY_DML on an output", out_flags="OWNED_BY_DML", tags=["owned_by_dml"],
         source=SRC_FLAGS)
bcnt_err("bcnt_err_output_zero_stride", "u16", "u8", [3, 3], "output_overlap",
         "output Strides {0,1} overlap (library policy: writes would race)",
         out_strides=[0, 1], notes="Library policy, not a DirectML rule.")
bcnt_err("bcnt_err_output_sliding_window", "u8", "u32", [3, 3], "output_overlap",
         "output Strides {1,1} overlap (library policy)", out_strides=[1, 1],
         notes="Library policy, not a DirectML rule.")

bcnt_generated("bcnt_large_u64_to_u8_100003", "u64", "u8", [100003], 501, "bits",
               tags=["odd_length"])
bcnt_generated("bcnt_large_u8_to_u32_131071", "u8", "u32", [131071], 502, "bits")
bcnt_generated("bcnt_large_u32_to_u8_strided_257x389", "u32", "u8", [257, 389], 503, "bits",
               a_strides=[392, 1], tags=["strides", "padded"],
               source=SRC_BCNT + "; " + SRC_STRIDES)
bcnt_generated("bcnt_large_f64_to_u32_zero_stride_rows_300x301", "f64", "u32", [300, 301], 504,
               "bits", a_strides=[0, 1], tags=["strides", "zero_stride", "float_bits"],
               source=SRC_BCNT + "; " + SRC_STRIDES)
bcnt_generated("bcnt_large_i16_to_u8_sparse_65537", "i16", "u8", [65537], 505, "sparse",
               notes="The `sparse` stream: about half the elements 0.")
bcnt_generated("bcnt_large_u16_to_u8_1x4x181x139", "u16", "u8", [1, 4, 181, 139], 506, "bits")
bcnt_generated("bcnt_large_f32_to_u8_70001", "f32", "u8", [70001], 507, "bits",
               tags=["float_bits", "odd_length"])


def main():
    path = output_path(__file__, "shifts_and_count.json")
    write_cases(path, CASES)
    print(f"{len(CASES)} cases -> {os.path.normpath(path)}")


if __name__ == "__main__":
    main()
