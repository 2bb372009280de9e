//! k nearest in Hamming space: the description of a search, its rules, and the layout a
//! validated search hands to the device layer.

use super::names::SearchTensor;
use super::{DataType, MAX_DIMENSIONS, TensorDesc, TensorName};
use crate::error::Error;

/// The most results a search returns for one query.
pub const MAX_K: u32 = 1024;

/// The longest code a search takes, in bits.
pub const MAX_CODE_BITS: u64 = 8192;

/// A search for the `k` codes nearest each query in Hamming space: queries `[.., M, W]` and
/// codes `[.., N, W]`, rows of `W` words of one integer type (8 to 64 bits, the bits of a row
/// its code), batch dimensions broadcast; outputs `[.., M, k]`: the `k` smallest distances of
/// each query, ascending, ties broken by the lower index (the order of an exhaustive search
/// that keeps the first code it meets at each distance), and the indices of their codes.
///
/// With an allow-list (a dense tensor of any integer type holding at least `N` bits, bit `n`
/// the bit `n % w` of element `n / w` for elements of `w` bits, as the library's bitwise
/// operators write it), codes whose bit is 0 are never returned. Where fewer than `k` codes
/// are allowed, the results past them are the sentinel: every bit set in the distance and in
/// the index (`u32::MAX`, or `-1` as a signed type).
///
/// ```
/// use gpu_xor_core::{DataType, TensorDesc};
/// use gpu_xor_core::desc::KnnDesc;
///
/// let queries = TensorDesc::new(DataType::U64, &[1000, 4]);
/// let codes = TensorDesc::new(DataType::U64, &[1_000_000, 4]);
/// let search = KnnDesc::new(queries, codes, 10, DataType::I64);
/// let layout = search.validate().unwrap();
/// assert_eq!((layout.m, layout.n, layout.bits), (1000, 1_000_000, 256));
/// assert_eq!(search.distances.sizes, [1000, 10]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct KnnDesc {
    /// The queries, `[.., M, W]` (a tensor of rank 1 is one row).
    pub queries: TensorDesc,
    /// The codes, `[.., N, W]`, of the queries' type.
    pub codes: TensorDesc,
    /// Results for each query, 1 to [`MAX_K`] and at most `N`.
    pub k: u32,
    /// The distances, `[.., M, k]`, `UINT32` or `INT32`.
    pub distances: TensorDesc,
    /// The indices, `[.., M, k]`, `UINT32`, `INT32`, `UINT64` or `INT64`.
    pub indices: TensorDesc,
    /// The allow-list, when the search has one.
    pub allow: Option<TensorDesc>,
}

/// A validated search, as the device layer runs it: sizes and element strides, every
/// operand's batch strides over the outputs' batch dimensions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KnnLayout {
    /// Queries per batch.
    pub m: u64,
    /// Codes per batch.
    pub n: u64,
    /// Words of a code.
    pub words: u64,
    /// The words' type.
    pub data_type: DataType,
    /// Bits of a code.
    pub bits: u64,
    /// Results per query.
    pub k: u32,
    /// The outputs' batch sizes.
    pub batch: Vec<u64>,
    /// Per operand (queries, codes, distances, indices): element strides of a row and of a
    /// word (of a result, for the outputs).
    pub strides: [[u64; 2]; 4],
    /// Per operand, element strides over `batch` (0 where it broadcasts).
    pub batch_strides: [Vec<u64>; 4],
    /// Whether the indices are 8 bytes.
    pub wide_indices: bool,
}

impl KnnLayout {
    /// The number of batches.
    pub fn batches(&self) -> u64 {
        self.batch.iter().product()
    }

    /// Element offsets of batch `b` (row-major over `batch`) in each operand.
    pub fn batch_offsets(&self, b: u64) -> [u64; 4] {
        let mut rest = b;
        let mut at = [0u64; 4];
        for d in (0..self.batch.len()).rev() {
            let i = rest % self.batch[d];
            rest /= self.batch[d];
            for (o, strides) in self.batch_strides.iter().enumerate() {
                at[o] += i * strides[d];
            }
        }
        at
    }
}

