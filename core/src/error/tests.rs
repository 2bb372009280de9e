//! The error table's own tests: every rule a kind, a category and a message that names it.

use super::*;
use crate::desc::SearchTensor;
use std::collections::HashSet;

/// One value of every variant, in the order of the enum.
fn one_of_each() -> Vec<Error> {
    let (op, t) = (Operator::BitXor, TensorName::B);
    let (dt, fl) = (DataType::U8, FeatureLevel::Fl4_1);
    vec![
        Error::DataTypeMismatch {
            operator: op,
            tensor: t,
            found: dt,
            expected: DataType::U16,
        },
        Error::UnsupportedDataType {
            operator: op,
            data_type: DataType::Bool,
            feature_level: fl,
            required: None,
        },
        Error::RankOutOfRange {
            operator: op,
            tensor: t,
            rank: 9,
            min: 1,
            max: 8,
            feature_level: fl,
            required: None,
        },
        Error::RankMismatch {
            operator: op,
            tensor: t,
            rank: 2,
            expected: 3,
        },
        Error::SizesMismatch {
            operator: op,
            tensor: t,
            sizes: vec![2],
            expected: vec![3],
        },
        Error::ZeroSize {
            tensor: t,
            sizes: vec![0],
        },
        Error::TooManyElements {
            tensor: t,
            elements: 1 << 32,
        },
        Error::StridesLengthMismatch {
            tensor: t,
            strides: 1,
            rank: 2,
        },
        Error::TotalSizeTooSmall {
            tensor: t,
            total: 4,
            minimum: 8,
        },
        Error::InvalidAlignment {
            tensor: t,
            alignment: 3,
            element_size: 1,
        },
        Error::OwnedByDmlOnOutput,
        Error::OwnedInputMissing { tensor: t },
        Error::OwnedInputBound { tensor: t },
        Error::MissingBinding { tensor: t },
        Error::ExtraBinding {
            operator: Operator::BitNot,
            tensor: TensorName::B,
        },
        Error::OutputOverlap {
            sizes: vec![2],
            strides: vec![0],
        },
        Error::OutputOverlapUndecided {
            sizes: vec![15; 8],
            strides: vec![1; 8],
            steps: 1,
        },
        Error::ElementTypeMismatch {
            a: dt,
            b: DataType::Bool,
        },
        Error::NotIntegerOrBoolean {
            data_type: DataType::F32,
        },
        Error::UnsupportedOutputDataType {
            operator: Operator::BitCount,
            data_type: DataType::U16,
            allowed: &[DataType::U8, DataType::U32],
        },
        Error::NotInteger {
            operator: Operator::BitwiseLeftShift,
            data_type: DataType::Bool,
        },
        Error::NotBoolean {
            operator: Operator::OvLogicalAnd,
            data_type: DataType::U8,
        },
        Error::ShapeInconsistent {
            a: vec![3],
            b: vec![4],
            broadcast: AutoBroadcast::Numpy,
            reason: "3 against 4",
        },
        Error::UnsupportedBroadcast {
            broadcast: AutoBroadcast::Explicit,
        },
        Error::BindingOffsetMisaligned {
            tensor: t,
            offset: 4,
            required: 16,
        },
        Error::BindingOutOfBounds {
            tensor: t,
            offset: 0,
            size: 32,
            buffer_size: 16,
        },
        Error::BindingTooSmall {
            tensor: t,
            size: 4,
            required: 8,
        },
        Error::MissingUsage {
            tensor: None,
            needed: "COPY_SRC",
            usage: "STORAGE".to_string(),
        },
        Error::AliasDescMismatch {
            tensor: t,
            field: "Strides",
        },
        Error::InPlaceNotSupported {
            operator: Operator::BitCount,
            tensor: t,
        },
        Error::PartialOverlap {
            tensor: t,
            input: (0, 16),
            output: (8, 24),
        },
        Error::SharedBufferSpanTooLarge { span: 2, limit: 1 },
        Error::ExprCount {
            what: "inputs",
            count: 5,
            min: 1,
            max: 4,
        },
        Error::ExprReference {
            node: 2,
            refers: 3,
            what: "a node that is not before it",
        },
        Error::ExprConstant {
            node: 1,
            bits: 0x100,
            data_type: dt,
        },
        Error::ExprTypeMismatch {
            node: 2,
            operator: op,
            a: dt,
            b: DataType::U16,
        },
        Error::ExprUnsupportedType {
            node: 2,
            operator: Operator::BitShiftLeft,
            data_type: DataType::F32,
            feature_level: fl,
        },
        Error::ExprOutputType {
            result: 2,
            data_type: dt,
            output: DataType::U32,
        },
        Error::ExprBroadcast {
            input: 0,
            sizes: vec![3],
            output: vec![4],
        },
        Error::ExprRank {
            tensor: TensorName::Input(0),
            rank: 9,
        },
        Error::ReduceAxes {
            axes: vec![1],
            rank: 3,
        },
        Error::ReduceOutputShape {
            output: vec![3, 4],
            space: vec![3, 5, 4],
            axes: vec![2],
        },
        Error::ReduceType {
            op: crate::desc::ReduceOp::Sum,
            result: 3,
            data_type: DataType::U32,
            output: DataType::U8,
        },
        Error::ReduceAffine {
            op: crate::desc::ReduceOp::Or,
            output: DataType::U32,
        },
        Error::ReducePastWindow {
            bytes: 8192,
            window: 4096,
        },
        Error::ReadOutOfBounds {
            offset: 0,
            size: 8,
            readable: 4,
        },
        Error::ContextMismatch,
        Error::CallRangeOutOfBounds {
            start: 2,
            end: 5,
            calls: 3,
        },
        Error::DataLength {
            shape: vec![2],
            expected: 2,
            found: 3,
        },
        Error::TensorTypeMismatch {
            actual: dt,
            requested: DataType::U16,
        },
        Error::SizeOverflow {
            what: "tensor bytes",
            value: u128::MAX,
        },
        Error::HostAllocation { bytes: 1 << 40 },
        Error::BufferTooLarge { bytes: 2, limit: 1 },
        Error::Allocation(WgpuError::message_only("out of memory")),
        Error::NoAdapter("none".to_string()),
        Error::RequestDevice(WgpuError::message_only("refused")),
        Error::Pipeline(WgpuError::message_only("refused")),
        Error::Poll(WgpuError::message_only("timeout")),
        Error::Map(WgpuError::message_only("failed")),
        Error::DeviceLost("destroyed".to_string()),
        Error::InvalidBuffer {
            tensor: Some(t),
            reason: "destroyed".to_string(),
        },
        Error::Wgpu {
            call: "submit",
            source: WgpuError::message_only("refused"),
        },
        Error::KnnK {
            k: 0,
            max: 1024,
            codes: 10,
        },
        Error::KnnShape {
            tensor: TensorName::Search(SearchTensor::Codes),
            sizes: vec![10, 3],
            what: "codes have the words of the queries",
        },
        Error::KnnType {
            tensor: TensorName::Search(SearchTensor::Distances),
            data_type: DataType::F32,
            what: "distances are UINT32 or INT32",
        },
        Error::KnnCodeBits {
            bits: 16384,
            max: 8192,
        },
        Error::KnnIndexType {
            data_type: DataType::I32,
            codes: 1 << 31,
            max: (1 << 31) - 2,
        },
        Error::KnnAllowList {
            bits: 32,
            codes: 40,
        },
        Error::KnnOverlap {
            tensor: TensorName::Search(SearchTensor::Indices),
            range: (0, 8),
            other: TensorName::Search(SearchTensor::Codes),
            other_range: (4, 12),
        },
        Error::ViewOutOfBounds {
            offset: 16,
            size: 8,
            buffer_size: 16,
        },
        Error::NotDense {
            tensor: t,
            strides: vec![2, 1],
        },
        Error::InvalidOption {
            name: "WGPU_BACKEND",
            reason: "unknown".to_string(),
        },
        Error::KernelChoicesCorrupt {
            reason: "short".to_string(),
        },
        Error::KernelChoicesForeign {
            found: "one".to_string(),
            expected: "two".to_string(),
        },
        Error::KernelChoicesStale {
            found: "0.0.1".to_string(),
            expected: "0.1.0".to_string(),
        },
    ]
}

