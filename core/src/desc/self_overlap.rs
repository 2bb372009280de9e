//! Whether an output overlaps itself: two different indices that reach one element (a
//! library rule, stricter than DirectML: writes would race). A description rule, so it lives with the descriptions; exact, and bounded in time
//! and memory whatever the sizes.

/// Most search steps [`self_overlaps`] takes (check 6) before it gives up on a layout.
///
/// A step is one node of check 6a's search or one lookup of check 6b's scan; a call that
/// reaches the limit takes about 10 ms (release build with overflow checks, one core of a
/// 2-core CI machine). Checks 1 to 5 decide most layouts without a step, and check 6 decides
/// nearly all the rest well within the limit: of a million random DirectML output layouts of
/// 3 to 8 dimensions (random sizes with at most 2^32 - 1 elements, random strides below
/// 2^32) none was left undecided. The hardest are many equal mid-sized dimensions with
/// unrelated large strides: with eight dimensions of size 15 and random strides, about 1
/// layout in 130 is left undecided (`Error::OutputOverlapUndecided`); with eight of size 12,
/// seven of 20 or six of 40, none of 400 was.
pub(crate) const SELF_OVERLAP_STEP_LIMIT: u64 = 1 << 18;

/// Whether two different indices of a view reach the same element: `Some(true)` or
/// `Some(false)`, decided exactly, or `None` when check 6 gives up after
/// [`SELF_OVERLAP_STEP_LIMIT`] steps (or when a dimension reaches 2^64 elements or more, or
/// there are more than 256 dimensions, which no DirectML tensor has).
///
/// Two indices `i != j` reach one element when `Σ (i_d - j_d)·s_d = 0`, that is when some
/// nonzero `k` with `|k_d| < n_d` has `Σ k_d·s_d = 0`. Work and memory are bounded by
/// constants, whatever the sizes (no allocation grows with the element count):
/// 1. Dimensions of size 1 drop out (their `k_d` is 0); a zero stride on a larger one
///    overlaps.
/// 2. The classic proof: with the dimensions sorted by stride, if every stride exceeds the
///    furthest offset that the smaller-stride dimensions reach together, no two indices meet
///    (the common case, in `O(rank log rank)`).
/// 3. Reductions that keep the answer, repeated until none applies:
///    - 3a: all strides are divided by their gcd;
///    - 3b: a dimension whose stride exceeds what all the others reach together has
///      `k_d = 0`, and drops out;
///    - 3c: `k_d·s_d` is a multiple of `g`, the gcd of the other strides, so `k_d` is a
///      multiple of `m = g / gcd(g, s_d)`: the dimension becomes stride `m·s_d`, size
///      `⌊(n_d - 1) / m⌋ + 1`, and drops out at size 1.
/// 4. One dimension left never overlaps; two are decided in closed form (see `Pair`).
/// 5. Pigeonhole: more indices than offsets in `[0, reach]` overlap.
/// 6. A search for `k`, the first nonzero `k_d` positive (`k` and `-k` are both solutions),
///    in whichever of two ways leaves the fewer combinations:
///    - 6a: the two largest dimensions in closed form, the others searched depth first by
///      decreasing stride, each `k_d` limited to the values the remaining dimensions can
///      still cancel;
///    - 6b, meet in the middle: the largest dimension in closed form, the sums of some
///      others in a sorted table of at most 2^16 entries, and the sums of the rest looked up
///      in it.
///
///    Both count their steps and stop at [`SELF_OVERLAP_STEP_LIMIT`].
pub(crate) fn self_overlaps(sizes: &[u64], strides: &[u64]) -> Option<bool> {
    let mut dims: Vec<(u128, u128)> = sizes
        .iter()
        .zip(strides)
        .filter(|&(&n, _)| n > 1)
        .map(|(&n, &s)| (u128::from(s), u128::from(n)))
        .collect();
    // Check 1.
    if dims.iter().any(|&(s, _)| s == 0) {
        return Some(true);
    }
    // Check 2.
    dims.sort_unstable();
    let mut reach: u128 = 0;
    let proved = dims.iter().all(|&(s, n)| {
        let ok = s > reach;
        reach = reach.saturating_add((n - 1).saturating_mul(s));
        ok
    });
    if proved {
        return Some(false);
    }
    // From here on every value is kept below 2^64 per dimension and 2^72 in sums, so that
    // i128 arithmetic never overflows: a dimension reaching 2^64 or more, or more than 256
    // dimensions, is left undecided.
    if dims.len() > 256
        || dims
            .iter()
            .any(|&(s, n)| (n - 1) * s > u128::from(u64::MAX))
    {
        return None;
    }
    let mut dims: Vec<Dim> = dims.iter().map(|&(s, n)| (s as i128, n as i128)).collect();
    // Check 3.
    reduce(&mut dims);
    // Check 4.
    match dims.len() {
        0 | 1 => return Some(false),
        2 => return Some(Pair::new(dims[1], dims[0]).solvable(0, true)),
        _ => {}
    }
    // Check 5.
    let reach: i128 = dims.iter().map(|&(s, n)| (n - 1) * s).sum();
    let indices = dims
        .iter()
        .try_fold(1i128, |acc, &(_, n)| acc.checked_mul(n))
        .unwrap_or(i128::MAX);
    if indices > reach + 1 {
        return Some(true);
    }
    // Check 6: the largest dimensions in closed form, the way that leaves the fewest
    // combinations to scan.
    dims.sort_unstable_by_key(|&(s, n)| std::cmp::Reverse((n, s)));
    let by_pair = combinations(&dims[2..]) / 2;
    let (table_dims, scan_dims) = split_for_table(&dims[1..]);
    let by_table = combinations(&scan_dims) / 2;
    let limit = u128::from(SELF_OVERLAP_STEP_LIMIT);
    let pair_first = if (by_pair <= limit) != (by_table <= limit) {
        by_pair <= limit
    } else {
        by_pair <= table_cost(&table_dims, &scan_dims)
    };
    if pair_first {
        pair_search(&dims)
    } else {
        table_search(dims[0], &table_dims, &scan_dims)
    }
}

