//! The graph benchmark, shared by the criterion group `graph` (`benches/benches/xor.rs`) and
//! the report's "Graph" section: a model's worth of prepared calls recorded into one compute
//! pass every frame, against the same frame of bare dispatches.
//!
//! The generator is fixed and seeded (splitmix64), so every run builds the same graphs:
//!
//! - node `i` has type `[u8, i32, f16, i64, u32][i % 5]` and shape `[1, C, H, W]` with `H = W`,
//!   C and H drawn uniformly from the mix's ranges;
//! - `i % 3 == 0`: BIT_XOR on three packed tensors of its own;
//! - `i % 3 == 1`: BIT_XOR in place, the output bound on A's range;
//! - `i % 3 == 2`: BitwiseXor-13, numpy broadcast `[1, C, H, W] ^ [1, C, 1, 1]` (BitwiseXor has
//!   no float type: f16 nodes run as u16, the same bytes).
//!
//! Every node has buffers of its own, filled with bytes of a fixed pattern, as a model's
//! activations would. The bare frame runs the bare `vec4<u32>` XOR kernel (`bare_xor.wgsl`:
//! one pipeline for the frame, one bind group and one dispatch per node, made outside the
//! timing) over each node's output bytes, on the same buffers: A and B into the output for a
//! packed node; for an in-place node B and a spare buffer of A's size into A (WebGPU forbids
//! A bound read-only and writable in one dispatch: the same bytes move); for a broadcast node
//! A and B's own small buffer into the output (reads past B's end are clamped to it by the
//! shader's bounds checks, so B costs what the library's B costs: a few cached bytes).

use std::time::{Duration, Instant};

use crate::timing::frame;

use gpu_xor::Graph as Flat;
use gpu_xor::inspect::TuningKey;
use gpu_xor::{
    Bindings, BitXorDesc, BitwiseXorDesc, CompiledOperator, Context, DataType, DmlBinary, OvBinary,
    Prepared, TensorBinding, TuningReport,
};
use gpu_xor_testkit::SplitMix64;

/// The two mixes of the issue: a model (300 nodes) and many small tensors (10,000 nodes).
#[derive(Clone, Copy, Debug)]
pub struct Mix {
    /// The mix's name in the report.
    pub name: &'static str,
    /// How many nodes.
    pub nodes: usize,
    /// C drawn in `channels.0..channels.1`.
    pub channels: (u64, u64),
    /// H = W drawn in `side.0..side.1`.
    pub side: (u64, u64),
}

/// 300 nodes, `[1, C, H, W]` with C in 16..128 and H = W in 7..56.
pub const MODEL: Mix = Mix {
    name: "300 nodes",
    nodes: 300,
    channels: (16, 128),
    side: (7, 56),
};

/// 10,000 nodes, C in 8..32 and H = W in 4..14.
pub const SMALL: Mix = Mix {
    name: "10,000 nodes",
    nodes: 10_000,
    channels: (8, 32),
    side: (4, 14),
};

/// What a node computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// BIT_XOR on three packed tensors.
    Packed,
    /// BIT_XOR with the output bound on A's range.
    InPlace,
    /// BitwiseXor-13, `[1, C, H, W] ^ [1, C, 1, 1]`.
    Broadcast,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Packed => "packed BIT_XOR",
            Kind::InPlace => "BIT_XOR in place",
            Kind::Broadcast => "BitwiseXor-13 channel broadcast",
        }
    }
}

/// One node of a graph.
#[derive(Clone, Copy, Debug)]
struct Node {
    kind: Kind,
    data_type: DataType,
    /// C of `[1, C, H, W]`.
    c: u64,
    /// H = W of `[1, C, H, W]`.
    side: u64,
}

impl Node {
    fn elements(&self) -> u64 {
        self.c * self.side * self.side
    }

    fn bytes(&self) -> u64 {
        self.elements() * u64::from(self.data_type.size_in_bytes())
    }

    /// Bytes read plus bytes written by the node.
    fn traffic(&self) -> u64 {
        match self.kind {
            Kind::Broadcast => {
                2 * self.bytes() + self.c * u64::from(self.data_type.size_in_bytes())
            }
            _ => 3 * self.bytes(),
        }
    }
}

/// A draw in `lo..hi` from the test kit's splitmix64, the generator's only source
/// of numbers.
fn draw(rng: &mut SplitMix64, (lo, hi): (u64, u64)) -> u64 {
    lo + rng.next_u64() % (hi - lo)
}

