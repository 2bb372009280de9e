#!/usr/bin/env python3
"""Conformance cases for the word-wide family beside XOR: writes tests/data/and_or_not.json.

Regenerate (Python 3, standard library only; the output is deterministic):

    python3 conformance/cases/and_or_not.py            # writes tests/data/and_or_not.json
    python3 conformance/cases/and_or_not.py OUT.json   # writes elsewhere

The helpers shared with shifts_and_count.py and onnx_nodes.py (layouts, SplitMix64, digests, shape
broadcasting, JSON writing) are in conformance/cases/casefmt.py.

The format is that of tests/data/xor.json (a JSON list, one case object per line),
with these `op` names beside `bit_xor`, `logical_xor` and `bitwise_xor_broadcast`:

    DirectML (described tensors, strides, feature levels, DML_TENSOR_FLAGS):
      bit_and      DML_ELEMENT_WISE_BIT_AND      (FL 3.0: u8 u16 u32; FL 4.1: all 11 DML types)
      bit_or       DML_ELEMENT_WISE_BIT_OR       (the same)
      bit_not      DML_ELEMENT_WISE_BIT_NOT      (the same; one input)
      logical_and  DML_ELEMENT_WISE_LOGICAL_AND  (FL 1.0: u32, 4-D; FL 2.0: u8 too; FL 3.0: 1 to 8-D)
      logical_or   DML_ELEMENT_WISE_LOGICAL_OR   (the same)
      logical_not  DML_ELEMENT_WISE_LOGICAL_NOT  (the same; one input)
    OpenVINO (shapes and auto_broadcast; any rank, scalars and zero-size dimensions):
      bitwise_and_broadcast   BitwiseAnd-13  (integers and boolean; boolean is LogicalAnd)
      bitwise_or_broadcast    BitwiseOr-13   (the same)
      bitwise_not             BitwiseNot-13  (the same; one input)
      logical_and_broadcast   LogicalAnd-1   (boolean only)
      logical_or_broadcast    LogicalOr-1    (boolean only)
      logical_xor_broadcast   LogicalXor-1   (boolean only)
      logical_not_bool        LogicalNot-1   (boolean only; one input)

A one-input case (bit_not, logical_not, bitwise_not, logical_not_bool) has `a`, `a_shape`,
`a_strides` (and A's other fields) and no `b` field at all; its `alias` can only be `out=a`.

Id prefixes: band_ bor_ bnot_ land_ lor_ lnot_ (DirectML), ovand_ ovor_ ovnot_ ovland_ ovlor_
ovlxor_ ovlnot_ (OpenVINO); `_err_` marks an error case. `source` names the specification page
or the test that each case comes from.

Every expected value is computed here with Python integers, from the specifications' rules
alone (bit operations on the raw element bits; logical operations read `x != 0` and write 0 or
1; OpenVINO boolean inputs are normalised the same way), independently of the library. The
library's CPU reference is checked against this file by the conformance crate's unit tests.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from casefmt import (OV_INTS, SPEC, SRC_BCAST, SRC_BINDING, SRC_FLAGS, SRC_FLH,  # noqa: E402
                     SRC_STRIDES, TPL, WIDTH, indices, mask, min_bytes, ov_shape,
                     ov_source_index, output_path, packed, physical_len, prod,
                     set_expected_digest, sha, stream, write_cases)

DML_TYPES = ["u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64", "f16", "f32", "f64"]

DML_OPS = {"bit_and", "bit_or", "bit_not", "logical_and", "logical_or", "logical_not"}
UNARY = {"bit_not", "logical_not", "bitwise_not", "logical_not_bool"}
LOGICAL_DML = {"logical_and", "logical_or", "logical_not"}

# Sources.
SRC_BAND = ("DirectML docs: DML_ELEMENT_WISE_BIT_AND_OPERATOR_DESC "
            "(MicrosoftDocs/sdk-api ns-directml-dml_element_wise_bit_and_operator_desc.md)")
SRC_BOR = ("DirectML docs: DML_ELEMENT_WISE_BIT_OR_OPERATOR_DESC "
           "(MicrosoftDocs/sdk-api ns-directml-dml_element_wise_bit_or_operator_desc.md)")
SRC_BNOT = ("DirectML docs: DML_ELEMENT_WISE_BIT_NOT_OPERATOR_DESC "
            "(MicrosoftDocs/sdk-api ns-directml-dml_element_wise_bit_not_operator_desc.md)")
SRC_LAND = ("DirectML docs: DML_ELEMENT_WISE_LOGICAL_AND_OPERATOR_DESC "
            "(MicrosoftDocs/sdk-api ns-directml-dml_element_wise_logical_and_operator_desc.md)")
SRC_LOR = ("DirectML docs: DML_ELEMENT_WISE_LOGICAL_OR_OPERATOR_DESC "
           "(MicrosoftDocs/sdk-api ns-directml-dml_element_wise_logical_or_operator_desc.md)")
SRC_LNOT = ("DirectML docs: DML_ELEMENT_WISE_LOGICAL_NOT_OPERATOR_DESC "
            "(MicrosoftDocs/sdk-api ns-directml-dml_element_wise_logical_not_operator_desc.md)")
SRC_DML = {"bit_and": SRC_BAND, "bit_or": SRC_BOR, "bit_not": SRC_BNOT,
           "logical_and": SRC_LAND, "logical_or": SRC_LOR, "logical_not": SRC_LNOT}
SRC_OV = {
    "bitwise_and_broadcast": SPEC + "bitwise/bitwise-and-13.rst",
    "bitwise_or_broadcast": SPEC + "bitwise/bitwise-or-13.rst",
    "bitwise_not": SPEC + "bitwise/bitwise-not-13.rst",
    "logical_and_broadcast": SPEC + "logical/logical-and-1.rst",
    "logical_or_broadcast": SPEC + "logical/logical-or-1.rst",
    "logical_xor_broadcast": SPEC + "logical/logical-xor-1.rst",
    "logical_not_bool": SPEC + "logical/logical-not-1.rst",
}
SRC_TPL = {
    "bitwise_and_broadcast": TPL + "bitwise_and.cpp",
    "bitwise_or_broadcast": TPL + "bitwise_or.cpp",
    "bitwise_not": TPL + "bitwise_not.cpp",
    "logical_and_broadcast": TPL + "logical_and.cpp",
    "logical_or_broadcast": TPL + "logical_or.cpp",
    "logical_xor_broadcast": TPL + "logical_xor.cpp",
    "logical_not_bool": TPL + "logical_not.cpp",
}
SRC_OV_TYPES = ("OpenVINO core: op/util/binary_elementwise_bitwise.cpp, "
                "binary_elementwise_logical.cpp, elementwise_args.cpp (type checks)")
SRC_ONNX = "ONNX docs/Operators.md and onnx/backend/test/case/node (shapes)"

# ----- element functions -------------------------------------------------------------------


def apply(op, dtype, x, y=0):
    """One element of `op` on raw bit patterns, by the specifications' rules."""
    m = mask(dtype)
    x &= m
    y &= m
    base = op.split("_")[1]  # and, or, xor, not
    truth = op.startswith("logical_") or (op.startswith("bitwise_") and dtype == "bool")
    if truth:
        # Any nonzero value (any nonzero byte for OpenVINO boolean) is true; 1 or 0 out.
        p, q = int(x != 0), int(y != 0)
        return {"and": p & q, "or": p | q, "xor": p ^ q, "not": 1 - p}[base]
    return {"and": x & y, "or": x | y, "not": (~x) & m}[base]