/// One dimension of the search, `(stride, size)`: both below 2^64, sums below 2^72.
type Dim = (i128, i128);

/// Most entries of check 6b's table.
const TABLE_LIMIT: u128 = 1 << 16;

/// How many `k` vectors a box holds: `Π (2·n_d - 1)`, saturated.
fn combinations(dims: &[Dim]) -> u128 {
    dims.iter().fold(1u128, |acc, &(_, n)| {
        acc.saturating_mul((2 * n - 1) as u128)
    })
}

/// Check 6b's work: building and sorting the table, then one binary search per scanned
/// combination (weighted as a few steps).
fn table_cost(table: &[Dim], scan: &[Dim]) -> u128 {
    combinations(table).saturating_add(combinations(scan).saturating_mul(4))
}

/// Splits `dims` into a part whose combinations fit check 6b's table and the rest, to be
/// scanned, at the least [`table_cost`].
fn split_for_table(dims: &[Dim]) -> (Vec<Dim>, Vec<Dim>) {
    let pick = |mask: u64| -> (Vec<Dim>, Vec<Dim>) {
        let (mut table, mut scan) = (Vec::new(), Vec::new());
        for (d, &dim) in dims.iter().enumerate() {
            if d < 64 && mask >> d & 1 == 1 {
                table.push(dim);
            } else {
                scan.push(dim);
            }
        }
        (table, scan)
    };
    let best = if dims.len() <= 12 {
        (0..1u64 << dims.len())
            .map(|mask| (mask, pick(mask)))
            .filter(|(_, (table, _))| combinations(table) <= TABLE_LIMIT)
            .min_by_key(|(_, (table, scan))| table_cost(table, scan))
            .map_or(0, |(mask, _)| mask)
    } else {
        // Greedy beyond 12 dimensions (no DirectML tensor has them).
        let mut mask = 0u64;
        let mut size = 1u128;
        for (d, &(_, n)) in dims.iter().enumerate().take(64) {
            let grown = size.saturating_mul((2 * n - 1) as u128);
            if grown <= TABLE_LIMIT {
                size = grown;
                mask |= 1 << d;
            }
        }
        mask
    };
    pick(best)
}