/// The nodes of `mix`, the same in every run.
fn nodes(mix: Mix) -> Vec<Node> {
    const TYPES: [DataType; 5] = [
        DataType::U8,
        DataType::I32,
        DataType::F16,
        DataType::I64,
        DataType::U32,
    ];
    let mut rng = SplitMix64::new(0x6772_6170_6821);
    (0..mix.nodes)
        .map(|i| {
            let kind = [Kind::Packed, Kind::InPlace, Kind::Broadcast][i % 3];
            let mut data_type = TYPES[i % 5];
            if kind == Kind::Broadcast && data_type == DataType::F16 {
                data_type = DataType::U16;
            }
            Node {
                kind,
                data_type,
                c: draw(&mut rng, mix.channels),
                side: draw(&mut rng, mix.side),
            }
        })
        .collect()
}

fn storage(ctx: &Context, bytes: u64, seed: u64) -> wgpu::Buffer {
    let size = bytes.div_ceil(16).max(1) * 16;
    let buffer = ctx.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("graph tensor"),
        size,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let fill: Vec<u8> = (0..size)
        .map(|i| (i.wrapping_mul(131).wrapping_add(seed * 7)) as u8)
        .collect();
    ctx.queue().write_buffer(&buffer, 0, &fill);
    buffer
}

/// One node's tensors: A, B, the output (A's for in place) and the bare frame's spare input.
struct Tensors {
    a: wgpu::Buffer,
    b: wgpu::Buffer,
    out: wgpu::Buffer,
    spare: Option<wgpu::Buffer>,
}

/// One node's operator.
enum Op {
    Bit(DmlBinary),
    Bitwise(OvBinary),
}

impl Op {
    fn new(ctx: &Context, node: &Node) -> Op {
        let (c, s) = (node.c as u32, node.side as u32);
        match node.kind {
            Kind::Packed | Kind::InPlace => Op::Bit(
                DmlBinary::new(ctx, &BitXorDesc::packed(node.data_type, &[1, c, s, s]))
                    .expect("a valid node"),
            ),
            Kind::Broadcast => {
                let (c, s) = (c as usize, s as usize);
                Op::Bitwise(
                    OvBinary::new(
                        ctx,
                        &BitwiseXorDesc::new(node.data_type, &[1, c, s, s], &[1, c, 1, 1]),
                    )
                    .expect("a valid node"),
                )
            }
        }
    }

    fn as_dyn(&self) -> &dyn CompiledOperator {
        match self {
            Op::Bit(op) => op,
            Op::Bitwise(op) => op,
        }
    }
}

/// The bare kernel's pipeline and one node's dispatch of it.
struct Bare {
    pipeline: wgpu::ComputePipeline,
    /// A second pipeline of the same kernel and layout, to switch to and fro.
    twin: wgpu::ComputePipeline,
    dispatches: Vec<(wgpu::BindGroup, u32)>,
    /// The uniforms the dispatches read (block count, grid row stride).
    _uniforms: Vec<wgpu::Buffer>,
}

impl Bare {
    fn new(ctx: &Context, nodes: &[Node], tensors: &[Tensors]) -> Bare {
        let device = ctx.device();
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("bare xor"),
            source: wgpu::ShaderSource::Wgsl(include_str!("../bare_xor.wgsl").into()),
        });
        let storage = |binding, read_only| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("bare xor"),
            entries: &[
                storage(0, true),
                storage(1, true),
                storage(2, false),
                wgpu::BindGroupLayoutEntry {
                    binding: 3,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("bare xor"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let make = || {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some("bare xor"),
                layout: Some(&pipeline_layout),
                module: &module,
                entry_point: Some("main"),
                compilation_options: Default::default(),
                cache: None,
            })
        };
        let (pipeline, twin) = (make(), make());
        let max_x = device.limits().max_compute_workgroups_per_dimension;
        let mut dispatches = Vec::with_capacity(nodes.len());
        let mut uniforms = Vec::with_capacity(nodes.len());
        for (node, t) in nodes.iter().zip(tensors) {
            let blocks = node.bytes().div_ceil(16) as u32;
            let groups = blocks.div_ceil(256).min(max_x);
            let uniform = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("bare xor blocks"),
                size: 16,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            ctx.queue().write_buffer(
                &uniform,
                0,
                bytemuck::cast_slice(&[blocks, groups * 256, 0, 0]),
            );
            let (x, y, out) = match node.kind {
                Kind::Packed | Kind::Broadcast => (&t.a, &t.b, &t.out),
                Kind::InPlace => (t.spare.as_ref().expect("a spare input"), &t.b, &t.a),
            };
            let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("bare xor"),
                layout: &layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: x.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: y.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: out.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 3,
                        resource: uniform.as_entire_binding(),
                    },
                ],
            });
            dispatches.push((bind_group, groups));
            uniforms.push(uniform);
        }
        Bare {
            pipeline,
            twin,
            dispatches,
            _uniforms: uniforms,
        }
    }

    fn record(&self, pass: &mut wgpu::ComputePass<'_>) {
        pass.set_pipeline(&self.pipeline);
        for (bind_group, groups) in &self.dispatches {
            pass.set_bind_group(0, bind_group, &[]);
            pass.dispatch_workgroups(*groups, 1, 1);
        }
    }

    /// The same switching between two pipelines of the kernel before every dispatch: what
    /// wgpu costs for a graph whose pipeline changes from each node to the next (a pipeline
    /// set again unchanged costs wgpu nothing: it skips it).
    fn record_switching(&self, pass: &mut wgpu::ComputePass<'_>) {
        for (i, (bind_group, groups)) in self.dispatches.iter().enumerate() {
            pass.set_pipeline(if i % 2 == 0 {
                &self.pipeline
            } else {
                &self.twin
            });
            pass.set_bind_group(0, bind_group, &[]);
            pass.dispatch_workgroups(*groups, 1, 1);
        }
    }
}

