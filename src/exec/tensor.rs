//! Typed GPU tensors: upload from and read back to host slices.

use half::f16;

use super::binding::TensorBinding;
use super::context::Context;
use crate::desc::{DataType, TensorDesc};
use crate::error::Error;
use crate::scope::{Explain, capture};

mod sealed {
    pub trait Sealed {}
}

/// A host element type with a matching [`DataType`]: `u8`, `i8`, `u16`, `i16`, `u32`, `i32`,
/// `u64`, `i64`, `half::f16`, `f32`, `f64`. Booleans go through [`Tensor::from_bools`].
pub trait Element: bytemuck::Pod + sealed::Sealed {
    /// The tensor type that holds this host type.
    const DATA_TYPE: DataType;
}

macro_rules! element {
    ($($t:ty => $dt:ident),* $(,)?) => {
        $(
            impl sealed::Sealed for $t {}
            impl Element for $t {
                const DATA_TYPE: DataType = DataType::$dt;
            }
        )*
    };
}

element!(
    u8 => U8, i8 => I8, u16 => U16, i16 => I16, u32 => U32, i32 => I32,
    u64 => U64, i64 => I64, f16 => F16, f32 => F32, f64 => F64,
);

/// A packed tensor in a buffer of its own, with its type and shape.
///
/// The buffer has `STORAGE | COPY_SRC | COPY_DST` usage and a size rounded up to 16 bytes.
///
/// ```no_run
/// use gpu_xor::{Context, Tensor};
///
/// # fn main() -> Result<(), gpu_xor::Error> {
/// let ctx = Context::from_env()?;
/// let a = Tensor::from_slice(&ctx, &[2, 2], &[0u8, 128, 42, 255])?;
/// let b = Tensor::from_slice(&ctx, &[2, 2], &[255u8; 4])?;
/// let out = ctx.bit_xor(&a, &b)?;
/// assert_eq!(out.to_vec::<u8>()?, [255, 127, 213, 0]);
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct Tensor {
    ctx: Context,
    buffer: wgpu::Buffer,
    data_type: DataType,
    shape: Vec<usize>,
    bytes: u64,
}

impl Tensor {
    /// Uploads `data`, laid out row-major in `shape`.
    pub fn from_slice<T: Element>(
        ctx: &Context,
        shape: &[usize],
        data: &[T],
    ) -> Result<Tensor, Error> {
        Tensor::from_bytes(ctx, T::DATA_TYPE, shape, bytemuck::cast_slice(data))
    }

    /// Uploads booleans as 0/1 bytes into a [`DataType::Bool`] tensor.
    pub fn from_bools(ctx: &Context, shape: &[usize], data: &[bool]) -> Result<Tensor, Error> {
        let bytes: Vec<u8> = data.iter().map(|&b| u8::from(b)).collect();
        Tensor::from_bytes(ctx, DataType::Bool, shape, &bytes)
    }

    /// Uploads raw element bytes (little-endian bit patterns) of `data_type`.
    pub fn from_bytes(
        ctx: &Context,
        data_type: DataType,
        shape: &[usize],
        bytes: &[u8],
    ) -> Result<Tensor, Error> {
        let (elements, size) = sizes(data_type, shape)?;
        let width = data_type.size_in_bytes() as usize;
        if bytes.len() != elements * width {
            return Err(Error::DataLength {
                shape: shape.to_vec(),
                expected: elements,
                found: bytes.len() / width,
            });
        }
        let buffer = create(ctx, size, true)?;
        {
            // On a lost device the buffer is invalid and its mapping fails.
            let mut view = buffer
                .get_mapped_range_mut(..)
                .map_err(|e| ctx.shared.lost_or(Error::Map(e.to_string())))?;
            view.slice(..bytes.len()).copy_from_slice(bytes);
            view.slice(bytes.len()..).fill(0);
        }
        buffer.unmap();
        Ok(Tensor {
            ctx: ctx.clone(),
            buffer,
            data_type,
            shape: shape.to_vec(),
            bytes: size,
        })
    }

    /// A tensor of zeros.
    pub fn zeros(ctx: &Context, data_type: DataType, shape: &[usize]) -> Result<Tensor, Error> {
        let (_, size) = sizes(data_type, shape)?;
        let buffer = create(ctx, size, false)?;
        // wgpu makes an invalid buffer on a lost device without any error: check the device.
        if let Some(lost) = ctx.shared.lost() {
            return Err(lost);
        }
        Ok(Tensor {
            ctx: ctx.clone(),
            buffer,
            data_type,
            shape: shape.to_vec(),
            bytes: size,
        })
    }

