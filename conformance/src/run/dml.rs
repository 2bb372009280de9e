//! The DirectML cases: their descriptions built from the case, validated at their feature
//! level, and the operator made (owning the inputs the case flags).

use super::*;

/// The operator of a case, or how to make it once the case's buffers exist.
pub(super) enum Maker<'a> {
    /// Made from the descriptions alone.
    Ready(Box<AnyOperator>),
    /// The descriptions flag A and/or B `OWNED_BY_DML` (`owned`): made by
    /// `with_owned_inputs` with each flagged input bound at its place, once the buffers hold
    /// the case's bytes.
    Owning {
        op: Operator,
        descs: &'a [TensorDesc; 3],
        owned: [bool; 2],
    },
}

impl Maker<'_> {
    /// How many inputs the operator reads: a one-input operator's calls leave B unbound.
    pub(super) fn inputs(&self) -> usize {
        match self {
            Maker::Ready(op) => match **op {
                AnyOperator::DmlUnary(_) | AnyOperator::OvUnary(_) => 1,
                _ => 2,
            },
            Maker::Owning { op, .. } => op.inputs(),
        }
    }
}

pub(super) fn dims<T: TryFrom<u64>>(dims: &[u64], key: &str) -> Result<Vec<T>, String> {
    dims.iter()
        .map(|&d| {
            T::try_from(d)
                .map_err(|_| format!("`{key}` value {d} exceeds {}", std::any::type_name::<T>()))
        })
        .collect()
}

pub(super) fn dml_tensor(case: &Case, t: &'static str) -> Result<TensorDesc, String> {
    let f = case.tensor(t);
    let data_type = f.dtype.unwrap_or(case.dtype).0;
    let sizes: Vec<u32> = match f.shape {
        Some(shape) => dims(shape, &format!("{t}_shape"))?,
        // The output's Sizes are A's when a case leaves them out (and so are those of the B
        // that a one-input operator ignores).
        None => dims(&case.a_shape, "a_shape")?,
    };
    let mut desc = TensorDesc::new(data_type, &sizes);
    desc.strides = f
        .strides
        .map(|s| dims(s, &format!("{t}_strides")))
        .transpose()?;
    desc.total_tensor_size_in_bytes = f.total_bytes;
    if let Some(alignment) = f.guaranteed_alignment {
        desc.guaranteed_base_offset_alignment = alignment;
    }
    desc.flags = f.flags.map_or(TensorFlags::None, TensorFlags::from);
    Ok(desc)
}

pub(super) fn validate_dml(
    op: Operator,
    d: &[TensorDesc; 3],
    level: FeatureLevel,
) -> Result<(), Error> {
    gpu_xor_testkit::dml::validate(op, d.clone(), level)
}

pub(super) async fn run_dml(
    ctx: &Context,
    case: &Case,
    op: Operator,
    seed: u64,
) -> Result<(), String> {
    let descs = [
        dml_tensor(case, "a")?,
        dml_tensor(case, "b")?,
        dml_tensor(case, "out")?,
    ];
    let level = case.feature_level.map_or(FeatureLevel::Fl4_1, |l| l.0);
    let ctx = ctx.with_feature_level(level);
    let owned = owned_flags(&descs[0], &descs[1]);
    let created: Result<Maker, Error> =
        match gpu_xor_testkit::dml::operator(op, &ctx, descs.clone(), &OwnedInputs::default()) {
            Ok(compiled) if owned == [false; 2] => Ok(Maker::Ready(Box::new(compiled))),
            Ok(_) => {
                return Err(
                    "`new` made an operator whose description flags an input OWNED_BY_DML, \
                     without that input's bytes"
                        .to_string(),
                );
            }
            // A valid description with a flagged input: `new` cannot make it, and says so;
            // `with_owned_inputs` makes it once the buffers exist.
            Err(e) if owned != [false; 2] && e.rule() == "owned_input_missing" => {
                Ok(Maker::Owning {
                    op,
                    descs: &descs,
                    owned,
                })
            }
            Err(e) => Err(e),
        };
    let alias = case.alias.unwrap_or_default();
    // Only called once the operator accepted the descriptions.
    let operands = || -> Result<[Operand; 3], String> {
        let mut operands = Vec::new();
        for (&t, d) in TENSORS.iter().zip(&descs) {
            operands.push(Operand {
                name: t,
                width: u64::from(d.data_type.size_in_bytes()),
                sizes: d.sizes.iter().map(|&s| u64::from(s)).collect(),
                strides: d.effective_strides(),
                offset: case.tensor(t).offset_bytes.unwrap_or(0),
                bind_bytes: d
                    .total_size()
                    .map_err(|e| format!("{t}: TotalTensorSizeInBytes: {e}"))?,
            });
        }
        Ok(operands.try_into().expect("three operands"))
    };

    if let Some(kind) = case.error_kind()? {
        return match created {
            Err(e) => same_rule(kind, &e, "creating the operator"),
            Ok(compiled) => {
                run_error_case(&ctx, case, &compiled, seed, alias, &operands()?, kind).await
            }
        };
    }

    let compiled =
        created.map_err(|e| format!("creating the operator failed: [{}] {e}", e.rule()))?;
    if let Some(min) = case.min_feature_level {
        let min = min.0;
        validate_dml(op, &descs, min).map_err(|e| {
            format!(
                "valid from min_feature_level {min}, but refused there: [{}] {e}",
                e.rule()
            )
        })?;
        let at = FeatureLevel::ALL
            .iter()
            .position(|&l| l == min)
            .expect("a level");
        if at > 0 {
            let below = FeatureLevel::ALL[at - 1];
            match validate_dml(op, &descs, below) {
                Ok(()) => {
                    return Err(format!(
                        "min_feature_level is {min}, but {below} accepts the description"
                    ));
                }
                Err(e) if matches!(e.rule(), "unsupported_dtype" | "rank_out_of_range") => {}
                Err(e) => {
                    return Err(format!(
                        "at {below} (below min_feature_level {min}) the refusal should be \
                         unsupported_dtype or rank_out_of_range, got [{}] {e}",
                        e.rule()
                    ));
                }
            }
        }
    }
    for (&t, d) in TENSORS.iter().zip(&descs) {
        if let Some(min_bytes) = case.tensor(t).min_bytes {
            let computed = d.min_buffer_size().map_err(|e| format!("{t}: {e}"))?;
            if computed != min_bytes {
                return Err(format!(
                    "{t}: DMLCalcBufferTensorSize is {min_bytes}, min_buffer_size() gives {computed}"
                ));
            }
        }
    }
    if descs[2].sizes != descs[0].sizes {
        return Err("the operator accepted an output whose Sizes differ from A's".to_string());
    }
    let operands = operands()?;
    for (&t, operand) in TENSORS.iter().zip(&operands) {
        let len = case.tensor(t).physical_len;
        if len.is_some() && len != operand.span() {
            return Err(format!(
                "{t}_physical_len is {len:?}, the Sizes and Strides span {:?} elements",
                operand.span()
            ));
        }
    }
    run_valid(&ctx, case, &compiled, seed, alias, &operands).await
}
