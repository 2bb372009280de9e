//! The operators of the table, as the test kit draws them: every DirectML operator
//! ([`DIRECTML`]) and every OpenVINO operation ([`OPENVINO`]), each a [`gpu_xor::Operator`],
//! with what a test asks of a row that the row does not say itself ([`OperatorExt`]). A new row
//! of the table is drawn by every test that draws from these, with no test to edit.

use gpu_xor::desc::{Standard, Truth, min_feature_level};
use gpu_xor::{BitFunction, DataType, FeatureLevel, Operator};

/// The operators of one standard, in the table's order (a constant, for arrays of them).
const fn of_standard<const N: usize>(standard: Standard) -> [Operator; N] {
    let mut all = [Operator::ALL[0]; N];
    let (mut i, mut k) = (0, 0);
    while i < Operator::ALL.len() {
        let op = Operator::ALL[i];
        if matches!(
            (op.standard(), standard),
            (Standard::DirectMl, Standard::DirectMl) | (Standard::OpenVino, Standard::OpenVino)
        ) {
            all[k] = op;
            k += 1;
        }
        i += 1;
    }
    all
}

/// Every DirectML operator of the table, in its order.
pub const DIRECTML: [Operator; Operator::count_of(Standard::DirectMl)] =
    of_standard(Standard::DirectMl);

/// Every OpenVINO operation of the table, in its order.
pub const OPENVINO: [Operator; Operator::count_of(Standard::OpenVino)] =
    of_standard(Standard::OpenVino);

/// What a test asks of an operator of the table, read off its row.
pub trait OperatorExt: Copy {
    /// Whether it always works on truth values (DirectML's `LOGICAL_*`, OpenVINO's
    /// `Logical*`); OpenVINO's `Bitwise*` do only on `boolean`.
    fn logical(self) -> bool;

    /// Whether its function is a shift: its B holds amounts.
    fn shifts(self) -> bool;

    /// Whether it takes `data_type` for its inputs and its output alike, at the default
    /// feature level (4.1) for a DirectML operator (`BIT_COUNT`, whose output has types of
    /// its own, takes `u8` and `u32` so).
    fn takes(self, data_type: DataType) -> bool;

    /// [`OperatorExt::takes`] at `level` (an OpenVINO operation has no levels).
    fn takes_at(self, data_type: DataType, level: FeatureLevel) -> bool;

    /// Whether it may run in place (every operator but `BIT_COUNT`).
    fn in_place(self) -> bool;
}

impl OperatorExt for Operator {
    fn logical(self) -> bool {
        self.spec().truth == Truth::Always
    }

    fn shifts(self) -> bool {
        matches!(
            self.spec().function,
            BitFunction::ShiftLeft | BitFunction::ShiftRight | BitFunction::ShiftRightArithmetic
        )
    }

    fn takes(self, data_type: DataType) -> bool {
        self.takes_at(data_type, FeatureLevel::default())
    }

    fn takes_at(self, data_type: DataType, level: FeatureLevel) -> bool {
        let types = self.spec().types;
        min_feature_level(self, data_type).is_some_and(|least| least <= level)
            && types
                .output_types()
                .is_none_or(|out| out.contains(&data_type))
    }

    fn in_place(self) -> bool {
        self.spec().types.in_place()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_is_drawn_once_by_its_standard() {
        assert_eq!(DIRECTML.len() + OPENVINO.len(), Operator::ALL.len());
        for op in Operator::ALL {
            assert_eq!(
                DIRECTML.contains(&op),
                op.is_directml(),
                "{op}: in the DirectML list exactly when it is DirectML's"
            );
            assert_eq!(OPENVINO.contains(&op), !op.is_directml(), "{op}");
        }
    }

    #[test]
    fn rows_answer_what_tests_ask() {
        assert!(Operator::LogicalXor.logical() && Operator::OvLogicalNot.logical());
        assert!(!Operator::BitwiseXor.logical() && !Operator::BitXor.logical());
        assert!(Operator::BitShiftRight.shifts() && Operator::BitwiseLeftShift.shifts());
        assert!(!Operator::BitCount.shifts() && !Operator::BitNot.shifts());
        assert!(Operator::BitXor.takes(DataType::F64));
        assert!(!Operator::BitXor.takes_at(DataType::F64, FeatureLevel::Fl3_0));
        assert!(!Operator::LogicalXor.takes(DataType::U16));
        assert!(Operator::BitCount.takes(DataType::U8) && !Operator::BitCount.takes(DataType::U16));
        assert!(Operator::BitwiseXor.takes(DataType::Bool));
        assert!(!Operator::BitCount.in_place() && Operator::BitNot.in_place());
    }
}