impl KnnDesc {
    /// A search of `k` results with packed outputs: distances `UINT32` and indices of
    /// `index_type`, both `[.., M, k]` over the broadcast batch dimensions. Sizes that do not
    /// broadcast give outputs that [`KnnDesc::validate`] refuses.
    pub fn new(queries: TensorDesc, codes: TensorDesc, k: u32, index_type: DataType) -> KnnDesc {
        let (bq, bc) = (batch(&queries.sizes), batch(&codes.sizes));
        let rank = bq.len().max(bc.len());
        let mut sizes: Vec<u32> = (0..rank)
            .map(|d| {
                let at = |b: &[u32]| (d + b.len()).checked_sub(rank).map_or(1, |i| b[i]);
                at(bq).max(at(bc))
            })
            .collect();
        sizes.extend([rows(&queries.sizes), k]);
        KnnDesc {
            queries,
            codes,
            k,
            distances: TensorDesc::new(DataType::U32, &sizes),
            indices: TensorDesc::new(index_type, &sizes),
            allow: None,
        }
    }

    /// The same search with an allow-list.
    pub fn with_allow_list(mut self, allow: TensorDesc) -> KnnDesc {
        self.allow = Some(allow);
        self
    }

    /// Checks every rule of the search, in this order: each tensor's own rules (sizes,
    /// strides, total size) after `k`'s range (`knn_k`), the types (`knn_type`), the shapes (`knn_shape`), `k`
    /// (`knn_k`), the code length (`knn_code_bits`), the index type (`knn_index_type`), the
    /// allow-list (`knn_allow_list`).
    pub fn validate(&self) -> Result<KnnLayout, Error> {
        let name = |t| TensorName::Search(t);
        let codes_rows = u64::from(rows(&self.codes.sizes));
        if self.k == 0 || self.k > MAX_K {
            return Err(Error::KnnK {
                k: u64::from(self.k),
                max: MAX_K,
                codes: codes_rows,
            });
        }
        let tensors = [
            (&self.queries, SearchTensor::Queries),
            (&self.codes, SearchTensor::Codes),
            (&self.distances, SearchTensor::Distances),
            (&self.indices, SearchTensor::Indices),
        ];
        for (t, n) in tensors
            .iter()
            .copied()
            .chain(self.allow.as_ref().map(|a| (a, SearchTensor::AllowList)))
        {
            if t.sizes.is_empty() || t.sizes.len() > MAX_DIMENSIONS {
                return Err(Error::KnnShape {
                    tensor: name(n),
                    sizes: t.sizes.clone(),
                    what: "a search's tensors have 1 to 8 dimensions",
                });
            }
            let minimum = t.min_buffer_size_for(name(n))?;
            if let Some(total) = t.total_tensor_size_in_bytes {
                if total < minimum {
                    return Err(Error::TotalSizeTooSmall {
                        tensor: name(n),
                        total,
                        minimum,
                    });
                }
            }
        }
        let data_type = self.queries.data_type;
        if !is_integer(data_type) {
            return Err(Error::KnnType {
                tensor: name(SearchTensor::Queries),
                data_type,
                what: "codes are words of an integer type",
            });
        }
        if self.codes.data_type != data_type {
            return Err(Error::KnnType {
                tensor: name(SearchTensor::Codes),
                data_type: self.codes.data_type,
                what: "codes have the queries' type",
            });
        }
        if !matches!(self.distances.data_type, DataType::U32 | DataType::I32) {
            return Err(Error::KnnType {
                tensor: name(SearchTensor::Distances),
                data_type: self.distances.data_type,
                what: "distances are UINT32 or INT32",
            });
        }
        let index_type = self.indices.data_type;
        if !matches!(
            index_type,
            DataType::U32 | DataType::I32 | DataType::U64 | DataType::I64
        ) {
            return Err(Error::KnnType {
                tensor: name(SearchTensor::Indices),
                data_type: index_type,
                what: "indices are UINT32, INT32, UINT64 or INT64",
            });
        }
        if let Some(allow) = &self.allow
            && !is_integer(allow.data_type)
        {
            return Err(Error::KnnType {
                tensor: name(SearchTensor::AllowList),
                data_type: allow.data_type,
                what: "an allow-list is bits packed in an integer type",
            });
        }
        let (q, c) = (&self.queries.sizes, &self.codes.sizes);
        let words = u64::from(*q.last().expect("rank checked"));
        if u64::from(*c.last().expect("rank checked")) != words {
            return Err(Error::KnnShape {
                tensor: name(SearchTensor::Codes),
                sizes: c.clone(),
                what: "codes have as many words as the queries",
            });
        }
        let (bq, bc) = (batch(q), batch(c));
        let rank = bq.len().max(bc.len());
        let mut batch_sizes = Vec::with_capacity(rank);
        for d in 0..rank {
            let at = |b: &[u32]| (d + b.len()).checked_sub(rank).map_or(1, |i| b[i]);
            let (x, y) = (at(bq), at(bc));
            if x != y && x != 1 && y != 1 {
                return Err(Error::KnnShape {
                    tensor: name(SearchTensor::Codes),
                    sizes: c.clone(),
                    what: "the batch sizes of codes and queries broadcast",
                });
            }
            batch_sizes.push(u64::from(x.max(y)));
        }
        let (m, n) = (u64::from(rows(q)), u64::from(rows(c)));
        let mut expected: Vec<u32> = batch_sizes.iter().map(|&s| s as u32).collect();
        expected.extend([rows(q), self.k]);
        for (t, n) in [
            (&self.distances, SearchTensor::Distances),
            (&self.indices, SearchTensor::Indices),
        ] {
            if t.sizes != expected {
                return Err(Error::KnnShape {
                    tensor: name(n),
                    sizes: t.sizes.clone(),
                    what: "the outputs are [.., M, k]: the batch sizes broadcast, the queries' rows and k",
                });
            }
        }
        if u64::from(self.k) > n {
            return Err(Error::KnnK {
                k: u64::from(self.k),
                max: MAX_K,
                codes: n,
            });
        }
        let bits = words * u64::from(data_type.size_in_bytes()) * 8;
        if bits > MAX_CODE_BITS {
            return Err(Error::KnnCodeBits {
                bits,
                max: MAX_CODE_BITS,
            });
        }
        // Indices are counted in 32 bits on the device; the sentinel (all bits set) stays apart.
        let max = match index_type {
            DataType::I32 => (1u64 << 31) - 2,
            _ => u64::from(u32::MAX) - 1,
        };
        if n > max + 1 {
            return Err(Error::KnnIndexType {
                data_type: index_type,
                codes: n,
                max: max + 1,
            });
        }
        if let Some(allow) = &self.allow {
            if allow.strides.is_some()
                && allow.effective_strides() != super::tensor::packed_strides(&allow.sizes)
            {
                return Err(Error::KnnShape {
                    tensor: name(SearchTensor::AllowList),
                    sizes: allow.sizes.clone(),
                    what: "an allow-list is dense",
                });
            }
            let held = (allow.element_count() as u64)
                .saturating_mul(u64::from(allow.data_type.size_in_bytes()) * 8);
            if held < n {
                return Err(Error::KnnAllowList {
                    bits: held,
                    codes: n,
                });
            }
        }
        let row_word = |t: &TensorDesc| {
            let s = t.effective_strides();
            let r = s.len();
            [if r >= 2 { s[r - 2] } else { 0 }, s[r - 1]]
        };
        let batch_strides = |t: &TensorDesc, dims: usize| -> Vec<u64> {
            let s = t.effective_strides();
            let own = &t.sizes[..t.sizes.len().saturating_sub(dims)];
            let own_strides = &s[..own.len()];
            (0..rank)
                .map(|d| match (d + own.len()).checked_sub(rank) {
                    Some(i) if own[i] != 1 => own_strides[i],
                    _ => 0,
                })
                .collect()
        };
        Ok(KnnLayout {
            m,
            n,
            words,
            data_type,
            bits,
            k: self.k,
            batch: batch_sizes,
            strides: [
                row_word(&self.queries),
                row_word(&self.codes),
                row_word(&self.distances),
                row_word(&self.indices),
            ],
            batch_strides: [
                batch_strides(&self.queries, q.len().min(2)),
                batch_strides(&self.codes, c.len().min(2)),
                batch_strides(&self.distances, 2),
                batch_strides(&self.indices, 2),
            ],
            wide_indices: index_type.size_in_bytes() == 8,
        })
    }
}

