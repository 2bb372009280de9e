//! Running cases: every check of one case, as `async fn`s that never block.
//!
//! What one case checks:
//!
//! 1. The case parses: every enumerated value is known, every integer is an integer.
//! 2. The description is built from the case (types, Sizes, Strides, TotalTensorSizeInBytes,
//!    GuaranteedBaseOffsetAlignment, flags; or OpenVINO shapes and `auto_broadcast`), and the
//!    operator is created at the case's feature level (4.1 when it names none).
//! 3. Error cases: the operator is refused when it is created or recorded, with
//!    [`gpu_xor::Error::rule`] equal to `error_kind`; a refused call changes no byte.
//! 4. Valid DirectML cases: the description validates at `min_feature_level` and fails at the
//!    level just below it (with `unsupported_dtype` or `rank_out_of_range`); `*_min_bytes`
//!    equals `DMLCalcBufferTensorSize`; `*_physical_len` equals the span of Sizes and Strides.
//! 5. Valid OpenVINO cases: the inferred output shape equals `out_shape`, both from the
//!    operator and from the description.
//! 6. Cases with data (literal, or SplitMix64 checked against `a_sha256` and `b_sha256`):
//!    every distinct buffer is filled with a pseudo-random sentinel, the inputs are written at
//!    the positions their strides give, the call is recorded and submitted, and every buffer
//!    is read back whole. Each output element must equal the expected bit pattern (or, for a
//!    generator case, the output's count, head, tail and SHA-256 must match), and every other
//!    byte must hold what it held before the call. An output bound to an input's range must
//!    run in place.
//! 7. Inputs flagged `OWNED_BY_DML` (DirectML's initializer-owned tensors): `new` must refuse
//!    the description with `owned_input_missing`. Once the buffers hold the case's bytes, the
//!    operator is made by `with_owned_inputs` with each flagged input bound at its place, and
//!    then the runner writes other bytes over that input's buffer ([`engine::spoil`]: each
//!    byte inverted, each element's truth flipped), so that a library that read the caller's
//!    buffer instead of its own copy fails the case. The call binds only the other tensors;
//!    the output must be the answer for the bytes the operator copied, and the flagged
//!    input's buffer must hold what the runner wrote last. (A buffer that an input bound with
//!    the call reads too, as with `alias` `a=b` and one input flagged, is left as it is.)
//!
//! No case is skipped: [`SKIPPED_TAGS`] is empty, every tag of the format runs. An unknown
//! operator, type or field value is a failure, never a skip. A wgpu error caught by the
//! case's error scopes, or a panic, fails the case.

use std::collections::HashSet;
use std::panic::AssertUnwindSafe;

use futures_util::FutureExt;
use gpu_xor::desc::OperatorGroup;
use gpu_xor::reference::{self, StridedView, StridedViewMut};
use gpu_xor::{
    AutoBroadcast, Context, DataType, Error, FeatureLevel, Operator, OvBinary, OvBinaryDesc,
    OvUnary, OvUnaryDesc, OwnedInputs, TensorDesc, TensorFlags,
};
use gpu_xor_testkit::dml::owned_flags;
use gpu_xor_testkit::engine::{self, AnyOperator, Spoil};
use gpu_xor_testkit::{
    OutputLayout, compare_buffers, le_bytes, packed_strides, positions, random_bytes, width_mask,
};
use serde_json::Value;

use crate::case::{Alias, Broadcast, Case, Generator, Op, kind_of, split_cases};
use crate::generator::{generate, sha256_hex};
use crate::report::{CaseReport, Outcome, Report};

/// The tags whose cases are skipped, each with the reason printed for it: none. The format
/// lets a runner skip a tag it names as unsupported (`owned_by_dml` only); this one runs every
/// case, `owned_by_dml` included (DirectML's initializer-owned inputs are
/// `with_owned_inputs`).
pub const SKIPPED_TAGS: &[(&str, &str)] = &[];

/// Bytes of sentinel after the last tensor of each buffer.
const TRAILING_BYTES: u64 = 64;

/// The largest buffer the runner allocates on the host and the device for one case.
const MAX_CASE_BUFFER: u64 = 1 << 30;