# ----- data ---------------------------------------------------------------------------------

_data_seed = [1000]


def rand(dtype, n):
    """Deterministic pseudo-random element values (bool: mostly 0/1)."""
    _data_seed[0] += 1
    vals = stream(_data_seed[0], n, "bits", dtype)
    if dtype == "bool":
        return [v & 1 for v in vals]
    return vals


# ----- cases --------------------------------------------------------------------------------

CASES = []


def add(case):
    assert case["id"] not in {c["id"] for c in CASES}, case["id"]
    CASES.append(case)


def dml_min_level(op, dtype, rank):
    if op.startswith("bit_"):
        return "3_0" if dtype in ("u8", "u16", "u32") else "4_1"
    if rank != 4:
        return "3_0"
    return "1_0" if dtype == "u32" else "2_0"


def dml(id, op, dtype, shape, a, b=None, a_strides=None, b_strides=None, out_strides=None,
        alias=None, tags=(), source=None, notes=None, extra=None):
    """A valid DirectML case. `a` and `b` are physical buffers when their strides are given,
    else logical row-major data; the expected output is read off them element by element."""
    unary = op in UNARY
    sa = a_strides or packed(shape)
    sb = b_strides or packed(shape)
    so = out_strides or packed(shape)
    assert len(a) == physical_len(shape, sa), id
    if not unary:
        assert b is not None and len(b) == physical_len(shape, sb), id
    if alias == "a=b":
        assert a == b and sa == sb, id
    expected = []
    for idx in indices(shape):
        x = a[sum(i * s for i, s in zip(idx, sa))]
        y = 0 if unary else b[sum(i * s for i, s in zip(idx, sb))]
        expected.append(apply(op, dtype, x, y))
    c = {"id": id, "op": op, "dtype": dtype, "a_shape": shape}
    if not unary:
        c["b_shape"] = shape
    c["out_shape"] = shape
    if a_strides:
        c["a_strides"] = a_strides
    if b_strides and not unary:
        c["b_strides"] = b_strides
    if out_strides:
        c["out_strides"] = out_strides
    if alias:
        c["alias"] = alias
    c["min_feature_level"] = dml_min_level(op, dtype, len(shape))
    for t, s in [("a", sa), ("b", sb), ("out", so)]:
        if t == "b" and unary:
            continue
        c[t + "_min_bytes"] = min_bytes(shape, s, dtype)
    for t, s in [("a", sa), ("b", sb), ("out", so)]:
        if t == "b" and unary:
            continue
        c[t + "_physical_len"] = physical_len(shape, s)
    if extra:
        c.update(extra)
    c["a"] = a
    if not unary:
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
    if op not in UNARY:
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


def ov(id, op, dtype, a_shape, a, b_shape=None, b=None, broadcast="numpy", axis=None,
       alias=None, tags=(), source=None, notes=None, explicit_broadcast=True):
    unary = op in UNARY
    assert len(a) == prod(a_shape), id
    c = {"id": id, "op": op, "dtype": dtype, "a_shape": a_shape}
    if unary:
        out_shape = list(a_shape)
        expected = [apply(op, dtype, x) for x in a]
    else:
        assert len(b) == prod(b_shape), id
        ax = -1 if axis is None else axis
        out_shape = ov_shape(a_shape, b_shape, broadcast, ax)
        assert out_shape is not None, id
        a_at = len(out_shape) - len(a_shape)
        if broadcast == "pdpd" and ax != -1:
            b_at = ax
        else:
            b_at = len(out_shape) - len(b_shape)
        expected = []
        for idx in indices(out_shape):
            x = a[ov_source_index(idx, a_shape, a_at)]
            y = b[ov_source_index(idx, b_shape, b_at)]
            expected.append(apply(op, dtype, x, y))
        c["b_shape"] = b_shape
        if explicit_broadcast:
            c["broadcast"] = broadcast
        if axis is not None:
            c["pdpd_axis"] = axis
    c["out_shape"] = out_shape
    if alias:
        c["alias"] = alias
    c["a"] = a
    if not unary:
        c["b"] = b
    c["expected"] = expected
    c["tags"] = list(tags)
    c["source"] = source or SRC_OV[op]
    if notes:
        c["notes"] = notes
    add(c)


def generated(id, op, dtype, a_shape, seeds, mode, b_shape=None, a_strides=None, tags=(),
              source=None, notes=None, broadcast=None):
    """A large case: SplitMix64 inputs, the output by digest, count, head and tail."""
    unary = op in UNARY
    is_dml = op in DML_OPS
    sa = a_strides or packed(a_shape)
    a_count = physical_len(a_shape, sa) if is_dml else prod(a_shape)
    a = stream(seeds[0], a_count, mode, dtype)
    c = {"id": id, "op": op, "dtype": dtype, "a_shape": a_shape}
    if is_dml:
        out_shape = a_shape
        b_count = prod(a_shape)
        b = None if unary else stream(seeds[1], b_count, mode, dtype)
        expected = []
        for i, idx in enumerate(indices(a_shape)):
            x = a[sum(p * s for p, s in zip(idx, sa))]
            expected.append(apply(op, dtype, x, 0 if unary else b[i]))
        if not unary:
            c["b_shape"] = a_shape
        c["out_shape"] = a_shape
        if a_strides:
            c["a_strides"] = a_strides
        c["min_feature_level"] = dml_min_level(op, dtype, len(a_shape))
        for t, s in [("a", sa), ("b", packed(a_shape)), ("out", packed(a_shape))]:
            if t == "b" and unary:
                continue
            c[t + "_min_bytes"] = min_bytes(a_shape, s, dtype)
            c[t + "_physical_len"] = physical_len(a_shape, s)
    else:
        if unary:
            out_shape = a_shape
            b = None
            expected = [apply(op, dtype, x) for x in a]
        else:
            b_count = prod(b_shape)
            b = stream(seeds[1], b_count, mode, dtype)
            out_shape = ov_shape(a_shape, b_shape, "numpy", -1)
            expected = []
            for idx in indices(out_shape):
                x = a[ov_source_index(idx, a_shape, len(out_shape) - len(a_shape))]
                y = b[ov_source_index(idx, b_shape, len(out_shape) - len(b_shape))]
                expected.append(apply(op, dtype, x, y))
            c["b_shape"] = b_shape
            c["broadcast"] = broadcast or "numpy"
        c["out_shape"] = out_shape
    g = {"algo": "splitmix64", "a": {"seed": seeds[0], "count": a_count, "mode": mode}}
    if not unary:
        g["b"] = {"seed": seeds[1], "count": b_count, "mode": mode}
    c["generator"] = g
    c["a_sha256"] = sha(a, dtype)
    if not unary:
        c["b_sha256"] = sha(b, dtype)
    set_expected_digest(c, expected, dtype)
    c["tags"] = ["generator", "large"] + list(tags)
    c["source"] = source or (SRC_DML[op] if is_dml else SRC_OV[op])
    if notes:
        c["notes"] = notes
    add(c)


# ----- special values ------------------------------------------------------------------------


