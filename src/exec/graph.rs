//! A graph's prepared calls laid out flat for recording: every dispatch of every call in one
//! contiguous list, recorded with nothing but the commands wgpu needs.

use std::ops::Range;

use super::context::Context;
use super::encode::{Prepared, flush_records};
use crate::error::Error;

/// Prepared calls in the order a graph runs them, laid out flat: one list of dispatches
/// (pipeline, bind group, record offset, grid), each pipeline once.
///
/// Recording it costs what the dispatches cost in wgpu: per dispatch one `set_bind_group` and
/// one `dispatch_workgroups`, and a `set_pipeline` only where the pipeline changes from the
/// dispatch before. Nothing is read through a pointer per call and nothing is written per
/// call; the checks a recording makes (a device loss already seen, records prepared since
/// the last recording) are made once per recording, not per call. A runtime that records the
/// same graph every frame builds one at preparation and records it each frame.
///
/// [`Graph::record_calls_in_pass`] records a range of its calls, so that a caller can put its
/// own dispatches between them. It keeps its calls (and their buffers) alive.
///
/// ```no_run
/// use gpu_xor::{Bindings, DmlBinary, BitXorDesc, Context, DataType, Graph, TensorBinding};
///
/// # fn main() -> Result<(), gpu_xor::Error> {
/// # let ctx = Context::from_env()?;
/// # let (a, b, out): (wgpu::Buffer, wgpu::Buffer, wgpu::Buffer) = unimplemented!();
/// let op = DmlBinary::new(&ctx, &BitXorDesc::packed(DataType::U32, &[1024]))?;
/// let call = op.prepare(&Bindings::new(
///     TensorBinding::new(&a),
///     TensorBinding::new(&b),
///     TensorBinding::new(&out),
/// ))?;
/// let graph = Graph::new(&ctx, [&call, &call])?;
/// let mut encoder = ctx.device().create_command_encoder(&Default::default());
/// {
///     let mut pass = encoder.begin_compute_pass(&Default::default());
///     graph.record_in_pass(&mut pass)?;
/// }
/// ctx.queue().submit([encoder.finish()]);
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct Graph {
    ctx: Context,
    pipelines: Vec<wgpu::ComputePipeline>,
    nodes: Vec<Node>,
    /// Where each call's dispatches start in `nodes`, and one past the last.
    calls: Vec<usize>,
    /// The calls, kept for their records, bind groups and buffers.
    _prepared: Vec<Prepared>,
}

/// One dispatch, flat: its pipeline by index, its bind group and record offset, its grid.
#[derive(Clone)]
struct Node {
    bind_group: wgpu::BindGroup,
    pipeline: usize,
    offset: u32,
    grid: [u32; 3],
}

impl std::fmt::Debug for Graph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Graph")
            .field("calls", &self.call_count())
            .field("dispatches", &self.nodes.len())
            .field("pipelines", &self.pipelines.len())
            .finish()
    }
}