    /// Reads the elements back as `T`, which must match the tensor's type, blocking until
    /// they are here (native only: in a browser, or inside an async runtime, await
    /// [`Tensor::to_vec_async`]).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>, Error> {
        self.expect(T::DATA_TYPE)?;
        Ok(elements(&self.to_bytes()?))
    }

    /// Reads the elements back as `T`, which must match the tensor's type, without blocking.
    /// Work submitted before this call is seen; errors of earlier work on this context that
    /// the device reports only now (see [`Context::check_async`]) are returned instead.
    pub async fn to_vec_async<T: Element>(&self) -> Result<Vec<T>, Error> {
        self.expect(T::DATA_TYPE)?;
        Ok(elements(&self.to_bytes_async().await?))
    }

    /// Reads a [`DataType::Bool`] tensor back; any nonzero byte reads as true (native only:
    /// it blocks; see [`Tensor::to_bools_async`]).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn to_bools(&self) -> Result<Vec<bool>, Error> {
        self.expect(DataType::Bool)?;
        Ok(self.to_bytes()?.into_iter().map(|b| b != 0).collect())
    }

    /// Reads a [`DataType::Bool`] tensor back without blocking; any nonzero byte reads as
    /// true.
    pub async fn to_bools_async(&self) -> Result<Vec<bool>, Error> {
        self.expect(DataType::Bool)?;
        Ok(self
            .to_bytes_async()
            .await?
            .into_iter()
            .map(|b| b != 0)
            .collect())
    }

    /// Reads the raw element bytes back (native only: it blocks; see
    /// [`Tensor::to_bytes_async`]).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn to_bytes(&self) -> Result<Vec<u8>, Error> {
        let mut bytes = self.ctx.read_buffer(&self.buffer, 0, self.read_size())?;
        bytes.truncate(self.bytes as usize);
        Ok(bytes)
    }

    /// Reads the raw element bytes back without blocking.
    pub async fn to_bytes_async(&self) -> Result<Vec<u8>, Error> {
        let mut bytes = self
            .ctx
            .read_buffer_async(&self.buffer, 0, self.read_size())
            .await?;
        bytes.truncate(self.bytes as usize);
        Ok(bytes)
    }

    /// The bytes a read-back copies: the elements, widened to whole words (the buffer is
    /// rounded up to 16 bytes, so they lie within it).
    fn read_size(&self) -> u64 {
        self.bytes.div_ceil(4) * 4
    }

    /// [`Error::TensorTypeMismatch`] unless the tensor holds `requested`.
    fn expect(&self, requested: DataType) -> Result<(), Error> {
        if requested == self.data_type {
            Ok(())
        } else {
            Err(Error::TensorTypeMismatch {
                actual: self.data_type,
                requested,
            })
        }
    }

    /// The binding of this tensor: its whole buffer.
    pub fn binding(&self) -> TensorBinding<'_> {
        TensorBinding::new(&self.buffer)
    }

    /// The buffer.
    pub fn buffer(&self) -> &wgpu::Buffer {
        &self.buffer
    }

    /// The element type.
    pub fn data_type(&self) -> DataType {
        self.data_type
    }

    /// The shape (empty for a scalar).
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The number of elements.
    pub fn element_count(&self) -> usize {
        self.shape.iter().product()
    }

    /// The packed DirectML description of this tensor; a scalar becomes `{1}`.
    pub fn dml_desc(&self) -> Result<TensorDesc, Error> {
        let sizes: Vec<u32> = if self.shape.is_empty() {
            vec![1]
        } else {
            self.shape
                .iter()
                .map(|&d| {
                    u32::try_from(d).map_err(|_| Error::SizeOverflow {
                        what: "DirectML size",
                        value: d as u128,
                    })
                })
                .collect::<Result<_, _>>()?
        };
        Ok(TensorDesc::new(self.data_type, &sizes))
    }
}

/// A tensor's buffer: `bytes` rounded up to 16, checked against the device's
/// `max_buffer_size` before anything is allocated (on the device or the host), allocation
/// failures returned rather than raised.
fn create(ctx: &Context, bytes: u64, mapped: bool) -> Result<wgpu::Buffer, Error> {
    let size = bytes.div_ceil(16).max(1) * 16;
    let limit = ctx.device().limits().max_buffer_size;
    if size > limit {
        return Err(Error::BufferTooLarge { bytes: size, limit });
    }
    let allocation: Explain = |e| Error::Allocation(e.to_string());
    capture(ctx.device(), &ctx.shared.late, allocation, || {
        ctx.device().create_buffer(&wgpu::BufferDescriptor {
            label: Some("gpu-xor tensor"),
            size,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: mapped,
        })
    })
    .map_err(|e| ctx.shared.lost_or(Error::Allocation(e.to_string())))
}

/// Little-endian element bytes as `T`s.
fn elements<T: Element>(bytes: &[u8]) -> Vec<T> {
    bytes
        .chunks_exact(std::mem::size_of::<T>())
        .map(bytemuck::pod_read_unaligned)
        .collect()
}

/// Element count and byte size of a packed tensor, checked for overflow.
fn sizes(data_type: DataType, shape: &[usize]) -> Result<(usize, u64), Error> {
    let overflow = || Error::SizeOverflow {
        what: "tensor bytes",
        value: shape.iter().map(|&d| d as u128).product::<u128>()
            * u128::from(data_type.size_in_bytes()),
    };
    let elements = shape
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .ok_or_else(overflow)?;
    let bytes = (elements as u64)
        .checked_mul(u64::from(data_type.size_in_bytes()))
        .ok_or_else(overflow)?;
    Ok((elements, bytes))
}
