#!/usr/bin/env python3
"""ONNX's own backend node tests of the bitwise and logical operators, as conformance cases:
writes tests/data/onnx_nodes.json.

Since onnx 1.23 the node tests' data files (onnx/backend/test/data/node/*/test_data_set_0/*.pb)
are no longer shipped in the wheel. The tests themselves are still there, as the definitions
in onnx.backend.test.case.node: each `export*` function of those modules builds one node and
its inputs and calls `expect(node, inputs=..., outputs=..., name=...)`. This script collects
them with onnx.backend.test.case.node.collect_testcases() (which imports every module of the
package, resetting numpy's random seed to 0 before each export, so the data is the same on
every run), keeps each test whose model is a single node of the operators below, and writes
its inputs and expected outputs in the case format of conformance/README.md.

Regenerate (the output is deterministic; the same onnx version gives the same file):

    pip install onnx==1.23.2
    python3 conformance/cases/onnx_nodes.py            # writes tests/data/onnx_nodes.json
    python3 conformance/cases/onnx_nodes.py OUT.json   # writes elsewhere

Shape broadcasting, index iteration and JSON writing come from conformance/cases/casefmt.py,
shared with and_or_not.py and shifts_and_count.py.

The mapping onto the library's `op` names (OpenVINO-style fields: `a_shape`, `b_shape`,
`out_shape`, `broadcast` "numpy", as ONNX broadcasting is numpy's; a one-input case has only
`a` and `a_shape`, no `b` field and no `broadcast`):

    ONNX operator (opset)          op                              types in the tests
    And-7                          logical_and_broadcast           bool
    Or-7                           logical_or_broadcast            bool
    Xor-7                          logical_xor_broadcast           bool
    Not-1                          logical_not_bool                bool (one input)
    BitwiseAnd-18                  bitwise_and_broadcast           integers
    BitwiseOr-18                   bitwise_or_broadcast            integers
    BitwiseXor-18                  bitwise_xor_broadcast           integers
    BitwiseNot-18                  bitwise_not                     integers (one input)
    BitShift-11/-28, LEFT          bitwise_left_shift_broadcast    integers
    BitShift-11/-28, RIGHT         bitwise_right_shift_broadcast   integers

BitShift-11 takes the unsigned types only and does not say what an amount outside
[0, bits) gives; BitShift-28 adds the signed types (a right shift is arithmetic) and defines
such an amount: 0, or -1 for a right shift of a negative value. In onnx 1.23.2 every BitShift
node test is built at opset 28 (expect() uses the newest version of the operator); the cases
that BitShift-11 cannot express (a signed type, or an amount outside [0, bits)) carry the tag
`opset28`, and those with such an amount also `shift_out_of_range`.

Element values are the format's bit patterns: unsigned integers of the element's width (two's
complement for negative values), bool as 0/1. `out_shape` is the expected output's shape.
Ids are `onnx_` and the test's name without its `test_` prefix (a test with several outputs,
or a name met twice, takes a suffix); `source` names the ONNX test (full name), the onnx
version and the module that defines it. Tags: `onnx`, plus `broadcast` where the input shapes
differ, `scalar` where a shape is [], and the BitShift tags above.

Every expected output is also recomputed here with Python integers from the operators'
definitions; a test whose data disagrees would be printed and stop the script. A node test
of these operators that the format cannot express (for example an element type it lacks) is
listed in the output, never dropped silently.
"""

import os
import sys
import warnings

import numpy as np
import onnx
import onnx.backend.test.case.node as node_tests

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from casefmt import indices, numpy_broadcast, write_cases  # noqa: E402

PINNED_ONNX = "1.23.2"

# ONNX op_type -> case op (BitShift's depends on the node's `direction`).
MAPPING = [
    ("And", "logical_and_broadcast"),
    ("Or", "logical_or_broadcast"),
    ("Xor", "logical_xor_broadcast"),
    ("Not", "logical_not_bool"),
    ("BitwiseAnd", "bitwise_and_broadcast"),
    ("BitwiseOr", "bitwise_or_broadcast"),
    ("BitwiseXor", "bitwise_xor_broadcast"),
    ("BitwiseNot", "bitwise_not"),
    ("BitShift", None),  # by the `direction` attribute
]
ONNX_OPS = [o for o, _ in MAPPING]
UNARY_ONNX = {"Not", "BitwiseNot"}