/// The batch sizes of a `[.., rows, words]` tensor.
fn batch(sizes: &[u32]) -> &[u32] {
    &sizes[..sizes.len().saturating_sub(2)]
}

/// The rows of a `[.., rows, words]` tensor (1 for a tensor of rank 1).
fn rows(sizes: &[u32]) -> u32 {
    match sizes.len() {
        0 | 1 => 1,
        n => sizes[n - 2],
    }
}

fn is_integer(t: DataType) -> bool {
    !t.is_float() && t != DataType::Bool
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    fn t(dt: DataType, sizes: &[u32]) -> TensorDesc {
        TensorDesc::new(dt, sizes)
    }

    #[test]
    fn each_rule_of_a_search_is_its_own_error() {
        let ok = KnnDesc::new(
            t(DataType::U32, &[4, 8]),
            t(DataType::U32, &[100, 8]),
            10,
            DataType::I64,
        );
        assert!(ok.validate().is_ok());
        let kind = |d: KnnDesc| d.validate().unwrap_err().kind();
        let with_k = |k| {
            KnnDesc::new(
                t(DataType::U32, &[4, 8]),
                t(DataType::U32, &[100, 8]),
                k,
                DataType::U32,
            )
        };
        assert_eq!(kind(with_k(0)), ErrorKind::KnnK);
        assert_eq!(kind(with_k(101)), ErrorKind::KnnK);
        let many = KnnDesc::new(
            t(DataType::U8, &[1, 8]),
            t(DataType::U8, &[4000, 8]),
            1025,
            DataType::U32,
        );
        assert_eq!(kind(many), ErrorKind::KnnK);
        let float = KnnDesc::new(
            t(DataType::F32, &[4, 8]),
            t(DataType::F32, &[100, 8]),
            1,
            DataType::U32,
        );
        assert_eq!(kind(float), ErrorKind::KnnType);
        let mixed = KnnDesc::new(
            t(DataType::U32, &[4, 8]),
            t(DataType::I32, &[100, 8]),
            1,
            DataType::U32,
        );
        assert_eq!(kind(mixed), ErrorKind::KnnType);
        let index = KnnDesc::new(
            t(DataType::U32, &[4, 8]),
            t(DataType::U32, &[100, 8]),
            1,
            DataType::U16,
        );
        assert_eq!(kind(index), ErrorKind::KnnType);
        let words = KnnDesc::new(
            t(DataType::U32, &[4, 8]),
            t(DataType::U32, &[100, 7]),
            1,
            DataType::U32,
        );
        assert_eq!(kind(words), ErrorKind::KnnShape);
        let batches = KnnDesc::new(
            t(DataType::U32, &[2, 4, 8]),
            t(DataType::U32, &[3, 100, 8]),
            1,
            DataType::U32,
        );
        assert_eq!(kind(batches), ErrorKind::KnnShape);
        let mut out = with_k(3);
        out.distances = t(DataType::U32, &[4, 4]);
        assert_eq!(kind(out), ErrorKind::KnnShape);
        let long = KnnDesc::new(
            t(DataType::U64, &[1, 129]),
            t(DataType::U64, &[10, 129]),
            1,
            DataType::U32,
        );
        assert_eq!(kind(long), ErrorKind::KnnCodeBits);
        let narrow = KnnDesc::new(
            t(DataType::U8, &[1, 1]),
            t(DataType::U8, &[u32::MAX, 1]),
            1,
            DataType::I32,
        );
        assert_eq!(kind(narrow), ErrorKind::KnnIndexType);
        let short = with_k(1).with_allow_list(t(DataType::U32, &[3]));
        assert_eq!(kind(short), ErrorKind::KnnAllowList);
        assert!(
            with_k(1)
                .with_allow_list(t(DataType::U8, &[13]))
                .validate()
                .is_ok()
        );
        let strided = with_k(1).with_allow_list(t(DataType::U32, &[4]).with_strides(&[2]));
        assert_eq!(kind(strided), ErrorKind::KnnShape);
        let zero = KnnDesc::new(
            t(DataType::U32, &[0, 8]),
            t(DataType::U32, &[100, 8]),
            1,
            DataType::U32,
        );
        assert_eq!(kind(zero), ErrorKind::ZeroSizeDim);
    }

    #[test]
    fn batches_broadcast_and_each_operand_steps_over_its_own() {
        let search = KnnDesc::new(
            t(DataType::U16, &[3, 1, 5, 4]),
            t(DataType::U16, &[2, 50, 4]),
            7,
            DataType::U32,
        );
        assert_eq!(search.distances.sizes, [3, 2, 5, 7]);
        let layout = search.validate().unwrap();
        assert_eq!(layout.batch, [3, 2]);
        assert_eq!(layout.batches(), 6);
        // Batch (2, 1): the queries' third block, the codes' second, the outputs' sixth row.
        assert_eq!(layout.batch_offsets(5), [2 * 20, 200, 5 * 35, 5 * 35]);
        assert_eq!(layout.strides[1], [4, 1]);
        assert_eq!(layout.bits, 64);
    }
}
