//! Expression cases (`"op": "expression"`): a fused expression described node by node, run as
//! one `Fused` call (see conformance/README.md, "Fused expressions").
//!
//! A valid case's inputs are written at offset 0 of buffers of their own, each followed by a
//! sentinel; the output's buffer is a sentinel. After the call every output element must be
//! its expected bit pattern and every other byte of every buffer what it held. An error
//! case's expression must be refused when the operator is made, with `error_kind`.

use gpu_xor::{
    Affine, Context, DataType, ExprBindings, ExprDesc, ExprNode, FeatureLevel, Fused, Operator,
    Reduce, ReduceOp, TensorBinding, TensorDesc,
};
use gpu_xor_testkit::{le_bytes, packed_strides, positions, random_bytes};
use serde_json::Value;

use crate::case::{Dtype, Level};

/// Whether `value` is an expression case.
pub fn is_expression(value: &Value) -> bool {
    value.get("op").and_then(Value::as_str) == Some("expression")
}

/// An expression case, parsed: its description, its inputs' physical elements, the level it
/// runs at, and its expected output or error.
#[derive(Clone, Debug)]
pub struct ExprCase {
    /// The expression.
    pub desc: ExprDesc,
    /// Each input's physical elements (bit patterns), as the case lists them.
    pub data: Vec<Vec<u64>>,
    /// The feature level (`feature_level`, else the newest).
    pub level: FeatureLevel,
    /// The expected output, logical row-major.
    pub expected: Option<Vec<u64>>,
    /// The rule an error case breaks.
    pub error_kind: Option<String>,
}

fn field<'a>(v: &'a Value, key: &str, what: &str) -> Result<&'a Value, String> {
    v.get(key).ok_or_else(|| format!("{what}: no {key:?}"))
}

fn uint(v: &Value, what: &str) -> Result<u64, String> {
    v.as_u64()
        .ok_or_else(|| format!("{what}: {v} is not an unsigned integer"))
}

fn uints(v: &Value, what: &str) -> Result<Vec<u64>, String> {
    v.as_array()
        .ok_or_else(|| format!("{what}: not a list"))?
        .iter()
        .map(|x| uint(x, what))
        .collect()
}

fn dtype(v: &Value, what: &str) -> Result<DataType, String> {
    serde_json::from_value::<Dtype>(v.clone())
        .map(|d| d.0)
        .map_err(|e| format!("{what}: {e}"))
}

/// A tensor field: `dtype`, `shape`, and `strides` when given.
fn tensor(v: &Value, what: &str) -> Result<TensorDesc, String> {
    let data_type = dtype(field(v, "dtype", what)?, what)?;
    let to_u32 = |x: u64| u32::try_from(x).map_err(|_| format!("{what}: {x} is past u32"));
    let shape: Vec<u32> = uints(field(v, "shape", what)?, what)?
        .into_iter()
        .map(to_u32)
        .collect::<Result<_, _>>()?;
    let t = TensorDesc::new(data_type, &shape);
    match v.get("strides") {
        Some(s) => {
            let strides: Vec<u32> = uints(s, what)?
                .into_iter()
                .map(to_u32)
                .collect::<Result<_, _>>()?;
            Ok(t.with_strides(&strides))
        }
        None => Ok(t),
    }
}

