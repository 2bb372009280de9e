//! The case format of `conformance/README.md`, as `serde` types.
//!
//! Every value the format enumerates (operator, type, broadcast, alias, flags, feature level,
//! error kind, generator algorithm and mode) is an enum or a checked newtype, so an unknown
//! value fails its case when it is parsed. Fields the format does not name (`source`, `notes`,
//! or anything a later version adds) are ignored. Integers are read as integers: a value
//! above 2^53 keeps every bit, and `1.5` where an integer belongs fails the case.

use gpu_xor::{DataType, FeatureLevel, Operator, TensorFlags};
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;

/// The `op` field: an operator of the library's operator table, by its name in this format
/// ([`Operator::conformance_name`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
pub struct Op(pub Operator);

impl Op {
    /// Every operator of the format, in the table's order.
    pub fn all() -> impl Iterator<Item = Op> {
        Operator::ALL.into_iter().map(Op)
    }

    /// The name the format uses.
    pub const fn name(self) -> &'static str {
        self.0.conformance_name()
    }

    /// How many inputs it takes: 1 for the NOT operators, else 2. A one-input case has `a`,
    /// `a_shape`, `a_strides` (and A's other fields) and no `b` field.
    pub const fn inputs(self) -> usize {
        self.0.inputs()
    }

    /// Whether it is a DirectML operator (described tensors, strides, feature levels) rather
    /// than an OpenVINO operation (shapes and `auto_broadcast`).
    pub const fn is_dml(self) -> bool {
        self.0.is_directml()
    }
}

impl TryFrom<String> for Op {
    type Error = String;

    fn try_from(name: String) -> Result<Op, String> {
        Operator::from_conformance_name(&name)
            .map(Op)
            .ok_or_else(|| format!("unknown op {name:?}"))
    }
}

/// A `dtype` value (`u8 i8 u16 i16 u32 i32 u64 i64 f16 f32 f64 bool`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
pub struct Dtype(pub DataType);

impl TryFrom<String> for Dtype {
    type Error = String;

    fn try_from(name: String) -> Result<Dtype, String> {
        DataType::from_short_name(&name)
            .map(Dtype)
            .ok_or_else(|| format!("unknown dtype {name:?}"))
    }
}

/// A feature level (`1_0`, `2_0`, `3_0`, `4_1`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
pub struct Level(pub FeatureLevel);

impl TryFrom<String> for Level {
    type Error = String;

    fn try_from(text: String) -> Result<Level, String> {
        FeatureLevel::parse(&text)
            .map(Level)
            .ok_or_else(|| format!("unknown feature level {text:?}"))
    }
}

/// The `error_kind` values of the format, each the [`gpu_xor::Error::rule`] of the refusal.
pub const ERROR_KINDS: [&str; 17] = [
    "dtype_mismatch",
    "unsupported_dtype",
    "shape_mismatch",
    "rank_mismatch",
    "rank_out_of_range",
    "zero_size_dim",
    "strides_length_mismatch",
    "total_bytes_too_small",
    "invalid_alignment",
    "binding_offset_misaligned",
    "owned_by_dml_on_output",
    "output_overlap",
    "alias_desc_mismatch",
    "too_many_elements",
    "shape_inconsistent",
    "unsupported_broadcast",
    "in_place_not_supported",
];

/// An `error_kind` value, one of [`ERROR_KINDS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ErrorKind(pub &'static str);

impl<'de> Deserialize<'de> for ErrorKind {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<ErrorKind, D::Error> {
        let kind = String::deserialize(deserializer)?;
        ERROR_KINDS
            .iter()
            .find(|&&k| k == kind)
            .map(|&k| ErrorKind(k))
            .ok_or_else(|| serde::de::Error::custom(format!("unknown error_kind {kind:?}")))
    }
}

/// The `broadcast` field (OpenVINO `auto_broadcast`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Broadcast {
    /// Equal shapes.
    None,
    /// NumPy rules (the default).
    Numpy,
    /// PaddlePaddle rules with `pdpd_axis`.
    Pdpd,
    /// Not supported by BitwiseXor-13: only in error cases.
    Explicit,
}

/// The `alias` field: which operands share one bound range.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
pub enum Alias {
    /// Three ranges.
    #[default]
    #[serde(rename = "none", alias = "")]
    None,
    /// The output on A's range (in place).
    #[serde(rename = "out=a", alias = "a=out")]
    OutA,
    /// The output on B's range (in place).
    #[serde(rename = "out=b", alias = "b=out")]
    OutB,
    /// A and B on one range.
    #[serde(rename = "a=b", alias = "b=a")]
    AB,
    /// All three on one range.
    #[serde(rename = "out=a=b", alias = "a=b=out")]
    All,
}

