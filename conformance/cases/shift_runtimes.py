#!/usr/bin/env python3
"""What OpenVINO's CPU runtime and ONNX Runtime return for shift amounts outside [0, bits),
measured against the definition of ONNX BitShift-28.

Run (writes markdown to stdout; conformance/cases/shift_runtimes.md is its saved output):

    pip install onnx onnxruntime openvino numpy
    python3 conformance/cases/shift_runtimes.py > conformance/cases/shift_runtimes.md

The definition (ONNX BitShift-28): the value X and the amount Y are read as the element type
(signed types as two's complement). For 0 <= Y < bits the result is the ordinary shift: a left
shift drops the bits shifted out (it wraps), a right shift is logical for an unsigned type and
arithmetic for a signed one. For Y < 0 or Y >= bits the result is what the sign fill alone
gives: -1 (all ones) for a right shift of a negative X, 0 in every other case.

Measured here, for each of u8 i8 u16 i16 u32 i32 u64 i64 that the runtime accepts, both
directions, every pair of these values and amounts (one inference per type and direction,
the pairs as one 1-D tensor of each input):

    values:  1, 0x7f.., 0x80.. (the minimum for a signed type), all ones (-1 for a signed type)
    amounts: 0, 1, bits-1, bits, bits+1, 2*bits, 4*bits+1, 32, 33, the type's maximum (255
             for u8, 127 for i8, ...); for a signed type also -1, -bits and the type's minimum

Runtimes:

  * OpenVINO CPU: BitwiseLeftShift-15 / BitwiseRightShift-15 (openvino.opset15, or
    openvino.runtime.opset15 in older releases), both inputs Parameters, compiled for "CPU".
    Built three ways: a static shape, a dynamic shape, and the amounts as a Constant (the
    plugin can take a different kernel for each); the table is of the static-shape model,
    and the summary says whether the other two agree.
  * ONNX Runtime (CPUExecutionProvider): a one-node BitShift model at opset 11 (unsigned types
    only, by the schema) and at opset 28 where the installed onnxruntime loads it.

Types a runtime refuses (at build, compile or run time) are listed with the first line of the
error. The summary explains each runtime's results per type and direction by the first of
these models that fits every measured pair: the definition; the amount's bit pattern masked
to its low k bits (amount & (2^k - 1), k = 3..6) and then the definition's shift; or the
same computed on i32 (the value and the amount converted to i32 first, a 64-bit one cut to
its low 32 bits; the result converted back, sign-extended to 64 bits), with the amount
masked to 5 or 6 bits or not at all.
"""

import platform
import sys

import numpy as np

TYPES = [("u8", 8, False), ("i8", 8, True), ("u16", 16, False), ("i16", 16, True),
         ("u32", 32, False), ("i32", 32, True), ("u64", 64, False), ("i64", 64, True)]
NP = {"u8": np.uint8, "i8": np.int8, "u16": np.uint16, "i16": np.int16, "u32": np.uint32,
      "i32": np.int32, "u64": np.uint64, "i64": np.int64}
NP_UNSIGNED = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}
DIRECTIONS = ["LEFT", "RIGHT"]


# ----- the definition and the values ------------------------------------------------------

def to_signed(v, bits):
    return v - (1 << bits) if v >> (bits - 1) else v


def read(v, bits, is_signed):
    """A bit pattern as its value in the type."""
    return to_signed(v, bits) if is_signed else v


def definition(direction, bits, is_signed, x, y):
    """ONNX BitShift-28 on bit patterns x (value) and y (amount); a bit pattern back."""
    m = (1 << bits) - 1
    v, s = read(x, bits, is_signed), read(y, bits, is_signed)
    if direction == "LEFT":
        return (v << s) & m if 0 <= s < bits else 0
    if 0 <= s < bits:
        return (v >> s) & m
    return m if v < 0 else 0


