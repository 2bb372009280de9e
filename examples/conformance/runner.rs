//! The conformance runner: reads the case format of `conformance/README.md` and runs every
//! case on a real adapter through the public API.
//!
//! This file has no `main`: the example `conformance` (`main.rs` beside it) and the test suite
//! (`tests/suite/conformance.rs`, through `#[path]`) both include it as a module.
//!
//! What one case checks:
//!
//! 1. The description is built from the case (types, Sizes, Strides, TotalTensorSizeInBytes,
//!    GuaranteedBaseOffsetAlignment, flags; or OpenVINO shapes and `auto_broadcast`), and the
//!    operator is created at the case's feature level (4.1 when it names none).
//! 2. Error cases: the operator is refused when it is created or run, with
//!    [`gpu_xor::Error::rule`] equal to `error_kind`; a refused run changes no byte.
//! 3. Valid DirectML cases: the description validates at `min_feature_level` and fails at the
//!    level just below it; `*_min_bytes` equals `DMLCalcBufferTensorSize`.
//! 4. Valid OpenVINO cases: the inferred output shape equals `out_shape`.
//! 5. Cases with data (literal or SplitMix64): every distinct buffer is filled with a
//!    pseudo-random sentinel, the inputs are written at the positions their strides give, the
//!    operator runs, and every buffer is read back whole. Each output element must equal the
//!    expected bit pattern, and every other byte must hold what it held before the run.
//!
//! Only cases tagged `owned_by_dml` are skipped ([`SKIPPED_TAGS`]); an unknown operator, type
//! or field value is a failure, never a skip.

use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

use gpu_xor::{
    AutoBroadcast, BitXor, BitXorDesc, BitwiseXor, BitwiseXorDesc, Context, DataType, Error,
    FeatureLevel, LogicalXor, LogicalXorDesc, RecordSummary, TensorBinding, TensorDesc,
    TensorFlags, XorBindings,
};
use serde_json::{Map, Value};

/// The operators of the format, in the order the summary lists them.
pub const OPERATORS: [&str; 3] = ["bit_xor", "logical_xor", "bitwise_xor_broadcast"];

/// The tags whose cases are skipped, each with the reason printed for it. README: a case may
/// be skipped only for a tag the runner names as unsupported, and `owned_by_dml` is the only
/// such tag.
pub const SKIPPED_TAGS: [(&str, &str); 1] = [(
    "owned_by_dml",
    "DML_TENSOR_FLAG_OWNED_BY_DML: DirectML initializer-owned tensors have no meaning here \
     (every tensor is bound when the operator is recorded)",
)];

/// Bytes of sentinel after the last tensor of each buffer.
const TRAILING_BYTES: u64 = 64;

/// The largest buffer the runner allocates on the host and the device for one case.
const MAX_CASE_BUFFER: u64 = 1 << 30;

/// Expected values listed in a generator case (`expected_head`, `expected_tail`).
const HEAD_TAIL: usize = 16;

/// The result of one case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every check held.
    Passed,
    /// A check failed; the reason names it with the values.
    Failed(String),
    /// Not run, for a tag of [`SKIPPED_TAGS`]; the reason says why.
    Skipped(String),
}

/// One case's id, operator, tags and outcome.
#[derive(Clone, Debug)]
pub struct CaseReport {
    /// The case's `id` (`#N` when it has none).
    pub id: String,
    /// The case's `op` (`?` when it has none).
    pub op: String,
    /// The case's `tags`.
    pub tags: Vec<String>,
    /// What happened.
    pub outcome: Outcome,
}

/// Passed, failed and skipped counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Cases that passed.
    pub passed: usize,
    /// Cases that failed.
    pub failed: usize,
    /// Cases that were skipped.
    pub skipped: usize,
}

impl Counts {
    fn add(&mut self, outcome: &Outcome) {
        match outcome {
            Outcome::Passed => self.passed += 1,
            Outcome::Failed(_) => self.failed += 1,
            Outcome::Skipped(_) => self.skipped += 1,
        }
    }
}

impl fmt::Display for Counts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} passed, {} failed, {} skipped",
            self.passed, self.failed, self.skipped
        )
    }
}

/// The outcomes of a run, in case order.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// One entry per case.
    pub cases: Vec<CaseReport>,
}

impl Report {
    /// The counts over every case.
    pub fn counts(&self) -> Counts {
        let mut counts = Counts::default();
        for case in &self.cases {
            counts.add(&case.outcome);
        }
        counts
    }

    /// The counts per operator: the three of [`OPERATORS`] first (always listed), then any
    /// other `op` met, in name order.
    pub fn counts_by_op(&self) -> Vec<(String, Counts)> {
        let mut others: BTreeMap<String, Counts> = BTreeMap::new();
        let mut known = [Counts::default(); 3];
        for case in &self.cases {
            match OPERATORS.iter().position(|&op| op == case.op) {
                Some(i) => known[i].add(&case.outcome),
                None => others
                    .entry(case.op.clone())
                    .or_default()
                    .add(&case.outcome),
            }
        }
        OPERATORS
            .iter()
            .map(|op| op.to_string())
            .zip(known)
            .chain(others)
            .collect()
    }

