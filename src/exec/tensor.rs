//! Typed GPU tensors: upload from and read back to host slices.

use half::f16;

use super::binding::{TensorBinding, require_usage};
use super::context::Context;
use crate::desc::TensorName;
use crate::desc::{DataType, TensorDesc};
use crate::error::{Error, WgpuError};

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

/// A typed tensor on the GPU: a buffer, the tensor's place in it, its type and shape.
///
/// A tensor made by [`Tensor::from_slice`], [`Tensor::from_bytes`], [`Tensor::from_bools`] or
/// [`Tensor::zeros`] is packed in a buffer of its own, with `STORAGE | COPY_SRC | COPY_DST`
/// usage and a size rounded up to 16 bytes. [`Tensor::from_buffer`] and [`Tensor::view`] put a
/// tensor on a buffer of the caller's, without a copy: packed from offset 0, or at a byte
/// offset with element strides.
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
    /// Byte offset of the first element in the buffer.
    offset: u64,
    /// Element strides; `None` when the elements are packed row-major.
    strides: Option<Vec<usize>>,
    /// Bytes from `offset` that the elements reach (the end of the last element); 0 without
    /// elements.
    span: u64,
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
                .map_err(|e| ctx.shared.lost_or(Error::Map(WgpuError::new(e))))?;
            view.slice(..bytes.len()).copy_from_slice(bytes);
            view.slice(bytes.len()..).fill(0);
        }
        crate::scope::unmap(&ctx.shared.device, &buffer);
        Ok(Tensor::packed(ctx, buffer, data_type, shape, size))
    }

    /// A tensor of zeros.
    pub fn zeros(ctx: &Context, data_type: DataType, shape: &[usize]) -> Result<Tensor, Error> {
        let (_, size) = sizes(data_type, shape)?;
        let buffer = create(ctx, size, false)?;
        // wgpu makes an invalid buffer on a lost device without any error: check the device.
        if let Some(lost) = ctx.shared.lost() {
            return Err(lost);
        }
        Ok(Tensor::packed(ctx, buffer, data_type, shape, size))
    }

    /// A packed tensor over `buffer`, a buffer of the caller's, from offset 0: no copy and no
    /// allocation. [`Tensor::view`] with offset 0 and no strides.
    ///
    /// The buffer needs `wgpu::BufferUsages::STORAGE` ([`Error::MissingUsage`] otherwise), and
    /// `COPY_SRC` only to be read back. It must hold the tensor's bytes rounded up to 4
    /// ([`Error::ViewOutOfBounds`] otherwise). The operators write only the tensor's
    /// elements: the buffer's other bytes keep their values.
    ///
    /// ```no_run
    /// use gpu_xor::{Context, DataType, Tensor};
    ///
    /// # fn main() -> Result<(), gpu_xor::Error> {
    /// let ctx = Context::from_env()?;
    /// let buffer = ctx.device().create_buffer(&wgpu::BufferDescriptor {
    ///     label: Some("my runtime's buffer"),
    ///     size: 256,
    ///     usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    ///     mapped_at_creation: false,
    /// });
    /// let out = Tensor::from_buffer(&ctx, buffer, DataType::U16, &[4, 8])?; // 64 bytes of 256
    /// let a = Tensor::from_slice(&ctx, &[4, 8], &[0x00ffu16; 32])?;
    /// let b = Tensor::from_slice(&ctx, &[4, 8], &[0xffffu16; 32])?;
    /// ctx.bit_xor_into(&a, &b, &out)?;
    /// assert_eq!(out.to_vec::<u16>()?, [0xff00u16; 32]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn from_buffer(
        ctx: &Context,
        buffer: wgpu::Buffer,
        data_type: DataType,
        shape: &[usize],
    ) -> Result<Tensor, Error> {
        Tensor::view(ctx, buffer, data_type, shape, 0, None)
    }

    /// A tensor over `buffer`, a buffer of the caller's, whose first element lies at byte
    /// `offset` and whose elements lie `strides` elements apart, one stride per dimension
    /// (`None` for packed row-major): no copy and no allocation. As in a DirectML buffer
    /// tensor, a stride of 0 repeats an element and larger strides leave padding; the
    /// operators write only the elements, never the padding.
    ///
    /// Checked here:
    /// 1. the buffer has `wgpu::BufferUsages::STORAGE` ([`Error::MissingUsage`]);
    /// 2. `strides`, when given, has one entry per dimension
    ///    ([`Error::StridesLengthMismatch`]);
    /// 3. the bytes the elements reach fit in 64 bits ([`Error::SizeOverflow`]);
    /// 4. the range a call binds, `[offset, offset + TotalTensorSizeInBytes)`
    ///    (`DMLCalcBufferTensorSize`, the reach rounded up to 4), and the whole words a
    ///    read-back copies lie inside the buffer ([`Error::ViewOutOfBounds`]).
    ///
    /// The view is not bound to an operand yet, so these errors name it `ATensor`, as
    /// [`TensorDesc::min_buffer_size`] does.
    ///
    /// What each operator takes is checked when it is called: a DirectML operator needs
    /// `offset` to be a multiple of 16 ([`crate::desc::MINIMUM_BUFFER_TENSOR_ALIGNMENT`];
    /// [`Error::BindingOffsetMisaligned`] otherwise) and takes any strides it allows; OpenVINO's
    /// BitwiseXor takes dense tensors only, so [`Context::bitwise_xor`] takes a view at an
    /// offset that is a multiple of 4 and of the element size, and refuses strides. Strides
    /// that describe the packed layout are the packed layout: [`Tensor::strides`] is then
    /// `None`.
    ///
    /// Read-back ([`Tensor::to_vec`], [`Tensor::to_vec_async`], ...) copies the range the
    /// elements cover once and returns the elements in row-major order.
    ///
    /// ```no_run
    /// use gpu_xor::{Context, DataType, Tensor};
    ///
    /// # fn main() -> Result<(), gpu_xor::Error> {
    /// let ctx = Context::from_env()?;
    /// let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
    /// let buffer = ctx.device().create_buffer(&wgpu::BufferDescriptor {
    ///     label: None,
    ///     size: 1024,
    ///     usage: usage | wgpu::BufferUsages::COPY_DST,
    ///     mapped_at_creation: false,
    /// });
    /// ctx.queue().write_buffer(&buffer, 0, &[7u8; 1024]);
    /// // Rows of 8 elements, 5 used, from byte 256.
    /// let a = Tensor::view(&ctx, buffer.clone(), DataType::F16, &[4, 5], 256, Some(&[8, 1]))?;
    /// // A 4 x 5 output at byte 512 of the same buffer, packed.
    /// let out = Tensor::view(&ctx, buffer, DataType::F16, &[4, 5], 512, None)?;
    /// ctx.bit_xor_into(&a, &a, &out)?; // writes 40 bytes, nothing else
    /// assert_eq!(out.to_bytes()?, [0u8; 40]);
    /// assert_eq!(a.to_bytes()?, [7u8; 40]); // the 20 elements, in row-major order
    /// # Ok(())
    /// # }
    /// ```
    pub fn view(
        ctx: &Context,
        buffer: wgpu::Buffer,
        data_type: DataType,
        shape: &[usize],
        offset: u64,
        strides: Option<&[usize]>,
    ) -> Result<Tensor, Error> {
        // Check 1.
        require_usage(&buffer, None, wgpu::BufferUsages::STORAGE)?;
        // Check 2.
        if let Some(s) = strides
            && s.len() != shape.len()
        {
            return Err(Error::StridesLengthMismatch {
                tensor: TensorName::A,
                strides: s.len(),
                rank: shape.len(),
            });
        }
        let (elements, packed_bytes) = sizes(data_type, shape)?;
        let strides = strides.filter(|s| !describes_packed(shape, s));
        // Check 3.
        let span = match strides {
            None => packed_bytes,
            Some(s) => strided_span(data_type, shape, s, elements)?,
        };
        // Check 4. The bound range is what a DirectML call needs (TotalTensorSizeInBytes),
        // and what a BitwiseXor call needs for a dense view (its bytes rounded up to 4); a
        // read-back widens its range to whole words, which matters at an unaligned offset.
        let bound = span.checked_next_multiple_of(4);
        let read_end = offset
            .checked_add(span)
            .and_then(|e| e.checked_next_multiple_of(4));
        let end = bound
            .and_then(|b| offset.checked_add(b))
            .zip(read_end)
            .map(|(bound_end, read_end)| bound_end.max(read_end));
        let buffer_size = buffer.size();
        if end.is_none_or(|end| end > buffer_size) {
            return Err(Error::ViewOutOfBounds {
                offset,
                size: bound.unwrap_or(u64::MAX),
                buffer_size,
            });
        }
        Ok(Tensor {
            ctx: ctx.clone(),
            buffer,
            data_type,
            shape: shape.to_vec(),
            offset,
            strides: strides.map(<[usize]>::to_vec),
            span,
        })
    }

    /// A packed tensor at offset 0 of `buffer`, of `bytes` bytes.
    fn packed(
        ctx: &Context,
        buffer: wgpu::Buffer,
        data_type: DataType,
        shape: &[usize],
        bytes: u64,
    ) -> Tensor {
        Tensor {
            ctx: ctx.clone(),
            buffer,
            data_type,
            shape: shape.to_vec(),
            offset: 0,
            strides: None,
            span: bytes,
        }
    }

    /// Reads the elements back as `T`, which must match the tensor's type, in row-major
    /// order, blocking until they are here (native only: in a browser, or inside an async
    /// runtime, await [`Tensor::to_vec_async`]).
    ///
    /// The buffer needs `wgpu::BufferUsages::COPY_SRC` ([`Error::MissingUsage`] otherwise).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>, Error> {
        self.expect(T::DATA_TYPE)?;
        Ok(elements(&self.to_bytes()?))
    }

    /// Reads the elements back as `T`, which must match the tensor's type, in row-major
    /// order, without blocking. Work submitted before this call is seen; errors of earlier
    /// work on this context that the device reports only now (see [`Context::check_async`])
    /// are returned instead.
    ///
    /// The buffer needs `wgpu::BufferUsages::COPY_SRC` ([`Error::MissingUsage`] otherwise).
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

    /// Reads the raw element bytes back, in row-major order (native only: it blocks; see
    /// [`Tensor::to_bytes_async`]).
    ///
    /// One copy of the range the elements cover; a strided view's elements are then gathered
    /// on the host. The buffer needs `wgpu::BufferUsages::COPY_SRC` ([`Error::MissingUsage`]
    /// otherwise).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn to_bytes(&self) -> Result<Vec<u8>, Error> {
        let bytes = self.ctx.read_buffer(&self.buffer, self.offset, self.span)?;
        Ok(self.gather(bytes))
    }

    /// Reads the raw element bytes back, in row-major order, without blocking.
    pub async fn to_bytes_async(&self) -> Result<Vec<u8>, Error> {
        let bytes = self
            .ctx
            .read_buffer_async(&self.buffer, self.offset, self.span)
            .await?;
        Ok(self.gather(bytes))
    }

    /// The elements in row-major order, from the bytes `[offset, offset + span)`.
    fn gather(&self, covered: Vec<u8>) -> Vec<u8> {
        match &self.strides {
            None => covered,
            Some(strides) => gather(
                &covered,
                &self.shape,
                strides,
                self.data_type.size_in_bytes() as usize,
            ),
        }
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

    /// The binding of this tensor: its buffer from its offset, for its
    /// `TotalTensorSizeInBytes` (the bytes its elements reach, rounded up to 4).
    pub fn binding(&self) -> TensorBinding<'_> {
        TensorBinding::range(&self.buffer, self.offset, self.span.next_multiple_of(4))
    }

    /// The buffer.
    pub fn buffer(&self) -> &wgpu::Buffer {
        &self.buffer
    }

    /// The byte offset of the first element in the buffer (0 unless made by
    /// [`Tensor::view`]).
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The element strides, one per dimension; `None` when the elements are packed
    /// row-major.
    pub fn strides(&self) -> Option<&[usize]> {
        self.strides.as_deref()
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

    /// The DirectML description of this tensor: its sizes (a scalar becomes `{1}`), its
    /// strides when it has any, and `TotalTensorSizeInBytes` left at its minimum,
    /// `DMLCalcBufferTensorSize` ([`TensorDesc::total_size`] gives it): the size
    /// [`Tensor::binding`] binds.
    ///
    /// ```no_run
    /// use gpu_xor::{Context, DataType, Tensor};
    ///
    /// # fn main() -> Result<(), gpu_xor::Error> {
    /// # let ctx = Context::from_env()?;
    /// # let buffer: wgpu::Buffer = unimplemented!();
    /// let view = Tensor::view(&ctx, buffer, DataType::U16, &[2, 3], 64, Some(&[5, 1]))?;
    /// let desc = view.dml_desc()?;
    /// assert_eq!(desc.strides, Some(vec![5, 1]));
    /// assert_eq!(desc.total_size()?, 16); // (1*5 + 2*1 + 1) * 2 bytes
    /// assert_eq!((view.binding().offset, view.binding().size), (64, Some(16)));
    /// # Ok(())
    /// # }
    /// ```
    pub fn dml_desc(&self) -> Result<TensorDesc, Error> {
        let desc = self.packed_desc()?;
        match &self.strides {
            None => Ok(desc),
            Some(strides) => {
                let strides: Vec<u32> = strides
                    .iter()
                    .map(|&s| {
                        u32::try_from(s).map_err(|_| Error::SizeOverflow {
                            what: "DirectML stride",
                            value: s as u128,
                        })
                    })
                    .collect::<Result<_, _>>()?;
                Ok(desc.with_strides(&strides))
            }
        }
    }

    /// The packed DirectML description of a tensor of this type and shape (what a new output
    /// of the one-call forms is); a scalar becomes `{1}`.
    pub(crate) fn packed_desc(&self) -> Result<TensorDesc, Error> {
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
    ctx.shared.create_buffer(&wgpu::BufferDescriptor {
        label: Some("gpu-xor tensor"),
        size,
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: mapped,
    })
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

/// Whether `strides` lay `shape` out packed row-major: equal to the packed strides on every
/// dimension of more than one element (a stride on a dimension of one element is never
/// used), or no elements at all.
fn describes_packed(shape: &[usize], strides: &[usize]) -> bool {
    if shape.contains(&0) {
        return true;
    }
    let mut packed = 1usize;
    for (&n, &s) in shape.iter().zip(strides).rev() {
        if n > 1 && s != packed {
            return false;
        }
        packed = packed.saturating_mul(n);
    }
    true
}

/// Bytes from the first element that a strided tensor's elements reach:
/// `(dot(shape - 1, strides) + 1) * width`, 0 without elements, [`Error::SizeOverflow`] past
/// 64 bits.
fn strided_span(
    data_type: DataType,
    shape: &[usize],
    strides: &[usize],
    elements: usize,
) -> Result<u64, Error> {
    if elements == 0 {
        return Ok(0);
    }
    let width = u128::from(data_type.size_in_bytes());
    let span = shape
        .iter()
        .zip(strides)
        .try_fold(1u128, |acc, (&n, &s)| {
            acc.checked_add((n as u128 - 1).checked_mul(s as u128)?)
        })
        .and_then(|n| n.checked_mul(width))
        .unwrap_or(u128::MAX);
    u64::try_from(span).map_err(|_| Error::SizeOverflow {
        what: "tensor view bytes",
        value: span,
    })
}

/// The elements of a strided tensor in row-major order, from `covered`, the bytes from its
/// first element. Whole rows are copied at once where the last dimension is contiguous.
fn gather(covered: &[u8], shape: &[usize], strides: &[usize], width: usize) -> Vec<u8> {
    let count: usize = shape.iter().product();
    let mut out = Vec::with_capacity(count * width);
    if count == 0 {
        return out;
    }
    // The last dimension as one row when it is contiguous, else one element at a time.
    let rank = shape.len();
    let (outer, row) = if strides[rank - 1] == 1 {
        (rank - 1, shape[rank - 1] * width)
    } else {
        (rank, width)
    };
    let mut index = vec![0usize; outer];
    let mut at = 0usize;
    loop {
        out.extend_from_slice(&covered[at * width..at * width + row]);
        // The next index in row-major order, and its element offset.
        let mut d = outer;
        loop {
            if d == 0 {
                return out;
            }
            d -= 1;
            // Wrapping: a dimension of one element may have any stride, which is added and
            // taken away again; every offset reached in between is an element's.
            index[d] += 1;
            at = at.wrapping_add(strides[d]);
            if index[d] < shape[d] {
                break;
            }
            at = at.wrapping_sub(strides[d].wrapping_mul(shape[d]));
            index[d] = 0;
        }
    }
}
