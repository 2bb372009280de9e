//! Every expected value of a case checked against the CPU reference, without a device.

use super::*;

/// Checks a valid case's expected output (`expected`, or a generator case's count, head, tail
/// and SHA-256) against the library's CPU reference ([`gpu_xor::reference`]), without a
/// device: the case's numbers, worked out apart from this library, and the reference must
/// agree. Returns whether the case had an output to check (error and validation-only cases
/// have none).
pub fn reference_check(case: &Case) -> Result<bool, String> {
    if case.error_kind()?.is_some() {
        return Ok(false);
    }
    let data_type = case.dtype.0;
    let width = u64::from(data_type.size_in_bytes());
    // The output's own type (BIT_COUNT's `out_dtype`), else the inputs'.
    let out_type = case.tensor("out").dtype.map_or(data_type, |d| d.0);
    let out_width = u64::from(out_type.size_in_bytes());
    let (a, b) = match (&case.generator, &case.a, &case.expected) {
        (Some(g), _, _) => (
            generate(g.a.seed, g.a.count, g.a.mode, width),
            g.b.map(|s| generate(s.seed, s.count, s.mode, width)),
        ),
        (None, Some(a), Some(_)) => (a.clone(), case.b.clone()),
        _ => return Ok(false),
    };
    let (a, b) = (le_bytes(&a, width), b.map(|b| le_bytes(&b, width)));
    let usizes = |v: &[u64]| -> Vec<usize> { v.iter().map(|&d| d as usize).collect() };
    let a_shape = usizes(&case.a_shape);
    let got = match family(case.op).ok_or_else(|| format!("no reference for {}", case.op.name()))? {
        Family::Dml(op) => {
            let strides = |t| case.tensor(t).strides.map(usizes);
            let (sa, sb, so) = (strides("a"), strides("b"), strides("out"));
            let width = out_width;
            let out_layout = OutputLayout {
                buffer: 0,
                offset: 0,
                width,
                sizes: case.a_shape.clone(),
                strides: case
                    .tensor("out")
                    .strides
                    .map_or_else(|| packed_strides(&case.a_shape), <[u64]>::to_vec),
            };
            let span = out_layout
                .byte_offsets()
                .iter()
                .max()
                .map_or(0, |&at| at + width);
            let mut out = vec![0u8; span as usize];
            let view = |bytes, strides| StridedView {
                bytes,
                data_type,
                sizes: &a_shape,
                strides,
                offset: 0,
            };
            let av = view(&a, sa.as_deref());
            let mut ov = StridedViewMut {
                bytes: &mut out,
                data_type: out_type,
                sizes: &a_shape,
                strides: so.as_deref(),
                offset: 0,
            };
            let b = b.as_deref().unwrap_or(&a);
            let bv = view(b, sb.as_deref());
            match op.group() {
                OperatorGroup::DmlBinaryOp(op) => {
                    gpu_xor::reference::dml_binary(op, &av, &bv, &mut ov)
                }
                OperatorGroup::DmlUnaryOp(op) => gpu_xor::reference::dml_unary(op, &av, &mut ov),
                _ => return Err(format!("{op} is not a DirectML operator")),
            }
            .map_err(|e| format!("the reference refused the case: [{}] {e}", e.rule()))?;
            out_layout.read_values(&out)
        }
        Family::Ov(op) => {
            let b_shape = case
                .b_shape
                .as_deref()
                .map_or_else(|| a_shape.clone(), usizes);
            let b = b.as_deref().unwrap_or(&a);
            let (shape, out) = gpu_xor_testkit::ov::reference(
                op,
                data_type,
                (&a_shape, &a),
                (&b_shape, b),
                auto_broadcast(case),
            )
            .map_err(|e| format!("the reference refused the case: [{}] {e}", e.rule()))?;
            let want = case.out_shape.as_deref().map(usizes);
            if want.as_ref() != Some(&shape) {
                return Err(format!(
                    "the reference's output shape is {shape:?}, out_shape is {want:?}"
                ));
            }
            out.chunks(width as usize)
                .map(|c| {
                    c.iter()
                        .rev()
                        .fold(0u64, |v, &byte| v << 8 | u64::from(byte))
                })
                .collect()
        }
    };
    match (&case.expected, &case.expected_sha256) {
        (Some(expected), _) => {
            if expected.len() != got.len() {
                return Err(format!(
                    "`expected` has {} values, the reference gives {}",
                    expected.len(),
                    got.len()
                ));
            }
            match (0..got.len()).find(|&i| got[i] != expected[i]) {
                Some(i) => Err(format!(
                    "output element {i}: the reference gives {:#x}, expected {:#x}",
                    got[i], expected[i]
                )),
                None => Ok(true),
            }
        }
        (None, Some(sha256)) => {
            let count = case.expected_count.ok_or("missing `expected_count`")?;
            let g = Generated {
                sha256,
                count,
                head: case.expected_head.as_deref(),
                tail: case.expected_tail.as_deref(),
            };
            check_generated(&g, &got, out_width).map(|()| true)
        }
        (None, None) => Err("a case with data needs `expected`".to_string()),
    }
}