def model(direction, bits, is_signed, x, y, compute, k):
    """A runtime's possible way to shift, on bit patterns.

    compute "native": the shift in the element type itself. compute "i32": the value and the
    amount converted to i32 first (an 8- or 16-bit value widened, a 32-bit one read as i32,
    a 64-bit one cut to its low 32 bits), the shift done on i32 (a right shift arithmetic),
    the result converted back (cut to 8 or 16 bits, or sign-extended to 64).
    k: the amount's bit pattern masked to its low k bits first (None: no mask, the amount
    read as a signed or unsigned value and an amount outside [0, width) saturating as in the
    definition)."""
    if compute == "native":
        if k is None:
            return definition(direction, bits, is_signed, x, y)
        return _shift(direction, bits, is_signed, x, y & ((1 << k) - 1))
    # i32
    v = read(x, bits, is_signed) & 0xFFFFFFFF
    a = read(y, bits, is_signed) & 0xFFFFFFFF
    if k is not None:
        r = _shift(direction, 32, True, v, a & ((1 << k) - 1))
    else:
        r = definition(direction, 32, True, v, a)
    if bits == 64:
        r = to_signed(r, 32) & ((1 << 64) - 1)
    return r & ((1 << bits) - 1)


def _shift(direction, bits, is_signed, x, s):
    """x (a bit pattern) shifted by s >= 0 (saturating at s >= bits), as the type."""
    m = (1 << bits) - 1
    v = read(x, bits, is_signed)
    if direction == "LEFT":
        return (v << s) & m if s < bits else 0
    if s < bits:
        return (v >> s) & m
    return m if v < 0 else 0


def values(bits, is_signed):
    m = (1 << bits) - 1
    return [1, m >> 1, 1 << (bits - 1), m]


def amounts(bits, is_signed):
    m = (1 << bits) - 1
    top = (m >> 1) if is_signed else m
    out = [0, 1, bits - 1, bits, bits + 1, 2 * bits, 4 * bits + 1, 32, 33, top]
    if is_signed:
        out += [(-1) & m, (-bits) & m, 1 << (bits - 1)]
    seen, uniq = set(), []
    for a in out:
        if a <= m and a not in seen:
            seen.add(a)
            uniq.append(a)
    return uniq


def pairs(bits, is_signed):
    return [(x, y) for x in values(bits, is_signed) for y in amounts(bits, is_signed)]


def array(patterns, dt, bits):
    return np.array(patterns, dtype=NP_UNSIGNED[bits]).view(NP[dt])


def patterns(arr, bits):
    return [int(v) for v in np.asarray(arr).view(NP_UNSIGNED[bits]).ravel().tolist()]


def first_line(e):
    text = str(e).strip().splitlines()
    text = [t.strip() for t in text if t.strip()]
    msg = text[0] if text else type(e).__name__
    for t in text:  # prefer the line that names the problem
        if "type" in t.lower() and ("invalid" in t.lower() or "not" in t.lower()
                                    or "support" in t.lower()):
            msg = t
            break
    return msg[:200]


# ----- runtimes ---------------------------------------------------------------------------

def openvino_runner(config):
    import openvino as ov
    try:
        import openvino.opset15 as ops
    except ImportError:
        import openvino.runtime.opset15 as ops
    core = ov.Core()
    ovt = {"u8": ov.Type.u8, "i8": ov.Type.i8, "u16": ov.Type.u16, "i16": ov.Type.i16,
           "u32": ov.Type.u32, "i32": ov.Type.i32, "u64": ov.Type.u64, "i64": ov.Type.i64}

    def run(dt, bits, direction, xs, ys):
        n = len(xs)
        shape = [ov.Dimension()] if config == "dynamic" else [n]
        a = ops.parameter(shape, ovt[dt], name="a")
        fn = ops.bitwise_left_shift if direction == "LEFT" else ops.bitwise_right_shift
        if config == "constant":
            b = ops.constant(array(ys, dt, bits))
            params = [a]
            feed = {"a": array(xs, dt, bits)}
        else:
            b = ops.parameter(shape, ovt[dt], name="b")
            params = [a, b]
            feed = {"a": array(xs, dt, bits), "b": array(ys, dt, bits)}
        compiled = core.compile_model(ov.Model([fn(a, b)], params), "CPU")
        got = compiled(feed)[compiled.outputs[0]]
        if np.asarray(got).dtype != np.dtype(NP[dt]):
            raise RuntimeError(f"output element type {np.asarray(got).dtype}, not {dt}")
        return patterns(got, bits)

    return run


