//! gpu-xor on the browser's GPU: the quickstart's operators (`examples/quickstart.rs`), run on
//! the page's WebGPU adapter and shown on the page with their inputs, their outputs and the
//! values the page computes on the CPU.
//!
//! ```sh
//! bash examples/web/build.sh --serve   # then open http://localhost:8000
//! bash examples/web/check.sh           # the same page in headless Chromium, checked
//! ```
//!
//! This crate root is the platform-independent part: the cases ([`run`]) and the adapter's
//! description ([`adapter_rows`]). Everything waits through `async` read-backs only, so the
//! same code runs in a browser (where nothing may block) and natively under any executor (the
//! crate's test runs it with `pollster`). The page itself (the DOM, the title, the status the
//! headless check reads) is the `wasm32`-only module `page`.

use gpu_xor::{AutoBroadcast, Context, DataType, Error, Tensor};
use half::f16;

#[cfg(target_arch = "wasm32")]
mod page;

/// The operator a case calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `DML_ELEMENT_WISE_BIT_XOR` ([`Context::bit_xor`]).
    BitXor,
    /// `DML_ELEMENT_WISE_LOGICAL_XOR` ([`Context::logical_xor`]).
    LogicalXor,
    /// OpenVINO `BitwiseXor-13` with numpy broadcasting ([`Context::bitwise_xor`]).
    BitwiseXor,
}

impl Op {
    /// The operator's name in its specification.
    pub fn name(self) -> &'static str {
        match self {
            Op::BitXor => "DML_ELEMENT_WISE_BIT_XOR",
            Op::LogicalXor => "DML_ELEMENT_WISE_LOGICAL_XOR",
            Op::BitwiseXor => "OpenVINO BitwiseXor-13",
        }
    }
}

/// A tensor as the page shows it: its shape, and its elements nested by that shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shown {
    /// The shape, outermost first.
    pub shape: Vec<usize>,
    /// The elements, e.g. `[[255, 127], [213, 0]]`; f16 elements with their bits.
    pub text: String,
}

/// One operator call: its inputs, what the GPU returned, and what the CPU expects.
#[derive(Debug)]
pub struct Case {
    /// A stable name, e.g. `bit_xor-u8` (the page's `data-case`).
    pub id: &'static str,
    /// The operator.
    pub op: Op,
    /// The element type.
    pub data_type: DataType,
    /// What the case shows.
    pub about: &'static str,
    /// Input A.
    pub a: Shown,
    /// Input B.
    pub b: Shown,
    /// The output computed on the CPU, in plain Rust.
    pub cpu: Shown,
    /// The output read back from the GPU, or the error that stopped it.
    pub gpu: Result<Shown, Error>,
    /// Whether the GPU's output has the CPU's shape and, element for element, its bits.
    pub passed: bool,
}

/// An element type of the cases: how it goes up and comes back, and its XOR on the CPU.
trait Value: Copy + Sized {
    const DATA_TYPE: DataType;
    fn upload(ctx: &Context, shape: &[usize], data: &[Self]) -> Result<Tensor, Error>;
    async fn download(tensor: &Tensor) -> Result<Vec<Self>, Error>;
    /// The raw bits, for an exact comparison (f16's `==` would make -0 equal 0 and NaN
    /// unequal to itself).
    fn bits(self) -> u64;
    /// Bitwise XOR; on bool, "exactly one is true".
    fn xor(self, other: Self) -> Self;
    fn is_nonzero(self) -> bool;
    fn from_bool(b: bool) -> Self;
    fn show(self) -> String;
}

macro_rules! integer_value {
    ($($t:ty => $dt:ident),* $(,)?) => {
        $(
            impl Value for $t {
                const DATA_TYPE: DataType = DataType::$dt;
                fn upload(ctx: &Context, shape: &[usize], data: &[Self]) -> Result<Tensor, Error> {
                    Tensor::from_slice(ctx, shape, data)
                }
                async fn download(tensor: &Tensor) -> Result<Vec<Self>, Error> {
                    tensor.to_vec_async::<$t>().await
                }
                fn bits(self) -> u64 {
                    self as u64
                }
                fn xor(self, other: Self) -> Self {
                    self ^ other
                }
                fn is_nonzero(self) -> bool {
                    self != 0
                }
                fn from_bool(b: bool) -> Self {
                    b.into()
                }
                fn show(self) -> String {
                    self.to_string()
                }
            }
        )*
    };
}

