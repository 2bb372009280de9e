//! DirectML feature levels.

use std::fmt;

/// A DirectML feature level (`DML_FEATURE_LEVEL`): which types and ranks the DirectML operators
/// accept. The default is [`FeatureLevel::Fl4_1`].
///
/// | operator | level | types | ranks |
/// |---|---|---|---|
/// | `BitXor` | below 3.0 | none (introduced at 3.0) | |
/// | `BitXor` | 3.0 | u8, u16, u32 | 1 to 8 |
/// | `BitXor` | 4.1 and later | all 11 DirectML types | 1 to 8 |
/// | `LogicalXor` | 1.0 | u32 | 4 |
/// | `LogicalXor` | 2.0 | u8, u32 | 4 |
/// | `LogicalXor` | 3.0 and later | u8, u32 | 1 to 8 |
/// | `BitShiftLeft`, `BitShiftRight` | below 2.1 | none (introduced at 2.1) | |
/// | `BitShiftLeft`, `BitShiftRight` | 2.1 | u8, u16, u32 | 4 |
/// | `BitShiftLeft`, `BitShiftRight` | 3.0 | u8, u16, u32 | 1 to 8 |
/// | `BitShiftLeft`, `BitShiftRight` | 4.1 and later | u8, u16, u32, u64 | 1 to 8 |
///
/// Levels between the rows behave as the row above them (3.1 and 4.0 as 3.0, 5.0 to 6.4 as
/// 4.1; 2.1 as 2.0 for the XOR operators): no later level changes any operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[non_exhaustive]
pub enum FeatureLevel {
    /// `DML_FEATURE_LEVEL_1_0` (0x1000).
    Fl1_0,
    /// `DML_FEATURE_LEVEL_2_0` (0x2000): LOGICAL_XOR gains UINT8.
    Fl2_0,
    /// `DML_FEATURE_LEVEL_2_1` (0x2100): BIT_SHIFT_LEFT and BIT_SHIFT_RIGHT appear (u8, u16,
    /// u32; 4-D).
    Fl2_1,
    /// `DML_FEATURE_LEVEL_3_0` (0x3000): BIT_XOR appears; 1 to 8 dimensions.
    Fl3_0,
    /// `DML_FEATURE_LEVEL_3_1` (0x3100).
    Fl3_1,
    /// `DML_FEATURE_LEVEL_4_0` (0x4000).
    Fl4_0,
    /// `DML_FEATURE_LEVEL_4_1` (0x4100): BIT_XOR takes all eleven types, the shifts u64. The
    /// default.
    #[default]
    Fl4_1,
    /// `DML_FEATURE_LEVEL_5_0` (0x5000).
    Fl5_0,
    /// `DML_FEATURE_LEVEL_5_1` (0x5100).
    Fl5_1,
    /// `DML_FEATURE_LEVEL_5_2` (0x5200).
    Fl5_2,
    /// `DML_FEATURE_LEVEL_6_0` (0x6000).
    Fl6_0,
    /// `DML_FEATURE_LEVEL_6_1` (0x6100).
    Fl6_1,
    /// `DML_FEATURE_LEVEL_6_2` (0x6200).
    Fl6_2,
    /// `DML_FEATURE_LEVEL_6_3` (0x6300).
    Fl6_3,
    /// `DML_FEATURE_LEVEL_6_4` (0x6400).
    Fl6_4,
}

impl FeatureLevel {
    /// Every level, lowest first.
    pub const ALL: [FeatureLevel; 15] = [
        FeatureLevel::Fl1_0,
        FeatureLevel::Fl2_0,
        FeatureLevel::Fl2_1,
        FeatureLevel::Fl3_0,
        FeatureLevel::Fl3_1,
        FeatureLevel::Fl4_0,
        FeatureLevel::Fl4_1,
        FeatureLevel::Fl5_0,
        FeatureLevel::Fl5_1,
        FeatureLevel::Fl5_2,
        FeatureLevel::Fl6_0,
        FeatureLevel::Fl6_1,
        FeatureLevel::Fl6_2,
        FeatureLevel::Fl6_3,
        FeatureLevel::Fl6_4,
    ];

    /// The `DML_FEATURE_LEVEL` enum value (`0x4100` for 4.1).
    pub const fn value(self) -> u32 {
        match self {
            FeatureLevel::Fl1_0 => 0x1000,
            FeatureLevel::Fl2_0 => 0x2000,
            FeatureLevel::Fl2_1 => 0x2100,
            FeatureLevel::Fl3_0 => 0x3000,
            FeatureLevel::Fl3_1 => 0x3100,
            FeatureLevel::Fl4_0 => 0x4000,
            FeatureLevel::Fl4_1 => 0x4100,
            FeatureLevel::Fl5_0 => 0x5000,
            FeatureLevel::Fl5_1 => 0x5100,
            FeatureLevel::Fl5_2 => 0x5200,
            FeatureLevel::Fl6_0 => 0x6000,
            FeatureLevel::Fl6_1 => 0x6100,
            FeatureLevel::Fl6_2 => 0x6200,
            FeatureLevel::Fl6_3 => 0x6300,
            FeatureLevel::Fl6_4 => 0x6400,
        }
    }

    /// The level with this `DML_FEATURE_LEVEL` value, if any.
    pub fn from_value(value: u32) -> Option<FeatureLevel> {
        FeatureLevel::ALL.into_iter().find(|l| l.value() == value)
    }

    /// Parses `"4_1"`, `"4.1"` or `"DML_FEATURE_LEVEL_4_1"`.
    pub fn parse(text: &str) -> Option<FeatureLevel> {
        let text = text.trim().trim_start_matches("DML_FEATURE_LEVEL_");
        let (major, minor) = text.split_once(['_', '.'])?;
        let major: u32 = major.parse().ok()?;
        let minor: u32 = minor.parse().ok()?;
        if major > 0xf || minor > 0xf {
            return None;
        }
        FeatureLevel::from_value((major << 12) | (minor << 8))
    }
}

impl fmt::Display for FeatureLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.value();
        write!(f, "DML_FEATURE_LEVEL_{}_{}", v >> 12, (v >> 8) & 0xf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_sorted_like_the_enum() {
        for pair in FeatureLevel::ALL.windows(2) {
            assert!(pair[0] < pair[1]);
            assert!(pair[0].value() < pair[1].value());
        }
    }

    #[test]
    fn parse_accepts_the_three_spellings() {
        assert_eq!(FeatureLevel::parse("4_1"), Some(FeatureLevel::Fl4_1));
        assert_eq!(FeatureLevel::parse("2.0"), Some(FeatureLevel::Fl2_0));
        assert_eq!(
            FeatureLevel::parse("DML_FEATURE_LEVEL_6_4"),
            Some(FeatureLevel::Fl6_4)
        );
        assert_eq!(FeatureLevel::parse("4_2"), None);
        assert_eq!(FeatureLevel::parse("x"), None);
        for l in FeatureLevel::ALL {
            assert_eq!(FeatureLevel::parse(&l.to_string()), Some(l));
        }
    }

    #[test]
    fn default_is_4_1() {
        assert_eq!(FeatureLevel::default(), FeatureLevel::Fl4_1);
    }
}
