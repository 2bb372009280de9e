//! Element types.

use std::fmt;

/// The element type of a tensor.
///
/// The eleven DirectML types (`DML_TENSOR_DATA_TYPE_*`) plus [`DataType::Bool`], which exists
/// only for OpenVINO's BitwiseXor-13. DirectML has no boolean type: callers of the DirectML
/// operators map booleans to [`DataType::U8`] holding 0 or 1, as ONNX Runtime does.
///
/// The kernels never look at values as numbers of this type: the type sets the element width
/// and, for the logical operators, what counts as zero (every bit clear).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum DataType {
    /// IEEE binary64 (`DML_TENSOR_DATA_TYPE_FLOAT64`).
    F64,
    /// IEEE binary32 (`DML_TENSOR_DATA_TYPE_FLOAT32`).
    F32,
    /// IEEE binary16 (`DML_TENSOR_DATA_TYPE_FLOAT16`).
    F16,
    /// Two's-complement 64-bit integer (`DML_TENSOR_DATA_TYPE_INT64`).
    I64,
    /// Two's-complement 32-bit integer (`DML_TENSOR_DATA_TYPE_INT32`).
    I32,
    /// Two's-complement 16-bit integer (`DML_TENSOR_DATA_TYPE_INT16`).
    I16,
    /// Two's-complement 8-bit integer (`DML_TENSOR_DATA_TYPE_INT8`).
    I8,
    /// Unsigned 64-bit integer (`DML_TENSOR_DATA_TYPE_UINT64`).
    U64,
    /// Unsigned 32-bit integer (`DML_TENSOR_DATA_TYPE_UINT32`).
    U32,
    /// Unsigned 16-bit integer (`DML_TENSOR_DATA_TYPE_UINT16`).
    U16,
    /// Unsigned 8-bit integer (`DML_TENSOR_DATA_TYPE_UINT8`).
    U8,
    /// OpenVINO `boolean`: one byte per element; any nonzero byte reads as true and results
    /// are written as 0 or 1. Not a DirectML type.
    Bool,
}

impl DataType {
    /// DirectML's eleven types (every type but [`DataType::Bool`]).
    pub const DIRECTML: [DataType; 11] = [
        DataType::F64,
        DataType::F32,
        DataType::F16,
        DataType::I64,
        DataType::I32,
        DataType::I16,
        DataType::I8,
        DataType::U64,
        DataType::U32,
        DataType::U16,
        DataType::U8,
    ];

    /// OpenVINO BitwiseXor-13's nine types: the integers and [`DataType::Bool`] (every type
    /// but the floating-point ones).
    pub const OPENVINO: [DataType; 9] = [
        DataType::U8,
        DataType::I8,
        DataType::U16,
        DataType::I16,
        DataType::U32,
        DataType::I32,
        DataType::U64,
        DataType::I64,
        DataType::Bool,
    ];

    /// Every type: [`DataType::DIRECTML`], then [`DataType::Bool`].
    pub const ALL: [DataType; 12] = {
        let mut all = [DataType::Bool; 12];
        let mut i = 0;
        while i < DataType::DIRECTML.len() {
            all[i] = DataType::DIRECTML[i];
            i += 1;
        }
        all
    };

    /// Size of one element in bytes: 1, 2, 4 or 8.
    pub const fn size_in_bytes(self) -> u32 {
        match self {
            DataType::F64 | DataType::I64 | DataType::U64 => 8,
            DataType::F32 | DataType::I32 | DataType::U32 => 4,
            DataType::F16 | DataType::I16 | DataType::U16 => 2,
            DataType::I8 | DataType::U8 | DataType::Bool => 1,
        }
    }

    /// Whether DirectML has this type (`DML_TENSOR_DATA_TYPE`): all but [`DataType::Bool`].
    pub const fn is_directml(self) -> bool {
        !matches!(self, DataType::Bool)
    }

    /// Whether this is a floating-point type.
    pub const fn is_float(self) -> bool {
        matches!(self, DataType::F64 | DataType::F32 | DataType::F16)
    }

    /// Whether this is a signed integer type.
    pub const fn is_signed_integer(self) -> bool {
        matches!(
            self,
            DataType::I64 | DataType::I32 | DataType::I16 | DataType::I8
        )
    }

    /// DirectML's name, as in `DML_TENSOR_DATA_TYPE_UINT8` without the prefix (`UINT8`).
    pub const fn directml_name(self) -> &'static str {
        match self {
            DataType::F64 => "FLOAT64",
            DataType::F32 => "FLOAT32",
            DataType::F16 => "FLOAT16",
            DataType::I64 => "INT64",
            DataType::I32 => "INT32",
            DataType::I16 => "INT16",
            DataType::I8 => "INT8",
            DataType::U64 => "UINT64",
            DataType::U32 => "UINT32",
            DataType::U16 => "UINT16",
            DataType::U8 => "UINT8",
            DataType::Bool => "bool (not a DML_TENSOR_DATA_TYPE)",
        }
    }

    /// OpenVINO's element type name (`u8`, `i64`, `f32`, `boolean`, ...).
    pub const fn openvino_name(self) -> &'static str {
        match self {
            DataType::F64 => "f64",
            DataType::F32 => "f32",
            DataType::F16 => "f16",
            DataType::I64 => "i64",
            DataType::I32 => "i32",
            DataType::I16 => "i16",
            DataType::I8 => "i8",
            DataType::U64 => "u64",
            DataType::U32 => "u32",
            DataType::U16 => "u16",
            DataType::U8 => "u8",
            DataType::Bool => "boolean",
        }
    }

    /// The short name used in this crate's docs and in the conformance format
    /// (`u8`, `i64`, `f16`, `bool`, ...).
    pub const fn short_name(self) -> &'static str {
        match self {
            DataType::Bool => "bool",
            other => other.openvino_name(),
        }
    }

    /// Parses a short name (`u8`, `f16`, `bool`, ...), the inverse of [`DataType::short_name`].
    pub fn from_short_name(name: &str) -> Option<DataType> {
        DataType::ALL
            .into_iter()
            .find(|t| t.short_name() == name || (*t == DataType::Bool && name == "boolean"))
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.short_name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_are_one_two_four_or_eight() {
        for t in DataType::ALL {
            assert!(matches!(t.size_in_bytes(), 1 | 2 | 4 | 8), "{t}");
        }
    }

    #[test]
    fn short_names_round_trip() {
        for t in DataType::ALL {
            assert_eq!(DataType::from_short_name(t.short_name()), Some(t));
        }
        assert_eq!(DataType::from_short_name("boolean"), Some(DataType::Bool));
        assert_eq!(DataType::from_short_name("u128"), None);
    }

    #[test]
    fn bool_is_the_only_type_directml_lacks() {
        let missing: Vec<_> = DataType::ALL
            .into_iter()
            .filter(|t| !t.is_directml())
            .collect();
        assert_eq!(missing, [DataType::Bool]);
        assert!(DataType::DIRECTML.iter().all(|t| t.is_directml()));
        assert_eq!(DataType::DIRECTML[..], DataType::ALL[..11]);
    }
}