    /// The cases that failed.
    pub fn failures(&self) -> impl Iterator<Item = &CaseReport> {
        self.cases
            .iter()
            .filter(|c| matches!(c.outcome, Outcome::Failed(_)))
    }

    /// The cases that were skipped.
    pub fn skips(&self) -> impl Iterator<Item = &CaseReport> {
        self.cases
            .iter()
            .filter(|c| matches!(c.outcome, Outcome::Skipped(_)))
    }

    /// The outcome of the case with this id.
    #[allow(dead_code)] // used by the test suite only
    pub fn outcome(&self, id: &str) -> Option<&Outcome> {
        self.cases.iter().find(|c| c.id == id).map(|c| &c.outcome)
    }

    /// Appends another report's cases.
    #[allow(dead_code)] // used by the example only
    pub fn extend(&mut self, other: Report) {
        self.cases.extend(other.cases);
    }

    /// `N passed, N failed, N skipped`.
    pub fn summary_line(&self) -> String {
        self.counts().to_string()
    }

    /// The report as printed: one line per failed or skipped case, the counts per operator,
    /// and the summary line last.
    pub fn render(&self) -> String {
        let mut text = String::new();
        for case in self.failures().chain(self.skips()) {
            match &case.outcome {
                Outcome::Passed => {}
                Outcome::Failed(reason) => text += &format!("FAILED  {}: {reason}\n", case.id),
                Outcome::Skipped(reason) => text += &format!("SKIPPED {}: {reason}\n", case.id),
            }
        }
        for (op, counts) in self.counts_by_op() {
            text += &format!("{op}: {counts}\n");
        }
        text += &self.summary_line();
        text.push('\n');
        text
    }
}