/// Check 6a: `dims` by decreasing size; the first two in closed form, the others searched by
/// decreasing stride (the largest strides have the fewest values the rest can cancel).
fn pair_search(dims: &[Dim]) -> Option<bool> {
    let pair = Pair::new(dims[0], dims[1]);
    let mut rest = dims[2..].to_vec();
    rest.sort_unstable_by(|x, y| y.cmp(x));
    let mut reach_after = vec![pair.reach(); rest.len()];
    for d in (0..rest.len().saturating_sub(1)).rev() {
        let (s, n) = rest[d + 1];
        reach_after[d] = reach_after[d + 1] + (n - 1) * s;
    }
    let mut search = Search {
        pair,
        dims: &rest,
        reach_after: &reach_after,
        steps: 0,
    };
    search.find(0, 0, true)
}

/// Check 6b, meet in the middle: every sum `l` of the table dimensions, kept sorted by its
/// residue modulo the largest dimension's stride `s`; then every sum `r` of the scanned
/// dimensions (half of them: `k` and `-k` are both solutions), each looked up for an `l` with
/// `l + r = -k·s`, `|k| < n`: the same residue as `-r`, within `(n - 1)·s` of it.
fn table_search((s, n): Dim, table_dims: &[Dim], scan_dims: &[Dim]) -> Option<bool> {
    let mut table: Vec<(i128, i128)> = Vec::with_capacity(combinations(table_dims) as usize);
    let mut found = false;
    let table_sums = Sums {
        dims: table_dims,
        half: false,
        modulus: s,
    };
    table_sums.for_each(&mut |l, residue, nonzero| {
        // A nonzero k on the table's dimensions alone that sums to 0.
        found = l == 0 && nonzero;
        table.push((residue, l));
        !found
    });
    if found {
        return Some(true);
    }
    table.sort_unstable();
    table.dedup();
    let classes = ClassIndex::new(&table);
    let mut steps = 0u64;
    let mut result = Some(false);
    let scan_sums = Sums {
        dims: scan_dims,
        half: true,
        modulus: s,
    };
    scan_sums.for_each(&mut |r, residue, nonzero| {
        steps += 1;
        if steps > SELF_OVERLAP_STEP_LIMIT {
            result = None;
            return false;
        }
        // The residue of -r.
        let class = if residue == 0 { 0 } else { s - residue };
        let Some((start, end)) = classes.get(class) else {
            return true;
        };
        let (lo, hi) = (-r - (n - 1) * s, -r + (n - 1) * s);
        let members = &table[start..end];
        for &(_, l) in &members[members.partition_point(|&(_, l)| l < lo)..] {
            if l > hi {
                break;
            }
            // With r from k = 0 on the scanned dimensions, l = 0 is the zero solution (it
            // comes from k = 0 only, or the table would have found it).
            if nonzero || l != 0 {
                result = Some(true);
                return false;
            }
        }
        true
    });
    result
}

/// Where each residue class of check 6b's sorted table starts and ends: an open-addressing
/// hash table, so that a lookup costs a probe or two rather than a binary search of the whole
/// table.
struct ClassIndex {
    /// `(residue, start, end)`; `end == 0` marks an empty slot. Residues are below the
    /// modulus (under 2^64) and the table holds at most 2^16 entries.
    slots: Vec<(u64, u32, u32)>,
    shift: u32,
}

impl ClassIndex {
    fn new(table: &[(i128, i128)]) -> ClassIndex {
        // At most half full; at least two slots, so that the shift stays below 64.
        let bits = (2 * table.len().max(1))
            .next_power_of_two()
            .trailing_zeros();
        let mut index = ClassIndex {
            slots: vec![(0, 0, 0); 1 << bits],
            shift: 64 - bits,
        };
        let mut start = 0;
        while start < table.len() {
            let class = table[start].0;
            let end = start + table[start..].partition_point(|&(c, _)| c == class);
            let mut slot = index.slot(class as u64);
            while index.slots[slot].2 != 0 {
                slot = (slot + 1) & (index.slots.len() - 1);
            }
            index.slots[slot] = (class as u64, start as u32, end as u32);
            start = end;
        }
        index
    }

