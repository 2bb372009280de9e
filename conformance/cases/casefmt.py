"""Helpers shared by the case generators in this folder (and_or_not.py, shifts_and_count.py, onnx_nodes.py).

Standard library only. The generators import it by putting this folder on sys.path, so they
run from any directory. Nothing here keeps state: each generator keeps its own case list and
its own data seeds.
"""

import hashlib
import json
import os
import sys

WIDTH = {"u8": 1, "i8": 1, "u16": 2, "i16": 2, "u32": 4, "i32": 4, "u64": 8, "i64": 8,
         "f16": 2, "f32": 4, "f64": 8, "bool": 1}
OV_INTS = ["u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64"]

# Sources named by both DirectML and OpenVINO generators.
SRC_FLH = "DirectML docs: feature level history (windows-ai-docs dml-feature-level-history.md)"
SRC_STRIDES = "DirectML docs: 'Using strides to express padding and memory layout' (dml-strides.md)"
SRC_BINDING = "DirectML docs: DML_BINDING_DESC / binding in DirectML (in-place execution, offsets)"
SRC_FLAGS = "DirectML docs: DML_TENSOR_FLAGS (DML_TENSOR_FLAG_OWNED_BY_DML)"
SPEC = "OpenVINO spec: operation-specs/"
TPL = "OpenVINO template plugin test: src/plugins/template/tests/functional/op_reference/"
SRC_BCAST = "OpenVINO spec: Broadcast Rules For Elementwise Operations (broadcast-rules.rst)"


def mask(dtype):
    return (1 << (8 * WIDTH[dtype])) - 1


# ----- layouts ------------------------------------------------------------------------------


def prod(xs):
    n = 1
    for x in xs:
        n *= x
    return n


def packed(shape):
    strides, acc = [], 1
    for d in reversed(shape):
        strides.insert(0, acc)
        acc *= d
    return strides


def indices(shape):
    """Every index of `shape` in row-major order: one () for a scalar, none for a zero size."""
    if not shape:
        yield ()
        return
    if 0 in shape:
        return
    idx = [0] * len(shape)
    for _ in range(prod(shape)):
        yield tuple(idx)
        for d in range(len(shape) - 1, -1, -1):
            idx[d] += 1
            if idx[d] < shape[d]:
                break
            idx[d] = 0


def physical_len(shape, strides):
    return sum((n - 1) * s for n, s in zip(shape, strides)) + 1


def min_bytes(shape, strides, dtype):
    """DMLCalcBufferTensorSize: the last element's end, rounded up to a multiple of 4."""
    n = physical_len(shape, strides) * WIDTH[dtype]
    return (n + 3) // 4 * 4


# ----- broadcasting -------------------------------------------------------------------------


def numpy_broadcast(a, b):
    """The numpy broadcast of shapes `a` and `b`; None where they are inconsistent."""
    n = max(len(a), len(b))
    pa, pb = [1] * (n - len(a)) + list(a), [1] * (n - len(b)) + list(b)
    out = []
    for x, y in zip(pa, pb):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            return None
    return out


def ov_shape(a, b, broadcast, axis):
    """OpenVINO shape inference for static shapes; None where it fails."""
    if broadcast == "none":
        return list(a) if list(a) == list(b) else None
    if broadcast == "numpy":
        return numpy_broadcast(a, b)
    # pdpd: B onto A only.
    if len(b) > len(a) or axis < -1:
        return None
    if axis == -1:
        axis = len(a) - len(b)
    if len(b) + axis > len(a):
        return None
    for i, y in enumerate(b):
        if y != a[axis + i] and y != 1:
            return None
    return list(a)


def ov_source_index(out_idx, shape, axis_of):
    """The flat index of the input element that output index `out_idx` reads."""
    idx = [0 if shape[d] == 1 else out_idx[axis_of + d] for d in range(len(shape))]
    flat = 0
    for i, n in zip(idx, shape):
        flat = flat * n + i
    return flat


# ----- generated data and digests -----------------------------------------------------------


class Rng:
    """SplitMix64, as the format defines it (data and padding here; `generator` cases)."""

    def __init__(self, seed):
        self.state = seed & (2**64 - 1)

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & (2**64 - 1)
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & (2**64 - 1)
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & (2**64 - 1)
        return z ^ (z >> 31)


assert Rng(0).next() == 0xE220A8397B1DCDAF


def stream(seed, count, mode, dtype):
    """A `generator` stream: `bits` (every pattern), `sparse` (about half 0) or `bool` (0/1)."""
    r, m, out = Rng(seed), mask(dtype), []
    for _ in range(count):
        z = r.next()
        if mode == "bits":
            out.append(z & m)
        elif mode == "sparse":
            out.append(z & m if z >> 63 else 0)
        else:
            out.append(z >> 63)
    return out


def sha(values, dtype):
    """SHA-256 of the values as little-endian elements of `dtype`'s width."""
    w = WIDTH[dtype]
    return hashlib.sha256(b"".join(v.to_bytes(w, "little") for v in values)).hexdigest()


def set_expected_digest(c, expected, dtype):
    """A large case's output fields: count, digest (over `dtype`'s bytes), head and tail."""
    c["expected_count"] = len(expected)
    c["expected_sha256"] = sha(expected, dtype)
    c["expected_head"] = expected[:16]
    c["expected_tail"] = expected[-16:]


# ----- output -------------------------------------------------------------------------------


def output_path(script, name):
    """The output path: the first argument, else tests/data/`name` beside the script's repo."""
    here = os.path.dirname(os.path.abspath(script))
    default = os.path.join(here, "..", "..", "tests", "data", name)
    return sys.argv[1] if len(sys.argv) > 1 else default


def write_cases(path, cases):
    """The format's layout: a JSON list, one case object per line."""
    lines = [json.dumps(c) for c in cases]
    with open(path, "w") as f:
        f.write("[\n" + ",\n".join(lines) + "\n]\n")