#[test]
fn every_kind_has_its_own_rule_name() {
    let rules: HashSet<&str> = ErrorKind::ALL.iter().map(|k| k.rule()).collect();
    assert_eq!(rules.len(), ErrorKind::ALL.len());
    let kinds: HashSet<ErrorKind> = ErrorKind::ALL.iter().copied().collect();
    assert_eq!(kinds.len(), ErrorKind::ALL.len());
    for kind in ErrorKind::ALL {
        assert_eq!(kind.to_string(), kind.rule());
        let name = kind.rule();
        assert!(
            !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
            "{name}"
        );
    }
}

#[test]
fn every_variant_of_the_table_has_a_sample() {
    let names: Vec<&str> = one_of_each().iter().map(Error::variant).collect();
    assert_eq!(
        names,
        Error::VARIANTS,
        "one_of_each() builds one value of every variant, in the table's order"
    );
}

#[test]
fn every_kind_is_listed_once() {
    assert_eq!(
        ErrorKind::ALL.iter().collect::<HashSet<_>>().len(),
        ErrorKind::ALL.len()
    );
    // `ALL` holds every kind: a kind left out of it would be reached by no sample.
    let reached: HashSet<ErrorKind> = one_of_each().iter().map(Error::kind).collect();
    assert_eq!(reached, ErrorKind::ALL.iter().copied().collect());
}