integer_value!(u8 => U8, u32 => U32, i32 => I32, i64 => I64);

impl Value for f16 {
    const DATA_TYPE: DataType = DataType::F16;
    fn upload(ctx: &Context, shape: &[usize], data: &[Self]) -> Result<Tensor, Error> {
        Tensor::from_slice(ctx, shape, data)
    }
    async fn download(tensor: &Tensor) -> Result<Vec<Self>, Error> {
        tensor.to_vec_async::<f16>().await
    }
    fn bits(self) -> u64 {
        self.to_bits().into()
    }
    fn xor(self, other: Self) -> Self {
        f16::from_bits(self.to_bits() ^ other.to_bits())
    }
    fn is_nonzero(self) -> bool {
        self.to_bits() != 0
    }
    fn from_bool(b: bool) -> Self {
        f16::from_bits(b.into())
    }
    fn show(self) -> String {
        let value = f32::from(self);
        if value != 0.0 && value.abs() < 1e-4 {
            // Subnormals in scientific notation: 5.9604645e-8, not 0.000000059604645.
            format!("{value:e} ({:#06x})", self.to_bits())
        } else {
            format!("{self} ({:#06x})", self.to_bits())
        }
    }
}

impl Value for bool {
    const DATA_TYPE: DataType = DataType::Bool;
    fn upload(ctx: &Context, shape: &[usize], data: &[Self]) -> Result<Tensor, Error> {
        Tensor::from_bools(ctx, shape, data)
    }
    async fn download(tensor: &Tensor) -> Result<Vec<Self>, Error> {
        tensor.to_bools_async().await
    }
    fn bits(self) -> u64 {
        self.into()
    }
    fn xor(self, other: Self) -> Self {
        self != other
    }
    fn is_nonzero(self) -> bool {
        self
    }
    fn from_bool(b: bool) -> Self {
        b
    }
    fn show(self) -> String {
        self.to_string()
    }
}

/// Runs the quickstart's seven calls on `ctx`, one after the other, each read back with
/// `to_vec_async` / `to_bools_async` and compared with the CPU's result. A call that fails
/// is a case with an error; the others still run.
pub async fn run(ctx: &Context) -> Vec<Case> {
    let mut cases = Vec::new();

    // The DirectML BIT_XOR document's example (a NOT-like output, which XOR gives with
    // B = all 255).
    cases.push(
        case(
            ctx,
            "bit_xor-u8",
            Op::BitXor,
            "The DirectML document's example, Sizes {2, 2}: XOR with all ones flips every bit.",
            (&[2, 2], &[0u8, 128, 42, 255]),
            (&[2, 2], &[255u8; 4]),
        )
        .await,
    );
    cases.push(
        case(
            ctx,
            "bit_xor-f16",
            Op::BitXor,
            "Floats are never loaded as floats: -0, infinities and NaN payloads pass through \
             bit for bit (a NaN XOR its payload is infinity).",
            (
                &[4],
                &[
                    f16::NEG_ZERO,
                    f16::INFINITY,
                    f16::from_bits(0x7c01),
                    f16::ONE,
                ],
            ),
            (
                &[4],
                &[f16::ZERO, f16::ZERO, f16::from_bits(0x0001), f16::ONE],
            ),
        )
        .await,
    );
    cases.push(
        case(
            ctx,
            "bit_xor-i64",
            Op::BitXor,
            "64-bit integers with no optional GPU feature: the kernels see only 32-bit words.",
            (&[4], &[i64::MIN, -1, 0x4000_0000_0000_0000, 7]),
            (&[4], &[-1i64, i64::MAX, -0x4000_0000_0000_0000, 7]),
        )
        .await,
    );
    cases.push(
        case(
            ctx,
            "logical_xor-u32",
            Op::LogicalXor,
            "LOGICAL_XOR reads each element at its full width: 256 (0x100) is true, and so is \
             4294967040 (0xffffff00).",
            (&[4], &[0u32, 0x100, 7, 0]),
            (&[4], &[0u32, 0, 0xffff_ff00, 1]),
        )
        .await,
    );
    cases.push(
        case(
            ctx,
            "bitwise_xor-u8",
            Op::BitwiseXor,
            "OpenVINO's bitwise XOR of integers.",
            (&[2], &[21u8, 120]),
            (&[2], &[3u8, 37]),
        )
        .await,
    );
    cases.push(
        case(
            ctx,
            "bitwise_xor-bool",
            Op::BitwiseXor,
            "On bool, each byte reads as byte != 0 and the output is 0 or 1.",
            (&[3], &[true, false, false]),
            (&[3], &[true, true, false]),
        )
        .await,
    );
    cases.push(
        case(
            ctx,
            "bitwise_xor-i32",
            Op::BitwiseXor,
            "numpy broadcasting: [2, 1, 3] against [2, 1] gives [2, 2, 3]; XOR with -1 is NOT.",
            (&[2, 1, 3], &[1i32, 2, 3, 4, 5, 6]),
            (&[2, 1], &[0i32, -1]),
        )
        .await,
    );
    cases
}

