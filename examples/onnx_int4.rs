//! An ONNX subgraph fused into one kernel: the unpacking of int4 weights, `BitShift RIGHT`
//! by 4 then `BitwiseAnd` with 0x0F (the high nibbles) and `BitwiseAnd` with 0x0F alone (the
//! low ones), each fused with `fuse_onnx` and run as one `Fused` call, and checked byte for
//! byte against the same ONNX nodes run one by one as the table's operators (OpenVINO's
//! `BitwiseRightShift-15` and `BitwiseAnd-13`, which the table lists for ONNX's `BitShift`
//! and `BitwiseAnd-18`) with the constants as broadcast scalars.
//!
//! `cargo run --release --example onnx_int4`

#![allow(
    clippy::disallowed_methods,
    reason = "a program waits for the device; the lint keeps blocking calls out of the library"
)]

use gpu_xor::desc::onnx::{OnnxGraph, OnnxNode, fuse_onnx};
use gpu_xor::{
    AutoBroadcast, Context, DataType, Error, ExprBindings, Fused, OvBinaryOp, Tensor, TensorDesc,
};

/// The packed weights: 64 Ki bytes, two int4 values each.
const WEIGHTS: usize = 1 << 16;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = Context::from_env()?;
    let info = ctx.adapter_info();
    println!("adapter: {} ({:?})", info.name, info.backend);

    let t = TensorDesc::new(DataType::U8, &[WEIGHTS as u32]);
    let high = OnnxGraph {
        inputs: vec![("w".into(), t.clone())],
        initializers: vec![
            ("four".into(), DataType::U8, 4),
            ("mask".into(), DataType::U8, 0x0F),
        ],
        nodes: vec![
            OnnxNode::bit_shift("RIGHT", &["w", "four"], "shifted"),
            OnnxNode::new("BitwiseAnd", &["shifted", "mask"], "high"),
        ],
        output: ("high".into(), t.clone()),
    };
    let low = OnnxGraph {
        nodes: vec![OnnxNode::new("BitwiseAnd", &["w", "mask"], "low")],
        output: ("low".into(), t.clone()),
        ..high.clone()
    };

    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let weights: Vec<u8> = (0..WEIGHTS)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            (state >> 56) as u8
        })
        .collect();
    let w = Tensor::from_slice(&ctx, &[WEIGHTS], &weights)?;

    for (name, graph) in [("high nibbles", &high), ("low nibbles", &low)] {
        // Fused: one kernel, one pass.
        let fused = Fused::new(&ctx, &fuse_onnx(graph)?)?;
        let out = Tensor::zeros(&ctx, DataType::U8, &[WEIGHTS])?;
        fused.run(&ExprBindings::new(&[w.binding()], out.binding()))?;
        let got = out.to_vec::<u8>()?;

        // The nodes one by one, each an operator of the table.
        let one_by_one = run_nodes(&ctx, graph, &w)?;
        assert_eq!(got, one_by_one, "{name}: fused and node by node differ");
        let expected: Vec<u8> = weights
            .iter()
            .map(|&b| {
                if name == "high nibbles" {
                    b >> 4
                } else {
                    b & 0x0F
                }
            })
            .collect();
        assert_eq!(got, expected, "{name}");
        println!(
            "{name}: {} bytes fused in one kernel ({:?}), equal to the {} nodes run one by one; first {:02x?}",
            WEIGHTS,
            fused.plan().kernel(),
            graph.nodes.len(),
            &got[..8]
        );
    }
    Ok(())
}

/// Runs `graph`'s nodes in order, each as the table's operator, every initializer a scalar
/// tensor broadcast by numpy's rule.
fn run_nodes(ctx: &Context, graph: &OnnxGraph, w: &Tensor) -> Result<Vec<u8>, Error> {
    let mut names: Vec<String> = Vec::new();
    let mut tensors: Vec<Tensor> = Vec::new();
    for (name, _, bits) in &graph.initializers {
        names.push(name.clone());
        tensors.push(Tensor::from_slice(ctx, &[], &[*bits as u8])?);
    }
    for node in &graph.nodes {
        let op = match node.op_type.as_str() {
            "BitShift" => OvBinaryOp::BitwiseRightShift,
            "BitwiseAnd" => OvBinaryOp::BitwiseAnd,
            other => unreachable!("{other} is not in these graphs"),
        };
        let get = |n: &str| -> &Tensor {
            if n == graph.inputs[0].0 {
                return w;
            }
            let k = names
                .iter()
                .rposition(|m| m == n)
                .expect("a value the graph defines");
            &tensors[k]
        };
        let out = ctx.ov_binary(
            op,
            get(&node.inputs[0]),
            get(&node.inputs[1]),
            AutoBroadcast::Numpy,
        )?;
        names.push(node.output.clone());
        tensors.push(out);
    }
    tensors.last().expect("a node").to_vec::<u8>()
}