    fn slot(&self, class: u64) -> usize {
        (class.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> self.shift) as usize
    }

    /// The table range of `class`, if the table holds it.
    fn get(&self, class: i128) -> Option<(usize, usize)> {
        let class = class as u64;
        let mut slot = self.slot(class);
        loop {
            let (c, start, end) = self.slots[slot];
            if end == 0 {
                return None;
            }
            if c == class {
                return Some((start as usize, end as usize));
            }
            slot = (slot + 1) & (self.slots.len() - 1);
        }
    }
}

/// A box of `k` vectors to enumerate, with the modulus whose residues its sums carry.
struct Sums<'a> {
    dims: &'a [Dim],
    /// Only `k = 0` and those whose first nonzero entry is positive.
    half: bool,
    modulus: i128,
}

impl Sums<'_> {
    /// Calls `f(sum, sum mod modulus, nonzero)` for every `k` of the box until `f` returns
    /// false; returns false then. Residues are carried by additions, with one division per
    /// dimension entered rather than one per sum.
    fn for_each(&self, f: &mut dyn FnMut(i128, i128, bool) -> bool) -> bool {
        self.walk(0, 0, 0, false, f)
    }

    fn walk(
        &self,
        level: usize,
        sum: i128,
        residue: i128,
        nonzero: bool,
        f: &mut dyn FnMut(i128, i128, bool) -> bool,
    ) -> bool {
        let Some(&(s, n)) = self.dims.get(level) else {
            return f(sum, residue, nonzero);
        };
        let m = self.modulus;
        let lo = if self.half && !nonzero { 0 } else { 1 - n };
        let step = s % m;
        let mut r = (residue + (lo * s).rem_euclid(m)) % m;
        for k in lo..n {
            if !self.walk(level + 1, sum + k * s, r, nonzero || k != 0, f) {
                return false;
            }
            r += step;
            if r >= m {
                r -= m;
            }
        }
        true
    }
}

/// Check 3: rewrites `dims` (stride, size) into an equivalent problem, dropping every
/// dimension whose `k_d` must be 0.
fn reduce(dims: &mut Vec<Dim>) {
    loop {
        let before = dims.clone();
        // 3a.
        let g = dims.iter().fold(0, |g, &(s, _)| gcd(g, s));
        if g > 1 {
            for d in dims.iter_mut() {
                d.0 /= g;
            }
        }
        // 3b: each dimension dropped here has k_d = 0 in every solution of the problem as
        // it stood, so dropping them together is sound.
        let total: i128 = dims.iter().map(|&(s, n)| (n - 1) * s).sum();
        dims.retain(|&(s, n)| s <= total - (n - 1) * s);
        // 3c, one dimension at a time (each rewrite changes the others' gcd).
        let mut d = 0;
        while dims.len() > 1 && d < dims.len() {
            let g = dims
                .iter()
                .enumerate()
                .filter(|&(e, _)| e != d)
                .fold(0, |g, (_, &(s, _))| gcd(g, s));
            let (s, n) = dims[d];
            let m = g / gcd(g, s);
            if m >= n {
                dims.remove(d);
                continue;
            }
            if m > 1 {
                dims[d] = (s * m, (n - 1) / m + 1);
            }
            d += 1;
        }
        if *dims == before {
            return;
        }
    }
}

/// Check 6's depth-first search.
struct Search<'a> {
    /// The two largest dimensions, solved in closed form.
    pair: Pair,
    /// The others, by decreasing stride.
    dims: &'a [Dim],
    /// What the dimensions after each one reach together, the pair included.
    reach_after: &'a [i128],
    steps: u64,
}

impl Search<'_> {
    /// Whether some `k` on `dims[level..]` and the pair cancels `partial`, nonzero if
    /// `all_zero`; `None` past the step limit.
    fn find(&mut self, level: usize, partial: i128, all_zero: bool) -> Option<bool> {
        let Some(&(s, n)) = self.dims.get(level) else {
            return Some(self.pair.solvable(-partial, all_zero));
        };
        let rest = self.reach_after[level];
        let mut lo = ceil_div(-partial - rest, s).max(1 - n);
        let hi = floor_div(rest - partial, s).min(n - 1);
        if all_zero {
            lo = lo.max(0);
        }
        for k in lo..=hi {
            self.steps += 1;
            if self.steps > SELF_OVERLAP_STEP_LIMIT {
                return None;
            }
            if self.find(level + 1, partial + k * s, all_zero && k == 0)? {
                return Some(true);
            }
        }
        Some(false)
    }
}