/// One call on the GPU and the same on the CPU.
async fn case<T: Value>(
    ctx: &Context,
    id: &'static str,
    op: Op,
    about: &'static str,
    (a_shape, a): (&[usize], &[T]),
    (b_shape, b): (&[usize], &[T]),
) -> Case {
    // The CPU: plain Rust on the values, with numpy's broadcasting written out (the DirectML
    // operators take equal shapes, where it changes nothing).
    let element: fn(T, T) -> T = match op {
        Op::BitXor | Op::BitwiseXor => T::xor,
        Op::LogicalXor => |x: T, y: T| T::from_bool(x.is_nonzero() != y.is_nonzero()),
    };
    let (cpu_shape, cpu) = broadcast(a_shape, a, b_shape, b, element);

    // The GPU: upload, call (recorded and submitted, not waited for), read back.
    let gpu = async {
        let ta = T::upload(ctx, a_shape, a)?;
        let tb = T::upload(ctx, b_shape, b)?;
        let out = match op {
            Op::BitXor => ctx.bit_xor(&ta, &tb)?,
            Op::LogicalXor => ctx.logical_xor(&ta, &tb)?,
            Op::BitwiseXor => ctx.bitwise_xor(&ta, &tb, AutoBroadcast::Numpy)?,
        };
        let values = T::download(&out).await?;
        Ok::<_, Error>((out.shape().to_vec(), values))
    }
    .await;

    let passed = gpu.as_ref().is_ok_and(|(shape, values)| {
        *shape == cpu_shape
            && values.len() == cpu.len()
            && values.iter().zip(&cpu).all(|(g, c)| g.bits() == c.bits())
    });
    Case {
        id,
        op,
        data_type: T::DATA_TYPE,
        about,
        a: shown(a_shape, a),
        b: shown(b_shape, b),
        cpu: shown(&cpu_shape, &cpu),
        gpu: gpu.map(|(shape, values)| shown(&shape, &values)),
        passed,
    }
}

/// numpy's broadcasting of `f` over two row-major tensors: the shapes are aligned at the
/// right, and a size of 1 stretches to the other's size. The shapes must be compatible.
fn broadcast<T: Copy>(
    a_shape: &[usize],
    a: &[T],
    b_shape: &[usize],
    b: &[T],
    f: impl Fn(T, T) -> T,
) -> (Vec<usize>, Vec<T>) {
    let rank = a_shape.len().max(b_shape.len());
    let pad = |s: &[usize]| -> Vec<usize> {
        let mut padded = vec![1; rank - s.len()];
        padded.extend_from_slice(s);
        padded
    };
    let (sa, sb) = (pad(a_shape), pad(b_shape));
    let shape: Vec<usize> = sa
        .iter()
        .zip(&sb)
        .map(|(&x, &y)| {
            assert!(
                x == y || x == 1 || y == 1,
                "{a_shape:?} and {b_shape:?} do not broadcast"
            );
            if x == 1 { y } else { x }
        })
        .collect();
    let count = shape.iter().product();
    let out = (0..count)
        .map(|mut i| {
            // Walk the output index from the innermost dimension out; a stretched input
            // dimension contributes nothing to its input's offset.
            let (mut ia, mut ib, mut stride_a, mut stride_b) = (0, 0, 1, 1);
            for d in (0..rank).rev() {
                let k = i % shape[d];
                i /= shape[d];
                if sa[d] != 1 {
                    ia += k * stride_a;
                }
                if sb[d] != 1 {
                    ib += k * stride_b;
                }
                stride_a *= sa[d];
                stride_b *= sb[d];
            }
            f(a[ia], b[ib])
        })
        .collect();
    (shape, out)
}