DTYPES = {
    np.dtype(np.uint8): "u8", np.dtype(np.int8): "i8",
    np.dtype(np.uint16): "u16", np.dtype(np.int16): "i16",
    np.dtype(np.uint32): "u32", np.dtype(np.int32): "i32",
    np.dtype(np.uint64): "u64", np.dtype(np.int64): "i64",
    np.dtype(np.bool_): "bool",
}
# Type words in test names (test_bitwise_and_ui64_bcast_3v1d, test_bitshift_left_uint8, ...).
NAME_TYPES = {"ui8": "u8", "ui16": "u16", "ui32": "u32", "ui64": "u64", "i8": "i8",
              "i16": "i16", "i32": "i32", "i64": "i64", "uint8": "u8", "uint16": "u16",
              "uint32": "u32", "uint64": "u64", "int8": "i8", "int16": "i16", "int32": "i32",
              "int64": "i64"}
BITS = {"u8": 8, "i8": 8, "u16": 16, "i16": 16, "u32": 32, "i32": 32, "u64": 64, "i64": 64,
        "bool": 8}


# ----- collecting the tests ---------------------------------------------------------------

def collect():
    """Every node test, with the module that defines it: [(TestCase, module file)]."""
    origin = {}
    original = node_tests.expect

    def expect(node, inputs, outputs, name, **kwargs):
        if name not in origin:
            frame = sys._getframe(1)
            origin[name] = os.path.basename(frame.f_code.co_filename)
        return original(node, inputs=inputs, outputs=outputs, name=name, **kwargs)

    # The test modules import `expect` from the package when collect_testcases() imports
    # them, so they pick up this wrapper.
    node_tests.expect = expect
    try:
        # Other operators' exports compute infinities and overflowing casts on purpose.
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            cases = node_tests.collect_testcases()
    finally:
        node_tests.expect = original
    return [(c, origin.get(c.name, "?")) for c in cases]


def opset_of(model):
    for o in model.opset_import:
        if o.domain in ("", "ai.onnx"):
            return o.version
    return None


# ----- values -----------------------------------------------------------------------------

def dtype_name(arr):
    return DTYPES.get(np.asarray(arr).dtype)


def bit_patterns(arr, dt):
    """Row-major element values as unsigned bit patterns of the element's width."""
    a = np.ascontiguousarray(np.asarray(arr))
    if dt == "bool":
        return [int(v) for v in a.astype(np.uint8).ravel(order="C").tolist()]
    unsigned = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}[BITS[dt]]
    return [int(v) for v in a.view(unsigned).ravel(order="C").tolist()]


def signed(v, dt):
    bits = BITS[dt]
    if dt.startswith("i") and v >> (bits - 1):
        return v - (1 << bits)
    return v


def element_index(out_idx, shape):
    """The flat index of the element of an input of `shape` that output index `out_idx`
    reads under numpy broadcasting."""
    off = len(out_idx) - len(shape)
    flat = 0
    for d, n in enumerate(shape):
        flat = flat * n + (0 if n == 1 else out_idx[off + d])
    return flat


def definition(op, dt, x, y=0):
    """One element of `op` by the operator's definition, on bit patterns."""
    bits = BITS[dt]
    m = (1 << bits) - 1
    if dt == "bool" or op.startswith("logical_"):
        p, q = int(x != 0), int(y != 0)
        return {"logical_and_broadcast": p & q, "logical_or_broadcast": p | q,
                "logical_xor_broadcast": p ^ q, "logical_not_bool": 1 - p,
                "bitwise_and_broadcast": p & q, "bitwise_or_broadcast": p | q,
                "bitwise_xor_broadcast": p ^ q, "bitwise_not": 1 - p}[op]
    if op == "bitwise_and_broadcast":
        return x & y
    if op == "bitwise_or_broadcast":
        return x | y
    if op == "bitwise_xor_broadcast":
        return x ^ y
    if op == "bitwise_not":
        return ~x & m
    # BitShift-28: the amount read as the type; outside [0, bits) the sign fill alone.
    v, s = signed(x, dt), signed(y, dt)
    if op == "bitwise_left_shift_broadcast":
        return (v << s) & m if 0 <= s < bits else 0
    if 0 <= s < bits:
        return (v >> s) & m  # arithmetic for a signed (negative) v, logical otherwise
    return m if v < 0 else 0


