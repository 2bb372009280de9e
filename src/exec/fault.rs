//! Faults that no description rule can catch: a lost or destroyed device, a destroyed buffer, a
//! buffer of another device. wgpu reports them in different ways, and this module turns each
//! into a typed error.
//!
//! - A lost device (`Device::destroy`, a driver reset) produces no error at all: wgpu drops
//!   errors of the "device lost" kind instead of passing them to error scopes or to the
//!   uncaptured-error handler, and every object made afterwards is silently invalid. What can
//!   be observed is that a buffer mapped at creation cannot be read through its mapping, that
//!   a map of an existing buffer is refused at once (its callback gets an error), and the
//!   device-lost callback, which wgpu runs from a poll once the queue is empty.
//! - A destroyed buffer, or one of another device, is a validation error when a bind group
//!   names it (wgpu-core checks this at `create_bind_group`), or when a submission uses it.
//!   A binding of its first word, made on its own, tells which buffer it is.
//! - A mapped buffer is a validation error only when a submission uses it.

use std::num::NonZeroU64;
use std::sync::atomic::Ordering;

use super::shared::Shared;
use super::signal::{Signal, Unanswered};
use crate::desc::TensorName;
use crate::error::{Error, WgpuError};
use crate::scope::{capture, probe, unmap};

/// What the probe reports when the device's objects are invalid without a lost callback.
const LOST_BY_PROBE: &str = "the device was destroyed or lost: a buffer made on it is invalid";

impl Shared {
    /// The device loss already known (from the device-lost callback or an earlier check),
    /// without any device call.
    pub(crate) fn known_lost(&self) -> Option<Error> {
        self.lost.get().map(|why| Error::DeviceLost(why.clone()))
    }