impl Alias {
    /// For each operand (A, B, Output), the operand whose buffer and offset it is bound to.
    pub const fn targets(self) -> [usize; 3] {
        match self {
            Alias::None => [0, 1, 2],
            Alias::OutA => [0, 1, 0],
            Alias::OutB => [0, 1, 1],
            Alias::AB => [0, 0, 2],
            Alias::All => [0, 0, 0],
        }
    }

    /// Whether the output is bound to an input's range.
    pub const fn output_in_place(self) -> bool {
        matches!(self, Alias::OutA | Alias::OutB | Alias::All)
    }
}

/// A `*_flags` value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum Flags {
    /// DML_TENSOR_FLAG_NONE.
    #[serde(rename = "NONE", alias = "")]
    None,
    /// DML_TENSOR_FLAG_OWNED_BY_DML.
    #[serde(rename = "OWNED_BY_DML")]
    OwnedByDml,
}

impl From<Flags> for TensorFlags {
    fn from(flags: Flags) -> TensorFlags {
        match flags {
            Flags::None => TensorFlags::None,
            Flags::OwnedByDml => TensorFlags::OwnedByDml,
        }
    }
}

/// The `generator` object.
#[derive(Clone, Debug, Deserialize)]
pub struct Generator {
    /// Only `splitmix64`.
    pub algo: Algo,
    /// A's stream.
    pub a: Stream,
    /// B's stream (absent for a one-input operator).
    pub b: Option<Stream>,
}

/// A generator algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Algo {
    /// SplitMix64 as the format gives it.
    Splitmix64,
}

/// One input's stream.
#[derive(Clone, Copy, Debug, Deserialize)]
pub struct Stream {
    /// The starting state.
    pub seed: u64,
    /// The physical length (or the element count).
    pub count: u64,
    /// How each step becomes an element.
    pub mode: Mode,
}

/// How a SplitMix64 output `z` becomes an element value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// `z` masked to the element width.
    Bits,
    /// The `bits` value when the top bit of `z` is set, else 0.
    Sparse,
    /// The top bit of `z`.
    Bool,
}

/// The fields one tensor (`a`, `b` or `out`) may carry, with its prefix.
#[derive(Clone, Copy, Debug)]
pub struct TensorFields<'a> {
    /// `a`, `b` or `out`.
    pub name: &'static str,
    /// `*_dtype`.
    pub dtype: Option<Dtype>,
    /// `*_shape`.
    pub shape: Option<&'a [u64]>,
    /// `*_strides`.
    pub strides: Option<&'a [u64]>,
    /// `*_min_bytes`.
    pub min_bytes: Option<u64>,
    /// `*_total_bytes`.
    pub total_bytes: Option<u64>,
    /// `*_guaranteed_alignment`.
    pub guaranteed_alignment: Option<u32>,
    /// `*_offset_bytes`.
    pub offset_bytes: Option<u64>,
    /// `*_flags`.
    pub flags: Option<Flags>,
    /// `*_physical_len`.
    pub physical_len: Option<u64>,
}