/// Two dimensions `(s_a, n_a)`, `(s_b, n_b)`: the solutions of `k_a·s_a + k_b·s_b = t` are
/// `k_a = k_a' + u·(s_b / g)`, `k_b = k_b' - u·(s_a / g)` for one particular `(k_a', k_b')`
/// when `g = gcd(s_a, s_b)` divides `t`, and whether one lies in the box is a question about
/// an interval of `u`.
struct Pair {
    a: Dim,
    b: Dim,
    g: i128,
    /// `s_a / g`'s inverse modulo `s_b / g`, reduced.
    inverse: i128,
}

impl Pair {
    fn new(a: Dim, b: Dim) -> Pair {
        let (g, x, _) = extended_gcd(a.0, b.0);
        let period = b.0 / g;
        Pair {
            a,
            b,
            g,
            inverse: x.rem_euclid(period),
        }
    }

    /// The furthest offset the two dimensions reach together.
    fn reach(&self) -> i128 {
        (self.a.1 - 1) * self.a.0 + (self.b.1 - 1) * self.b.0
    }

    /// Whether `k_a·s_a + k_b·s_b = t` has a solution with `|k_a| < n_a`, `|k_b| < n_b`, and
    /// not both zero if `nonzero` (asked with `t = 0` only).
    fn solvable(&self, t: i128, nonzero: bool) -> bool {
        let ((sa, na), (sb, nb), g) = (self.a, self.b, self.g);
        if t % g != 0 {
            return false;
        }
        // k_a's period, k_b's step.
        let (ma, mb) = (sb / g, sa / g);
        if nonzero {
            // t = 0: the solutions are u·(ma, -mb).
            return ma < na && mb < nb;
        }
        // k_a ≡ inverse·(t / g) (mod ma); values stay below 2^64, so the product fits.
        let r = ((self.inverse as u128 * (t / g).rem_euclid(ma) as u128) % ma as u128) as i128;
        // The smallest k_a >= 1 - n_a in that class.
        let first = r - ma * floor_div(r + na - 1, ma);
        if first > na - 1 {
            return false;
        }
        // k_a = first + u·ma for u in [0, u_max]; k_b = kb0 - u·mb.
        let u_max = (na - 1 - first) / ma;
        let kb0 = (t - first * sa) / sb;
        let u_lo = ceil_div(kb0 - (nb - 1), mb).max(0);
        let u_hi = floor_div(kb0 + nb - 1, mb).min(u_max);
        u_lo <= u_hi
    }
}

fn gcd(mut x: i128, mut y: i128) -> i128 {
    while y != 0 {
        (x, y) = (y, x % y);
    }
    x.abs()
}

/// `(g, x, y)` with `x·a + y·b = g = gcd(a, b)`, for `a, b > 0`.
fn extended_gcd(a: i128, b: i128) -> (i128, i128, i128) {
    let (mut r0, mut r1) = (a, b);
    let (mut x0, mut x1) = (1i128, 0i128);
    let (mut y0, mut y1) = (0i128, 1i128);
    while r1 != 0 {
        let q = r0 / r1;
        (r0, r1) = (r1, r0 - q * r1);
        (x0, x1) = (x1, x0 - q * x1);
        (y0, y1) = (y1, y0 - q * y1);
    }
    (r0, x0, y0)
}

fn floor_div(x: i128, d: i128) -> i128 {
    x.div_euclid(d)
}