/// A graph, every node prepared, and its bare frame.
pub struct Graph {
    nodes: Vec<Node>,
    tensors: Vec<Tensors>,
    ops: Vec<Op>,
    prepared: Vec<Prepared>,
    /// The prepared calls laid out flat (`gpu_xor::Graph`).
    flat: Flat,
    bare: Bare,
}

impl Graph {
    /// Makes the tensors and operators of `mix` on `ctx` and prepares every node.
    pub fn new(ctx: &Context, mix: Mix) -> Graph {
        let nodes = nodes(mix);
        let tensors = Graph::tensors(ctx, &nodes);
        let ops: Vec<Op> = nodes.iter().map(|n| Op::new(ctx, n)).collect();
        let prepared = Graph::prepare_with(&nodes, &tensors, &ops);
        let flat = Flat::new(ctx, &prepared).expect("one context");
        let bare = Bare::new(ctx, &nodes, &tensors);
        Graph {
            nodes,
            tensors,
            ops,
            prepared,
            flat,
            bare,
        }
    }

    fn tensors(ctx: &Context, nodes: &[Node]) -> Vec<Tensors> {
        nodes
            .iter()
            .zip(0u64..)
            .map(|(node, i)| {
                let b_bytes = match node.kind {
                    Kind::Broadcast => node.c * u64::from(node.data_type.size_in_bytes()),
                    _ => node.bytes(),
                };
                Tensors {
                    a: storage(ctx, node.bytes(), 3 * i),
                    b: storage(ctx, b_bytes, 3 * i + 1),
                    out: storage(ctx, node.bytes(), 3 * i + 2),
                    spare: (node.kind == Kind::InPlace).then(|| storage(ctx, node.bytes(), 0)),
                }
            })
            .collect()
    }

    fn prepare_with(nodes: &[Node], tensors: &[Tensors], ops: &[Op]) -> Vec<Prepared> {
        nodes
            .iter()
            .zip(tensors)
            .zip(ops)
            .map(|((node, t), op)| {
                let out = if node.kind == Kind::InPlace {
                    &t.a
                } else {
                    &t.out
                };
                let bindings = Bindings::new(
                    TensorBinding::new(&t.a),
                    TensorBinding::new(&t.b),
                    TensorBinding::new(out),
                );
                op.as_dyn().prepare(&bindings).expect("a valid binding")
            })
            .collect()
    }

    /// Prepares every node again (its operators' pipelines compiled already): the time per
    /// node of a warm preparation. The new preparations are dropped unrecorded.
    pub(crate) fn prepare_again(&self, ctx: &Context) -> Duration {
        // A runtime submits between preparations: the queued writes of earlier rounds are
        // flushed, as they would be.
        settle(ctx);
        let start = Instant::now();
        let again = Graph::prepare_with(&self.nodes, &self.tensors, &self.ops);
        let spent = start.elapsed();
        drop(again);
        spent / self.nodes.len() as u32
    }

    /// Bytes read plus bytes written by one frame.
    pub fn traffic(&self) -> u64 {
        self.nodes.iter().map(Node::traffic).sum()
    }

    /// The time of one frame of prepared calls: one compute pass with every node (the calls
    /// laid out flat, `gpu_xor::Graph::record_in_pass`) in a new encoder, submitted and
    /// waited for; on the GPU's clock where the device has one (`crate::timing::frame`).
    pub fn frame(&self, ctx: &Context) -> Duration {
        frame(ctx, |pass| {
            self.flat.record_in_pass(pass).expect("recorded")
        })
    }