/// One case. `null` counts as an absent field.
#[derive(Clone, Debug, Deserialize)]
pub struct Case {
    /// Unique id; its prefix names the operator.
    pub id: String,
    /// The operator.
    pub op: Op,
    /// The element type, unless a per-tensor type overrides it.
    pub dtype: Dtype,
    a_dtype: Option<Dtype>,
    b_dtype: Option<Dtype>,
    out_dtype: Option<Dtype>,
    /// A's Sizes (DirectML) or shape (OpenVINO).
    pub a_shape: Vec<u64>,
    /// B's Sizes or shape (absent for a one-input operator, required otherwise: see
    /// [`Case::from_value`]).
    pub b_shape: Option<Vec<u64>>,
    /// The output's Sizes, or OpenVINO's inferred output shape.
    pub out_shape: Option<Vec<u64>>,
    a_strides: Option<Vec<u64>>,
    b_strides: Option<Vec<u64>>,
    out_strides: Option<Vec<u64>>,
    /// OpenVINO `auto_broadcast`.
    pub broadcast: Option<Broadcast>,
    /// The pdpd axis (-1 when absent).
    pub pdpd_axis: Option<i64>,
    /// A's element bit patterns (physical for strided DirectML tensors).
    pub a: Option<Vec<u64>>,
    /// B's element bit patterns.
    pub b: Option<Vec<u64>>,
    /// The output, logical row-major.
    pub expected: Option<Vec<u64>>,
    /// Present in error cases (any value but `null`).
    pub expect_error: Option<IgnoredAny>,
    /// The rule an error case breaks.
    pub error_kind: Option<ErrorKind>,
    /// The lowest feature level at which a valid DirectML case is valid.
    pub min_feature_level: Option<Level>,
    /// The feature level an error case targets (4.1 when absent).
    pub feature_level: Option<Level>,
    a_min_bytes: Option<u64>,
    b_min_bytes: Option<u64>,
    out_min_bytes: Option<u64>,
    a_total_bytes: Option<u64>,
    b_total_bytes: Option<u64>,
    out_total_bytes: Option<u64>,
    a_guaranteed_alignment: Option<u32>,
    b_guaranteed_alignment: Option<u32>,
    out_guaranteed_alignment: Option<u32>,
    a_offset_bytes: Option<u64>,
    b_offset_bytes: Option<u64>,
    out_offset_bytes: Option<u64>,
    a_flags: Option<Flags>,
    b_flags: Option<Flags>,
    out_flags: Option<Flags>,
    a_physical_len: Option<u64>,
    b_physical_len: Option<u64>,
    out_physical_len: Option<u64>,
    /// Which operands share one bound range.
    pub alias: Option<Alias>,
    /// SplitMix64 inputs of a large case.
    pub generator: Option<Generator>,
    /// SHA-256 of A's generated little-endian bytes.
    pub a_sha256: Option<String>,
    /// SHA-256 of B's generated little-endian bytes.
    pub b_sha256: Option<String>,
    /// SHA-256 of the output's little-endian bytes.
    pub expected_sha256: Option<String>,
    /// The output's element count.
    pub expected_count: Option<u64>,
    /// The first 16 output values.
    pub expected_head: Option<Vec<u64>>,
    /// The last 16 output values.
    pub expected_tail: Option<Vec<u64>>,
    /// Feature labels.
    #[serde(default)]
    pub tags: Vec<String>,
}

impl Case {
    /// Parses one case value; the error names the field (`a[0]: invalid type: ...`).
    ///
    /// The fields must fit the operator's inputs: a two-input case needs `b_shape`, and a
    /// one-input case (`bit_not`, `logical_not`, `bitwise_not`, `logical_not_bool`) carries
    /// no `b` field at all (no `b`, `b_shape`, `b_strides`, `b_dtype`, ..., no generator
    /// stream `b`, no `alias` that names B), which fails the case naming the field.
    pub fn from_value(value: &Value) -> Result<Case, String> {
        let case: Case = serde_path_to_error::deserialize(value).map_err(|e| {
            let path = e.path().to_string();
            if path == "." {
                e.into_inner().to_string()
            } else {
                format!("{path}: {}", e.into_inner())
            }
        })?;
        case.check_inputs()?;
        Ok(case)
    }

    /// The `b` fields against the operator's number of inputs.
    fn check_inputs(&self) -> Result<(), String> {
        let op = self.op.name();
        if self.op.inputs() == 2 {
            if self.b_shape.is_none() {
                return Err(format!("missing field `b_shape` ({op} takes two inputs)"));
            }
            if self.generator.as_ref().is_some_and(|g| g.b.is_none()) {
                return Err(format!(
                    "generator: missing field `b` ({op} takes two inputs)"
                ));
            }
            return Ok(());
        }
        let b = self.tensor("b");
        let present = [
            ("b_shape", b.shape.is_some()),
            ("b", self.b.is_some()),
            ("b_dtype", b.dtype.is_some()),
            ("b_strides", b.strides.is_some()),
            ("b_min_bytes", b.min_bytes.is_some()),
            ("b_total_bytes", b.total_bytes.is_some()),
            ("b_guaranteed_alignment", b.guaranteed_alignment.is_some()),
            ("b_offset_bytes", b.offset_bytes.is_some()),
            ("b_flags", b.flags.is_some()),
            ("b_physical_len", b.physical_len.is_some()),
            ("b_sha256", self.b_sha256.is_some()),
            (
                "generator.b",
                self.generator.as_ref().is_some_and(|g| g.b.is_some()),
            ),
        ];
        if let Some((field, _)) = present.iter().find(|(_, here)| *here) {
            return Err(format!(
                "{field}: {op} takes one input (A); a one-input case has no `b` fields"
            ));
        }
        if let Some(field) = [
            ("broadcast", self.broadcast.is_some()),
            ("pdpd_axis", self.pdpd_axis.is_some()),
        ]
        .iter()
        .find_map(|&(field, here)| here.then_some(field))
        {
            return Err(format!(
                "{field}: {op} takes one input; broadcasting does not apply"
            ));
        }
        match self.alias {
            None | Some(Alias::None) | Some(Alias::OutA) => Ok(()),
            Some(alias) => Err(format!(
                "alias: {alias:?} names B, but {op} takes one input (only `out=a` applies)"
            )),
        }
    }