fn shown<T: Value>(shape: &[usize], values: &[T]) -> Shown {
    let items: Vec<String> = values.iter().map(|v| v.show()).collect();
    Shown {
        shape: shape.to_vec(),
        text: nested(shape, &items),
    }
}

/// `items` in brackets nested by `shape`: `[[1, 2], [3, 4]]` for `[2, 2]`.
fn nested(shape: &[usize], items: &[String]) -> String {
    match shape {
        [] => items.first().cloned().unwrap_or_default(),
        [_] => format!("[{}]", items.join(", ")),
        [n, inner @ ..] => {
            let step = if *n == 0 { 0 } else { items.len() / n };
            let parts: Vec<String> = (0..*n)
                .map(|i| nested(inner, &items[i * step..(i + 1) * step]))
                .collect();
            format!("[{}]", parts.join(", "))
        }
    }
}

/// The adapter behind `ctx`, as rows of (what, value): what wgpu reports, and the limits
/// that matter to the operators. Fields the platform leaves empty are left out (a browser
/// gives no driver; WebGPU's adapter name is the browser's `GPUAdapterInfo.description`,
/// which may be empty).
pub fn adapter_rows(ctx: &Context) -> Vec<(&'static str, String)> {
    let info = ctx.adapter_info();
    let limits = ctx.device().limits();
    let mut rows = Vec::new();
    if !info.name.is_empty() {
        rows.push(("name", info.name.clone()));
    }
    rows.push(("backend", format!("{:?}", info.backend)));
    rows.push(("device type", format!("{:?}", info.device_type)));
    if !info.driver.is_empty() {
        rows.push(("driver", info.driver.clone()));
    }
    if !info.driver_info.is_empty() {
        rows.push(("driver info", info.driver_info.clone()));
    }
    rows.push((
        "max storage binding",
        mib(limits.max_storage_buffer_binding_size),
    ));
    rows.push(("max buffer", mib(limits.max_buffer_size)));
    rows
}

fn mib(bytes: impl Into<u64>) -> String {
    let bytes: u64 = bytes.into();
    format!("{} MiB ({bytes} bytes)", bytes >> 20)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcast_follows_numpy() {
        let (shape, out) = broadcast(
            &[2, 1, 3],
            &[1, 2, 3, 4, 5, 6],
            &[2, 1],
            &[0, -1],
            |x, y| x ^ y,
        );
        assert_eq!(shape, [2, 2, 3]);
        assert_eq!(out, [1, 2, 3, -2, -3, -4, 4, 5, 6, -5, -6, -7]);
        let (shape, out) = broadcast(&[], &[5], &[3], &[1, 2, 3], |x, y| x * y);
        assert_eq!(shape, [3]);
        assert_eq!(out, [5, 10, 15]);
    }

    #[test]
    fn nested_follows_the_shape() {
        let items: Vec<String> = (1..=6).map(|i| i.to_string()).collect();
        assert_eq!(nested(&[2, 3], &items), "[[1, 2, 3], [4, 5, 6]]");
        assert_eq!(nested(&[3, 1, 2], &items), "[[[1, 2]], [[3, 4]], [[5, 6]]]");
        assert_eq!(nested(&[], &items[..1]), "1");
        assert_eq!(nested(&[0, 2], &[]), "[]");
    }

    #[test]
    fn f16_shows_its_bits() {
        assert_eq!(f16::NEG_ZERO.show(), "-0 (0x8000)");
        assert_eq!(f16::from_bits(0x7c01).show(), "NaN (0x7c01)");
        assert_eq!(f16::from_bits(0x0001).show(), "5.9604645e-8 (0x0001)");
        assert_eq!(f16::ONE.show(), "1 (0x3c00)");
    }
}