    /// The same frame of bare dispatches.
    pub fn bare_frame(&self, ctx: &Context) -> Duration {
        frame(ctx, |pass| self.bare.record(pass))
    }

    /// The frames of the nodes of each kind alone (packed, in place, broadcast), each with
    /// its bare frame: the median of `rounds` interleaved rounds of each, in seconds.
    pub fn frames_by_kind(&self, ctx: &Context, rounds: usize) -> Vec<(&'static str, f64, f64)> {
        [Kind::Packed, Kind::InPlace, Kind::Broadcast]
            .into_iter()
            .map(|kind| {
                let of_kind: Vec<usize> = (0..self.nodes.len())
                    .filter(|&i| self.nodes[i].kind == kind)
                    .collect();
                let (lib, bare) = crate::timing::paired(
                    rounds,
                    || {
                        frame(ctx, |pass| {
                            for &i in &of_kind {
                                self.prepared[i].record_in_pass(pass).expect("recorded");
                            }
                        })
                    },
                    || {
                        frame(ctx, |pass| {
                            pass.set_pipeline(&self.bare.pipeline);
                            for &i in &of_kind {
                                let (bind_group, groups) = &self.bare.dispatches[i];
                                pass.set_bind_group(0, bind_group, &[]);
                                pass.dispatch_workgroups(*groups, 1, 1);
                            }
                        })
                    },
                );
                (kind.name(), lib, bare)
            })
            .collect()
    }

    /// The CPU time of recording the frame's pass (begin, every node, end), and of `finish`:
    /// prepared calls.
    pub fn record_prepared(&self, ctx: &Context) -> (Duration, Duration) {
        record(ctx, |pass| {
            for call in &self.prepared {
                call.record_in_pass(pass).expect("recorded");
            }
        })
    }

    /// The same for the calls laid out flat (`gpu_xor::Graph::record_in_pass`).
    pub fn record_flat(&self, ctx: &Context) -> (Duration, Duration) {
        record(ctx, |pass| {
            self.flat.record_in_pass(pass).expect("recorded")
        })
    }

    /// Pipelines the flat graph's dispatches use, and how often a recording changes them.
    pub(crate) fn pipelines(&self) -> (usize, usize) {
        (self.flat.pipeline_count(), self.flat.pipeline_changes())
    }

    /// The same for the bare dispatches (`set_bind_group` and `dispatch_workgroups` per node,
    /// the pipeline set once).
    pub fn record_bare(&self, ctx: &Context) -> (Duration, Duration) {
        record(ctx, |pass| self.bare.record(pass))
    }

    /// The bare dispatches switching pipelines before each (wgpu's own cost of a pipeline
    /// change per node).
    pub fn record_bare_switching(&self, ctx: &Context) -> (Duration, Duration) {
        record(ctx, |pass| self.bare.record_switching(pass))
    }
}

/// An empty submission and a wait, twice: queued writes are flushed and wgpu has freed the
/// staging memory of everything that finished.
fn settle(ctx: &Context) {
    for _ in 0..2 {
        ctx.queue().submit([]);
        ctx.device()
            .poll(wgpu::PollType::wait_indefinitely())
            .expect("the queue finished");
    }
}

fn record(ctx: &Context, body: impl FnOnce(&mut wgpu::ComputePass<'_>)) -> (Duration, Duration) {
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    let start = Instant::now();
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        body(&mut pass);
    }
    let recorded = start.elapsed();
    let start = Instant::now();
    let commands = encoder.finish();
    let finished = start.elapsed();
    // Dropped unsubmitted: nothing runs.
    drop(commands);
    (recorded, finished)
}

/// What preparing a graph costs on a new context, and what the context holds for it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cold {
    /// From a new context to the first frame's results on the host: tensors, operators,
    /// preparation (compiling on the way), one frame, the wait.
    pub(crate) first_frame: Duration,
    /// Making the operators and preparing every node on the new context, per node, the
    /// pipelines compiled on the way.
    pub(crate) prepare_per_node: Duration,
    /// The same on another new context after one `Context::warm_up` of every operator
    /// (which compiles on every core): the warm-up, then the preparations, per node.
    pub(crate) warmed_per_node: Duration,
    /// Pipelines the graph's preparation compiled.
    pub(crate) pipelines: u64,
    /// wgpu's buffer memory (its `hal.buffer_memory` counter) added by preparing every node
    /// and running one frame, per node: the library's metadata.
    pub(crate) gpu_bytes_per_node: f64,
    /// The context's metadata arena per node (`RecordingObjects::metadata_bytes_alive`).
    pub(crate) arena_bytes_per_node: f64,
    /// Bind groups the preparation made, per node.
    pub(crate) bind_groups_per_node: f64,
    /// Buffers wgpu holds after preparing and one frame, minus before, per node (its
    /// `hal.buffers`).
    pub(crate) buffers_per_node: f64,
}