    /// The fields of tensor `a`, `b` or `out`.
    pub fn tensor(&self, name: &'static str) -> TensorFields<'_> {
        fn pick<T>(name: &str, a: T, b: T, out: T) -> T {
            match name {
                "a" => a,
                "b" => b,
                _ => out,
            }
        }
        TensorFields {
            name,
            dtype: pick(name, self.a_dtype, self.b_dtype, self.out_dtype),
            shape: pick(
                name,
                Some(self.a_shape.as_slice()),
                self.b_shape.as_deref(),
                self.out_shape.as_deref(),
            ),
            strides: pick(
                name,
                self.a_strides.as_deref(),
                self.b_strides.as_deref(),
                self.out_strides.as_deref(),
            ),
            min_bytes: pick(name, self.a_min_bytes, self.b_min_bytes, self.out_min_bytes),
            total_bytes: pick(
                name,
                self.a_total_bytes,
                self.b_total_bytes,
                self.out_total_bytes,
            ),
            guaranteed_alignment: pick(
                name,
                self.a_guaranteed_alignment,
                self.b_guaranteed_alignment,
                self.out_guaranteed_alignment,
            ),
            offset_bytes: pick(
                name,
                self.a_offset_bytes,
                self.b_offset_bytes,
                self.out_offset_bytes,
            ),
            flags: pick(name, self.a_flags, self.b_flags, self.out_flags),
            physical_len: pick(
                name,
                self.a_physical_len,
                self.b_physical_len,
                self.out_physical_len,
            ),
        }
    }

    /// `error_kind` when the case is an error case; `expect_error` and `error_kind` come
    /// together or not at all.
    pub fn error_kind(&self) -> Result<Option<&'static str>, String> {
        match (&self.expect_error, self.error_kind) {
            (None, None) => Ok(None),
            (Some(_), Some(kind)) => Ok(Some(kind.0)),
            (Some(_), None) => Err("`expect_error` without `error_kind`".to_string()),
            (None, Some(_)) => Err("`error_kind` without `expect_error`".to_string()),
        }
    }
}