def onnxruntime_runner(opset):
    import onnxruntime as ort
    from onnx import TensorProto, helper
    onnx_t = {"u8": TensorProto.UINT8, "i8": TensorProto.INT8, "u16": TensorProto.UINT16,
              "i16": TensorProto.INT16, "u32": TensorProto.UINT32, "i32": TensorProto.INT32,
              "u64": TensorProto.UINT64, "i64": TensorProto.INT64}

    def run(dt, bits, direction, xs, ys):
        t = onnx_t[dt]
        node = helper.make_node("BitShift", ["x", "y"], ["z"], direction=direction)
        graph = helper.make_graph(
            [node], "bitshift",
            [helper.make_tensor_value_info("x", t, [len(xs)]),
             helper.make_tensor_value_info("y", t, [len(ys)])],
            [helper.make_tensor_value_info("z", t, [len(xs)])])
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        opts = ort.SessionOptions()
        opts.log_severity_level = 4
        sess = ort.InferenceSession(m.SerializeToString(), opts,
                                    providers=["CPUExecutionProvider"])
        got = sess.run(None, {"x": array(xs, dt, bits), "y": array(ys, dt, bits)})[0]
        return patterns(got, bits)

    return run


def measure(run):
    """{(dt, direction): [(x, y, got)]} and {dt: refusal message}."""
    results, refused = {}, {}
    for dt, bits, is_signed in TYPES:
        ps = pairs(bits, is_signed)
        xs, ys = [p[0] for p in ps], [p[1] for p in ps]
        for direction in DIRECTIONS:
            try:
                got = run(dt, bits, direction, xs, ys)
            except Exception as e:  # noqa: BLE001 (a refusal is a finding)
                refused.setdefault(dt, first_line(e))
                continue
            results[(dt, direction)] = list(zip(xs, ys, got))
    return results, refused


# ----- explaining the results -------------------------------------------------------------

MODELS = [("native", None)] + [("native", k) for k in (3, 4, 5, 6)] + \
    [("i32", k) for k in (5, 6, None)]


def explain(bits, is_signed, direction, rows):
    """The first model of MODELS that fits every measured pair, as a group key: (compute,
    k, whether a masked amount can still reach the type's width), or None."""
    for compute, k in MODELS:
        if all(g == model(direction, bits, is_signed, x, y, compute, k) for x, y, g in rows):
            wide = k is not None and (1 << k) - 1 >= bits
            return (compute, k, wide)
    return None


def describe(key):
    """A model in words, the same for every type it fits."""
    if key is None:
        return "no simple model fits; see the table"
    compute, k, wide = key
    m = None if k is None else (1 << k) - 1
    if compute == "native" and k is None:
        return "the definition, for every measured pair"
    if compute == "native":
        text = (f"the amount's bit pattern masked to its low {k} bits (amount & {m}), then an "
                f"ordinary shift, so an amount outside [0, bits) (a negative one included) acts "
                f"as amount & {m}")
        if wide:
            text += (f"; where amount & {m} is still at least the type's width the result is "
                     f"0, or -1 for a right shift of a negative value (as if the shift were "
                     f"done on {m + 1} bits)")
        return text
    text = ("computed as i32: the value and the amount converted to i32 first (a 32-bit one "
            "reinterpreted, a 64-bit one cut to its low 32 bits, so a 64-bit value that needs "
            "more than 32 bits is wrong even for an amount in range), the shift done on i32 "
            "(so a u32 or u64 right shift is arithmetic, not logical), the result converted "
            "back (sign-extended to 64 bits)")
    if k is None:
        return text + "; amounts outside [0, 32) as in the definition"
    return text + f"; the amount masked to its low {k} bits (amount & {m})"