impl ExprCase {
    /// Parses an expression case: its nodes are [`ExprNode`]s by the case's own numbering.
    pub fn from_value(value: &Value) -> Result<ExprCase, String> {
        let inputs = field(value, "inputs", "case")?
            .as_array()
            .ok_or("inputs: not a list")?;
        let mut descs = Vec::new();
        let mut data = Vec::new();
        for (k, input) in inputs.iter().enumerate() {
            let what = format!("input {k}");
            descs.push(tensor(input, &what)?);
            data.push(uints(field(input, "data", &what)?, &what)?);
        }
        let node_list = field(value, "nodes", "case")?
            .as_array()
            .ok_or("nodes: not a list")?;
        let mut nodes = Vec::new();
        for (n, node) in node_list.iter().enumerate() {
            let what = format!("node {n}");
            let index = |key: &str| -> Result<Option<usize>, String> {
                node.get(key)
                    .map(|v| uint(v, &what).map(|i| i as usize))
                    .transpose()
            };
            nodes.push(if let Some(k) = index("input")? {
                ExprNode::Input(k)
            } else if let Some(bits) = node.get("constant") {
                ExprNode::Constant {
                    bits: uint(bits, &what)?,
                    data_type: dtype(field(node, "dtype", &what)?, &what)?,
                }
            } else {
                let name = field(node, "op", &what)?
                    .as_str()
                    .ok_or_else(|| format!("{what}: op is not a string"))?;
                let op = Operator::from_conformance_name(name)
                    .ok_or_else(|| format!("{what}: unknown op {name:?}"))?;
                let a = index("a")?.ok_or_else(|| format!("{what}: no \"a\""))?;
                ExprNode::Apply {
                    op,
                    a,
                    b: index("b")?.unwrap_or(a),
                    out_type: node.get("out_dtype").map(|t| dtype(t, &what)).transpose()?,
                }
            });
        }
        let result = uint(field(value, "result", "case")?, "result")? as usize;
        let output = tensor(field(value, "output", "case")?, "output")?;
        // `"reduce": {"op": "sum", "axes": [2]}`: the result reduced over trailing axes;
        // `"affine": [scale, offset]` maps a sum's totals.
        let reduce = value
            .get("reduce")
            .map(|r| -> Result<Reduce, String> {
                let name = field(r, "op", "reduce")?
                    .as_str()
                    .ok_or("reduce: op is not a string")?;
                let op = ReduceOp::from_name(name)
                    .ok_or_else(|| format!("reduce: unknown op {name:?}"))?;
                let axes = uints(field(r, "axes", "reduce")?, "reduce axes")?;
                let affine = match r.get("affine") {
                    None => None,
                    Some(a) => {
                        let pair: Vec<i32> = a
                            .as_array()
                            .filter(|v| v.len() == 2)
                            .and_then(|v| {
                                v.iter()
                                    .map(|x| x.as_i64().and_then(|x| i32::try_from(x).ok()))
                                    .collect()
                            })
                            .ok_or("reduce: affine is not [scale, offset] of 32-bit integers")?;
                        Some(Affine {
                            scale: pair[0],
                            offset: pair[1],
                        })
                    }
                };
                Ok(Reduce {
                    op,
                    axes: axes.iter().map(|&a| a as usize).collect(),
                    affine,
                })
            })
            .transpose()?;
        let level = match value.get("feature_level") {
            Some(l) => serde_json::from_value::<Level>(l.clone())
                .map(|l| l.0)
                .map_err(|e| format!("feature_level: {e}"))?,
            None => FeatureLevel::ALL[FeatureLevel::ALL.len() - 1],
        };
        let expected = value
            .get("expected")
            .map(|v| uints(v, "expected"))
            .transpose()?;
        let error_kind = value
            .get("error_kind")
            .and_then(Value::as_str)
            .map(str::to_string);
        if expected.is_none() && error_kind.is_none() {
            return Err("neither expected nor error_kind".to_string());
        }
        Ok(ExprCase {
            desc: ExprDesc {
                inputs: descs,
                nodes,
                result,
                output,
                reduce,
            },
            data,
            level,
            expected,
            error_kind,
        })
    }

    /// Each input's buffer image: its elements at their places from offset 0, the bytes its
    /// total size covers and no element does the sentinel's, then 64 bytes of sentinel.
    fn images(&self, seed: u64) -> Result<Vec<Vec<u8>>, String> {
        let mut images = Vec::new();
        for (k, (t, data)) in self.desc.inputs.iter().zip(&self.data).enumerate() {
            let total = t.total_size().map_err(|e| format!("input {k}: {e}"))? as usize;
            let width = t.data_type.size_in_bytes() as usize;
            let mut image = random_bytes(seed ^ (k as u64 + 1), total.div_ceil(4) * 4 + 64);
            for (i, &v) in data.iter().enumerate() {
                let at = i * width;
                if at + width > total {
                    return Err(format!(
                        "input {k}: {} elements past its total size",
                        data.len()
                    ));
                }
                image[at..at + width].copy_from_slice(&le_bytes(&[v], width as u64));
            }
            images.push(image);
        }
        Ok(images)
    }
}

/// The byte offset of each output element, logical row-major.
fn output_places(t: &TensorDesc) -> Vec<u64> {
    let sizes: Vec<u64> = t.sizes.iter().map(|&s| u64::from(s)).collect();
    let strides = t
        .strides
        .as_ref()
        .map(|s| s.iter().map(|&x| u64::from(x)).collect())
        .unwrap_or_else(|| packed_strides(&t.sizes));
    let width = u64::from(t.data_type.size_in_bytes());
    positions(&sizes, &strides)
        .into_iter()
        .map(|p| p * width)
        .collect()
}