/// Measures [`Cold`] for `mix` on new contexts from the environment.
pub(crate) fn cold(mix: Mix) -> Cold {
    let nodes = nodes(mix);
    let start = Instant::now();
    let ctx = Context::from_env().expect("an adapter");
    let tensors = Graph::tensors(&ctx, &nodes);
    settle(&ctx);
    let counters = |ctx: &Context| {
        let hal = ctx.device().get_internal_counters().hal;
        (hal.buffer_memory.read(), hal.buffers.read())
    };
    let (memory, buffers) = counters(&ctx);
    let objects = ctx.recording_objects();
    let made = Instant::now();
    let ops: Vec<Op> = nodes.iter().map(|n| Op::new(&ctx, n)).collect();
    let prepared = Graph::prepare_with(&nodes, &tensors, &ops);
    let prepare_per_node = made.elapsed() / nodes.len() as u32;
    let after = ctx.recording_objects();
    frame(&ctx, |pass| {
        for call in &prepared {
            call.record_in_pass(pass).expect("recorded");
        }
    });
    let first_frame = start.elapsed();
    // Once the queue has settled, the staging of the queued record writes is gone, and what
    // remains is what the prepared calls hold.
    settle(&ctx);
    let (memory_after, buffers_after) = counters(&ctx);
    let n = nodes.len() as f64;

    // Another new context: one warm-up of the whole graph, then the preparations.
    let ctx2 = Context::from_env().expect("an adapter");
    let tensors2 = Graph::tensors(&ctx2, &nodes);
    ctx2.wait().expect("uploads");
    let made = Instant::now();
    let ops2: Vec<Op> = nodes.iter().map(|n| Op::new(&ctx2, n)).collect();
    let graph: Vec<&dyn CompiledOperator> = ops2.iter().map(Op::as_dyn).collect();
    ctx2.warm_up(&graph).expect("compiled");
    let prepared2 = Graph::prepare_with(&nodes, &tensors2, &ops2);
    let warmed_per_node = made.elapsed() / nodes.len() as u32;
    drop(prepared2);

    Cold {
        first_frame,
        prepare_per_node,
        warmed_per_node,
        pipelines: after.pipelines - objects.pipelines,
        gpu_bytes_per_node: (memory_after - memory) as f64 / n,
        arena_bytes_per_node: after.metadata_bytes_alive as f64 / n,
        bind_groups_per_node: (after.bind_groups - objects.bind_groups) as f64 / n,
        buffers_per_node: (buffers_after - buffers) as f64 / n,
    }
}

/// What measuring the kernels of a graph's layout classes costs: one `Context::tune` of every
/// node's operator on a context under `KernelTuning::Measured`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TuningCost {
    /// What the measurement reported: classes measured, already known, skipped, candidates
    /// timed, its own seconds.
    pub(crate) report: TuningReport,
    /// The wall time of the `Context::tune` call.
    pub(crate) wall: Duration,
    /// Nodes whose layout has a class (`TuningKey`, a layout more than one kernel can run:
    /// strided or broadcast).
    pub(crate) keyed: usize,
    /// Distinct classes among those nodes.
    pub(crate) classes: usize,
}

/// Makes the operators of `mix` on `ctx` (a context under `KernelTuning::Measured` with no
/// choices yet) and measures their layout classes with one `Context::tune`, timed on the wall
/// clock; the operators need no tensors (the measurement binds scratch buffers of its own).
pub(crate) fn tuning_cost(ctx: &Context, mix: Mix) -> TuningCost {
    let nodes = nodes(mix);
    let ops: Vec<Op> = nodes.iter().map(|n| Op::new(ctx, n)).collect();
    let graph: Vec<&dyn CompiledOperator> = ops.iter().map(Op::as_dyn).collect();
    let mut keys: Vec<TuningKey> = graph.iter().filter_map(|op| ctx.tuning_key(*op)).collect();
    let keyed = keys.len();
    keys.sort();
    keys.dedup();
    ctx.wait().expect("the queue settled");
    let start = Instant::now();
    let report = ctx.tune(&graph).expect("measured");
    let wall = start.elapsed();
    TuningCost {
        report,
        wall,
        keyed,
        classes: keys.len(),
    }
}