def shift_out_of_range(dt, b):
    bits = BITS[dt]
    return any(not 0 <= signed(v, dt) < bits for v in b)


# ----- conversion -------------------------------------------------------------------------

def case_op(node):
    if node.op_type == "BitShift":
        attrs = {a.name: a for a in node.attribute}
        direction = attrs["direction"].s.decode() if "direction" in attrs else None
        return {"LEFT": "bitwise_left_shift_broadcast",
                "RIGHT": "bitwise_right_shift_broadcast"}.get(direction)
    return dict(MAPPING)[node.op_type]


def convert(test, module_file, ids, refused):
    """The cases of one node test, or None (with the reason in `refused`)."""
    model = test.model
    node = model.graph.node[0]
    onnx_op = node.op_type
    version = opset_of(model)
    full = test.name
    where = f"onnx/backend/test/case/node/{module_file}"
    label = f"{onnx_op}-{version} {full} ({where})"

    def refuse(reason):
        refused.append((label, reason))
        return None

    op = case_op(node)
    if op is None:
        return refuse("no case op for this node (direction attribute missing or unknown)")
    if len(test.data_sets) != 1:
        return refuse(f"{len(test.data_sets)} data sets")
    inputs, outputs = test.data_sets[0]
    want = 1 if onnx_op in UNARY_ONNX else 2
    if len(inputs) != want:
        return refuse(f"{len(inputs)} inputs, the case op takes {want}")
    arrays = [np.asarray(x) for x in list(inputs) + list(outputs)]
    for arr in arrays:
        if dtype_name(arr) is None:
            return refuse(f"element type {arr.dtype} is not one of the format's types")
    dt = dtype_name(arrays[0])
    if any(dtype_name(x) != dt for x in inputs):
        return refuse("the inputs' element types differ")
    a_shape = [int(n) for n in np.asarray(inputs[0]).shape]
    a = bit_patterns(inputs[0], dt)
    b_shape = b = None
    if want == 2:
        b_shape = [int(n) for n in np.asarray(inputs[1]).shape]
        b = bit_patterns(inputs[1], dt)
        out_shape = numpy_broadcast(a_shape, b_shape)
        if out_shape is None:
            return refuse(f"shapes {a_shape} and {b_shape} do not broadcast")
    else:
        out_shape = list(a_shape)

    base = "onnx_" + (full[5:] if full.startswith("test_") else full)
    made = []
    for k, out in enumerate(outputs):
        odt = dtype_name(out)
        oshape = [int(n) for n in np.asarray(out).shape]
        if odt != dt:
            return refuse(f"output {k} has type {odt}, the inputs {dt}")
        if oshape != out_shape:
            return refuse(f"output {k} has shape {oshape}, broadcasting gives {out_shape}")
        expected = bit_patterns(out, dt)
        mine = []
        for idx in indices(out_shape):
            x = a[element_index(idx, a_shape)]
            y = 0 if b is None else b[element_index(idx, b_shape)]
            mine.append(definition(op, dt, x, y))
        if mine != expected:
            bad = next(i for i, (p, q) in enumerate(zip(mine, expected)) if p != q)
            sys.exit(f"{label}: output {k} element {bad} is {expected[bad]}, "
                     f"the definition gives {mine[bad]}")
        cid = base if len(outputs) == 1 else f"{base}_out{k}"
        n = 2
        while cid in ids:
            cid = f"{base}_{n}" if len(outputs) == 1 else f"{base}_out{k}_{n}"
            n += 1
        ids.add(cid)
        tags = ["onnx"]
        if b_shape is not None and a_shape != b_shape:
            tags.append("broadcast")
        if a_shape == [] or b_shape == [] or out_shape == []:
            tags.append("scalar")
        notes = f"ONNX {onnx_op}-{version} (the test model's opset is {version})"
        if onnx_op == "BitShift":
            direction = "LEFT" if op == "bitwise_left_shift_broadcast" else "RIGHT"
            notes += f", direction {direction}"
            ranged = shift_out_of_range(dt, b)
            if dt.startswith("i") or ranged:
                tags.append("opset28")
            if ranged:
                tags.append("shift_out_of_range")
                notes += ("; amounts outside [0, bits) give 0, or -1 for a right shift of a "
                          "negative value (BitShift-28)")
            if dt.startswith("i"):
                notes += "; a signed type, BitShift-28 only (the right shift is arithmetic)"
            else:
                notes += "; unsigned, in range: BitShift-11 gives the same"
        named = [NAME_TYPES[t] for t in full.split("_") if t in NAME_TYPES]
        if named and dt not in named:
            notes += f"; the test's name says {named[0]}, its data are {dt}"
        c = {"id": cid, "op": op, "dtype": dt, "a_shape": a_shape}
        if b_shape is not None:
            c["b_shape"] = b_shape
            c["broadcast"] = "numpy"
        c["out_shape"] = out_shape
        c["a"] = a
        if b is not None:
            c["b"] = b
        c["expected"] = expected
        c["tags"] = tags
        c["source"] = (f"ONNX backend node test {full} (onnx {onnx.__version__}, {where})")
        c["notes"] = notes
        made.append(c)
    return made


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    default = os.path.join(here, "..", "..", "tests", "data", "onnx_nodes.json")
    path = sys.argv[1] if len(sys.argv) > 1 else default

    print(f"onnx {onnx.__version__}, newest ai.onnx opset {onnx.defs.onnx_opset_version()}")
    if onnx.__version__ != PINNED_ONNX:
        print(f"note: tests/data/onnx_nodes.json was generated with onnx {PINNED_ONNX}; this is "
              f"onnx {onnx.__version__}, so the file may change")
    for op in ONNX_OPS:
        versions = sorted({s.since_version for s in onnx.defs.get_all_schemas_with_history()
                           if s.name == op and s.domain == ""})
        print(f"  {op}: schema versions {versions}")

    collected = collect()
    order = {op: i for i, op in enumerate(ONNX_OPS)}
    chosen, refused, other = [], [], []
    for pos, (test, module_file) in enumerate(collected):
        kinds = [n.op_type for n in test.model.graph.node]
        if not any(k in order for k in kinds):
            continue
        if len(kinds) != 1:
            # A graph in which these operators are one step among others (an expanded
            # function of another operator, e.g. test_greater_equal_expanded): not a node
            # test of these operators.
            other.append(test.name)
            continue
        chosen.append((order[kinds[0]], pos, test, module_file))
    chosen.sort(key=lambda t: (t[0], t[1]))

    cases, ids, counts = [], set(), {}
    for _, _, test, module_file in chosen:
        made = convert(test, module_file, ids, refused)
        node = test.model.graph.node[0]
        key = f"{node.op_type}-{opset_of(test.model)}"
        if made:
            for c in made:
                counts[(key, c["op"])] = counts.get((key, c["op"]), 0) + 1
            cases.extend(made)

    write_cases(path, cases)

    print(f"{len(chosen)} node tests of {', '.join(ONNX_OPS)}; "
          f"{len(cases)} cases -> {os.path.normpath(path)}")
    print("Cases per operator:")
    for (key, op), n in sorted(counts.items(), key=lambda kv: (
            order[kv[0][0].split("-")[0]], kv[0][1])):
        print(f"  {key:<14} -> {op:<30} {n}")
    if refused:
        print(f"Node tests that the format cannot express ({len(refused)}):")
        for label, reason in refused:
            print(f"  {label}: {reason}")
    else:
        print("Node tests that the format cannot express: none")
    if other:
        print(f"Skipped, not single-node tests of these operators ({len(other)} graphs that "
              f"use them among other nodes, e.g. {other[0]})")


if __name__ == "__main__":
    main()