/// Every kind's category, spelled out here as well as in the table, so that a kind moved to
/// another category (or a new kind) is a decision this test sees.
#[test]
fn every_kind_has_its_declared_category() {
    use ErrorCategory::{Binding, Description, Device, HostData, Options};
    use ErrorKind as K;
    let expected = [
        (K::DtypeMismatch, Description),
        (K::UnsupportedDtype, Description),
        (K::RankOutOfRange, Description),
        (K::RankMismatch, Description),
        (K::ShapeMismatch, Description),
        (K::ZeroSizeDim, Description),
        (K::TooManyElements, Description),
        (K::StridesLengthMismatch, Description),
        (K::TotalBytesTooSmall, Description),
        (K::InvalidAlignment, Description),
        (K::OwnedByDmlOnOutput, Description),
        (K::OutputOverlap, Description),
        (K::OutputOverlapUndecided, Description),
        (K::ExprCount, Description),
        (K::ExprReference, Description),
        (K::ExprConstant, Description),
        (K::ReduceAxes, Description),
        (K::ReduceType, Description),
        (K::ReduceAffine, Description),
        (K::ShapeInconsistent, Description),
        (K::UnsupportedBroadcast, Description),
        (K::OwnedInputMissing, Binding),
        (K::OwnedInputBound, Binding),
        (K::MissingBinding, Binding),
        (K::ExtraBinding, Binding),
        (K::BindingOffsetMisaligned, Binding),
        (K::BindingOutOfBounds, Binding),
        (K::BindingTooSmall, Binding),
        (K::MissingUsage, Binding),
        (K::AliasDescMismatch, Binding),
        (K::PartialOverlap, Binding),
        (K::InPlaceNotSupported, Binding),
        (K::SharedBufferSpanTooLarge, Binding),
        (K::ReducePastWindow, Binding),
        (K::ContextMismatch, Binding),
        (K::CallRangeOutOfBounds, Binding),
        (K::ReadOutOfBounds, HostData),
        (K::DataLength, HostData),
        (K::TensorTypeMismatch, HostData),
        (K::SizeOverflow, HostData),
        (K::HostAllocation, HostData),
        (K::KnnK, Description),
        (K::KnnShape, Description),
        (K::KnnType, Description),
        (K::KnnCodeBits, Description),
        (K::KnnIndexType, Description),
        (K::KnnAllowList, Description),
        (K::KnnOverlap, Binding),
        (K::ViewOutOfBounds, HostData),
        (K::NotDense, HostData),
        (K::BufferTooLarge, Device),
        (K::Allocation, Device),
        (K::NoAdapter, Device),
        (K::RequestDevice, Device),
        (K::Pipeline, Device),
        (K::Poll, Device),
        (K::Map, Device),
        (K::DeviceLost, Device),
        (K::InvalidBuffer, Device),
        (K::Wgpu, Device),
        (K::InvalidOption, Options),
        (K::KernelChoicesCorrupt, Options),
        (K::KernelChoicesForeign, Options),
        (K::KernelChoicesStale, Options),
    ];
    for (kind, category) in expected {
        assert_eq!(kind.category(), category, "{kind}");
    }
    let listed: HashSet<ErrorKind> = expected.iter().map(|&(k, _)| k).collect();
    assert_eq!(listed.len(), expected.len(), "a kind is listed twice");
    assert_eq!(
        listed,
        ErrorKind::ALL.iter().copied().collect(),
        "every kind's category is spelled out"
    );
    // Every category holds some kind.
    let used: HashSet<ErrorCategory> = expected.iter().map(|&(_, c)| c).collect();
    assert_eq!(used, ErrorCategory::ALL.iter().copied().collect());
}