def specials(dtype):
    """Bit patterns worth crossing: zero, one, all ones, the high bit, alternating bits; for
    floats +-0, +-1, +-inf, quiet and signalling NaNs with payloads, subnormals."""
    w = 8 * WIDTH[dtype]
    m = (1 << w) - 1
    if dtype == "f16":
        return [0x0000, 0x8000, 0x3C00, 0xBC00, 0x7C00, 0xFC00, 0x7E00, 0x7D55, 0xFE01,
                0x0001, 0x7BFF, 0x83FF]
    if dtype == "f32":
        return [0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x7F800000, 0xFF800000,
                0x7FC00000, 0x7FA5A5A5, 0xFFC00001, 0x00000001, 0x7F7FFFFF, 0x807FFFFF]
    if dtype == "f64":
        return [0, 1 << 63, 0x3FF0000000000000, 0xBFF0000000000000, 0x7FF0000000000000,
                0xFFF0000000000000, 0x7FF8000000000000, 0x7FF4A5A5A5A5A5A5,
                0xFFF8000000000001, 1, 0x7FEFFFFFFFFFFFFF, 0x800FFFFFFFFFFFFF]
    alt = int("01" * (w // 2), 2)
    return [0, 1, 2, m >> 1, 1 << (w - 1), (1 << (w - 1)) | 1, m - 1, m, alt, m ^ alt,
            (1 << (w // 2)) - 1, m ^ ((1 << (w // 2)) - 1)]


def cross(vals):
    """A (rows) and B (columns) of an n x n table of every pair."""
    n = len(vals)
    return [v for v in vals for _ in range(n)], [v for _ in range(n) for v in vals]


def fill(n, dtype, seed):
    return stream(seed, n, "bits", dtype)


# ===== DirectML BIT_AND, BIT_OR =================================================================

for op, pre in [("bit_and", "band"), ("bit_or", "bor")]:
    for dt in DML_TYPES:
        vals = specials(dt)
        a, b = cross(vals)
        tags = ["specials"] + (["float_bits"] if dt.startswith("f") else ["extreme_int"])
        notes = None
        if dt.startswith("f"):
            notes = ("Float bit patterns (+-0, +-1, +-inf, quiet/signalling NaNs with payloads, "
                     "subnormals) combined as raw bits: 'the tensor data type is ignored except "
                     "for determining the width of each element'. NaN payloads and -0.0 keep "
                     "every bit.")
        dml(f"{pre}_specials_cross_{dt}", op, dt, [len(vals), len(vals)], a, b, tags=tags,
            notes=notes, source=SRC_DML[op] + "; " + SRC_FLH)
    # Odd lengths and ranks.
    for dt, n in [("u8", 1), ("u8", 7), ("u16", 5), ("u32", 3), ("i64", 3), ("u8", 4099)]:
        dml(f"{pre}_len{n}_{dt}", op, dt, [n], rand(dt, n), rand(dt, n), tags=["odd_length"])
    shape = [2, 1, 3, 1, 2, 1, 2, 2]
    dml(f"{pre}_rank8_u16", op, "u16", shape, rand("u16", 48), rand("u16", 48), tags=["rank8"])
    # Strides: padded rows, a zero-stride broadcast input, a padded output.
    dml(f"{pre}_strides_padded_a_u8", op, "u8", [3, 5], fill(3 * 7 - 2, "u8", 7),
        rand("u8", 15), a_strides=[7, 1], tags=["strides", "padded"], source=SRC_STRIDES)
    dml(f"{pre}_strides_zero_row_broadcast_b_u32", op, "u32", [4, 6], rand("u32", 24),
        rand("u32", 6), b_strides=[0, 1], tags=["strides", "zero_stride"], source=SRC_STRIDES,
        notes="B is one row, repeated down the rows with stride 0.")
    dml(f"{pre}_strides_zero_col_broadcast_a_i16", op, "i16", [5, 3], rand("i16", 5),
        rand("i16", 15), a_strides=[1, 0], tags=["strides", "zero_stride"], source=SRC_STRIDES)
    dml(f"{pre}_out_strides_padded_u16", op, "u16", [3, 4], rand("u16", 12), rand("u16", 12),
        out_strides=[6, 1], tags=["strides", "out_strides", "padded"], source=SRC_STRIDES,
        notes="Output rows 6 elements apart: the 2 padding elements of each row keep their bytes.")
    dml(f"{pre}_strides_transposed_a_f32", op, "f32", [4, 3], rand("f32", 12), rand("f32", 12),
        a_strides=[1, 4], out_strides=[4, 1], tags=["strides", "transposed", "float_bits",
                                                    "out_strides", "padded"],
        source=SRC_STRIDES)
    # In place.
    data = rand("u16", 11)
    dml(f"{pre}_inplace_out_aliases_a_padded_u16", op, "u16", [2, 4], data, rand("u16", 8),
        a_strides=[7, 1], out_strides=[7, 1], alias="out=a", tags=["in_place", "padded"],
        source=SRC_DML[op] + "; " + SRC_BINDING,
        notes="'This operator supports in-place execution': the output bound to A's range.")
    dml(f"{pre}_inplace_out_aliases_b_u32", op, "u32", [9], rand("u32", 9), rand("u32", 9),
        alias="out=b", tags=["in_place"], source=SRC_DML[op] + "; " + SRC_BINDING)
    same = rand("u8", 10)
    dml(f"{pre}_inputs_same_buffer_u8", op, "u8", [10], same, same, alias="a=b",
        tags=["aliasing"], source=SRC_DML[op] + "; " + SRC_BINDING,
        notes="A and B bound to one range: x AND x = x OR x = x.")
    same = rand("i32", 6)
    dml(f"{pre}_inplace_all_one_range_i32", op, "i32", [2, 3], same, same, alias="out=a=b",
        tags=["in_place", "aliasing"], source=SRC_DML[op] + "; " + SRC_BINDING,
        notes="'the output tensor is permitted to alias one or more of the input tensors'.")
    # Errors.
    src = SRC_DML[op]
    err(f"{pre}_err_i32_at_fl3_0", op, "i32", [4], "unsupported_dtype",
        "below DML_FEATURE_LEVEL_4_1 only UINT8, UINT16 and UINT32", feature_level="3_0",
        tags=["feature_level"], source=src + "; " + SRC_FLH)
    err(f"{pre}_err_f16_at_fl3_0", op, "f16", [2, 2], "unsupported_dtype",
        "below DML_FEATURE_LEVEL_4_1 only UINT8, UINT16 and UINT32", feature_level="3_0",
        tags=["feature_level"], source=src + "; " + SRC_FLH)
    err(f"{pre}_err_u8_at_fl2_0", op, "u8", [4], "unsupported_dtype",
        "the operator was introduced in DML_FEATURE_LEVEL_3_0", feature_level="2_0",
        tags=["feature_level"], source=src + "; " + SRC_FLH)
    err(f"{pre}_err_bool_dtype", op, "bool", [4], "unsupported_dtype",
        "bool is not a DML_TENSOR_DATA_TYPE")
    err(f"{pre}_err_dtype_mismatch_a_u8_b_u16", op, "u8", [4], "dtype_mismatch",
        "ATensor, BTensor and OutputTensor must have the same DataType", b_dtype="u16")
    err(f"{pre}_err_dtype_mismatch_out_i32_in_u32", op, "u32", [4], "dtype_mismatch",
        "same width, different DataType", out_dtype="i32")
    err(f"{pre}_err_shape_mismatch_b", op, "u16", [2, 3], "shape_mismatch",
        "Sizes differ: no broadcasting in DirectML", b_shape=[1, 3])
    if op == "bit_or":
        continue  # the layout rules below are the same for both: BIT_AND has them
    err(f"{pre}_err_rank_mismatch", op, "u8", [6], "rank_mismatch",
        "DimensionCount differs", b_shape=[2, 3])
    err(f"{pre}_err_rank9", op, "u8", [2, 1, 1, 1, 1, 1, 1, 1, 2], "rank_out_of_range",
        "DimensionCount 9 > 8")
    err(f"{pre}_err_zero_size_dim", op, "u32", [2, 0], "zero_size_dim", "a Size of 0")
    err(f"{pre}_err_strides_length", op, "u8", [2, 3], "strides_length_mismatch",
        "Strides has 1 entry for 2 dimensions", a_strides=[1], source=SRC_STRIDES)
    err(f"{pre}_err_total_bytes_too_small", op, "u16", [3], "total_bytes_too_small",
        "TotalTensorSizeInBytes 4 < DMLCalcBufferTensorSize 8", b_total_bytes=4)
    err(f"{pre}_err_output_zero_stride", op, "u32", [3, 3], "output_overlap",
        "output Strides {0,1} overlap (library policy: writes would race)",
        out_strides=[0, 1], notes="Library policy, not a DirectML rule.")
    err(f"{pre}_err_inplace_total_bytes_differ", op, "u8", [8], "alias_desc_mismatch",
        "in-place binding requires the same TotalTensorSizeInBytes", alias="out=a",
        a_total_bytes=8, out_total_bytes=16, tags=["in_place"], source=src + "; " + SRC_BINDING)
    err(f"{pre}_err_binding_offset_misaligned", op, "u8", [4], "binding_offset_misaligned",
        "a binding offset must be a multiple of 16", a_offset_bytes=4, source=SRC_BINDING)
    err(f"{pre}_err_alignment_below_element_size", op, "u32", [4], "invalid_alignment",
        "GuaranteedBaseOffsetAlignment 2 < element size 4", b_guaranteed_alignment=2)

dml("band_owned_by_dml_b_u16", "bit_and", "u16", [5], rand("u16", 5), rand("u16", 5),
    extra={"b_flags": "OWNED_BY_DML"}, tags=["owned_by_dml"], source=SRC_BAND + "; " + SRC_FLAGS,
    notes="B is the operator's own copy (initializer-owned); calls bind A and the output.")
err("band_err_owned_by_dml_on_output", "bit_and", "u8", [4], "owned_by_dml_on_output",
    "OWNED_BY_DML on an output", out_flags="OWNED_BY_DML", tags=["owned_by_dml"],
    source=SRC_FLAGS)
generated("band_large_u32_100003", "bit_and", "u32", [100003], [201, 202], "bits")
generated("bor_large_u8_strided_257x389", "bit_or", "u8", [257, 389], [203, 204], "bits",
          a_strides=[392, 1], tags=["strides", "padded"], source=SRC_BOR + "; " + SRC_STRIDES)

# ===== DirectML BIT_NOT =========================================================================

dml("bnot_doc_example_u8", "bit_not", "u8", [2, 2], [0, 128, 42, 255], tags=["doc", "seed"],
    notes="The page's example: [[0,128],[42,255]] -> [[255,127],[213,0]].")
for dt in DML_TYPES:
    vals = specials(dt)
    tags = ["specials"] + (["float_bits"] if dt.startswith("f") else ["extreme_int"])
    notes = ("Every bit flips, the sign and NaN payload bits of floats included: NOT +0.0 is a "
             "NaN pattern, NOT -0.0 is a NaN with all payload bits set." if dt.startswith("f")
             else None)
    dml(f"bnot_specials_{dt}", "bit_not", dt, [len(vals)], vals, tags=tags, notes=notes,
        source=SRC_BNOT + "; " + SRC_FLH)
for dt, n in [("u8", 1), ("u8", 5), ("u16", 3), ("i8", 7), ("u32", 1025)]:
    dml(f"bnot_len{n}_{dt}", "bit_not", dt, [n], rand(dt, n), tags=["odd_length"])
dml("bnot_rank8_u32", "bit_not", "u32", [1, 2, 1, 2, 1, 3, 1, 2], rand("u32", 24),
    tags=["rank8"])
dml("bnot_strides_padded_u16", "bit_not", "u16", [3, 3], fill(2 * 5 + 3, "u16", 9),
    a_strides=[5, 1], tags=["strides", "padded"], source=SRC_STRIDES)
dml("bnot_strides_zero_broadcast_u8", "bit_not", "u8", [3, 4], [0x5A], a_strides=[0, 0],
    tags=["strides", "zero_stride"], source=SRC_STRIDES,
    notes="One element read at every index with Strides {0,0}.")
dml("bnot_out_strides_padded_i64", "bit_not", "i64", [2, 3], rand("i64", 6),
    out_strides=[4, 1], tags=["strides", "out_strides", "padded"], source=SRC_STRIDES)
dml("bnot_strides_transposed_f16", "bit_not", "f16", [3, 5], rand("f16", 15),
    a_strides=[1, 3], tags=["strides", "transposed", "float_bits"], source=SRC_STRIDES)
dml("bnot_inplace_out_aliases_a_u8", "bit_not", "u8", [13], rand("u8", 13), alias="out=a",
    tags=["in_place", "odd_length"], source=SRC_BNOT + "; " + SRC_BINDING,
    notes="'the output tensor is permitted to alias the input tensor during binding'.")
dml("bnot_inplace_out_aliases_a_padded_f64", "bit_not", "f64", [2, 2],
    fill(4 + 2, "f64", 11), a_strides=[4, 1], out_strides=[4, 1], alias="out=a",
    tags=["in_place", "padded", "float_bits"], source=SRC_BNOT + "; " + SRC_BINDING)
dml("bnot_owned_by_dml_input_u32", "bit_not", "u32", [6], rand("u32", 6),
    extra={"a_flags": "OWNED_BY_DML"}, tags=["owned_by_dml"], source=SRC_BNOT + "; " + SRC_FLAGS,
    notes="The input is the operator's own copy: calls bind the output alone.")
for dt in ["i8", "f32", "u64"]:
    err(f"bnot_err_{dt}_at_fl3_0", "bit_not", dt, [4], "unsupported_dtype",
        "below DML_FEATURE_LEVEL_4_1 only UINT8, UINT16 and UINT32", feature_level="3_0",
        tags=["feature_level"], source=SRC_BNOT + "; " + SRC_FLH)
err("bnot_err_u16_at_fl2_0", "bit_not", "u16", [4], "unsupported_dtype",
    "the operator was introduced in DML_FEATURE_LEVEL_3_0", feature_level="2_0",
    tags=["feature_level"], source=SRC_BNOT + "; " + SRC_FLH)
err("bnot_err_bool_dtype", "bit_not", "bool", [4], "unsupported_dtype",
    "bool is not a DML_TENSOR_DATA_TYPE")
err("bnot_err_dtype_mismatch_out", "bit_not", "u16", [4], "dtype_mismatch",
    "InputTensor and OutputTensor must have the same DataType", out_dtype="i16")
err("bnot_err_shape_mismatch_out", "bit_not", "u8", [2, 3], "shape_mismatch",
    "InputTensor and OutputTensor must have the same Sizes", out_shape=[3, 2])
err("bnot_err_rank_mismatch_out", "bit_not", "u8", [6], "rank_mismatch",
    "InputTensor and OutputTensor must have the same DimensionCount", out_shape=[1, 6])
err("bnot_err_rank9", "bit_not", "u16", [1, 1, 1, 1, 1, 1, 1, 2, 2], "rank_out_of_range",
    "DimensionCount 9 > 8")
err("bnot_err_zero_size_dim", "bit_not", "u8", [0], "zero_size_dim", "a Size of 0")
err("bnot_err_output_sliding_window", "bit_not", "u32", [3, 3], "output_overlap",
    "output Strides {1,1} overlap (library policy)", out_strides=[1, 1])
err("bnot_err_inplace_total_bytes_differ", "bit_not", "u8", [8], "alias_desc_mismatch",
    "in-place binding requires the same TotalTensorSizeInBytes", alias="out=a",
    a_total_bytes=8, out_total_bytes=12, tags=["in_place"],
    source=SRC_BNOT + "; " + SRC_BINDING)
err("bnot_err_owned_by_dml_on_output", "bit_not", "u8", [4], "owned_by_dml_on_output",
    "OWNED_BY_DML on an output", out_flags="OWNED_BY_DML", tags=["owned_by_dml"],
    source=SRC_FLAGS)
generated("bnot_large_u16_200003", "bit_not", "u16", [200003], [211], "bits")
generated("bnot_large_f64_zero_stride_rows_300x301", "bit_not", "f64", [300, 301], [212],
          "bits", a_strides=[0, 1], tags=["strides", "zero_stride", "float_bits"],
          source=SRC_BNOT + "; " + SRC_STRIDES)

# ===== DirectML LOGICAL_AND, LOGICAL_OR, LOGICAL_NOT ===========================================

TRUTH = {"u8": [0, 1, 2, 0x80, 0xFF, 0x10],
         "u32": [0, 1, 2, 0x100, 0x10000, 0x80000000, 0xFFFFFFFF, 0x01000000]}
LNOTE = ("Any nonzero value is true, whatever its bits (0x100 and 0x80000000 in a UINT32 "
         "included); the result is 1 or 0 in the input type.")
for op, pre in [("logical_and", "land"), ("logical_or", "lor"), ("logical_not", "lnot")]:
    unary = op == "logical_not"
    for dt in ["u8", "u32"]:
        vals = TRUTH[dt]
        if unary:
            dml(f"{pre}_truth_{dt}", op, dt, [len(vals)], vals, tags=["seed", "specials"],
                notes=LNOTE)
        else:
            a, b = cross(vals)
            dml(f"{pre}_truth_cross_{dt}", op, dt, [len(vals), len(vals)], a, b,
                tags=["seed", "specials"], notes=LNOTE)
        # 4-D: valid from FL 1.0 (u32) or 2.0 (u8).
        shape = [1, 2, 3, 4]
        data = [v if v % 3 else 0 for v in rand(dt, 24)]
        other = None if unary else [v if v % 2 else 0 for v in rand(dt, 24)]
        dml(f"{pre}_4d_{dt}", op, dt, shape, data, other, tags=["feature_level"],
            source=SRC_DML[op] + "; " + SRC_FLH,
            notes="4-D: the only DimensionCount below DML_FEATURE_LEVEL_3_0.")
        shape = [2, 1, 2, 1, 3, 1, 1, 2]
        data = [v if v % 4 else 0 for v in rand(dt, 24)]
        other = None if unary else [v if v % 3 else 0 for v in rand(dt, 24)]
        dml(f"{pre}_rank8_{dt}", op, dt, shape, data, other, tags=["rank8"])
    for n in [1, 3, 7]:
        data = [v if v % 2 else 0 for v in rand("u8", n)]
        other = None if unary else [v if v % 3 else 0 for v in rand("u8", n)]
        dml(f"{pre}_len{n}_u8", op, "u8", [n], data, other, tags=["odd_length"])
    # Strides.
    if unary:
        dml(f"{pre}_strides_padded_u32", op, "u32", [2, 3], [0, 5, 0, 9, 9, 0x100, 0, 7],
            a_strides=[5, 1], tags=["strides", "padded"], source=SRC_STRIDES)
        dml(f"{pre}_out_strides_padded_u8", op, "u8", [3, 3], [0, 1, 0, 2, 0, 0, 0x80, 0, 3],
            out_strides=[4, 1], tags=["strides", "out_strides", "padded"], source=SRC_STRIDES)
        dml(f"{pre}_inplace_out_aliases_a_u32", op, "u32", [2, 2, 2, 2],
            [0, 1, 0x100, 0, 0x80000000, 0, 0, 5, 0, 0, 0xFFFFFFFF, 2, 0, 0, 9, 0],
            alias="out=a", tags=["in_place"], source=SRC_DML[op] + "; " + SRC_BINDING,
            notes="'OutputTensor is permitted to alias InputTensor during binding'.")
    else:
        dml(f"{pre}_strides_zero_col_broadcast_b_u8", op, "u8", [3, 4],
            [0, 1, 2, 0, 0, 0x80, 0, 3, 0xFF, 0, 0, 1], [0, 2, 0x40], b_strides=[1, 0],
            tags=["strides", "zero_stride"], source=SRC_STRIDES)
        dml(f"{pre}_strides_padded_a_out_u32", op, "u32", [2, 3],
            [0x100, 0, 1, 0xDEAD, 0, 0x80000000, 0], [1, 1, 0, 0, 0, 3],
            a_strides=[4, 1], out_strides=[5, 1], tags=["strides", "padded", "out_strides"],
            source=SRC_STRIDES)
        dml(f"{pre}_inplace_out_aliases_b_u8", op, "u8", [8], [0, 1, 2, 0, 0x80, 0, 7, 0],
            [0, 0, 3, 4, 0, 0, 0x10, 1], alias="out=b", tags=["in_place"],
            source=SRC_DML[op] + "; " + SRC_BINDING,
            notes="'OutputTensor is permitted to alias one of the input tensors'.")
        same = [0, 1, 0, 0x100, 0, 0x80000000]
        dml(f"{pre}_inputs_same_buffer_u32", op, "u32", [6], same, same, alias="a=b",
            tags=["aliasing"], source=SRC_DML[op] + "; " + SRC_BINDING)
    # Errors: types, feature levels, ranks.
    src = SRC_DML[op] + "; " + SRC_FLH
    err(f"{pre}_err_u8_at_fl1_0", op, "u8", [1, 1, 2, 2], "unsupported_dtype",
        "UINT8 requires DML_FEATURE_LEVEL_2_0 (FL 1.0: UINT32 only)", feature_level="1_0",
        tags=["feature_level"], source=src)
    err(f"{pre}_err_rank5_at_fl2_0", op, "u8", [1, 1, 1, 2, 2], "rank_out_of_range",
        "below DML_FEATURE_LEVEL_3_0 exactly 4 dimensions", feature_level="2_0",
        tags=["feature_level"], source=src)
    err(f"{pre}_err_rank2_at_fl1_0", op, "u32", [2, 2], "rank_out_of_range",
        "below DML_FEATURE_LEVEL_3_0 exactly 4 dimensions", feature_level="1_0",
        tags=["feature_level"], source=src)
    for dt in ["i32", "u16", "f32", "u64"] if op == "logical_and" else ["i8", "f16"]:
        err(f"{pre}_err_unsupported_{dt}", op, dt, [4], "unsupported_dtype",
            f"only UINT8 and UINT32 ({dt} given)")
    err(f"{pre}_err_out_dtype_u32_in_u8", op, "u8", [4], "dtype_mismatch",
        "the same DataType for every tensor (UINT8 in, UINT32 out)", out_dtype="u32")
    err(f"{pre}_err_rank9", op, "u8", [1, 1, 1, 1, 1, 1, 1, 1, 3], "rank_out_of_range",
        "DimensionCount 9 > 8")
    err(f"{pre}_err_output_zero_stride", op, "u8", [4, 4], "output_overlap",
        "output Strides {4,0} overlap (library policy)", out_strides=[4, 0])
    if not unary:
        err(f"{pre}_err_shape_mismatch", op, "u32", [2, 2], "shape_mismatch",
            "Sizes differ", b_shape=[2, 1])

dml("lnot_owned_by_dml_input_u8", "logical_not", "u8", [7], [0, 1, 2, 0, 0x80, 0xFF, 0],
    extra={"a_flags": "OWNED_BY_DML"}, tags=["owned_by_dml"], source=SRC_LNOT + "; " + SRC_FLAGS)
dml("lor_owned_by_dml_a_u32", "logical_or", "u32", [1, 1, 2, 3], [0, 0x100, 0, 1, 0, 7],
    [0, 0, 0x80000000, 0, 0, 1], extra={"a_flags": "OWNED_BY_DML"}, tags=["owned_by_dml"],
    source=SRC_LOR + "; " + SRC_FLAGS)
generated("land_large_u8_sparse_100003", "logical_and", "u8", [100003], [221, 222], "sparse")
generated("lor_large_u32_sparse_1x4x181x139", "logical_or", "u32", [1, 4, 181, 139],
          [223, 224], "sparse")
generated("lnot_large_u8_sparse_65537", "logical_not", "u8", [65537], [225], "sparse")

# ===== OpenVINO BitwiseAnd-13, BitwiseOr-13 ====================================================

T, F = 1, 0
# Template test operands: the 3x5 pattern of 0xff / 0x0 / 0x1 / 0x8 / 0xbf / 0x3f.
TPL_A8 = [0xff] * 5 + [0x0] * 4 + [0x1] * 3 + [0x8] * 2 + [0xbf]
TPL_B8 = [0x0, 0x1, 0x8, 0xbf, 0x3f, 0x1, 0x8, 0xbf, 0x3f, 0x8, 0xbf, 0x3f, 0xbf, 0x3f, 0x3f]


def widen(vals, w):
    """The template tests' 16- and 32-bit patterns: 0xff -> 0xffff, 0xbf -> 0xbfff, ..."""
    out = []
    for v in vals:
        if v in (0xff, 0xbf, 0x3f):
            v = int(f"{v:02x}" + "f" * (2 * w - 2), 16)
        out.append(v)
    return out


TPL_A64 = [0] * 5 + [1] * 4 + [0x4000000000000000] * 3 + [0xc000000000000000] * 2 + [2**64 - 1]
TPL_B64 = [0x1, 0x4000000000000000, 0xc000000000000000, 2**64 - 1, 0x8,
           0x4000000000000000, 0xc000000000000000, 2**64 - 1, 0x8,
           0xc000000000000000, 2**64 - 1, 0x8, 2**64 - 1, 0x8, 0x8]

for op, pre, sym in [("bitwise_and_broadcast", "ovand", "&"), ("bitwise_or_broadcast", "ovor", "|")]:
    spec = SRC_OV[op]
    tpl = SRC_TPL[op]
    ov(f"{pre}_doc_example_u8", op, "u8", [2], [21, 120], [2], [3, 37], tags=["doc", "seed"],
       notes=f"The spec's example: [21, 120] {sym} [3, 37].")
    ov(f"{pre}_doc_example_bool", op, "bool", [3], [T, F, F], [3], [T, T, F],
       tags=["doc", "seed"], notes="The spec's boolean example.")
    ov(f"{pre}_template_bool_2x2", op, "bool", [2, 2], [T, F, T, F], [2, 2], [T, F, F, T],
       tags=["openvino_test"], source=tpl)
    for dt in OV_INTS:
        w = WIDTH[dt]
        a = TPL_A64 if w == 8 else widen(TPL_A8, w)
        b = TPL_B64 if w == 8 else widen(TPL_B8, w)
        ov(f"{pre}_template_3x5_{dt}", op, dt, [3, 5], a, [3, 5], b,
           tags=["openvino_test", "extreme_int"], source=tpl,
           notes="The signed types take the same bit patterns as the unsigned ones.")
    ov(f"{pre}_noncanonical_bool", op, "bool", [6], [2, 0x80, 0, 0xFF, 2, 0],
       [6], [1, 0, 0x40, 0xFF, 0, 0], tags=["noncanonical_bool"],
       source=spec + "; OpenVINO reference bitwise_and.hpp / bitwise_or.hpp (boolean -> logical)",
       notes="Boolean is the logical operation: any nonzero byte is true, the result is 0 or 1 "
             "(2 AND 1 is 1, not 2 & 1 = 0).")
    ov(f"{pre}_numpy_doc_8x1x6x1_x_7x1x5_i16", op, "i16", [8, 1, 6, 1], rand("i16", 48),
       [7, 1, 5], rand("i16", 35), tags=["doc", "numpy"], source=spec + "; " + SRC_BCAST)
    ov(f"{pre}_numpy_onnx_3x4x5_x_5_u64", op, "u64", [3, 4, 5], rand("u64", 60), [5],
       rand("u64", 5), tags=["onnx", "numpy"], source=SRC_ONNX)
    ov(f"{pre}_numpy_onnx_3x4x5x6_x_4x5x6_u8", op, "u8", [3, 4, 5, 6], rand("u8", 360),
       [4, 5, 6], rand("u8", 120), tags=["onnx", "numpy"], source=SRC_ONNX)
    ov(f"{pre}_numpy_default_1x3_x_2x1_i32", op, "i32", [1, 3], rand("i32", 3), [2, 1],
       rand("i32", 2), tags=["numpy"], explicit_broadcast=False,
       notes="No `broadcast` field: numpy is the default.")
    ov(f"{pre}_pdpd_2x3x4x5_x_3x4_axis1_u16", op, "u16", [2, 3, 4, 5], rand("u16", 120),
       [3, 4], rand("u16", 12), broadcast="pdpd", axis=1, tags=["doc", "pdpd"],
       source=SRC_BCAST)
    ov(f"{pre}_pdpd_2x3x4x5_x_3x1_axis1_u8", op, "u8", [2, 3, 4, 5], rand("u8", 120),
       [3, 1], rand("u8", 3), broadcast="pdpd", axis=1, tags=["doc", "pdpd"], source=SRC_BCAST)
    ov(f"{pre}_pdpd_2x3x4x5_x_4x5_default_bool", op, "bool", [2, 3, 4, 5], rand("bool", 120),
       [4, 5], rand("bool", 20), broadcast="pdpd", tags=["doc", "pdpd"], source=SRC_BCAST)
    ov(f"{pre}_none_2x3_i64", op, "i64", [2, 3], rand("i64", 6), [2, 3], rand("i64", 6),
       broadcast="none", tags=["none"])
    ov(f"{pre}_scalar_x_scalar_u32", op, "u32", [], [0xF0F0F0F0], [], [0x0FF00FF0],
       tags=["scalar"])
    ov(f"{pre}_len5_x_scalar_i8", op, "i8", [5], [0x80, 0x7F, 0xFF, 0, 0x55], [], [0xC3],
       tags=["scalar", "odd_length"])
    ov(f"{pre}_rank10_u8", op, "u8", [2, 1, 2, 1, 1, 2, 1, 1, 3, 1], rand("u8", 24),
       [1, 2, 1, 1, 1, 1, 1, 3, 2], rand("u8", 12), tags=["rank_gt_8", "numpy"],
       source=spec + "; " + SRC_BCAST, notes="OpenVINO has no rank limit.")
    ov(f"{pre}_zero_size_2x0_x_1_u16", op, "u16", [2, 0], [], [1], [7], tags=["zero_size"],
       source=SRC_BCAST)
    ov(f"{pre}_inplace_out_aliases_a_u32", op, "u32", [3, 4], rand("u32", 12), [4],
       rand("u32", 4), alias="out=a", tags=["in_place"],
       notes="The output (A's shape) bound to A's range.")
    ov(f"{pre}_inplace_out_aliases_b_i16", op, "i16", [5], rand("i16", 5), [2, 5],
       rand("i16", 10), alias="out=b", tags=["in_place"])
    err(f"{pre}_err_float_f32", op, "f32", [2, 2], "unsupported_dtype",
        "The element type of the input tensor must be integer or boolean.",
        broadcast="numpy", source=spec + "; " + SRC_OV_TYPES)
    err(f"{pre}_err_float_f16", op, "f16", [3], "unsupported_dtype",
        "The element type of the input tensor must be integer or boolean.",
        source=spec + "; " + SRC_OV_TYPES)
    err(f"{pre}_err_dtype_mismatch_u8_bool", op, "u8", [3], "dtype_mismatch",
        "Arguments do not have the same element type (arg0 element type: u8, arg1 element "
        "type: boolean).", b_dtype="bool", source=SRC_OV_TYPES)
    err(f"{pre}_err_numpy_3_x_4", op, "i32", [3], "shape_inconsistent",
        "Argument shapes are inconsistent.", b_shape=[4], broadcast="numpy", source=SRC_BCAST)
    err(f"{pre}_err_none_1x3_x_3", op, "u8", [1, 3], "shape_inconsistent",
        "Argument shapes are inconsistent.", b_shape=[3], broadcast="none", source=SRC_BCAST)
    err(f"{pre}_err_pdpd_b_onto_a_only", op, "i32", [8, 1, 6, 1], "shape_inconsistent",
        "Argument shapes are inconsistent.", b_shape=[7, 1, 5], broadcast="pdpd",
        pdpd_axis=1, source=SRC_BCAST)
    err(f"{pre}_err_explicit", op, "u8", [2], "unsupported_broadcast",
        "Unsupported auto broadcast specification", broadcast="explicit", source=SRC_BCAST)

generated("ovand_large_u8_1000x1_x_1x257", "bitwise_and_broadcast", "u8", [1000, 1],
          [231, 232], "bits", b_shape=[1, 257], tags=["numpy"])
generated("ovor_large_i32_131071", "bitwise_or_broadcast", "i32", [131071], [233, 234], "bits",
          b_shape=[131071])

# ===== OpenVINO BitwiseNot-13 ==================================================================

ov("ovnot_doc_example_u8", "bitwise_not", "u8", [2], [1, 3], tags=["doc", "seed"],
   notes="The spec's example: [1, 3] -> [254, 252].")
ov("ovnot_doc_example_bool", "bitwise_not", "bool", [2], [T, F], tags=["doc", "seed"],
   notes="The spec's example: [True, False] -> [False, True].")
ov("ovnot_template_bool_2x2", "bitwise_not", "bool", [2, 2], [T, F, T, F],
   tags=["openvino_test"], source=SRC_TPL["bitwise_not"])
for dt in OV_INTS:
    w = 8 * WIDTH[dt]
    m = (1 << w) - 1
    if dt.startswith("i"):
        vals = [(1 << (w - 1)) - 1, 1 << (w - 1), (-7) & m]
    else:
        vals = [m, 0, 7]
    ov(f"ovnot_template_{dt}", "bitwise_not", dt, [3], vals,
       tags=["openvino_test", "extreme_int"], source=SRC_TPL["bitwise_not"])
ov("ovnot_noncanonical_bool", "bitwise_not", "bool", [5], [2, 0x80, 0xFF, 0, 1],
   tags=["noncanonical_bool"],
   source=SRC_OV["bitwise_not"] + "; OpenVINO reference bitwise_not.hpp (boolean: !x)",
   notes="Boolean is LogicalNot: any nonzero byte gives 0, zero gives 1 (not ~x = 0xFD).")
ov("ovnot_specials_u16", "bitwise_not", "u16", [3, 4], specials("u16"),
   tags=["specials", "extreme_int"])
ov("ovnot_specials_i64", "bitwise_not", "i64", [12], specials("i64"),
   tags=["specials", "extreme_int"])
ov("ovnot_scalar_i32", "bitwise_not", "i32", [], [0x12345678], tags=["scalar"])
ov("ovnot_rank9_u8", "bitwise_not", "u8", [1, 2, 1, 3, 1, 1, 2, 1, 2], rand("u8", 24),
   tags=["rank_gt_8"], notes="OpenVINO has no rank limit.")
ov("ovnot_zero_size_3x0_u32", "bitwise_not", "u32", [3, 0], [], tags=["zero_size"])
ov("ovnot_len4097_i8", "bitwise_not", "i8", [4097], rand("i8", 4097), tags=["odd_length"])
ov("ovnot_inplace_out_aliases_a_u64", "bitwise_not", "u64", [2, 3], rand("u64", 6),
   alias="out=a", tags=["in_place"])
ov("ovnot_inplace_out_aliases_a_bool", "bitwise_not", "bool", [7], [0, 1, 2, 0, 0x80, 1, 0],
   alias="out=a", tags=["in_place", "noncanonical_bool"])
for dt in ["f32", "f16", "f64"]:
    err(f"ovnot_err_float_{dt}", "bitwise_not", dt, [2], "unsupported_dtype",
        "The element type of the input tensor must be integer or boolean.",
        source=SRC_OV["bitwise_not"] + "; OpenVINO core op/bitwise_not.cpp")
generated("ovnot_large_u32_250007", "bitwise_not", "u32", [250007], [241], "bits")

# ===== OpenVINO LogicalAnd-1, LogicalOr-1, LogicalXor-1 ========================================

TPL_LOGIC = {
    "logical_and_broadcast": ("ovland", [T, F, T, F], [F, T, T, F],
                              [T, T, T, T, T, F, T, F, F, T, T, T],
                              [T, T, T, T, T, F, T, F, F, T, T, F]),
    "logical_or_broadcast": ("ovlor", [T, F, T, F], [F, T, T, F],
                             [T, T, T, T, T, F, T, F, F, T, T, T],
                             [T, T, T, T, T, T, T, F, F, T, T, F]),
    "logical_xor_broadcast": ("ovlxor", [T, F, T, F], [F, T, T, F],
                              [T, T, T, T, T, F, T, F, F, T, T, T],
                              [T, T, T, T, T, T, T, F, F, T, T, F]),
}
for op, (pre, a1, b1, a3, b3) in TPL_LOGIC.items():
    spec, tpl = SRC_OV[op], SRC_TPL[op]
    ov(f"{pre}_template_2x2", op, "bool", [2, 2], a1, [2, 2], b1, tags=["openvino_test"],
       source=tpl)
    ov(f"{pre}_template_broadcast_2x1x2x1_x_1x1x2x1", op, "bool", [2, 1, 2, 1], [T, F, T, F],
       [1, 1, 2, 1], [T, F], tags=["openvino_test", "numpy"], source=tpl)
    ov(f"{pre}_template_3x4", op, "bool", [3, 4], a3, [3, 4], b3, tags=["openvino_test"],
       source=tpl)
    a, b = cross([0, 1, 2, 0x80, 0xFF])
    ov(f"{pre}_noncanonical_cross", op, "bool", [5, 5], a, [5, 5], b,
       tags=["noncanonical_bool", "specials"],
       source=spec + "; OpenVINO reference (static_cast<bool>)",
       notes="Every nonzero byte is true; results are 0 or 1.")
    ov(f"{pre}_doc_shapes_8x1x6x1_x_7x1x5", op, "bool", [8, 1, 6, 1], rand("bool", 48),
       [7, 1, 5], rand("bool", 35), tags=["doc", "numpy"], source=spec)
    ov(f"{pre}_onnx_bcast4v4d_1x4x1x6_x_3x1x5x6", op, "bool", [1, 4, 1, 6], rand("bool", 24),
       [3, 1, 5, 6], rand("bool", 90), tags=["onnx", "numpy"], source=SRC_ONNX)
    ov(f"{pre}_pdpd_2x3x4x5_x_3x1x5_axis1", op, "bool", [2, 3, 4, 5], rand("bool", 120),
       [3, 1, 5], rand("bool", 15), broadcast="pdpd", axis=1, tags=["pdpd"],
       source=spec + "; " + SRC_BCAST)
    ov(f"{pre}_none_4x56", op, "bool", [4, 56],
       [v if v % 5 == 0 else 0 for v in range(224)], [4, 56],
       [v & 1 for v in range(224)], broadcast="none", tags=["none", "noncanonical_bool"],
       source=spec)
    ov(f"{pre}_scalar_x_len3", op, "bool", [], [2], [3], [0, 1, 0x80],
       tags=["scalar", "noncanonical_bool"])
    ov(f"{pre}_rank9", op, "bool", [2, 1, 1, 2, 1, 1, 2, 1, 2], rand("bool", 16), [2],
       rand("bool", 2), tags=["rank_gt_8"])
    ov(f"{pre}_inplace_out_aliases_a", op, "bool", [2, 5], rand("bool", 10), [1, 5],
       [2, 0, 1, 0, 0x40], alias="out=a", tags=["in_place", "noncanonical_bool"])
    for dt in ["u8", "i32", "f32"]:
        err(f"{pre}_err_not_boolean_{dt}", op, dt, [2, 2], "unsupported_dtype",
            f"Operands for logical operators must have boolean element type but have element "
            f"type {dt}.", source=spec + "; " + SRC_OV_TYPES)
    err(f"{pre}_err_dtype_mismatch_bool_u8", op, "bool", [2], "dtype_mismatch",
        "Arguments do not have the same element type (arg0 element type: boolean, arg1 "
        "element type: u8).", b_dtype="u8", source=SRC_OV_TYPES)
    err(f"{pre}_err_numpy_2x3_x_2", op, "bool", [2, 3], "shape_inconsistent",
        "Argument shapes are inconsistent.", b_shape=[2], source=SRC_BCAST)
    err(f"{pre}_err_explicit", op, "bool", [2], "unsupported_broadcast",
        "Unsupported auto broadcast specification", broadcast="explicit", source=SRC_BCAST)

generated("ovlxor_large_bool_500009", "logical_xor_broadcast", "bool", [500009], [251, 252],
          "bool", b_shape=[500009])
generated("ovland_large_bool_outer_613x1_x_1x619", "logical_and_broadcast", "bool", [613, 1],
          [253, 254], "bool", b_shape=[1, 619], tags=["numpy"])

# ===== OpenVINO LogicalNot-1 ===================================================================

SRC_LN = SRC_OV["logical_not_bool"]
ov("ovlnot_template_bool_2x2", "logical_not_bool", "bool", [2, 2], [T, F, T, F],
   tags=["openvino_test"], source=SRC_TPL["logical_not_bool"])
ov("ovlnot_noncanonical", "logical_not_bool", "bool", [6], [0, 1, 2, 0x80, 0xFF, 0x10],
   tags=["noncanonical_bool"], notes="Any nonzero byte is true: NOT gives 0; zero gives 1.")
ov("ovlnot_scalar", "logical_not_bool", "bool", [], [0], tags=["scalar"])
ov("ovlnot_rank12", "logical_not_bool", "bool", [1, 2, 1, 1, 2, 1, 1, 1, 2, 1, 1, 3],
   rand("bool", 24), tags=["rank_gt_8"])
ov("ovlnot_zero_size_0x4", "logical_not_bool", "bool", [0, 4], [], tags=["zero_size"])
ov("ovlnot_len4099", "logical_not_bool", "bool", [4099],
   [v % 7 if v % 3 else 0 for v in range(4099)], tags=["odd_length", "noncanonical_bool"])
ov("ovlnot_inplace_out_aliases_a", "logical_not_bool", "bool", [3, 3],
   [0, 1, 2, 0, 0x80, 0, 0xFF, 0, 1], alias="out=a", tags=["in_place", "noncanonical_bool"])
err("ovlnot_err_template_u8", "logical_not_bool", "u8", [2, 2], "unsupported_dtype",
    "LogicalNot-1 takes T_BOOL (boolean) only", source=SRC_LN + "; " + SRC_TPL["logical_not_bool"],
    notes="The template test runs LogicalNot on u8 {1,0,1,0} and OpenVINO's op does not check "
          "the type ('No boolean element_type validation for backward compatibility'); the "
          "spec says T_BOOL only, and this library follows the spec.")
for dt in ["i32", "f32"]:
    err(f"ovlnot_err_not_boolean_{dt}", "logical_not_bool", dt, [3], "unsupported_dtype",
        "LogicalNot-1 takes T_BOOL (boolean) only")
generated("ovlnot_large_bool_300007", "logical_not_bool", "bool", [300007], [261], "bool")


def main():
    path = output_path(__file__, "and_or_not.json")
    write_cases(path, CASES)
    print(f"{len(CASES)} cases -> {os.path.normpath(path)}")


if __name__ == "__main__":
    main()