/// Splits case text into case values: a JSON list of cases, one case object, or one object
/// per line (JSON Lines). Only text that is none of these is an error; a malformed case is
/// left for its own parse to fail.
pub fn split_cases(json_text: &str) -> Result<Vec<Value>, String> {
    match serde_json::from_str::<Value>(json_text) {
        Ok(Value::Array(cases)) => Ok(cases),
        Ok(case @ Value::Object(_)) => Ok(vec![case]),
        Ok(other) => Err(format!(
            "expected a JSON list of cases, found {}",
            kind_of(&other)
        )),
        Err(whole) => {
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

/// "a list", "a number", ... for messages.
pub fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Case, String> {
        Case::from_value(&serde_json::from_str(text).unwrap())
    }

    const BASE: &str =
        r#""id": "x", "op": "bit_xor", "dtype": "u64", "a_shape": [1], "b_shape": [1]"#;

    #[test]
    fn integers_above_2_pow_53_keep_every_bit() {
        let case = parse(&format!(
            r#"{{{BASE}, "a": [18446744073709551615, 9007199254740993], "source": "s", "later_field": {{}}}}"#
        ))
        .unwrap();
        assert_eq!(case.a.unwrap(), [u64::MAX, (1 << 53) + 1]);
    }

    #[test]
    fn unknown_values_and_floats_fail_naming_the_field() {
        let e = parse(&format!(r#"{{{BASE}, "a": [1, 1.5]}}"#)).unwrap_err();
        assert!(
            e.starts_with("a[1]: invalid type: floating point `1.5`"),
            "{e}"
        );
        let e =
            parse(r#"{"id": "x", "op": "bit_nand", "dtype": "u8", "a_shape": [], "b_shape": []}"#)
                .unwrap_err();
        assert!(e.starts_with("op: unknown op \"bit_nand\""), "{e}");
        let e = parse(&format!(r#"{{{BASE}, "a_dtype": "u128"}}"#)).unwrap_err();
        assert!(e.contains("unknown dtype \"u128\""), "{e}");
        for (field, value) in [
            ("broadcast", "\"bidirectional\""),
            ("alias", "\"out=c\""),
            ("b_flags", "\"OWNED\""),
            ("min_feature_level", "\"9_9\""),
            ("error_kind", "\"oops\""),
            (
                "generator",
                r#"{"algo": "xorshift", "a": {"seed": 1, "count": 1, "mode": "bits"}, "b": {"seed": 1, "count": 1, "mode": "bits"}}"#,
            ),
            (
                "generator",
                r#"{"algo": "splitmix64", "a": {"seed": 1, "count": 1, "mode": "gauss"}, "b": {"seed": 1, "count": 1, "mode": "bits"}}"#,
            ),
            ("out_guaranteed_alignment", "4294967296"),
        ] {
            let e = parse(&format!(r#"{{{BASE}, "{field}": {value}}}"#)).unwrap_err();
            assert!(e.starts_with(field), "{field}: {e}");
        }
        let e = parse(r#"{"op": "bit_xor"}"#).unwrap_err();
        assert!(e.contains("missing field `id`"), "{e}");
    }

    #[test]
    fn null_is_absent_and_aliases_parse() {
        let case = parse(&format!(
            r#"{{{BASE}, "alias": "out=a", "b_flags": null, "broadcast": null, "expect_error": "x", "error_kind": "output_overlap"}}"#
        ))
        .unwrap();
        assert_eq!(case.alias, Some(Alias::OutA));
        assert_eq!(case.tensor("b").flags, None);
        assert_eq!(case.error_kind(), Ok(Some("output_overlap")));
    }

    #[test]
    fn every_operator_parses_by_its_name() {
        for op in Op::all() {
            let b = if op.inputs() == 2 {
                r#", "b_shape": [1]"#
            } else {
                ""
            };
            let case = parse(&format!(
                r#"{{"id": "x", "op": "{}", "dtype": "u8", "a_shape": [1]{b}}}"#,
                op.name()
            ))
            .unwrap_or_else(|e| panic!("{}: {e}", op.name()));
            assert_eq!(case.op, op);
        }
        assert!(
            Op::all().all(|op| crate::report::operators().any(|name| name == op.name())),
            "reports list every operator"
        );
        assert!(parse(r#"{"id": "x", "op": "bit_nand", "dtype": "u8", "a_shape": [1]}"#).is_err());
    }

    #[test]
    fn one_input_cases_have_no_b_fields() {
        const NOT: &str = r#""id": "x", "op": "bit_not", "dtype": "u8", "a_shape": [2]"#;
        let case = parse(&format!(
            r#"{{{NOT}, "a_strides": [0], "a": [7], "expected": [248, 248], "alias": "out=a"}}"#
        ))
        .unwrap();
        assert_eq!(case.b_shape, None);
        assert_eq!(case.tensor("b").shape, None);
        for (field, value) in [
            ("b_shape", "[2]"),
            ("b", "[1, 2]"),
            ("b_strides", "[1]"),
            ("b_dtype", "\"u8\""),
            ("b_flags", "\"OWNED_BY_DML\""),
            ("b_offset_bytes", "16"),
            ("b_sha256", "\"00\""),
        ] {
            let e = parse(&format!(r#"{{{NOT}, "{field}": {value}}}"#)).unwrap_err();
            assert!(
                e.starts_with(&format!("{field}: bit_not takes one input")),
                "{field}: {e}"
            );
        }
        let e = parse(&format!(r#"{{{NOT}, "alias": "a=b"}}"#)).unwrap_err();
        assert!(e.starts_with("alias: AB names B"), "{e}");
        let e = parse(&format!(
            r#"{{{NOT}, "generator": {{"algo": "splitmix64", "a": {{"seed": 1, "count": 2, "mode": "bits"}}, "b": {{"seed": 1, "count": 2, "mode": "bits"}}}}}}"#
        ))
        .unwrap_err();
        assert!(e.starts_with("generator.b: bit_not takes one input"), "{e}");
        // A two-input case without B's shape fails too.
        let e =
            parse(r#"{"id": "x", "op": "bit_and", "dtype": "u8", "a_shape": [2]}"#).unwrap_err();
        assert!(e.starts_with("missing field `b_shape`"), "{e}");
        let e = parse(&format!(
            r#"{{{BASE}, "generator": {{"algo": "splitmix64", "a": {{"seed": 1, "count": 1, "mode": "bits"}}}}}}"#
        ))
        .unwrap_err();
        assert!(e.starts_with("generator: missing field `b`"), "{e}");
    }

    #[test]
    fn split_accepts_lists_objects_and_lines() {
        assert_eq!(split_cases("[{}, {}]").unwrap().len(), 2);
        assert_eq!(split_cases("{}").unwrap().len(), 1);
        assert_eq!(split_cases("{}\n{},\n\n{}").unwrap().len(), 3);
        assert!(split_cases("{\"id\": ").is_err());
        assert!(split_cases("3").is_err());
    }
}