/// Whether the CPU reference gives the case's expected output (`Ok(true)`), or refuses it with
/// its `error_kind` (`Ok(false)`).
pub fn expression_reference_check(case: &ExprCase) -> Result<bool, String> {
    let images = case.images(1)?;
    let refs: Vec<&[u8]> = images.iter().map(|v| v.as_slice()).collect();
    let total = case.desc.output.total_size().unwrap_or(0) as usize;
    let mut out = vec![0u8; total.max(1)];
    let result = gpu_xor::reference::expression(&case.desc, case.level, &refs, &mut out);
    match (&case.error_kind, result) {
        (Some(kind), Err(e)) if e.rule() == kind => Ok(false),
        (Some(kind), other) => Err(format!("expected {kind}, the reference gave {other:?}")),
        (None, Err(e)) => Err(format!("the reference refused it: {e}")),
        (None, Ok(())) => {
            let expected = case
                .expected
                .as_ref()
                .expect("a valid case's expected output");
            compare(&case.desc.output, &out, expected).map(|()| true)
        }
    }
}

/// Every expected element of `t` in `bytes` (the output's buffer from offset 0).
fn compare(t: &TensorDesc, bytes: &[u8], expected: &[u64]) -> Result<(), String> {
    let places = output_places(t);
    if places.len() != expected.len() {
        return Err(format!(
            "{} expected values for {} output elements",
            expected.len(),
            places.len()
        ));
    }
    let width = t.data_type.size_in_bytes() as usize;
    for (i, (&at, &want)) in places.iter().zip(expected).enumerate() {
        let at = at as usize;
        let got = bytes[at..at + width]
            .iter()
            .rev()
            .fold(0u64, |acc, &b| acc << 8 | u64::from(b));
        if got != want {
            return Err(format!(
                "output element {i} (byte {at}): got {got:#x}, expected {want:#x}"
            ));
        }
    }
    Ok(())
}

/// Runs an expression case on the device.
pub(super) async fn run_expression(ctx: &Context, value: &Value, seed: u64) -> Result<(), String> {
    let case = ExprCase::from_value(value)?;
    let ctx = ctx.with_feature_level(case.level);
    let made = Fused::new(&ctx, &case.desc);
    let fused = match (&case.error_kind, made) {
        (Some(kind), Err(e)) if e.rule() == kind => return Ok(()),
        (Some(kind), Err(e)) => return Err(format!("refused with {} ({e}), not {kind}", e.rule())),
        (Some(kind), Ok(_)) => return Err(format!("made, where {kind} was expected")),
        (None, Err(e)) => return Err(format!("refused: {e}")),
        (None, Ok(f)) => f,
    };
    let images = case.images(seed)?;
    let total = case
        .desc
        .output
        .total_size()
        .map_err(|e| format!("output: {e}"))? as usize;
    let out_image = random_bytes(seed ^ 0xff, total.div_ceil(4) * 4 + 64);
    let mut buffers: Vec<wgpu::Buffer> = images
        .iter()
        .map(|i| gpu_xor_testkit::engine::storage_buffer(&ctx, "input", i))
        .collect();
    buffers.push(gpu_xor_testkit::engine::storage_buffer(
        &ctx, "output", &out_image,
    ));
    let (inputs, output) = buffers.split_at(images.len());
    let bindings: Vec<TensorBinding> = inputs.iter().map(TensorBinding::new).collect();
    fused
        .run_async(&ExprBindings::new(
            &bindings,
            TensorBinding::new(&output[0]),
        ))
        .await
        .map_err(|e| format!("run: {e}"))?;
    let got = gpu_xor_testkit::engine::read_back(&ctx, &buffers)
        .await
        .map_err(|e| format!("read-back: {e}"))?;
    for (k, (g, image)) in got.iter().zip(&images).enumerate() {
        if g != image {
            let at = g.iter().zip(image).position(|(x, y)| x != y).unwrap_or(0);
            return Err(format!("input {k}'s buffer changed at byte {at}"));
        }
    }
    let out = &got[images.len()];
    let expected = case
        .expected
        .as_ref()
        .expect("a valid case's expected output");
    compare(&case.desc.output, out, expected)?;
    // Every byte no output element occupies holds the sentinel.
    let width = case.desc.output.data_type.size_in_bytes() as usize;
    let mut element = vec![false; out.len()];
    for at in output_places(&case.desc.output) {
        element[at as usize..at as usize + width].fill(true);
    }
    if let Some(at) = (0..out.len()).find(|&i| !element[i] && out[i] != out_image[i]) {
        return Err(format!(
            "the output's buffer changed at byte {at}, outside every element"
        ));
    }
    Ok(())
}
