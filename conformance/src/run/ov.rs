//! The OpenVINO cases: shapes and `auto_broadcast`, the inferred output shape checked, the
//! operation made.

use super::*;

pub(super) async fn run_openvino(
    ctx: &Context,
    case: &Case,
    op: Operator,
    seed: u64,
) -> Result<(), String> {
    let a_type = case.tensor("a").dtype.unwrap_or(case.dtype).0;
    let b_type = case.tensor("b").dtype.unwrap_or(case.dtype).0;
    let a_shape: Vec<usize> = dims(&case.a_shape, "a_shape")?;
    // A one-input operation has no B (the case has no `b_shape`): B stands for A unbound.
    let b_shape: Vec<usize> = match &case.b_shape {
        Some(shape) => dims(shape, "b_shape")?,
        None if op.inputs() == 1 => a_shape.clone(),
        None => return Err("missing field `b_shape`".to_string()),
    };
    let auto_broadcast = auto_broadcast(case);
    let (created, described): (Result<AnyOperator, Error>, Result<Vec<usize>, Error>) =
        match op.group() {
            OperatorGroup::OvBinaryOp(op) => {
                let desc = OvBinaryDesc {
                    op,
                    a_type,
                    b_type,
                    a_shape: a_shape.clone(),
                    b_shape: b_shape.clone(),
                    auto_broadcast,
                };
                (
                    OvBinary::new(ctx, &desc).map(AnyOperator::from),
                    desc.output_shape(),
                )
            }
            OperatorGroup::OvUnaryOp(op) => {
                let desc = OvUnaryDesc::new(op, a_type, &a_shape);
                (
                    OvUnary::new(ctx, &desc).map(AnyOperator::from),
                    desc.output_shape(),
                )
            }
            _ => return Err(format!("{op} is not an OpenVINO operation")),
        };
    let alias = case.alias.unwrap_or_default();
    let operand =
        |t: &'static str, data_type: DataType, shape: &[usize]| -> Result<Operand, String> {
            let sizes: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
            let width = u64::from(data_type.size_in_bytes());
            let bytes = sizes
                .iter()
                .try_fold(width, |acc, &d| acc.checked_mul(d))
                .ok_or_else(|| format!("{t}: shape {shape:?} overflows"))?;
            Ok(Operand {
                name: t,
                width,
                strides: packed_strides(&sizes),
                sizes,
                offset: case.tensor(t).offset_bytes.unwrap_or(0),
                bind_bytes: bytes.div_ceil(4) * 4,
            })
        };

    if let Some(kind) = case.error_kind()? {
        return match created {
            Err(e) => same_rule(kind, &e, "creating the operator"),
            Ok(compiled) => {
                let out_shape = compiled.output_shape().expect("an OpenVINO operation");
                let operands = [
                    operand("a", a_type, &a_shape)?,
                    operand("b", b_type, &b_shape)?,
                    operand("out", a_type, &out_shape)?,
                ];
                let compiled = Maker::Ready(Box::new(compiled));
                run_error_case(ctx, case, &compiled, seed, alias, &operands, kind).await
            }
        };
    }

    let compiled =
        created.map_err(|e| format!("creating the operator failed: [{}] {e}", e.rule()))?;
    let out_shape: Vec<usize> = dims(
        case.out_shape.as_deref().ok_or("missing `out_shape`")?,
        "out_shape",
    )?;
    let inferred = compiled.output_shape().expect("an OpenVINO operation");
    if inferred != out_shape {
        return Err(format!(
            "output shape {inferred:?}, expected out_shape {out_shape:?}"
        ));
    }
    match described {
        Ok(shape) if shape == out_shape => {}
        other => {
            return Err(format!(
                "the description's output_shape() gives {other:?}, expected {out_shape:?}"
            ));
        }
    }
    match case.tensor("out").dtype {
        Some(out_type) if out_type.0 != a_type => {
            return Err(format!(
                "out_dtype is {}, but the output takes the inputs' type {}",
                out_type.0.short_name(),
                a_type.short_name()
            ));
        }
        _ => {}
    }
    let operands = [
        operand("a", a_type, &a_shape)?,
        operand("b", b_type, &b_shape)?,
        operand("out", a_type, &out_shape)?,
    ];
    run_valid(
        ctx,
        case,
        &Maker::Ready(Box::new(compiled)),
        seed,
        alias,
        &operands,
    )
    .await
}

/// The case's `broadcast` and `pdpd_axis` (numpy when absent).
pub(super) fn auto_broadcast(case: &Case) -> AutoBroadcast {
    match case.broadcast {
        None | Some(Broadcast::Numpy) => AutoBroadcast::Numpy,
        Some(Broadcast::None) => AutoBroadcast::None,
        Some(Broadcast::Pdpd) => AutoBroadcast::Pdpd {
            axis: case.pdpd_axis.unwrap_or(-1),
        },
        Some(Broadcast::Explicit) => AutoBroadcast::Explicit,
    }
}