/// Reads a case file and runs every case in it.
pub fn run_file(ctx: &Context, path: &Path) -> Result<Report, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    run_cases(ctx, &text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Parses case text (a JSON list of case objects; one object, or one object per line, is
/// accepted too) and runs every case. Only text that is not JSON is an error; a malformed
/// case is a failed case.
pub fn run_cases(ctx: &Context, json_text: &str) -> Result<Report, String> {
    let cases = parse_cases(json_text)?;
    let mut seen = HashSet::new();
    let mut report = Report::default();
    for (index, case) in cases.iter().enumerate() {
        let mut entry = run_case_value(ctx, case, index);
        if !seen.insert(entry.id.clone()) && !matches!(entry.outcome, Outcome::Failed(_)) {
            entry.outcome = Outcome::Failed(format!("duplicate id {:?}", entry.id));
        }
        report.cases.push(entry);
    }
    Ok(report)
}

fn parse_cases(json_text: &str) -> Result<Vec<Value>, String> {
    match serde_json::from_str::<Value>(json_text) {
        Ok(Value::Array(cases)) => Ok(cases),
        Ok(case @ Value::Object(_)) => Ok(vec![case]),
        Ok(other) => Err(format!(
            "expected a JSON list of cases, found {}",
            kind_of(&other)
        )),
        Err(whole) => {
            // JSON Lines: one case object per line.
            let mut cases = Vec::new();
            for line in json_text.lines().map(str::trim).filter(|l| !l.is_empty()) {
                match serde_json::from_str::<Value>(line.trim_end_matches(',')) {
                    Ok(case @ Value::Object(_)) => cases.push(case),
                    _ => return Err(format!("not JSON: {whole}")),
                }
            }
            Ok(cases)
        }
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// Runs one case value; never panics (a panic inside is a failure of the case).
fn run_case_value(ctx: &Context, case: &Value, index: usize) -> CaseReport {
    let Some(obj) = case.as_object() else {
        return CaseReport {
            id: format!("#{index}"),
            op: "?".to_string(),
            tags: Vec::new(),
            outcome: Outcome::Failed(format!("case #{index} is {}, not an object", kind_of(case))),
        };
    };
    let id = match obj.get("id").and_then(Value::as_str) {
        Some(id) => id.to_string(),
        None => format!("#{index}"),
    };
    let op = obj
        .get("op")
        .and_then(Value::as_str)
        .unwrap_or("?")
        .to_string();
    let mut report = CaseReport {
        id,
        op,
        tags: Vec::new(),
        outcome: Outcome::Passed,
    };
    let fields = Fields { obj };
    report.tags = match fields.tags() {
        Ok(tags) => tags,
        Err(e) => {
            report.outcome = Outcome::Failed(e);
            return report;
        }
    };
    if !obj.get("id").is_some_and(Value::is_string) {
        report.outcome = Outcome::Failed("the case has no string `id`".to_string());
        return report;
    }
    if let Some((tag, reason)) = SKIPPED_TAGS
        .iter()
        .find(|(tag, _)| report.tags.iter().any(|t| t == tag))
    {
        report.outcome = Outcome::Skipped(format!("tag {tag}: {reason}"));
        return report;
    }

    let device = ctx.device();
    let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let memory = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let seed = fnv1a(report.id.as_bytes());
    let result = catch_unwind(AssertUnwindSafe(|| {
        run_case(ctx, &fields, &report.op, seed)
    }));
    let memory = pollster::block_on(memory.pop());
    let validation = pollster::block_on(validation.pop());
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

fn run_case(ctx: &Context, c: &Fields<'_>, op: &str, seed: u64) -> Result<(), String> {
    match op {
        "bit_xor" => run_dml(ctx, c, DmlOp::BitXor, seed),
        "logical_xor" => run_dml(ctx, c, DmlOp::LogicalXor, seed),
        "bitwise_xor_broadcast" => run_openvino(ctx, c, seed),
        "?" => Err("the case has no string `op`".to_string()),
        other => Err(format!("unknown op {other:?}")),
    }
}

// ----- DirectML operators --------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq)]
enum DmlOp {
    BitXor,
    LogicalXor,
}

/// A compiled operator of any of the three kinds.
enum Compiled {
    Bit(BitXor),
    Logical(LogicalXor),
    Broadcast(BitwiseXor),
}

impl Compiled {
    fn run(&self, bindings: &XorBindings<'_>) -> Result<RecordSummary, Error> {
        match self {
            Compiled::Bit(op) => op.run(bindings),
            Compiled::Logical(op) => op.run(bindings),
            Compiled::Broadcast(op) => op.run(bindings),
        }
    }
}

const TENSORS: [&str; 3] = ["a", "b", "out"];

fn dml_tensor(c: &Fields<'_>, t: &str, dtype: DataType) -> Result<TensorDesc, String> {
    let data_type = c.dtype(&format!("{t}_dtype"))?.unwrap_or(dtype);
    let shape_key = format!("{t}_shape");
    let sizes = match c.dims_u32(&shape_key)? {
        Some(sizes) => sizes,
        // The output's Sizes are A's when a case leaves them out.
        None if t == "out" => c.required(c.dims_u32("a_shape")?, "a_shape")?,
        None => return Err(format!("missing `{shape_key}`")),
    };
    let mut desc = TensorDesc::new(data_type, &sizes);
    desc.strides = c.dims_u32(&format!("{t}_strides"))?;
    desc.total_tensor_size_in_bytes = c.u64(&format!("{t}_total_bytes"))?;
    if let Some(alignment) = c.u64(&format!("{t}_guaranteed_alignment"))? {
        desc.guaranteed_base_offset_alignment = u32::try_from(alignment)
            .map_err(|_| format!("{t}_guaranteed_alignment {alignment} does not fit in u32"))?;
    }
    desc.flags = match c.str(&format!("{t}_flags"))? {
        None | Some("") | Some("NONE") => TensorFlags::None,
        Some("OWNED_BY_DML") => TensorFlags::OwnedByDml,
        Some(other) => return Err(format!("unknown {t}_flags {other:?}")),
    };
    Ok(desc)
}

fn validate_dml(op: DmlOp, d: &[TensorDesc; 3], level: FeatureLevel) -> Result<(), Error> {
    let [a, b, out] = d.clone();
    match op {
        DmlOp::BitXor => BitXorDesc::new(a, b, out).validate(level),
        DmlOp::LogicalXor => LogicalXorDesc::new(a, b, out).validate(level),
    }
}

fn run_dml(ctx: &Context, c: &Fields<'_>, op: DmlOp, seed: u64) -> Result<(), String> {
    let dtype = c.required(c.dtype("dtype")?, "dtype")?;
    let descs = [
        dml_tensor(c, "a", dtype)?,
        dml_tensor(c, "b", dtype)?,
        dml_tensor(c, "out", dtype)?,
    ];
    let level = match c.str("feature_level")? {
        Some(text) => parse_level(text)?,
        None => FeatureLevel::Fl4_1,
    };
    let ctx = ctx.with_feature_level(level);
    let [a, b, out] = descs.clone();
    let created = match op {
        DmlOp::BitXor => BitXor::new(&ctx, &BitXorDesc::new(a, b, out)).map(Compiled::Bit),
        DmlOp::LogicalXor => {
            LogicalXor::new(&ctx, &LogicalXorDesc::new(a, b, out)).map(Compiled::Logical)
        }
    };
    let alias = Alias::parse(c.str("alias")?)?;
    // Only called once the operator accepted the descriptions.
    let operands = || -> Result<[Operand; 3], String> {
        let mut operands = Vec::new();
        for (t, d) in TENSORS.iter().zip(&descs) {
            operands.push(Operand {
                name: t,
                width: u64::from(d.data_type.size_in_bytes()),
                sizes: d.sizes.iter().map(|&s| u64::from(s)).collect(),
                strides: d.effective_strides(),
                offset: c.u64(&format!("{t}_offset_bytes"))?.unwrap_or(0),
                bind_bytes: d
                    .total_size()
                    .map_err(|e| format!("{t}: TotalTensorSizeInBytes: {e}"))?,
            });
        }
        Ok(operands.try_into().expect("three operands"))
    };

    if let Some(kind) = c.error_kind()? {
        return match created {
            Err(e) => same_rule(kind, &e, "creating the operator"),
            Ok(compiled) => run_error_case(&ctx, c, &compiled, seed, alias, &operands()?, kind),
        };
    }

    let compiled =
        created.map_err(|e| format!("creating the operator failed: [{}] {e}", e.rule()))?;
    if let Some(min) = c.str("min_feature_level")? {
        let min = parse_level(min)?;
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
    for (t, d) in TENSORS.iter().zip(&descs) {
        if let Some(min_bytes) = c.u64(&format!("{t}_min_bytes"))? {
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
    for (t, operand) in TENSORS.iter().zip(&operands) {
        let len = c.u64(&format!("{t}_physical_len"))?;
        if len.is_some() && len != operand.span() {
            return Err(format!(
                "{t}_physical_len is {len:?}, the Sizes and Strides span {:?} elements",
                operand.span()
            ));
        }
    }
    run_valid(&ctx, c, &compiled, seed, alias, &operands)
}

fn parse_level(text: &str) -> Result<FeatureLevel, String> {
    FeatureLevel::parse(text).ok_or_else(|| format!("unknown feature level {text:?}"))
}

// ----- OpenVINO BitwiseXor-13 -------------------------------------------------------------------

fn run_openvino(ctx: &Context, c: &Fields<'_>, seed: u64) -> Result<(), String> {
    let dtype = c.required(c.dtype("dtype")?, "dtype")?;
    let a_type = c.dtype("a_dtype")?.unwrap_or(dtype);
    let b_type = c.dtype("b_dtype")?.unwrap_or(dtype);
    let a_shape = c.required(c.dims_usize("a_shape")?, "a_shape")?;
    let b_shape = c.required(c.dims_usize("b_shape")?, "b_shape")?;
    let axis = c.i64("pdpd_axis")?.unwrap_or(-1);
    let auto_broadcast = match c.str("broadcast")? {
        None | Some("numpy") => AutoBroadcast::Numpy,
        Some("none") => AutoBroadcast::None,
        Some("pdpd") => AutoBroadcast::Pdpd { axis },
        Some("explicit") => AutoBroadcast::Explicit,
        Some(other) => return Err(format!("unknown broadcast {other:?}")),
    };
    let desc = BitwiseXorDesc {
        a_type,
        b_type,
        a_shape: a_shape.clone(),
        b_shape: b_shape.clone(),
        auto_broadcast,
    };
    let created = BitwiseXor::new(ctx, &desc);
    let alias = Alias::parse(c.str("alias")?)?;
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
                offset: c.u64(&format!("{t}_offset_bytes"))?.unwrap_or(0),
                bind_bytes: bytes.div_ceil(4) * 4,
            })
        };

    if let Some(kind) = c.error_kind()? {
        return match created {
            Err(e) => same_rule(kind, &e, "creating the operator"),
            Ok(compiled) => {
                let out_shape = compiled.output_shape();
                let operands = [
                    operand("a", a_type, &a_shape)?,
                    operand("b", b_type, &b_shape)?,
                    operand("out", a_type, &out_shape)?,
                ];
                let compiled = Compiled::Broadcast(compiled);
                run_error_case(ctx, c, &compiled, seed, alias, &operands, kind)
            }
        };
    }

    let compiled =
        created.map_err(|e| format!("creating the operator failed: [{}] {e}", e.rule()))?;
    let out_shape = c.required(c.dims_usize("out_shape")?, "out_shape")?;
    let inferred = compiled.output_shape();
    if inferred != out_shape {
        return Err(format!(
            "output shape {inferred:?}, expected out_shape {out_shape:?}"
        ));
    }
    match desc.output_shape() {
        Ok(shape) if shape == out_shape => {}
        other => {
            return Err(format!(
                "BitwiseXorDesc::output_shape() gives {other:?}, expected {out_shape:?}"
            ));
        }
    }
    let operands = [
        operand("a", a_type, &a_shape)?,
        operand("b", b_type, &b_shape)?,
        operand("out", a_type, &out_shape)?,
    ];
    run_valid(
        ctx,
        c,
        &Compiled::Broadcast(compiled),
        seed,
        alias,
        &operands,
    )
}

// ----- Both families -----------------------------------------------------------------------------

/// Runs a valid case that the operator accepted: literal data, generated data, or none
/// (validation only, already done by the caller).
fn run_valid(
    ctx: &Context,
    c: &Fields<'_>,
    compiled: &Compiled,
    seed: u64,
    alias: Alias,
    operands: &[Operand; 3],
) -> Result<(), String> {
    let [a, b, out] = operands;
    if let Some(generator) = c.obj.get("generator") {
        let (ga, gb) = generated_inputs(generator, operands)?;
        for (t, data, operand) in [("a", &ga, a), ("b", &gb, b)] {
            let want = c.required(c.str(&format!("{t}_sha256"))?, &format!("{t}_sha256"))?;
            let got = hex(&sha256(&le_bytes(data, operand.width)));
            if !got.eq_ignore_ascii_case(want) {
                return Err(format!(
                    "generated {t} has SHA-256 {got}, the case says {want} (generator mismatch)"
                ));
            }
        }
        let expect = Generated {
            sha256: c.required(c.str("expected_sha256")?, "expected_sha256")?,
            count: c.required(c.u64("expected_count")?, "expected_count")?,
            head: c.u64_list("expected_head")?,
            tail: c.u64_list("expected_tail")?,
        };
        return execute(
            ctx,
            compiled,
            seed,
            alias,
            operands,
            [Some(ga), Some(gb)],
            Check::Generated(expect),
        );
    }

    let data = [c.u64_list("a")?, c.u64_list("b")?, c.u64_list("expected")?];
    match data {
        [None, None, None] => Ok(()), // validation_only: checked by the caller
        [Some(da), Some(db), Some(expected)] => {
            for (data, operand) in [(&da, a), (&db, b)] {
                check_data(data, operand)?;
            }
            let count = out.element_count();
            if expected.len() as u64 != count {
                return Err(format!(
                    "`expected` has {} values for {count} output elements",
                    expected.len()
                ));
            }
            execute(
                ctx,
                compiled,
                seed,
                alias,
                operands,
                [Some(da), Some(db)],
                Check::Values(&expected),
            )
        }
        _ => Err("a case with data needs all of `a`, `b` and `expected`".to_string()),
    }
}

/// An error case's input data, when it fits the tensors; otherwise the inputs keep the
/// sentinel (the data of an error case only matters if the operator wrongly runs).
/// An error case whose operator was created: its refusal must come when it runs, with the
/// case's rule. Inputs are the case's data where it fits the operands, else generated.
fn run_error_case(
    ctx: &Context,
    c: &Fields<'_>,
    compiled: &Compiled,
    seed: u64,
    alias: Alias,
    operands: &[Operand; 3],
    kind: &str,
) -> Result<(), String> {
    let mut inputs = [None, None];
    for (i, t) in ["a", "b"].into_iter().enumerate() {
        inputs[i] = c
            .u64_list(t)?
            .filter(|data| check_data(data, &operands[i]).is_ok());
    }
    execute(
        ctx,
        compiled,
        seed,
        alias,
        operands,
        inputs,
        Check::Error(kind),
    )
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

/// The inputs of a `generator` case.
fn generated_inputs(
    generator: &Value,
    operands: &[Operand; 3],
) -> Result<(Vec<u64>, Vec<u64>), String> {
    let g = Fields {
        obj: generator
            .as_object()
            .ok_or("`generator` is not an object")?,
    };
    match g.str("algo")? {
        Some("splitmix64") => {}
        other => return Err(format!("unknown generator algo {other:?}")),
    }
    let mut out = Vec::new();
    for (t, operand) in ["a", "b"].into_iter().zip(operands) {
        let spec = Fields {
            obj: g
                .obj
                .get(t)
                .and_then(Value::as_object)
                .ok_or_else(|| format!("generator has no object `{t}`"))?,
        };
        let seed = spec.required(spec.u64("seed")?, "seed")?;
        let count = spec.required(spec.u64("count")?, "count")?;
        let mode = spec.required(spec.str("mode")?, "mode")?;
        let span = operand
            .span()
            .ok_or_else(|| format!("{t}: span overflows"))?;
        if count != span {
            return Err(format!(
                "generator {t}.count is {count}; the tensor spans {span} elements"
            ));
        }
        out.push(generate(seed, count, mode, operand.width)?);
    }
    let b = out.pop().expect("b");
    let a = out.pop().expect("a");
    Ok((a, b))
}

/// The expectations of a generator case.
struct Generated<'a> {
    sha256: &'a str,
    count: u64,
    head: Option<Vec<u64>>,
    tail: Option<Vec<u64>>,
}

/// What a run must show.
enum Check<'a> {
    /// The output's logical row-major values.
    Values(&'a [u64]),
    /// Digest, count, head and tail of the output.
    Generated(Generated<'a>),
    /// The run is refused with this rule.
    Error(&'a str),
}

/// How operands share a range (the `alias` field).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Alias {
    None,
    OutA,
    OutB,
    AB,
    All,
}

impl Alias {
    fn parse(text: Option<&str>) -> Result<Alias, String> {
        match text {
            None | Some("") | Some("none") => Ok(Alias::None),
            Some("out=a") | Some("a=out") => Ok(Alias::OutA),
            Some("out=b") | Some("b=out") => Ok(Alias::OutB),
            Some("a=b") | Some("b=a") => Ok(Alias::AB),
            Some("out=a=b") | Some("a=b=out") => Ok(Alias::All),
            Some(other) => Err(format!("unknown alias {other:?}")),
        }
    }

    /// For each operand (A, B, Output), the operand whose buffer and offset it is bound to.
    fn targets(self) -> [usize; 3] {
        match self {
            Alias::None => [0, 1, 2],
            Alias::OutA => [0, 1, 0],
            Alias::OutB => [0, 1, 1],
            Alias::AB => [0, 0, 2],
            Alias::All => [0, 0, 0],
        }
    }
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

    /// Element position of each logical index, in row-major order.
    fn positions(&self) -> Vec<u64> {
        positions(&self.sizes, &self.strides)
    }
}

fn positions(sizes: &[u64], strides: &[u64]) -> Vec<u64> {
    let count: u64 = sizes.iter().product();
    let mut out = Vec::with_capacity(count as usize);
    if count == 0 {
        return out;
    }
    let mut index = vec![0u64; sizes.len()];
    let mut position = 0u64;
    for _ in 0..count {
        out.push(position);
        for d in (0..sizes.len()).rev() {
            index[d] += 1;
            position += strides[d];
            if index[d] < sizes[d] {
                break;
            }
            position -= strides[d] * sizes[d];
            index[d] = 0;
        }
    }
    out
}

fn packed_strides(sizes: &[u64]) -> Vec<u64> {
    let mut strides = vec![0u64; sizes.len()];
    let mut acc = 1u64;
    for (d, &n) in sizes.iter().enumerate().rev() {
        strides[d] = acc;
        acc = acc.saturating_mul(n);
    }
    strides
}

/// Lays the operands out in sentinel-filled buffers, writes the inputs, runs, reads every
/// buffer back whole and checks it.
fn execute(
    ctx: &Context,
    compiled: &Compiled,
    seed: u64,
    alias: Alias,
    operands: &[Operand; 3],
    inputs: [Option<Vec<u64>>; 2],
    check: Check<'_>,
) -> Result<(), String> {
    // Buffers: each operand goes to the buffer (and offset) of the operand it aliases.
    let targets = alias.targets();
    let mut buffer_of = [0usize; 3];
    let mut owners: Vec<usize> = Vec::new();
    for o in 0..3 {
        let t = targets[o];
        buffer_of[o] = match owners.iter().position(|&x| x == t) {
            Some(i) => i,
            None => {
                owners.push(t);
                owners.len() - 1
            }
        };
    }
    let offsets: [u64; 3] = std::array::from_fn(|o| operands[targets[o]].offset);
    let max_buffer = ctx.device().limits().max_buffer_size.min(MAX_CASE_BUFFER);
    let mut names = vec![String::new(); owners.len()];
    let mut sizes = vec![0u64; owners.len()];
    for o in 0..3 {
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
            sentinel(
                seed ^ (k as u64 + 1).wrapping_mul(0xA24B_AED4_963E_E407),
                size,
            )
        })
        .collect();
    // Where A and B share a buffer, they must agree on every byte they both write.
    let mut written: Vec<Vec<bool>> = sizes
        .iter()
        .enumerate()
        .map(|(k, &s)| {
            let shared = buffer_of[0] == k && buffer_of[1] == k;
            vec![false; if shared { s as usize } else { 0 }]
        })
        .collect();
    for (o, data) in inputs.iter().enumerate() {
        let Some(data) = data else { continue };
        let operand = &operands[o];
        let k = buffer_of[o];
        let width = operand.width as usize;
        let track = !written[k].is_empty();
        for p in operand.positions() {
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

    let device = ctx.device();
    let buffers: Vec<wgpu::Buffer> = images
        .iter()
        .enumerate()
        .map(|(k, image)| {
            let buffer = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(&names[k]),
                size: image.len() as u64,
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            ctx.queue().write_buffer(&buffer, 0, image);
            buffer
        })
        .collect();
    let binding =
        |o: usize| TensorBinding::range(&buffers[buffer_of[o]], offsets[o], operands[o].bind_bytes);
    let bindings = XorBindings::new(binding(0), binding(1), binding(2));
    let result = compiled.run(&bindings);
    let read = |k: usize| -> Result<Vec<u8>, String> {
        ctx.read_buffer(&buffers[k], 0, sizes[k])
            .map_err(|e| format!("reading back buffer {}: {e}", names[k]))
    };

    let summary = match (result, &check) {
        (Err(e), Check::Error(kind)) => {
            same_rule(kind, &e, "running the operator")?;
            for k in 0..buffers.len() {
                let now = read(k)?;
                compare_untouched(&names[k], &images[k], &now, None)?;
            }
            return Ok(());
        }
        (Ok(_), Check::Error(kind)) => {
            return Err(format!(
                "expected error {kind}, but the operator was created and the run succeeded"
            ));
        }
        (Err(e), _) => return Err(format!("run failed: [{}] {e}", e.rule())),
        (Ok(summary), _) => summary,
    };
    if matches!(alias, Alias::OutA | Alias::OutB | Alias::All) && !summary.in_place() {
        return Err(format!(
            "the output is bound to an input's range ({alias:?}) but the run was not in place: {summary:?}"
        ));
    }

    let after: Vec<Vec<u8>> = (0..buffers.len()).map(read).collect::<Result<_, _>>()?;
    let out = &operands[2];
    let k_out = buffer_of[2];
    let width = out.width as usize;
    let mut is_output = vec![false; sizes[k_out] as usize];
    let values: Vec<u64> = out
        .positions()
        .into_iter()
        .map(|p| {
            let at = (offsets[2] + p * out.width) as usize;
            is_output[at..at + width].fill(true);
            let mut v = [0u8; 8];
            v[..width].copy_from_slice(&after[k_out][at..at + width]);
            u64::from_le_bytes(v)
        })
        .collect();

    match check {
        Check::Values(expected) => {
            if let Some(i) = (0..values.len()).find(|&i| values[i] != expected[i]) {
                return Err(format!(
                    "output element {i} (index {:?}): got {:#x}, expected {:#x}",
                    unravel(i as u64, &out.sizes),
                    values[i],
                    expected[i]
                ));
            }
        }
        Check::Generated(g) => check_generated(&g, &values, out.width)?,
        Check::Error(_) => unreachable!("handled above"),
    }
    for k in 0..buffers.len() {
        let mask = (k == k_out).then_some(is_output.as_slice());
        compare_untouched(&names[k], &images[k], &after[k], mask)?;
    }
    Ok(())
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
    if let Some(head) = &g.head {
        let got = &values[..n.min(HEAD_TAIL)];
        if let Some(i) = (0..head.len().max(got.len())).find(|&i| got.get(i) != head.get(i)) {
            return Err(format!(
                "output element {i}: got {:?}, expected_head says {:?}",
                got.get(i),
                head.get(i)
            ));
        }
    }
    if let Some(tail) = &g.tail {
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
    let digest = hex(&sha256(&le_bytes(values, width)));
    if !digest.eq_ignore_ascii_case(g.sha256) {
        return Err(format!(
            "output SHA-256 {digest}, expected_sha256 {} (head and tail match)",
            g.sha256
        ));
    }
    Ok(())
}

/// Every byte not under `mask` must equal `before`.
fn compare_untouched(
    name: &str,
    before: &[u8],
    after: &[u8],
    mask: Option<&[bool]>,
) -> Result<(), String> {
    if before.len() != after.len() {
        return Err(format!(
            "buffer {name}: read {} bytes back, wrote {}",
            after.len(),
            before.len()
        ));
    }
    let changed = |i: &usize| before[*i] != after[*i] && !mask.is_some_and(|m| m[*i]);
    match (0..before.len()).find(changed) {
        None => Ok(()),
        Some(i) => Err(format!(
            "buffer {name}: byte {i} outside the output changed from {:#04x} to {:#04x} \
             ({} such bytes)",
            before[i],
            after[i],
            (0..before.len()).filter(changed).count()
        )),
    }
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

fn unravel(mut i: u64, sizes: &[u64]) -> Vec<u64> {
    let mut index = vec![0; sizes.len()];
    for d in (0..sizes.len()).rev() {
        index[d] = i % sizes[d];
        i /= sizes[d];
    }
    index
}

fn width_mask(width: u64) -> u64 {
    if width >= 8 {
        u64::MAX
    } else {
        (1u64 << (8 * width)) - 1
    }
}

fn le_bytes(values: &[u64], width: u64) -> Vec<u8> {
    let width = width as usize;
    let mut bytes = Vec::with_capacity(values.len() * width);
    for v in values {
        bytes.extend_from_slice(&v.to_le_bytes()[..width]);
    }
    bytes
}

/// `size` bytes of a SplitMix64 stream: a sentinel that no constant pattern or stale value is
/// likely to match.
fn sentinel(seed: u64, size: u64) -> Vec<u8> {
    let mut state = SplitMix64::new(seed);
    let mut bytes = Vec::with_capacity(size as usize + 8);
    while (bytes.len() as u64) < size {
        bytes.extend_from_slice(&state.next_u64().to_le_bytes());
    }
    bytes.truncate(size as usize);
    bytes
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

// ----- SplitMix64 ------------------------------------------------------------------------------

/// SplitMix64 as the README gives it: each step adds the golden gamma to the state and mixes.
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator whose state starts at `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// The output `z` of the next step.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// `count` elements of `width` bytes from seed `seed` in mode `bits`, `sparse` or `bool`.
pub fn generate(seed: u64, count: u64, mode: &str, width: u64) -> Result<Vec<u64>, String> {
    let mask = width_mask(width);
    let map: fn(u64, u64) -> u64 = match mode {
        "bits" => |z, mask| z & mask,
        "sparse" => |z, mask| if z >> 63 == 1 { z & mask } else { 0 },
        "bool" => |z, _| z >> 63,
        other => return Err(format!("unknown generator mode {other:?}")),
    };
    let mut rng = SplitMix64::new(seed);
    Ok((0..count).map(|_| map(rng.next_u64(), mask)).collect())
}

// ----- SHA-256 (FIPS 180-4) ----------------------------------------------------------------------

const K: [u32; 64] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

/// The SHA-256 digest of `data`.
pub fn sha256(data: &[u8]) -> [u8; 32] {
    let mut h: [u32; 8] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
        0x5be0cd19,
    ];
    let mut message = data.to_vec();
    message.push(0x80);
    while message.len() % 64 != 56 {
        message.push(0);
    }
    message.extend_from_slice(&((data.len() as u64).wrapping_mul(8)).to_be_bytes());
    for block in message.chunks_exact(64) {
        let mut w = [0u32; 64];
        for (i, word) in block.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16]
                .wrapping_add(s0)
                .wrapping_add(w[i - 7])
                .wrapping_add(s1);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut hh] = h;
        for i in 0..64 {
            let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
            let ch = (e & f) ^ (!e & g);
            let t1 = hh
                .wrapping_add(s1)
                .wrapping_add(ch)
                .wrapping_add(K[i])
                .wrapping_add(w[i]);
            let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
            let maj = (a & b) ^ (a & c) ^ (b & c);
            let t2 = s0.wrapping_add(maj);
            hh = g;
            g = f;
            f = e;
            e = d.wrapping_add(t1);
            d = c;
            c = b;
            b = a;
            a = t1.wrapping_add(t2);
        }
        for (x, y) in h.iter_mut().zip([a, b, c, d, e, f, g, hh]) {
            *x = x.wrapping_add(y);
        }
    }
    let mut digest = [0u8; 32];
    for (chunk, word) in digest.chunks_exact_mut(4).zip(h) {
        chunk.copy_from_slice(&word.to_be_bytes());
    }
    digest
}

/// Lower-case hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

// ----- Field access ------------------------------------------------------------------------------

/// Typed access to a case's fields; a field that is present with the wrong type is an error,
/// and `null` counts as absent.
struct Fields<'a> {
    obj: &'a Map<String, Value>,
}

impl<'a> Fields<'a> {
    fn get(&self, key: &str) -> Option<&'a Value> {
        self.obj.get(key).filter(|v| !v.is_null())
    }

    fn required<T>(&self, value: Option<T>, key: &str) -> Result<T, String> {
        value.ok_or_else(|| format!("missing `{key}`"))
    }

    fn str(&self, key: &str) -> Result<Option<&'a str>, String> {
        self.get(key)
            .map(|v| v.as_str().ok_or_else(|| format!("`{key}` is not a string")))
            .transpose()
    }

    /// 64-bit values go above 2^53: read as u64, never through f64.
    fn u64(&self, key: &str) -> Result<Option<u64>, String> {
        self.get(key)
            .map(|v| {
                v.as_u64()
                    .ok_or_else(|| format!("`{key}` is not an unsigned integer: {v}"))
            })
            .transpose()
    }

    fn i64(&self, key: &str) -> Result<Option<i64>, String> {
        self.get(key)
            .map(|v| {
                v.as_i64()
                    .ok_or_else(|| format!("`{key}` is not an integer: {v}"))
            })
            .transpose()
    }

    fn u64_list(&self, key: &str) -> Result<Option<Vec<u64>>, String> {
        let Some(v) = self.get(key) else {
            return Ok(None);
        };
        let list = v
            .as_array()
            .ok_or_else(|| format!("`{key}` is not a list"))?;
        list.iter()
            .enumerate()
            .map(|(i, x)| {
                x.as_u64()
                    .ok_or_else(|| format!("`{key}`[{i}] is not an unsigned integer: {x}"))
            })
            .collect::<Result<Vec<u64>, String>>()
            .map(Some)
    }

    fn dims_u32(&self, key: &str) -> Result<Option<Vec<u32>>, String> {
        self.u64_list(key)?
            .map(|dims| {
                dims.into_iter()
                    .map(|d| u32::try_from(d).map_err(|_| format!("`{key}` value {d} exceeds u32")))
                    .collect()
            })
            .transpose()
    }

    fn dims_usize(&self, key: &str) -> Result<Option<Vec<usize>>, String> {
        self.u64_list(key)?
            .map(|dims| {
                dims.into_iter()
                    .map(|d| {
                        usize::try_from(d).map_err(|_| format!("`{key}` value {d} exceeds usize"))
                    })
                    .collect()
            })
            .transpose()
    }

    fn dtype(&self, key: &str) -> Result<Option<DataType>, String> {
        self.str(key)?
            .map(|name| {
                DataType::from_short_name(name).ok_or_else(|| format!("unknown {key} {name:?}"))
            })
            .transpose()
    }

    fn tags(&self) -> Result<Vec<String>, String> {
        let Some(v) = self.get("tags") else {
            return Ok(Vec::new());
        };
        v.as_array()
            .ok_or("`tags` is not a list")?
            .iter()
            .map(|t| {
                t.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| format!("tag {t} is not a string"))
            })
            .collect()
    }

    /// `error_kind` when the case is an error case (`expect_error` present).
    fn error_kind(&self) -> Result<Option<&'a str>, String> {
        match (self.get("expect_error"), self.str("error_kind")?) {
            (None, None) => Ok(None),
            (Some(_), Some(kind)) => Ok(Some(kind)),
            (Some(_), None) => Err("`expect_error` without `error_kind`".to_string()),
            (None, Some(_)) => Err("`error_kind` without `expect_error`".to_string()),
        }
    }
}