def fmt(v, bits, is_signed):
    digits = bits // 4
    if is_signed and v >> (bits - 1):
        return f"{to_signed(v, bits)} (0x{v:0{digits}x})"
    return f"{v} (0x{v:0{digits}x})" if v > 9 else str(v)


def fmt_short(v, bits, is_signed):
    if is_signed and v >> (bits - 1):
        return str(to_signed(v, bits))
    return f"0x{v:x}" if v > 255 else str(v)


def which(members):
    """[(dt, direction)] as "u8 i8 (left and right), u32 (left)"."""
    dirs = {}
    for dt, direction in members:
        dirs.setdefault(dt, []).append(direction.lower())
    runs = []
    for dt, ds in dirs.items():
        label = " and ".join(ds)
        if runs and runs[-1][1] == label:
            runs[-1][0].append(dt)
        else:
            runs.append(([dt], label))
    return ", ".join(f"{' '.join(dts)} ({label})" for dts, label in runs)


def fmt_amount(v, bits, is_signed):
    return str(read(v, bits, is_signed))


def main():
    import onnx
    import onnxruntime
    import openvino

    out = []
    p = out.append
    p("<!-- Generated by conformance/cases/shift_runtimes.py. Regenerate with:")
    p("     pip install onnx onnxruntime openvino numpy")
    p("     python3 conformance/cases/shift_runtimes.py > conformance/cases/shift_runtimes.md")
    p("-->")
    p("")
    p("# Shift amounts outside [0, bits): OpenVINO CPU and ONNX Runtime against ONNX BitShift-28")
    p("")
    p("The definition (ONNX BitShift-28): in range, an ordinary shift (left wraps; right is "
      "logical for unsigned and arithmetic for signed types); an amount < 0 or >= bits gives "
      "0, or -1 for a right shift of a negative value. Values: 1, 0x7f.., 0x80.., all ones; "
      "amounts: 0, 1, bits-1, bits, bits+1, 2*bits, 4*bits+1, 32, 33, the type's maximum, "
      "and for signed types -1, -bits and the minimum. Values and results are shown as the type's "
      "value with the bit pattern in hex; amounts as the type's value.")
    p("")
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            info = f.read()
        name = next((ln.split(":", 1)[1].strip() for ln in info.splitlines()
                     if ln.startswith("model name")), cpu)
        flags = next((ln.split(":", 1)[1].split() for ln in info.splitlines()
                      if ln.startswith("flags")), [])
        isa = [f for f in ("avx2", "avx512f", "avx512bw", "amx_tile") if f in flags]
        cpu = f"{name} ({platform.machine()}; {' '.join(isa) or 'no AVX2'})"
    except OSError:
        pass
    p("| component | version |")
    p("|---|---|")
    p(f"| openvino | {openvino.__version__} |")
    p(f"| onnxruntime | {onnxruntime.__version__} |")
    p(f"| onnx (model building) | {onnx.__version__} |")
    p(f"| numpy | {np.__version__} |")
    p(f"| Python | {platform.python_version()} ({platform.system()}) |")
    p(f"| CPU | {cpu} |")
    p("")

    ov_results = {}
    for config in ("static", "dynamic", "constant"):
        ov_results[config] = measure(openvino_runner(config))
    ort_results = {}
    for opset in (11, 28):
        ort_results[opset] = measure(onnxruntime_runner(opset))

    runtimes = [
        ("OpenVINO CPU (BitwiseLeftShift-15 / BitwiseRightShift-15)", ov_results["static"]),
        ("ONNX Runtime BitShift-11", ort_results[11]),
        ("ONNX Runtime BitShift-28", ort_results[28]),
    ]

    p("## Summary")
    p("")
    spec = {dt: (bits, s) for dt, bits, s in TYPES}
    for title, (results, refused) in runtimes:
        p(f"**{title}**")
        p("")
        groups = {}
        total = differ = in_range = 0
        for dt, bits, is_signed in TYPES:
            for direction in DIRECTIONS:
                rows = results.get((dt, direction))
                if rows is None:
                    continue
                total += len(rows)
                wrong = [(x, y) for x, y, g in rows
                         if g != definition(direction, bits, is_signed, x, y)]
                differ += len(wrong)
                in_range += sum(0 <= read(y, bits, is_signed) < bits for x, y in wrong)
                key = explain(bits, is_signed, direction, rows)
                groups.setdefault(key, []).append((dt, direction))
        p(f"- {differ} of {total} measured results differ from the definition"
          + (f", {in_range} of them with an amount in [0, bits)." if differ else "."))
        for key, members in groups.items():
            examples = []
            for dt, direction in members:
                if len(examples) == 3:
                    break
                bits, is_signed = spec[dt]
                wrong = [(x, y, g) for x, y, g in results[(dt, direction)]
                         if g != definition(direction, bits, is_signed, x, y)]
                # An amount in range first, where there is one: it shows more than masking.
                wrong.sort(key=lambda r: 0 <= read(r[1], bits, is_signed) < bits, reverse=True)
                if wrong and not any(e.startswith(dt + " ") for e in examples):
                    x, y, g = wrong[0]
                    want = definition(direction, bits, is_signed, x, y)
                    op = "<<" if direction == "LEFT" else ">>"
                    examples.append(f"{dt} {fmt_short(x, bits, is_signed)} {op} "
                                    f"{fmt_amount(y, bits, is_signed)} = "
                                    f"{fmt_short(g, bits, is_signed)} (definition "
                                    f"{fmt_short(want, bits, is_signed)})")
            eg = f" E.g. {'; '.join(examples)}." if examples else ""
            p(f"- {which(members)}: {describe(key)}.{eg}")
        if refused:
            for dt, msg in refused.items():
                p(f"- refuses {dt}: {msg}")
        else:
            p("- refuses no type.")
        if title.startswith("OpenVINO"):
            for config, label in (("dynamic", "a dynamic shape"),
                                  ("constant", "the amounts as a Constant")):
                other, other_refused = ov_results[config]
                base, base_refused = ov_results["static"]
                diff = [(k, i) for k in base if k in other
                        for i, (r1, r2) in enumerate(zip(base[k], other[k])) if r1 != r2]
                if not diff and set(base) == set(other) and base_refused == other_refused:
                    p(f"- with {label} the results are the same.")
                else:
                    p(f"- with {label}, {len(diff)} results differ from the static-shape "
                      f"model's" + (f" (types refused: {', '.join(other_refused)})"
                                    if other_refused != base_refused else "")
                      + ":")
                    for (dt, direction), i in diff[:20]:
                        bits, s = spec[dt]
                        x, y, g1 = base[(dt, direction)][i]
                        g2 = other[(dt, direction)][i][2]
                        p(f"  - {dt} {direction.lower()} {fmt(x, bits, s)} by "
                          f"{fmt_amount(y, bits, s)}: {fmt(g2, bits, s)} (static: "
                          f"{fmt(g1, bits, s)})")
        p("")

    p("## Where each runtime differs from the definition")
    p("")
    for title, (results, refused) in runtimes:
        p(f"### {title}")
        p("")
        rows_out = []
        for dt, bits, is_signed in TYPES:
            for direction in DIRECTIONS:
                for x, y, g in results.get((dt, direction), []):
                    want = definition(direction, bits, is_signed, x, y)
                    if g != want:
                        rows_out.append(f"| {dt} | {direction.lower()} | "
                                        f"{fmt(x, bits, is_signed)} | "
                                        f"{fmt_amount(y, bits, is_signed)} | "
                                        f"{fmt(g, bits, is_signed)} | "
                                        f"{fmt(want, bits, is_signed)} |")
        if rows_out:
            p("| type | direction | value | amount | runtime | definition |")
            p("|---|---|---|---|---|---|")
            out.extend(rows_out)
        else:
            p("No differences: every measured result is the definition's.")
        if refused:
            p("")
            p("Refused: " + "; ".join(f"{dt} ({msg})" for dt, msg in refused.items()) + ".")
        p("")

    sys.stdout.write("\n".join(out).rstrip("\n") + "\n")


if __name__ == "__main__":
    main()