impl Graph {
    /// The calls `prepared`, in the order they run, laid out flat.
    ///
    /// [`Error::ContextMismatch`] when a call was prepared on another context.
    pub fn new<'a>(
        ctx: &Context,
        prepared: impl IntoIterator<Item = &'a Prepared>,
    ) -> Result<Graph, Error> {
        let mut graph = Graph {
            ctx: ctx.clone(),
            pipelines: Vec::new(),
            nodes: Vec::new(),
            calls: vec![0],
            _prepared: Vec::new(),
        };
        for call in prepared {
            if !std::sync::Arc::ptr_eq(&call.context().shared, &ctx.shared) {
                return Err(Error::ContextMismatch);
            }
            // Every later recording of the graph records these: mark them now, once.
            call.mark_recorded();
            for (pipeline, bind_group, offset, grid) in call.dispatches() {
                let index = match graph.pipelines.iter().position(|p| p == pipeline) {
                    Some(i) => i,
                    None => {
                        graph.pipelines.push(pipeline.clone());
                        graph.pipelines.len() - 1
                    }
                };
                graph.nodes.push(Node {
                    bind_group: bind_group.clone(),
                    pipeline: index,
                    offset,
                    grid,
                });
            }
            graph.calls.push(graph.nodes.len());
            graph._prepared.push(call.clone());
        }
        Ok(graph)
    }

    /// Records every call into `encoder`, in one compute pass of its own.
    ///
    /// [`Error::DeviceLost`] when the loss is already known, or when the queue refuses the
    /// write of records prepared since the last recording; the commands are validated when
    /// the caller finishes the encoder.
    pub fn record(&self, encoder: &mut wgpu::CommandEncoder) -> Result<(), Error> {
        self.ready()?;
        if self.nodes.is_empty() {
            return Ok(());
        }
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("gpu-xor"),
            timestamp_writes: None,
        });
        self.encode(&mut pass, &self.nodes);
        Ok(())
    }

    /// Records every call into a compute pass the caller has open, as
    /// [`Prepared::record_in_pass`] does for one call: it sets its own pipelines and bind
    /// group 0.
    pub fn record_in_pass(&self, pass: &mut wgpu::ComputePass<'_>) -> Result<(), Error> {
        self.ready()?;
        self.encode(pass, &self.nodes);
        Ok(())
    }

    /// Records calls `calls` (indices in the order they were given) into an open compute
    /// pass, so that the caller's own dispatches can run between ranges of the graph.
    ///
    /// [`Error::CallRangeOutOfBounds`] when the range does not lie within the graph's calls.
    pub fn record_calls_in_pass(
        &self,
        pass: &mut wgpu::ComputePass<'_>,
        calls: Range<usize>,
    ) -> Result<(), Error> {
        let out_of_bounds = Error::CallRangeOutOfBounds {
            start: calls.start,
            end: calls.end,
            calls: self.call_count(),
        };
        let (Some(&first), Some(&end)) = (self.calls.get(calls.start), self.calls.get(calls.end))
        else {
            return Err(out_of_bounds);
        };
        if calls.start > calls.end {
            return Err(out_of_bounds);
        }
        self.ready()?;
        self.encode(pass, &self.nodes[first..end]);
        Ok(())
    }

    /// How many calls it holds.
    pub fn call_count(&self) -> usize {
        self.calls.len() - 1
    }

    /// How many dispatches a recording of every call records.
    pub fn dispatch_count(&self) -> usize {
        self.nodes.len()
    }

    /// How many distinct pipelines its dispatches use.
    pub fn pipeline_count(&self) -> usize {
        self.pipelines.len()
    }

    /// How many times a recording of every call sets a pipeline: once at the start, and
    /// wherever a dispatch's pipeline differs from the one before.
    pub fn pipeline_changes(&self) -> usize {
        let mut changes = 0;
        let mut current = usize::MAX;
        for node in &self.nodes {
            if node.pipeline != current {
                changes += 1;
                current = node.pipeline;
            }
        }
        changes
    }

    /// The context it records on.
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// The checks of a recording, once: a known loss, and records prepared since the last
    /// recording taken to the device.
    fn ready(&self) -> Result<(), Error> {
        if let Some(lost) = self.ctx.shared.known_lost() {
            return Err(lost);
        }
        flush_records(&self.ctx.shared)
    }

    fn encode(&self, pass: &mut wgpu::ComputePass<'_>, nodes: &[Node]) {
        let mut current = usize::MAX;
        for node in nodes {
            if node.pipeline != current {
                pass.set_pipeline(&self.pipelines[node.pipeline]);
                current = node.pipeline;
            }
            pass.set_bind_group(0, &node.bind_group, &[node.offset]);
            pass.dispatch_workgroups(node.grid[0], node.grid[1], node.grid[2]);
        }
    }
}