#[test]
fn every_category_has_its_own_name() {
    let names: HashSet<&str> = ErrorCategory::ALL.iter().map(|c| c.name()).collect();
    assert_eq!(names.len(), ErrorCategory::ALL.len());
    for category in ErrorCategory::ALL {
        assert_eq!(category.to_string(), category.name());
    }
}

#[test]
fn every_error_has_the_category_of_its_kind() {
    for e in one_of_each() {
        assert_eq!(e.category(), e.kind().category(), "{e:?}");
    }
    assert_eq!(
        Error::HostAllocation { bytes: 1 << 40 }.category(),
        ErrorCategory::HostData
    );
    assert_eq!(
        Error::Allocation(WgpuError::message_only("out of memory")).category(),
        ErrorCategory::Device
    );
}

#[test]
fn host_allocation_names_the_bytes_asked_for() {
    let e = Error::HostAllocation { bytes: 1 << 40 };
    assert_eq!(e.rule(), "host_allocation");
    assert_eq!(
        e.to_string(),
        "allocating 1099511627776 bytes of host memory failed"
    );
}

#[test]
fn every_error_names_the_rule_of_its_kind() {
    let errors = one_of_each();
    for e in &errors {
        assert_eq!(e.rule(), e.kind().rule(), "{e:?}");
        assert!(ErrorKind::ALL.contains(&e.kind()), "{e:?}");
    }
    // Every kind is some variant's: the two lists are one-to-one by name.
    let reached: HashSet<ErrorKind> = errors.iter().map(Error::kind).collect();
    assert_eq!(reached.len(), ErrorKind::ALL.len());
    // And the kinds follow the order of the variants that first name them.
    let mut first = Vec::new();
    for e in &errors {
        if !first.contains(&e.kind()) {
            first.push(e.kind());
        }
    }
    assert_eq!(first, ErrorKind::ALL);
}

#[test]
fn messages_name_the_rule_and_the_values() {
    let e = Error::SizesMismatch {
        operator: Operator::BitXor,
        tensor: TensorName::Output,
        sizes: vec![2, 4],
        expected: vec![2, 3],
    };
    assert_eq!(
        e.to_string(),
        "ELEMENT_WISE_BIT_XOR: OutputTensor Sizes {2,4} differ from ATensor Sizes {2,3}"
    );
    assert_eq!(e.rule(), "shape_mismatch");

    let e = Error::ShapeInconsistent {
        a: vec![3],
        b: vec![4],
        broadcast: AutoBroadcast::Numpy,
        reason: "3 against 4",
    };
    assert!(
        e.to_string()
            .starts_with("Argument shapes are inconsistent.")
    );

    let e = Error::UnsupportedDataType {
        operator: Operator::LogicalXor,
        data_type: DataType::U8,
        feature_level: FeatureLevel::Fl1_0,
        required: Some(FeatureLevel::Fl2_0),
    };
    assert_eq!(
        e.to_string(),
        "ELEMENT_WISE_LOGICAL_XOR does not support UINT8 at DML_FEATURE_LEVEL_1_0 (it needs DML_FEATURE_LEVEL_2_0)"
    );
}
