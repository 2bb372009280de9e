//! The DirectML BIT_XOR document's example, and a few more types, on the default adapter.
//!
//! `cargo run --release --example quickstart`
//!
//! The document shows one input and a NOT-like output (it is BIT_NOT's example, copied); as
//! XOR it holds with B = all 255.

#![allow(
    clippy::disallowed_methods,
    reason = "a program waits for the device; the lint keeps blocking calls out of the library"
)]

use gpu_xor::{AutoBroadcast, Context, Error, Tensor};
use half::f16;

fn main() -> Result<(), Error> {
    let ctx = Context::from_env()?;
    let info = ctx.adapter_info();
    println!(
        "adapter: {} ({:?}, {:?})",
        info.name, info.backend, info.device_type
    );

    // DML_ELEMENT_WISE_BIT_XOR, Sizes {2,2}, UINT8.
    let a = Tensor::from_slice(&ctx, &[2, 2], &[0u8, 128, 42, 255])?;
    let b = Tensor::from_slice(&ctx, &[2, 2], &[255u8; 4])?;
    let out = ctx.bit_xor(&a, &b)?;
    println!(
        "BIT_XOR u8   {:?} ^ {:?} = {:?}",
        a.to_vec::<u8>()?,
        b.to_vec::<u8>()?,
        out.to_vec::<u8>()?
    );
    assert_eq!(out.to_vec::<u8>()?, [255, 127, 213, 0]);

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