/// Expected values listed in a generator case (`expected_head`, `expected_tail`).
const HEAD_TAIL: usize = 16;

const TENSORS: [&str; 3] = ["a", "b", "out"];

/// Parses case text (a JSON list of case objects; one object, or one object per line, is
/// accepted too) and runs every case. Only text that is not JSON is an error; a malformed
/// case is a failed case.
pub async fn run_cases_async(ctx: &Context, json_text: &str) -> Result<Report, String> {
    let cases = split_cases(json_text)?;
    let mut seen = HashSet::new();
    let mut report = Report::default();
    for (index, value) in cases.iter().enumerate() {
        let mut entry = run_case_value(ctx, value, index).await;
        if !seen.insert(entry.id.clone()) && !matches!(entry.outcome, Outcome::Failed(_)) {
            entry.outcome = Outcome::Failed(format!("duplicate id {:?}", entry.id));
        }
        report.cases.push(entry);
    }
    Ok(report)
}

/// Runs one case value (the `index`-th of its file). A panic inside fails the case where
/// panics unwind.
pub async fn run_case_value(ctx: &Context, value: &Value, index: usize) -> CaseReport {
    let text = |key: &str| value.get(key).and_then(Value::as_str);
    let mut report = CaseReport {
        id: text("id").map_or_else(|| format!("#{index}"), str::to_string),
        op: text("op").unwrap_or("?").to_string(),
        tags: Vec::new(),
        outcome: Outcome::Passed,
    };
    if !value.is_object() {
        report.outcome = Outcome::Failed(format!(
            "case #{index} is {}, not an object",
            kind_of(value)
        ));
        return report;
    }
    let case = match Case::from_value(value) {
        Ok(case) => case,
        Err(e) => {
            report.outcome = Outcome::Failed(e);
            return report;
        }
    };
    report.tags = case.tags.clone();
    if let Some((tag, reason)) = SKIPPED_TAGS
        .iter()
        .find(|(tag, _)| case.tags.iter().any(|t| t == tag))
    {
        report.outcome = Outcome::Skipped(format!("tag {tag}: {reason}"));
        return report;
    }

    let device = ctx.device();
    let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let memory = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let seed = fnv1a(case.id.as_bytes());
    let result = AssertUnwindSafe(run_case(ctx, &case, seed))
        .catch_unwind()
        .await;
    let memory = memory.pop().await;
    let validation = validation.pop().await;
    report.outcome = match (result, validation.or(memory)) {
        (Err(panic), _) => {
            let message = panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("(no message)");
            Outcome::Failed(format!("panicked: {message}"))
        }
        (Ok(_), Some(wgpu_error)) => {
            Outcome::Failed(format!("wgpu reported an error: {wgpu_error}"))
        }
        (Ok(Ok(())), None) => Outcome::Passed,
        (Ok(Err(reason)), None) => Outcome::Failed(reason),
    };
    report
}

async fn run_case(ctx: &Context, case: &Case, seed: u64) -> Result<(), String> {
    match family(case.op) {
        Some(Family::Dml(op)) => run_dml(ctx, case, op, seed).await,
        Some(Family::Ov(op)) => run_openvino(ctx, case, op, seed).await,
        None => Err(format!("no runner for {}'s group", case.op.name())),
    }
}

/// The library's operator for a case's `op`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// A DirectML operator: described tensors, strides, feature levels.
    Dml(Operator),
    /// An OpenVINO operation: shapes and `auto_broadcast`.
    Ov(Operator),
}

/// How the cases of `op` run, from its group in the operator table; `None` for a group this
/// runner does not know.
pub fn family(op: Op) -> Option<Family> {
    match op.0.group() {
        OperatorGroup::DmlBinaryOp(_) | OperatorGroup::DmlUnaryOp(_) => Some(Family::Dml(op.0)),
        OperatorGroup::OvBinaryOp(_) | OperatorGroup::OvUnaryOp(_) => Some(Family::Ov(op.0)),
        _ => None,
    }
}

// ----- DirectML operators --------------------------------------------------------------------

