//! One operator of each kind on the default adapter: a DirectML NOT (BIT_NOT's own example), a
//! DirectML binary operator compiled once and submitted on tensors' bindings, an OpenVINO
//! operator with numpy broadcasting, and XOR on floats, 64-bit integers and truth values.
//!
//! `cargo run --release --example quickstart`
//!
//! The BIT_XOR document's example is BIT_NOT's, copied; as XOR it holds with B = all 255.

#![allow(
    clippy::disallowed_methods,
    reason = "a program waits for the device; the lint keeps blocking calls out of the library"
)]

use gpu_xor::{
    AutoBroadcast, Bindings, Context, DataType, DmlBinary, DmlBinaryDesc, DmlBinaryOp, Error,
    OvBinaryOp, Tensor,
};
use half::f16;

fn main() -> Result<(), Error> {
    let ctx = Context::from_env()?;
    let info = ctx.adapter_info();
    println!(
        "adapter: {} ({:?}, {:?})",
        info.name, info.backend, info.device_type
    );

    // DML_ELEMENT_WISE_BIT_NOT's example: Sizes {2,2}, UINT8.
    let a = Tensor::from_slice(&ctx, &[2, 2], &[0u8, 128, 42, 255])?;
    let not = ctx.bit_not(&a)?;
    println!(
        "BIT_NOT u8   {:?} = {:?}",
        a.to_vec::<u8>()?,
        not.to_vec::<u8>()?
    );
    assert_eq!(not.to_vec::<u8>()?, [255, 127, 213, 0]);

    // The same as DML_ELEMENT_WISE_BIT_XOR with B = all 255.
    let b = Tensor::from_slice(&ctx, &[2, 2], &[255u8; 4])?;
    let out = ctx.bit_xor(&a, &b)?;
    println!(
        "BIT_XOR u8   {:?} ^ {:?} = {:?}",
        a.to_vec::<u8>()?,
        b.to_vec::<u8>()?,
        out.to_vec::<u8>()?
    );
    assert_eq!(out.to_vec::<u8>()?, [255, 127, 213, 0]);

    // DML_ELEMENT_WISE_BIT_AND, compiled once (every description rule checked here) and
    // submitted on the tensors' own buffers; a runtime records it into its own encoder.
    let and = DmlBinary::new(
        &ctx,
        &DmlBinaryDesc::packed(DmlBinaryOp::BitAnd, DataType::U16, &[4]),
    )?;
    let x = Tensor::from_slice(&ctx, &[4], &[0xffffu16, 0xf0f0, 0x1234, 0])?;
    let y = Tensor::from_slice(&ctx, &[4], &[0x00ffu16, 0xff00, 0xffff, 0xffff])?;
    let z = Tensor::zeros(&ctx, DataType::U16, &[4])?;
    and.submit(&Bindings::new(x.binding(), y.binding(), z.binding()))?;
    println!("BIT_AND u16  = {:04x?}", z.to_vec::<u16>()?);
    assert_eq!(z.to_vec::<u16>()?, [0x00ff, 0xf000, 0x1234, 0]);

    // OpenVINO BitwiseAnd-13, numpy broadcasting: [2, 3] & [3].
    let x = Tensor::from_slice(&ctx, &[2, 3], &[1i32, 2, 3, -4, -5, -6])?;
    let y = Tensor::from_slice(&ctx, &[3], &[-1i32, 1, 0])?;
    let z = ctx.ov_binary(OvBinaryOp::BitwiseAnd, &x, &y, AutoBroadcast::Numpy)?;
    println!("BitwiseAnd i32 [2,3] & [3] = {:?}", z.to_vec::<i32>()?);
    assert_eq!(z.to_vec::<i32>()?, [1, 0, 0, -4, 1, 0]);

    // Floats are never loaded as floats: -0.0, infinities and NaN payloads pass through.
    let x = [
        f16::NEG_ZERO,
        f16::INFINITY,
        f16::from_bits(0x7c01),
        f16::ONE,
    ];
    let y = [f16::ZERO, f16::ZERO, f16::from_bits(0x0001), f16::ONE];
    let z = ctx.bit_xor(
        &Tensor::from_slice(&ctx, &[4], &x)?,
        &Tensor::from_slice(&ctx, &[4], &y)?,
    )?;
    let bits: Vec<String> = z
        .to_vec::<f16>()?
        .iter()
        .map(|v| format!("{:#06x}", v.to_bits()))
        .collect();
    println!("BIT_XOR f16  bits = {bits:?}");

    let x = [i64::MIN, -1, 0x4000_0000_0000_0000, 7];
    let y = [-1i64, i64::MAX, -0x4000_0000_0000_0000, 7];
    let z = ctx.bit_xor(
        &Tensor::from_slice(&ctx, &[4], &x)?,
        &Tensor::from_slice(&ctx, &[4], &y)?,
    )?;
    println!("BIT_XOR i64  {x:?} ^ {y:?} = {:?}", z.to_vec::<i64>()?);

    // DML_ELEMENT_WISE_LOGICAL_XOR reads each element at full width: 0x100 is true.
    let x = [0u32, 0x100, 7, 0];
    let y = [0u32, 0, 0xffff_ff00, 1];
    let z = ctx.logical_xor(
        &Tensor::from_slice(&ctx, &[4], &x)?,
        &Tensor::from_slice(&ctx, &[4], &y)?,
    )?;
    println!("LOGICAL_XOR  {x:?} ^ {y:?} = {:?}", z.to_vec::<u32>()?);

    // OpenVINO BitwiseXor-13 with numpy broadcasting.
    let a = Tensor::from_slice(&ctx, &[2], &[21u8, 120])?;
    let b = Tensor::from_slice(&ctx, &[2], &[3u8, 37])?;
    println!(
        "BitwiseXor u8  [21, 120] ^ [3, 37] = {:?}",
        ctx.bitwise_xor(&a, &b, AutoBroadcast::Numpy)?
            .to_vec::<u8>()?
    );
    let a = Tensor::from_bools(&ctx, &[3], &[true, false, false])?;
    let b = Tensor::from_bools(&ctx, &[3], &[true, true, false])?;
    println!(
        "BitwiseXor bool [T, F, F] ^ [T, T, F] = {:?}",
        ctx.bitwise_xor(&a, &b, AutoBroadcast::Numpy)?.to_bools()?
    );
    let a = Tensor::from_slice(&ctx, &[2, 1, 3], &[1i32, 2, 3, 4, 5, 6])?;
    let b = Tensor::from_slice(&ctx, &[2, 1], &[0i32, -1])?;
    let z = ctx.bitwise_xor(&a, &b, AutoBroadcast::Numpy)?;
    println!(
        "BitwiseXor i32 [2,1,3] ^ [2,1] -> {:?} = {:?}",
        z.shape(),
        z.to_vec::<i32>()?
    );
    Ok(())
}