    /// Whether the device is lost, checked now: a 4-byte buffer mapped at creation can be
    /// written through its mapping on a live device only. Once seen, the loss is remembered.
    pub(crate) fn lost(&self) -> Option<Error> {
        if let Some(e) = self.known_lost() {
            return Some(e);
        }
        self.created.check_buffers.fetch_add(1, Ordering::Relaxed);
        let buffer = probe(&self.device, || {
            self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("gpu-xor device check"),
                size: 4,
                usage: wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: true,
            })
        })
        // A live device that cannot spare 4 bytes is not lost.
        .ok()?;
        let alive = buffer.get_mapped_range_mut(..).is_ok();
        buffer.destroy();
        if alive {
            return None;
        }
        let _ = self.lost.set(LOST_BY_PROBE.to_string());
        self.known_lost()
    }

    /// Whether the device is lost, checked now without making anything (what every wait
    /// does): a map of the context's own 4-byte buffer, made by the first check, is refused
    /// at once on a lost device. Once seen, the loss is remembered.
    ///
    /// One check maps the buffer at a time (a second map of a buffer being mapped would be a
    /// validation error): a check that finds another under way reports only the loss already
    /// known, which the other check will find. Should a map ever fail other than by a lost
    /// device, or go unanswered, [`Shared::lost`] decides, and the buffer is not mapped again.
    pub(crate) async fn lost_by_map(&self) -> Option<Error> {
        if let Some(e) = self.known_lost() {
            return Some(e);
        }
        let buffer = self.map_check.get_or_init(|| {
            self.created.check_buffers.fetch_add(1, Ordering::Relaxed);
            probe(&self.device, || {
                self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("gpu-xor device check"),
                    size: 4,
                    usage: wgpu::BufferUsages::MAP_READ,
                    mapped_at_creation: false,
                })
            })
            .ok()
        });
        let Some(buffer) = buffer else {
            return self.lost();
        };
        if self.map_checking.swap(true, Ordering::AcqRel) {
            return self.known_lost();
        }
        let answer = Signal::new();
        let set = answer.setter();
        buffer.map_async(wgpu::MapMode::Read, .., move |r| set(r.is_ok()));
        match answer.wait(&self.device).await {
            Ok(true) => {
                unmap(&self.device, buffer);
                self.map_checking.store(false, Ordering::Release);
                None
            }
            // Refused: on a lost device, the only way a map of this idle buffer fails; the
            // probe confirms it. The flag stays set, so the buffer is never mapped again.
            Ok(false) | Err(Unanswered::Silent) => self.lost(),
            Err(Unanswered::Poll(e)) => Some(self.lost_or(Error::Poll(WgpuError::new(e)))),
        }
    }

    /// Why `buffer` cannot be used in a submission, if that can be found: it is mapped (a
    /// view of the whole buffer can be had: wgpu keeps the map state to itself otherwise), or a
    /// bind group cannot name it (destroyed, or made on another device), which a read-only
    /// storage binding of its first word, made on its own, tells. `None` also for a buffer
    /// mapped in part, and for one that the binding check cannot bind (no `STORAGE` usage,
    /// fewer than 4 bytes).
    pub(crate) fn unusable(&self, buffer: &wgpu::Buffer) -> Option<String> {
        if buffer.get_mapped_range(..).is_ok() {
            return Some("it is mapped".to_string());
        }
        if !buffer.usage().contains(wgpu::BufferUsages::STORAGE) || buffer.size() < 4 {
            return None;
        }
        let layout = self.check_layout.get_or_init(|| {
            self.device
                .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                    label: Some("gpu-xor buffer check"),
                    entries: &[wgpu::BindGroupLayoutEntry {
                        binding: 0,
                        visibility: wgpu::ShaderStages::COMPUTE,
                        ty: wgpu::BindingType::Buffer {
                            ty: wgpu::BufferBindingType::Storage { read_only: true },
                            has_dynamic_offset: false,
                            min_binding_size: None,
                        },
                        count: None,
                    }],
                })
        });
        probe(&self.device, || {
            self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("gpu-xor buffer check"),
                layout,
                entries: &[wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer,
                        offset: 0,
                        size: NonZeroU64::new(4),
                    }),
                }],
            })
        })
        .err()
        .map(|e| cause(&e))
    }

    /// The typed error for a failure of `call` that used `buffers` (each with the tensor bound
    /// to it, when known): [`Error::DeviceLost`], [`Error::InvalidBuffer`] for the first
    /// buffer a binding refuses, else [`Error::Wgpu`].
    pub(crate) fn fault(
        &self,
        call: &'static str,
        error: wgpu::Error,
        buffers: &[(Option<TensorName>, &wgpu::Buffer)],
    ) -> Error {
        // Bind groups kept for one-shot calls on these buffers are not used again: one of
        // them may have been destroyed since.
        self.arena
            .retain_groups(|g| !buffers.iter().any(|&(_, b)| g.names(b)));
        if let Some(lost) = self.lost() {
            return lost;
        }
        for &(tensor, buffer) in buffers {
            if let Some(reason) = self.unusable(buffer) {
                return Error::InvalidBuffer { tensor, reason };
            }
        }
        Error::Wgpu {
            call,
            source: WgpuError::new(error),
        }
    }

    /// A buffer made inside error scopes: a device that cannot allocate it is
    /// [`Error::Allocation`] (or [`Error::DeviceLost`]), never a panic in the device's
    /// uncaptured-error handler.
    pub(crate) fn create_buffer(
        &self,
        descriptor: &wgpu::BufferDescriptor<'_>,
    ) -> Result<wgpu::Buffer, Error> {
        capture(
            &self.device,
            &self.late,
            |e| Error::Allocation(WgpuError::new(e)),
            || self.device.create_buffer(descriptor),
        )
        .map_err(|e| self.lost_or(Error::Allocation(WgpuError::new(e))))
    }

    /// [`Error::DeviceLost`] when the device is lost, else `otherwise`: for failures (a map, a
    /// poll) that a lost device explains.
    pub(crate) fn lost_or(&self, otherwise: Error) -> Error {
        self.lost().unwrap_or(otherwise)
    }
}

/// wgpu's message on one line: its parts joined with ": " (`Validation Error: In
/// Device::create_bind_group, label = 'gpu-xor': Buffer with 'x' label has been destroyed`).
pub(crate) fn message(error: &wgpu::Error) -> String {
    error
        .to_string()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && *l != "Caused by:")
        .collect::<Vec<_>>()
        .join(": ")
}

/// The innermost part of wgpu's message (`Buffer with 'x' label has been destroyed`).
fn cause(error: &wgpu::Error) -> String {
    error
        .to_string()
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .unwrap_or_default()
        .to_string()
}