/// The operator of a case, or how to make it once the case's buffers exist.
enum Maker<'a> {
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
    fn inputs(&self) -> usize {
        match self {
            Maker::Ready(op) => match **op {
                AnyOperator::DmlUnary(_) | AnyOperator::OvUnary(_) => 1,
                _ => 2,
            },
            Maker::Owning { op, .. } => op.inputs(),
        }
    }
}

fn dims<T: TryFrom<u64>>(dims: &[u64], key: &str) -> Result<Vec<T>, String> {
    dims.iter()
        .map(|&d| {
            T::try_from(d)
                .map_err(|_| format!("`{key}` value {d} exceeds {}", std::any::type_name::<T>()))
        })
        .collect()
}

fn dml_tensor(case: &Case, t: &'static str) -> Result<TensorDesc, String> {
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

fn validate_dml(op: Operator, d: &[TensorDesc; 3], level: FeatureLevel) -> Result<(), Error> {
    gpu_xor_testkit::dml::validate(op, d.clone(), level)
}

async fn run_dml(ctx: &Context, case: &Case, op: Operator, seed: u64) -> Result<(), String> {
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

// ----- OpenVINO operations ---------------------------------------------------------------------

async fn run_openvino(ctx: &Context, case: &Case, op: Operator, seed: u64) -> Result<(), String> {
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
fn auto_broadcast(case: &Case) -> AutoBroadcast {
    match case.broadcast {
        None | Some(Broadcast::Numpy) => AutoBroadcast::Numpy,
        Some(Broadcast::None) => AutoBroadcast::None,
        Some(Broadcast::Pdpd) => AutoBroadcast::Pdpd {
            axis: case.pdpd_axis.unwrap_or(-1),
        },
        Some(Broadcast::Explicit) => AutoBroadcast::Explicit,
    }
}

// ----- On the CPU ------------------------------------------------------------------------------

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
                OperatorGroup::DmlBinaryOp(op) => reference::dml_binary(op, &av, &bv, &mut ov),
                OperatorGroup::DmlUnaryOp(op) => reference::dml_unary(op, &av, &mut ov),
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

// ----- Both families -----------------------------------------------------------------------------

/// Runs a valid case that the operator accepted: literal data, generated data, or none
/// (validation only, already done by the caller).
async fn run_valid(
    ctx: &Context,
    case: &Case,
    compiled: &Maker<'_>,
    seed: u64,
    alias: Alias,
    operands: &[Operand; 3],
) -> Result<(), String> {
    let [a, b, out] = operands;
    if let Some(generator) = &case.generator {
        let (ga, gb) = generated_inputs(generator, operands)?;
        for (t, data, operand, want) in [
            ("a", Some(&ga), a, &case.a_sha256),
            ("b", gb.as_ref(), b, &case.b_sha256),
        ] {
            let Some(data) = data else { continue };
            let want = want
                .as_deref()
                .ok_or_else(|| format!("missing `{t}_sha256`"))?;
            let got = sha256_hex(&le_bytes(data, operand.width));
            if !got.eq_ignore_ascii_case(want) {
                return Err(format!(
                    "generated {t} has SHA-256 {got}, the case says {want} (generator mismatch)"
                ));
            }
        }
        let expect = Generated {
            sha256: case
                .expected_sha256
                .as_deref()
                .ok_or("missing `expected_sha256`")?,
            count: case.expected_count.ok_or("missing `expected_count`")?,
            head: case.expected_head.as_deref(),
            tail: case.expected_tail.as_deref(),
        };
        return execute(
            ctx,
            compiled,
            seed,
            alias,
            operands,
            [Some(&ga), gb.as_ref()],
            Check::Generated(expect),
        )
        .await;
    }

    let two = case.op.inputs() == 2;
    match [&case.a, &case.b, &case.expected] {
        [None, None, None] => Ok(()), // validation_only: checked by the caller
        [Some(da), db, Some(expected)] if db.is_some() == two => {
            check_data(da, a)?;
            if let Some(db) = db {
                check_data(db, b)?;
            }
            let count = out.element_count();
            if expected.len() as u64 != count {
                return Err(format!(
                    "`expected` has {} values for {count} output elements",
                    expected.len()
                ));
            }
            let mask = width_mask(out.width);
            if let Some((i, v)) = expected.iter().enumerate().find(|&(_, &v)| v & !mask != 0) {
                return Err(format!(
                    "`expected`[{i}] = {v:#x} does not fit in {} bytes",
                    out.width
                ));
            }
            execute(
                ctx,
                compiled,
                seed,
                alias,
                operands,
                [Some(da), db.as_ref()],
                Check::Values(expected),
            )
            .await
        }
        _ if two => Err("a case with data needs all of `a`, `b` and `expected`".to_string()),
        _ => Err("a one-input case with data needs `a` and `expected`".to_string()),
    }
}

/// An error case whose operator was created: its refusal must come when it is recorded, with
/// the case's rule. Inputs are the case's data where it fits the operands; otherwise they
/// keep the sentinel (the data of an error case only matters if the operator wrongly runs).
async fn run_error_case(
    ctx: &Context,
    case: &Case,
    compiled: &Maker<'_>,
    seed: u64,
    alias: Alias,
    operands: &[Operand; 3],
    kind: &str,
) -> Result<(), String> {
    let fits = |o: usize| {
        [&case.a, &case.b][o]
            .as_ref()
            .filter(|data| check_data(data, &operands[o]).is_ok())
    };
    let inputs = [fits(0), fits(1)];
    execute(
        ctx,
        compiled,
        seed,
        alias,
        operands,
        inputs,
        Check::Error(kind),
    )
    .await
}

/// Data must hold one value per element position the strides reach (the physical buffer for
/// strided DirectML tensors, the logical elements otherwise), each within the element width.
fn check_data(data: &[u64], operand: &Operand) -> Result<(), String> {
    let span = operand
        .span()
        .ok_or_else(|| format!("{}: span overflows", operand.name))?;
    if data.len() as u64 != span {
        return Err(format!(
            "`{}` has {} values; the tensor spans {span} elements",
            operand.name,
            data.len()
        ));
    }
    let mask = width_mask(operand.width);
    if let Some((i, v)) = data.iter().enumerate().find(|&(_, &v)| v & !mask != 0) {
        return Err(format!(
            "`{}`[{i}] = {v:#x} does not fit in {} bytes",
            operand.name, operand.width
        ));
    }
    Ok(())
}

/// The inputs of a `generator` case (B's only where the case has a stream for it).
fn generated_inputs(
    generator: &Generator,
    operands: &[Operand; 3],
) -> Result<(Vec<u64>, Option<Vec<u64>>), String> {
    let mut out = Vec::new();
    for ((t, stream), operand) in [("a", Some(generator.a)), ("b", generator.b)]
        .into_iter()
        .zip(operands)
    {
        let Some(stream) = stream else {
            out.push(None);
            continue;
        };
        let span = operand
            .span()
            .ok_or_else(|| format!("{t}: span overflows"))?;
        if stream.count != span {
            return Err(format!(
                "generator {t}.count is {}; the tensor spans {span} elements",
                stream.count
            ));
        }
        out.push(Some(generate(
            stream.seed,
            stream.count,
            stream.mode,
            operand.width,
        )));
    }
    let b = out.pop().expect("b");
    let a = out.pop().expect("a").expect("A's stream");
    Ok((a, b))
}

/// The expectations of a generator case.
struct Generated<'a> {
    sha256: &'a str,
    count: u64,
    head: Option<&'a [u64]>,
    tail: Option<&'a [u64]>,
}

/// What a run must show.
enum Check<'a> {
    /// The output's logical row-major values.
    Values(&'a [u64]),
    /// Digest, count, head and tail of the output.
    Generated(Generated<'a>),
    /// The call is refused with this rule.
    Error(&'a str),
}

/// One tensor as the runner lays it out in a buffer.
#[derive(Debug)]
struct Operand {
    name: &'static str,
    /// Element size in bytes.
    width: u64,
    sizes: Vec<u64>,
    /// Element strides (packed row-major when the case gives none).
    strides: Vec<u64>,
    /// The case's `*_offset_bytes`.
    offset: u64,
    /// The size of the bound range: TotalTensorSizeInBytes, or the bytes rounded up to 4.
    bind_bytes: u64,
}

impl Operand {
    fn element_count(&self) -> u64 {
        self.sizes.iter().product()
    }

    /// Elements from the first to the last position reached, inclusive (0 when empty).
    fn span(&self) -> Option<u64> {
        if self.sizes.contains(&0) {
            return Some(0);
        }
        self.sizes
            .iter()
            .zip(&self.strides)
            .try_fold(1u64, |acc, (&n, &s)| {
                acc.checked_add((n - 1).checked_mul(s)?)
            })
    }
}

/// Lays the operands out in sentinel-filled buffers, writes the inputs, records and submits
/// the call, reads every buffer back whole and checks it.
async fn execute(
    ctx: &Context,
    compiled: &Maker<'_>,
    seed: u64,
    alias: Alias,
    operands: &[Operand; 3],
    inputs: [Option<&Vec<u64>>; 2],
    check: Check<'_>,
) -> Result<(), String> {
    // A one-input operator's B is not bound: it has no buffer, and stands for A below.
    let unary = compiled.inputs() == 1;
    let present = [true, !unary, true];
    // Buffers: each operand goes to the buffer (and offset) of the operand it aliases.
    let targets = alias.targets();
    let mut buffer_of = [0usize; 3];
    let mut owners: Vec<usize> = Vec::new();
    for o in 0..3 {
        if !present[o] {
            continue;
        }
        let t = targets[o];
        buffer_of[o] = match owners.iter().position(|&x| x == t) {
            Some(i) => i,
            None => {
                owners.push(t);
                owners.len() - 1
            }
        };
    }
    let mut offsets: [u64; 3] = std::array::from_fn(|o| operands[targets[o]].offset);
    if unary {
        buffer_of[1] = buffer_of[0];
        offsets[1] = offsets[0];
    }
    let max_buffer = ctx.device().limits().max_buffer_size.min(MAX_CASE_BUFFER);
    let mut names = vec![String::new(); owners.len()];
    let mut sizes = vec![0u64; owners.len()];
    for o in (0..3).filter(|&o| present[o]) {
        let end = offsets[o]
            .checked_add(operands[o].bind_bytes)
            .and_then(|e| e.checked_add(TRAILING_BYTES))
            .ok_or("buffer size overflows")?;
        let k = buffer_of[o];
        sizes[k] = sizes[k].max(end.div_ceil(4) * 4);
        if !names[k].is_empty() {
            names[k].push('=');
        }
        names[k].push_str(operands[o].name);
    }
    if let Some(&too_big) = sizes.iter().find(|&&s| s > max_buffer) {
        let expected = match check {
            Check::Error(kind) => format!("expected error {kind}, but the operator was created; "),
            _ => String::new(),
        };
        return Err(format!(
            "{expected}running it needs a {too_big}-byte buffer, more than this runner \
             allocates ({max_buffer})"
        ));
    }

    // Host images: sentinel, then the inputs at the positions their strides give.
    let mut images: Vec<Vec<u8>> = sizes
        .iter()
        .enumerate()
        .map(|(k, &size)| {
            random_bytes(
                seed ^ (k as u64 + 1).wrapping_mul(0xA24B_AED4_963E_E407),
                size as usize,
            )
        })
        .collect();
    // Where A and B share a buffer, they must agree on every byte they both write.
    let mut written: Vec<Vec<bool>> = sizes
        .iter()
        .enumerate()
        .map(|(k, &s)| {
            let shared = !unary && buffer_of[0] == k && buffer_of[1] == k;
            vec![false; if shared { s as usize } else { 0 }]
        })
        .collect();
    for (o, data) in inputs.iter().enumerate() {
        let Some(data) = data else { continue };
        let operand = &operands[o];
        let k = buffer_of[o];
        let width = operand.width as usize;
        let track = !written[k].is_empty();
        for p in positions(&operand.sizes, &operand.strides) {
            let at = (offsets[o] + p * operand.width) as usize;
            let bytes = &data[p as usize].to_le_bytes()[..width];
            if track {
                let agreed =
                    (0..width).all(|j| !written[k][at + j] || images[k][at + j] == bytes[j]);
                if !agreed {
                    return Err(format!(
                        "the `a` and `b` data disagree on the range they share (bytes {at}..{})",
                        at + width
                    ));
                }
                written[k][at..at + width].fill(true);
            }
            images[k][at..at + width].copy_from_slice(bytes);
        }
    }
    drop(written);

    let buffers = engine::upload(ctx, &names, &images);
    let ranges = std::array::from_fn(|o| {
        let from = if present[o] { o } else { 0 };
        (buffer_of[o], offsets[o], operands[from].bind_bytes)
    });
    let layout_of = |o: usize| {
        let operand = &operands[o];
        OutputLayout {
            buffer: buffer_of[o],
            offset: offsets[o],
            width: operand.width,
            sizes: operand.sizes.clone(),
            strides: operand.strides.clone(),
        }
    };
    let made;
    let (compiled, owned) = match compiled {
        Maker::Ready(compiled) => (&**compiled, [false; 2]),
        &Maker::Owning { op, descs, owned } => {
            let all = engine::bindings(&buffers, ranges);
            let inputs = OwnedInputs {
                a: all.a.binding().filter(|_| owned[0]),
                b: all.b.binding().filter(|_| owned[1]),
            };
            match gpu_xor_testkit::dml::operator(op, ctx, descs.clone(), &inputs) {
                Ok(compiled) => {
                    made = compiled;
                    (&made, owned)
                }
                Err(e) => {
                    let Check::Error(kind) = check else {
                        return Err(format!(
                            "creating the operator with its owned inputs failed: [{}] {e}",
                            e.rule()
                        ));
                    };
                    same_rule(kind, &e, "creating the operator with its owned inputs")?;
                    let after = engine::read_back(ctx, &buffers)
                        .await
                        .map_err(|e| format!("reading the buffers back: [{}] {e}", e.rule()))?;
                    return compare_buffers(&names, &after, &images, None)
                        .map_err(|e| format!("the refused operator changed a byte: {e}"));
                }
            }
        }
    };
    // The operator has its own copy of each owned input: other bytes go over the caller's.
    for (k, buffer) in buffers.iter().enumerate() {
        let held: Vec<usize> = (0..2)
            .filter(|&i| present[i] && buffer_of[i] == k)
            .collect();
        if held.is_empty() || held.iter().any(|&i| !owned[i]) {
            continue;
        }
        let layouts: Vec<(OutputLayout, Spoil)> = held
            .into_iter()
            .map(|i| (layout_of(i), Spoil::for_input(i, owned)))
            .collect();
        let inputs: Vec<(&OutputLayout, Spoil)> = layouts.iter().map(|(l, h)| (l, *h)).collect();
        images[k] = engine::spoil(&images[k], &inputs);
        ctx.queue().write_buffer(buffer, 0, &images[k]);
    }
    // Inputs the call leaves unbound: those the operator owns, and a one-input operator's B.
    let inputs = if unary { 1 } else { 2 };
    let result = engine::submit(
        ctx,
        compiled,
        &engine::call_bindings(&buffers, ranges, owned, inputs),
    );
    let after = engine::read_back(ctx, &buffers)
        .await
        .map_err(|e| format!("reading the buffers back: [{}] {e}", e.rule()))?;

    let summary = match (result, &check) {
        (Err(e), Check::Error(kind)) => {
            same_rule(kind, &e, "recording the operator")?;
            return compare_buffers(&names, &after, &images, None)
                .map_err(|e| format!("the refused call changed a byte: {e}"));
        }
        (Ok(_), Check::Error(kind)) => {
            return Err(format!(
                "expected error {kind}, but the operator was created and the call succeeded"
            ));
        }
        (Err(e), _) => return Err(format!("the call failed: [{}] {e}", e.rule())),
        (Ok(summary), _) => summary,
    };
    // In place only where the output shares its range with an input the call binds.
    let bound_alias = match alias {
        Alias::OutA => !owned[0],
        Alias::OutB => !owned[1],
        Alias::All => !owned[0] || !owned[1],
        Alias::None | Alias::AB => false,
    };
    if bound_alias && !summary.in_place() {
        return Err(format!(
            "the output is bound to an input's range ({alias:?}) but the call was not in place: \
             {summary:?}"
        ));
    }

    let out = &operands[2];
    let layout = layout_of(2);
    let values = match check {
        Check::Values(expected) => expected.to_vec(),
        Check::Generated(g) => {
            let values = layout.read_values(&after[layout.buffer]);
            check_generated(&g, &values, out.width)?;
            values
        }
        Check::Error(_) => unreachable!("handled above"),
    };
    let mut want = images;
    layout.write_values(&mut want[layout.buffer], &values);
    compare_buffers(&names, &after, &want, Some(&layout))
}

fn check_generated(g: &Generated<'_>, values: &[u64], width: u64) -> Result<(), String> {
    if values.len() as u64 != g.count {
        return Err(format!(
            "the output has {} elements, expected_count is {}",
            values.len(),
            g.count
        ));
    }
    let n = values.len();
    if let Some(head) = g.head {
        let got = &values[..n.min(HEAD_TAIL)];
        if let Some(i) = (0..head.len().max(got.len())).find(|&i| got.get(i) != head.get(i)) {
            return Err(format!(
                "output element {i}: got {:?}, expected_head says {:?}",
                got.get(i),
                head.get(i)
            ));
        }
    }
    if let Some(tail) = g.tail {
        let got = &values[n - n.min(HEAD_TAIL)..];
        if let Some(i) = (0..tail.len().max(got.len())).find(|&i| got.get(i) != tail.get(i)) {
            return Err(format!(
                "output element {}: got {:?}, expected_tail says {:?}",
                n - got.len() + i,
                got.get(i),
                tail.get(i)
            ));
        }
    }
    let digest = sha256_hex(&le_bytes(values, width));
    if !digest.eq_ignore_ascii_case(g.sha256) {
        return Err(format!(
            "output SHA-256 {digest}, expected_sha256 {} (head and tail match)",
            g.sha256
        ));
    }
    Ok(())
}

fn same_rule(kind: &str, e: &Error, when: &str) -> Result<(), String> {
    if e.rule() == kind {
        Ok(())
    } else {
        Err(format!(
            "expected error {kind}, {when} failed with [{}] {e}",
            e.rule()
        ))
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every valid case of a repository file, by the CPU reference.
    fn reference_agrees(path: &str) -> usize {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let mut checked = 0;
        let mut failures = Vec::new();
        for value in split_cases(&text).unwrap() {
            let case = Case::from_value(&value).unwrap();
            match reference_check(&case) {
                Ok(true) => checked += 1,
                Ok(false) => {}
                Err(e) => failures.push(format!("{}: {e}", case.id)),
            }
        }
        assert!(failures.is_empty(), "{path}:\n{}", failures.join("\n"));
        checked
    }

    #[test]
    fn the_reference_reproduces_every_expected_output() {
        assert!(reference_agrees(crate::XOR_CASES) > 100);
        assert!(reference_agrees(crate::AND_OR_NOT_CASES) > 100);
        assert!(reference_agrees(crate::SHIFTS_AND_COUNT_CASES) > 100);
        assert!(reference_agrees(crate::ONNX_NODE_CASES) > 50);
    }

    #[test]
    fn the_reference_check_fails_a_wrong_output() {
        let case = Case::from_value(&serde_json::json!({
            "id": "x", "op": "bit_not", "dtype": "u16", "a_shape": [2, 2], "a_strides": [3, 1],
            "a": [0, 1, 0xffff, 7, 0x8000], "expected": [0xffff, 0xfffe, 0xfff8, 0x7fff]
        }))
        .unwrap();
        assert_eq!(reference_check(&case), Ok(true));
        let mut wrong = case.clone();
        wrong.expected = Some(vec![0xffff, 0xfffe, 0xfff8, 0x7ffe]);
        let e = reference_check(&wrong).unwrap_err();
        assert!(e.starts_with("output element 3"), "{e}");
    }
}
