#!/usr/bin/env python3
"""Writes tests/data/expressions.json: fused expression cases (int4 and int2 unpacking,
Hamming distances, masked blends, strided and broadcast operands, logical chains, signed
shifts, 64-bit constants, and the rules an expression can break), every expected value
computed here with Python integers from the operators' rules, node by node.

Python 3, standard library only: python3 conformance/cases/expressions.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from casefmt import WIDTH, indices, mask, packed, physical_len, prod, stream, output_path, write_cases  # noqa: E402


def values(seed, count, dtype):
    return stream(seed, count, "bool" if dtype == "bool" else "bits", dtype)


def signed(v, bits):
    return v - (1 << bits) if v >> (bits - 1) else v


def apply(op, dtype, a, b):
    """One element of `op` on bit patterns `a` and `b` of `dtype`."""
    bits = 8 * WIDTH[dtype]
    ones = mask(dtype)
    truth = lambda v: 1 if v != 0 else 0
    if op in ("bit_and", "bitwise_and_broadcast") and dtype != "bool":
        return a & b
    if op in ("bit_or", "bitwise_or_broadcast") and dtype != "bool":
        return a | b
    if op in ("bit_xor", "bitwise_xor_broadcast") and dtype != "bool":
        return a ^ b
    if op in ("bit_not", "bitwise_not") and dtype != "bool":
        return ~a & ones
    if op in ("logical_and", "logical_and_broadcast", "bitwise_and_broadcast"):
        return truth(a) & truth(b)
    if op in ("logical_or", "logical_or_broadcast", "bitwise_or_broadcast"):
        return truth(a) | truth(b)
    if op in ("logical_xor", "logical_xor_broadcast", "bitwise_xor_broadcast"):
        return truth(a) ^ truth(b)
    if op in ("logical_not", "logical_not_bool", "bitwise_not"):
        return 1 - truth(a)
    if op in ("bit_shift_left", "bitwise_left_shift_broadcast"):
        amount = b if not dtype.startswith("i") else signed(b, bits)
        return (a << amount) & ones if 0 <= amount < bits else 0
    if op in ("bit_shift_right", "bitwise_right_shift_broadcast"):
        if dtype.startswith("i"):
            # Arithmetic: an amount out of range (negative included) fills with the sign.
            amount = signed(b, bits)
            amount = amount if 0 <= amount < bits else bits - 1
            return (signed(a, bits) >> amount) & ones
        return a >> b if b < bits else 0
    raise ValueError(op)


def result_at(case, index):
    """The result node's value and type at `index` of the expression's space."""
    vals, types = [], []
    for node in case["nodes"]:
        if "input" in node:
            t = case["inputs"][node["input"]]
            shape, dtype = t["shape"], t["dtype"]
            strides = t.get("strides", packed(shape))
            own = index[len(index) - len(shape):]
            at = sum((0 if s == 1 else i) * st for i, s, st in zip(own, shape, strides))
            vals.append(t["data"][at])
            types.append(dtype)
        elif "constant" in node:
            vals.append(node["constant"])
            types.append(node["dtype"])
        elif node["op"] == "bit_count":
            vals.append(bin(vals[node["a"]]).count("1"))
            types.append(node["out_dtype"])
        else:
            a = vals[node["a"]]
            b = vals[node["b"]] if "b" in node else a
            vals.append(apply(node["op"], types[node["a"]], a, b))
            types.append(types[node["a"]])
    return vals[case["result"]], types[case["result"]]


def space_of(case):
    """The inputs' shapes broadcast together (numpy's rule, aligned from the right)."""
    rank = max(len(t["shape"]) for t in case["inputs"])
    space = [1] * rank
    for t in case["inputs"]:
        for d, n in enumerate(t["shape"]):
            at = rank - len(t["shape"]) + d
            space[at] = max(space[at], n)
    return space


def combine(op, out_dtype, dtype, total, value):
    """`total` and one more `value` of `dtype` combined by the reduction `op`: a sum of the
    values as integers (signed types sign-extended) modulo the output's width, the bitwise
    functions on the bits, any and all on the truth values."""
    if op == "sum":
        v = signed(value, 8 * WIDTH[dtype]) if dtype.startswith("i") else value
        return (total + v) & mask(out_dtype)
    if op == "or":
        return total | value
    if op == "and":
        return total & value
    if op == "xor":
        return total ^ value
    if op == "any":
        return total | (1 if value else 0)
    if op == "all":
        return total & (1 if value else 0)
    raise ValueError(op)


def evaluate(case):
    """The expected output of a valid case, logical row-major."""
    reduce = case.get("reduce")
    if reduce is None:
        return [result_at(case, index)[0] for index in indices(case["output"]["shape"])]
    space = space_of(case)
    k = len(reduce["axes"])
    out_dtype = case["output"]["dtype"]
    expected = []
    for outer in indices(space[:len(space) - k]):
        total = {"and": None, "all": 1}.get(reduce["op"], 0)
        for inner in indices(space[len(space) - k:]):
            value, dtype = result_at(case, list(outer) + list(inner))
            if total is None:
                total = mask(dtype)
            total = combine(reduce["op"], out_dtype, dtype, total, value)
        if "affine" in reduce:
            scale, offset = reduce["affine"]
            total = (total * scale + offset) & mask(out_dtype)
        expected.append(total)
    return expected


def tensor(dtype, shape, seed, strides=None):
    physical = physical_len(shape, strides or packed(shape))
    t = {"dtype": dtype, "shape": shape, "data": values(seed, physical, dtype)}
    if strides:
        t["strides"] = strides
    return t


def case(id, inputs, nodes, result, output, tags, notes, reduce=None):
    c = {"id": id, "op": "expression", "inputs": inputs, "nodes": nodes, "result": result,
         "output": output, "tags": ["expression"] + tags, "source": "conformance/cases/expressions.py",
         "notes": notes}
    if reduce is not None:
        c["reduce"] = reduce
    c["expected"] = evaluate(c)
    return c


def error(id, inputs, nodes, result, output, kind, notes, reduce=None):
    c = {"id": id, "op": "expression", "inputs": inputs, "nodes": nodes, "result": result,
         "output": output, "expect_error": True, "error_kind": kind,
         "tags": ["expression", "validation_only"], "source": "conformance/cases/expressions.py",
         "notes": notes}
    if reduce is not None:
        c["reduce"] = reduce
    return c


def main():
    cases = []
    inp = lambda k: {"input": k}
    const = lambda bits, dtype: {"constant": bits, "dtype": dtype}
    node = lambda op, a, b=None, **kw: dict({"op": op, "a": a}, **({} if b is None else {"b": b}), **kw)

    cases.append(case("expr_int4_high_u8", [tensor("u8", [64], 1)],
        [inp(0), const(4, "u8"), node("bit_shift_right", 0, 1), const(0xF, "u8"), node("bit_and", 2, 3)],
        4, {"dtype": "u8", "shape": [64]}, ["int4"], "(w >> 4) & 0xF: the high nibbles of int4 pairs"))
    cases.append(case("expr_int4_low_u8_odd", [tensor("u8", [37], 2)],
        [inp(0), const(0xF, "u8"), node("bit_and", 0, 1)],
        2, {"dtype": "u8", "shape": [37]}, ["int4", "odd_length"], "w & 0xF over an odd length: a partial last block"))
    for i in range(4):
        cases.append(case(f"expr_int2_field{i}_u8", [tensor("u8", [50], 3)],
            [inp(0), const(2 * i, "u8"), node("bit_shift_right", 0, 1), const(3, "u8"), node("bit_and", 2, 3)],
            4, {"dtype": "u8", "shape": [50]}, ["int2"], f"(w >> {2 * i}) & 0x3: field {i} of int2 quads"))
    cases.append(case("expr_hamming_u64_u8", [tensor("u64", [33], 4), tensor("u64", [33], 5)],
        [inp(0), inp(1), node("bit_xor", 0, 1), node("bit_count", 2, out_dtype="u8")],
        3, {"dtype": "u8", "shape": [33]}, ["hamming"], "bit_count(a ^ b) into UINT8: Hamming distances of 64-bit codes"))
    cases.append(case("expr_hamming_u32_u32", [tensor("u32", [20], 6), tensor("u32", [20], 7)],
        [inp(0), inp(1), node("bit_xor", 0, 1), node("bit_count", 2, out_dtype="u32")],
        3, {"dtype": "u32", "shape": [20]}, ["hamming"], "bit_count(a ^ b) into UINT32"))
    cases.append(case("expr_mask_blend_u16_row", [tensor("u16", [6, 10], 8), tensor("u16", [6, 10], 9), tensor("u16", [10], 10)],
        [inp(0), inp(1), inp(2), node("bit_and", 0, 2), node("bit_not", 2), node("bit_and", 1, 4), node("bit_or", 3, 5)],
        6, {"dtype": "u16", "shape": [6, 10]}, ["blend", "broadcast"], "(a & m) | (b & ~m), the mask a row broadcast down the matrix"))
    cases.append(case("expr_xor_transposed_u32", [tensor("u32", [4, 6], 11, [1, 4]), tensor("u32", [4, 6], 12)],
        [inp(0), inp(1), node("bit_xor", 0, 1)],
        2, {"dtype": "u32", "shape": [4, 6]}, ["strides"], "A read transposed (strides [1, 4])"))
    cases.append(case("expr_or_strided_output_u8", [tensor("u8", [3, 4], 13), tensor("u8", [3, 4], 14)],
        [inp(0), inp(1), node("bit_or", 0, 1)],
        2, {"dtype": "u8", "shape": [3, 4], "strides": [1, 3]}, ["out_strides"], "an output written transposed: its bytes share words"))
    cases.append(case("expr_logical_chain_u8", [tensor("u8", [40], 15), tensor("u8", [40], 16), tensor("u8", [40], 17)],
        [inp(0), inp(1), inp(2), node("logical_xor", 0, 1), node("logical_not", 2), node("logical_or", 3, 4)],
        5, {"dtype": "u8", "shape": [40]}, ["logical"], "LOGICAL_OR(LOGICAL_XOR(a, b), LOGICAL_NOT(c)): truth values of any bytes"))
    a_i8 = tensor("i8", [16], 18)
    a_i8["data"][:4] = [0x80, 0xFF, 0x7F, 0x01]
    cases.append(case("expr_arithmetic_shift_i8", [a_i8],
        [inp(0), const(3, "i8"), node("bitwise_right_shift_broadcast", 0, 1), const(9, "i8"), node("bitwise_right_shift_broadcast", 0, 3),
         node("bitwise_xor_broadcast", 2, 4)],
        5, {"dtype": "i8", "shape": [16]}, ["signed", "extreme_int"], "(a >> 3) ^ (a >> 9) on i8: arithmetic, an amount past the width fills with the sign"))
    cases.append(case("expr_four_inputs_i32", [tensor("i32", [3, 5], 19), tensor("i32", [5], 20), tensor("i32", [1], 21), tensor("i32", [3, 1], 22)],
        [inp(0), inp(1), inp(2), inp(3), node("bitwise_xor_broadcast", 0, 1), node("bitwise_and_broadcast", 2, 3),
         node("bitwise_or_broadcast", 4, 5), node("bitwise_not", 6)],
        7, {"dtype": "i32", "shape": [3, 5]}, ["broadcast"], "~((a ^ row) | (scalar & column)): four inputs broadcast by numpy's rule"))
    cases.append(case("expr_constant_u64", [tensor("u64", [9], 23)],
        [inp(0), const(0xDEADBEEFCAFEBABE, "u64"), node("bit_xor", 0, 1), const(63, "u64"), node("bit_shift_left", 2, 3)],
        4, {"dtype": "u64", "shape": [9]}, ["extreme_int"], "((a ^ 0xDEADBEEFCAFEBABE) << 63) on u64"))
    cases.append(case("expr_bool_ov", [tensor("bool", [12], 24), tensor("bool", [12], 25)],
        [inp(0), inp(1), node("logical_and_broadcast", 0, 1), node("bitwise_not", 2)],
        3, {"dtype": "bool", "shape": [12]}, ["logical"], "BitwiseNot(LogicalAnd(a, b)) on boolean"))

    def t(dtype, shape):
        return {"dtype": dtype, "shape": shape, "data": [0] * prod(shape)}
    cases.append(error("expr_err_operand_types", [t("u8", [4]), t("u16", [4])],
        [inp(0), inp(1), node("bit_xor", 0, 1)], 2, {"dtype": "u8", "shape": [4]}, "dtype_mismatch",
        "the operands of one operator have two types"))
    cases.append(error("expr_err_five_inputs", [t("u8", [4])] * 5,
        [inp(0), inp(1), node("bit_xor", 0, 1)], 5, {"dtype": "u8", "shape": [4]}, "expr_count",
        "five inputs: an expression takes at most four"))
    cases.append(error("expr_err_wide_constant", [t("u8", [4])],
        [inp(0), const(256, "u8"), node("bit_xor", 0, 1)], 2, {"dtype": "u8", "shape": [4]}, "expr_constant",
        "a u8 constant of 256"))
    cases.append(error("expr_err_broadcast", [t("u32", [3])],
        [inp(0), node("bit_not", 0)], 1, {"dtype": "u32", "shape": [4]}, "shape_mismatch",
        "an input of 3 elements against an output of 4"))
    cases.append(error("expr_err_shift_float", [t("f32", [4])],
        [inp(0), node("bit_shift_left", 0, 0)], 1, {"dtype": "f32", "shape": [4]}, "unsupported_dtype",
        "a shift of floats"))
    cases.append(error("expr_err_count_u16", [t("u32", [4])],
        [inp(0), node("bit_count", 0, out_dtype="u16")], 1, {"dtype": "u16", "shape": [4]}, "unsupported_dtype",
        "BIT_COUNT into u16"))
    cases.append(error("expr_err_forward_reference", [t("u32", [4])],
        [inp(0), node("bit_xor", 0, 2), node("bit_not", 0)], 1, {"dtype": "u32", "shape": [4]}, "expr_reference",
        "a node that names a later node"))
    cases.append(error("expr_err_result_type", [t("u32", [4])],
        [inp(0), node("bit_count", 0, out_dtype="u8")], 1, {"dtype": "u32", "shape": [4]}, "dtype_mismatch",
        "a result of u8 written to a u32 output"))

    # Reductions: the result combined over the trailing axes of the inputs' space.
    red = lambda op, *axes: {"op": op, "axes": list(axes)}
    hamming = [inp(0), inp(1), node("bitwise_xor_broadcast", 0, 1), node("bit_count", 2, out_dtype="u32")]
    cases.append(case("reduce_hamming_u32_matrix", [tensor("u32", [5, 1, 8], 30), tensor("u32", [7, 8], 31)],
        hamming, 3, {"dtype": "u32", "shape": [5, 7]}, ["reduce", "hamming"],
        "Hamming distances of 5 queries against 7 codes of 256 bits: sum over the words of bit_count(q ^ c)",
        red("sum", 2)))
    cases.append(case("reduce_hamming_u8_batched_strided", [tensor("u8", [2, 3, 1, 9], 32), tensor("u8", [2, 1, 4, 9], 33, [72, 72, 12, 1])],
        hamming, 3, {"dtype": "u32", "shape": [2, 3, 4]}, ["reduce", "hamming", "strides"],
        "batched Hamming distances of 72-bit codes in bytes, the codes' rows padded to 12 bytes",
        red("sum", 3)))
    cases.append(case("reduce_hamming_u64_keepdims", [tensor("u64", [4, 1, 3], 34), tensor("u64", [6, 3], 35)],
        hamming, 3, {"dtype": "u32", "shape": [4, 6, 1]}, ["reduce", "hamming"],
        "192-bit codes in 64-bit words, the output keeping the reduced axis as 1",
        red("sum", 2)))
    cases.append(case("reduce_sum_i8_signed_u32", [tensor("i8", [3, 50], 36)],
        [inp(0), node("bitwise_or_broadcast", 0, 0)], 1, {"dtype": "u32", "shape": [3]}, ["reduce", "signed"],
        "signed bytes summed as integers into UINT32 (a negative total wraps)",
        red("sum", 1)))
    cases.append(case("reduce_sum_u32_wraps", [tensor("u32", [2, 40], 37)],
        [inp(0), node("bit_or", 0, 0)], 1, {"dtype": "u32", "shape": [2]}, ["reduce", "extreme_int"],
        "random 32-bit words summed into UINT32: the total wraps modulo 2^32",
        red("sum", 1)))
    cases.append(case("reduce_sum_i64_u64", [tensor("i64", [4, 5], 38)],
        [inp(0), node("bitwise_and_broadcast", 0, 0)], 1, {"dtype": "u64", "shape": [4]}, ["reduce", "signed"],
        "64-bit signed values summed into UINT64, modulo 2^64",
        red("sum", 1)))
    cases.append(case("reduce_or_u16_all_axes", [tensor("u16", [3, 4, 5], 39)],
        [inp(0), node("bit_and", 0, 0)], 1, {"dtype": "u16", "shape": [1, 1, 1]}, ["reduce"],
        "a bitwise OR over every element: a union of bit sets",
        red("or", 0, 1, 2)))
    cases.append(case("reduce_and_u8_rows", [tensor("u8", [6, 3], 40), tensor("u8", [3], 41)],
        [inp(0), inp(1), node("bit_or", 0, 1)], 2, {"dtype": "u8", "shape": [6]}, ["reduce", "broadcast"],
        "AND over each row of (a | mask): an intersection, 8-bit outputs sharing words",
        red("and", 1)))
    cases.append(case("reduce_xor_u32_parity", [tensor("u32", [4, 2, 3], 42)],
        [inp(0), node("bit_not", 0)], 1, {"dtype": "u32", "shape": [4]}, ["reduce"],
        "XOR over the last two axes: each bit's parity",
        red("xor", 1, 2)))
    sparse = tensor("u8", [5, 4], 43)
    sparse["data"] = [v if v % 5 == 0 else 0 for v in sparse["data"]]
    cases.append(case("reduce_any_u8", [sparse],
        [inp(0), node("bit_and", 0, 0)], 1, {"dtype": "u8", "shape": [5]}, ["reduce", "logical"],
        "any over each row of mostly zero bytes",
        red("any", 1)))
    ones = tensor("u32", [5, 3], 44)
    ones["data"] = [v | 0x100 if i % 7 else 0 for i, v in enumerate(ones["data"])]
    cases.append(case("reduce_all_u32", [ones],
        [inp(0), node("bit_or", 0, 0)], 1, {"dtype": "u32", "shape": [5, 1]}, ["reduce", "logical"],
        "all over each row: a zero anywhere makes it 0; 0x100 is true at full width",
        red("all", 1)))
    cases.append(error("reduce_err_axes_not_trailing", [t("u32", [3, 4])],
        [inp(0), node("bit_not", 0)], 1, {"dtype": "u32", "shape": [4]}, "reduce_axes",
        "a reduction over the first axis, not the last", red("sum", 0)))
    cases.append(error("reduce_err_sum_into_u8", [t("u32", [3, 4])],
        [inp(0), node("bit_not", 0)], 1, {"dtype": "u8", "shape": [3]}, "reduce_type",
        "a sum into UINT8", red("sum", 1)))
    cases.append(error("reduce_err_output_sizes", [t("u32", [3, 4])],
        [inp(0), node("bit_not", 0)], 1, {"dtype": "u32", "shape": [4]}, "shape_mismatch",
        "an output of the reduced axis's size, not the kept one's", red("sum", 1)))

    # A sum's affine map, into 32 bits: the binary dense layer, 2 * popcount(xnor(a, w)) - bits.
    dense = [inp(0), inp(1), node("bitwise_xor_broadcast", 0, 1), node("bitwise_not", 2),
             node("bit_count", 3, out_dtype="u32")]
    cases.append(case("reduce_binary_dense_u8_i32", [tensor("u8", [4, 1, 6], 45), tensor("u8", [9, 6], 46)],
        dense, 4, {"dtype": "i32", "shape": [4, 9]}, ["reduce", "dense"],
        "a binary dense layer of 48 bits: 2 * popcount(xnor(a, w)) - 48 into INT32, negative where most bits differ",
        {"op": "sum", "axes": [2], "affine": [2, -48]}))
    cases.append(case("reduce_binary_dense_u64_batched", [tensor("u64", [2, 3, 1, 2], 47), tensor("u64", [1, 5, 2], 48)],
        dense, 4, {"dtype": "i32", "shape": [2, 3, 5]}, ["reduce", "dense", "broadcast"],
        "128-bit rows in 64-bit words, two batches of activations against one set of weights",
        {"op": "sum", "axes": [3], "affine": [2, -128]}))
    cases.append(case("reduce_sum_affine_u32_wraps", [tensor("u32", [3, 7], 49)],
        [inp(0), node("bit_or", 0, 0)], 1, {"dtype": "u32", "shape": [3]}, ["reduce", "extreme_int"],
        "random words summed, then times -3 plus 2^31 - 1, modulo 2^32",
        {"op": "sum", "axes": [1], "affine": [-3, 2147483647]}))
    cases.append(error("reduce_err_affine_after_or", [t("u32", [3, 4])],
        [inp(0), node("bit_not", 0)], 1, {"dtype": "u32", "shape": [3]}, "reduce_affine",
        "an affine map after an OR", {"op": "or", "axes": [1], "affine": [2, 1]}))
    cases.append(error("reduce_err_affine_into_u64", [t("u32", [3, 4])],
        [inp(0), node("bit_not", 0)], 1, {"dtype": "u64", "shape": [3]}, "reduce_affine",
        "an affine map after a sum into UINT64", {"op": "sum", "axes": [1], "affine": [2, 1]}))

    path = output_path(__file__, "expressions.json")
    write_cases(path, cases)
    print(f"wrote {len(cases)} cases to {os.path.normpath(path)}")


if __name__ == "__main__":
    main()
