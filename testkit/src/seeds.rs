//! Seeds and case counts of the randomized tests, so that every run draws the same cases
//! unless told otherwise, and a failing run replays from its log.
//!
//! Each randomized test has a fixed default seed of its own. Two environment variables
//! change them, for every randomized test at once:
//!
//! - `GPU_XOR_SEED` (decimal, or hexadecimal after `0x`): a new run of draws. Each test mixes
//!   it with its own default, so that tests still draw apart from one another. Unset, every
//!   test draws its default cases: what CI runs.
//! - `GPU_XOR_CASES`: the number of cases each randomized test draws, in place of its
//!   default (the longer exploration runs each property at 5,000 and more).
//!
//! A failing test names its seed in its message ([`Seeded::describe`]); the same variables
//! given back replay it exactly.
//!
//! ```
//! use gpu_xor_testkit::seeds::Seeded;
//!
//! let run = Seeded::new(0x5eed, 100);
//! // Unset variables: the test's own seed and count.
//! # if std::env::var_os("GPU_XOR_SEED").is_none() && std::env::var_os("GPU_XOR_CASES").is_none() {
//! assert_eq!((run.seed, run.cases), (0x5eed, 100));
//! # }
//! assert!(run.describe().contains("GPU_XOR_SEED"));
//! ```

/// The variable that replaces every randomized test's seed.
pub const SEED_VAR: &str = "GPU_XOR_SEED";

/// The variable that replaces every randomized test's number of cases.
pub const CASES_VAR: &str = "GPU_XOR_CASES";

/// A number from the environment: decimal, or hexadecimal after `0x`, `_` allowed between
/// digits. `None` where the variable is unset or empty; a panic that names the variable where it is
/// set to something else (a test run's set-up, not a library path).
pub fn env_u64(name: &str) -> Option<u64> {
    let text = std::env::var(name).ok()?;
    let text = text.trim().replace('_', "");
    if text.is_empty() {
        return None;
    }
    let parsed = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse(),
    };
    Some(parsed.unwrap_or_else(|_| panic!("{name}={text:?} is not a number")))
}

/// One randomized test's draws: the seed its generator starts from and how many cases it
/// draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seeded {
    /// The seed: the test's default, or the default mixed with `GPU_XOR_SEED`.
    pub seed: u64,
    /// How many cases: the test's default, or `GPU_XOR_CASES`.
    pub cases: u64,
    /// `GPU_XOR_SEED` as given, if it was.
    pub given: Option<u64>,
}

impl Seeded {
    /// The draws of a test whose own seed is `default_seed` and whose own count is
    /// `default_cases`, as the environment changes them.
    pub fn new(default_seed: u64, default_cases: u64) -> Seeded {
        let given = env_u64(SEED_VAR);
        Seeded {
            seed: given.map_or(default_seed, |g| mix(default_seed, g)),
            cases: env_u64(CASES_VAR).unwrap_or(default_cases),
            given,
        }
    }

    /// How to replay these draws: the variables to set (or that none is), the seed and the
    /// count. Failure messages end with it.
    pub fn describe(&self) -> String {
        let vars = match self.given {
            Some(g) => format!("{SEED_VAR}={g:#x}"),
            None => format!("{SEED_VAR} unset"),
        };
        format!(
            "{} cases from seed {:#x} ({vars}; {CASES_VAR}={} replays them)",
            self.cases, self.seed, self.cases
        )
    }
}

/// `given` mixed into `default` (one SplitMix64 step of their XOR), so that one variable
/// gives every test a new seed of its own.
fn mix(default: u64, given: u64) -> u64 {
    crate::SplitMix64::new(default ^ given).next_u64()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_given_seed_moves_every_default_apart() {
        let (a, b) = (mix(1, 42), mix(2, 42));
        assert_ne!(a, b);
        assert_ne!(mix(1, 42), mix(1, 43));
        assert_eq!(mix(1, 42), mix(1, 42));
    }
}