fn ceil_div(x: i128, d: i128) -> i128 {
    -(-x).div_euclid(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether two indices meet, by listing every offset (small layouts only).
    fn brute_force(sizes: &[u64], strides: &[u64]) -> bool {
        let mut offsets = vec![0u64];
        for (&n, &s) in sizes.iter().zip(strides) {
            offsets = offsets
                .iter()
                .flat_map(|&base| (0..n).map(move |i| base + i * s))
                .collect();
        }
        let count = offsets.len();
        offsets.sort_unstable();
        offsets.dedup();
        offsets.len() != count
    }

    /// Whether two indices meet, marking each offset in a bitset of the reach: for layouts
    /// with many elements but a small reach.
    fn bitset_check(sizes: &[u64], strides: &[u64]) -> bool {
        let reach: u64 = sizes.iter().zip(strides).map(|(&n, &s)| (n - 1) * s).sum();
        let mut seen = vec![0u64; (reach / 64 + 1) as usize];
        let count: u64 = sizes.iter().product();
        for mut i in 0..count {
            let mut offset = 0;
            for (&n, &s) in sizes.iter().zip(strides).rev() {
                offset += (i % n) * s;
                i /= n;
            }
            let (word, bit) = ((offset / 64) as usize, offset % 64);
            if seen[word] >> bit & 1 == 1 {
                return true;
            }
            seen[word] |= 1 << bit;
        }
        false
    }

    #[test]
    fn self_overlap_cases() {
        assert_eq!(self_overlaps(&[2, 3], &[3, 1]), Some(false));
        assert_eq!(self_overlaps(&[2, 3], &[4, 1]), Some(false));
        assert_eq!(self_overlaps(&[3, 2], &[1, 3]), Some(false));
        assert_eq!(self_overlaps(&[3, 3], &[1, 1]), Some(true));
        assert_eq!(self_overlaps(&[2, 3], &[0, 1]), Some(true));
        assert_eq!(self_overlaps(&[1, 3], &[0, 1]), Some(false));
        // Interleaved but disjoint: {0,3,2,5,4,7}.
        assert_eq!(self_overlaps(&[3, 2], &[2, 3]), Some(false));
        // Interleaved and overlapping: 0+3 == 3+0.
        assert_eq!(self_overlaps(&[4, 2], &[1, 3]), Some(true));
    }

    #[test]
    fn interleaved_outputs_beyond_four_million_elements_are_decided_exactly() {
        // 12 Mi elements, interleaved (2 and 3 reach past 6's neighbour), no two equal.
        let sizes = [3, 2, 1 << 21];
        assert_eq!(self_overlaps(&sizes, &[2, 3, 6]), Some(false));
        assert!(!bitset_check(&sizes, &[2, 3, 6]));
        // 2 + 3 - 5 = 0.
        assert_eq!(self_overlaps(&sizes, &[2, 3, 5]), Some(true));
        assert!(bitset_check(&sizes, &[2, 3, 5]));
    }

    #[test]
    fn huge_directml_layouts_are_decided_without_allocating() {
        let max = u64::from(u32::MAX);
        // Disjoint by the classic proof.
        assert_eq!(self_overlaps(&[max, 2], &[1, max]), Some(false));
        // Interleaved, decided by the reductions: 2^31 + 1 elements in a reach of 2^32.
        assert_eq!(self_overlaps(&[1 << 31, 2, 2], &[2, 3, 4]), Some(true));
        assert_eq!(self_overlaps(&[1 << 20, 3, 2], &[6, 2, 3]), Some(false));
        let eight = [max; 8];
        assert_eq!(self_overlaps(&eight, &eight), Some(true));
        let strides: Vec<u64> = (0..8).map(|k| max - k * 1000).collect();
        assert!(self_overlaps(&[16; 8], &strides).is_some());
    }

    proptest::proptest! {
        #![proptest_config(crate::property_config())]

        #[test]
        fn self_overlap_matches_brute_force(
            dims in proptest::collection::vec((1u64..=6, 0u64..=12), 1..=4)
        ) {
            let sizes: Vec<u64> = dims.iter().map(|d| d.0).collect();
            let strides: Vec<u64> = dims.iter().map(|d| d.1).collect();
            proptest::prop_assert_eq!(
                self_overlaps(&sizes, &strides),
                Some(brute_force(&sizes, &strides)),
                "sizes {:?} strides {:?}", sizes, strides
            );
        }
    }
}
