//! Reading a buffer back to the host: one copy into a staging buffer, one map, and either a
//! blocking wait (native only) or a future that completes when the map does.
//!
//! The two forms share everything but the wait, so that a caller who cannot block (a browser,
//! an async executor) gets exactly what the blocking form returns.

use std::sync::Arc;

use super::binding::require_usage;
use super::fault::message;
use super::shared::Shared;
use super::signal::{GRACE, Signal, Unanswered};
use crate::error::{Error, WgpuError};
use crate::scope::capture;

/// A copy that has been submitted and a map that has been requested.
pub(crate) struct PendingRead {
    shared: Arc<Shared>,
    staging: wgpu::Buffer,
    /// What the blocking wait waits for (a browser cannot block).
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    submission: wgpu::SubmissionIndex,
    mapped: Signal<Result<(), wgpu::BufferAsyncError>>,
    /// Where the asked-for bytes start in the staging buffer, and how many there are.
    from: usize,
    len: usize,
}

impl PendingRead {
    /// Checks the range, copies `[offset, offset + size)` of `buffer` (widened to whole
    /// words) into a new staging buffer, submits the copy and requests the map. Nothing
    /// waits. `Ok(None)` for an empty range.
    ///
    /// A lost device is [`Error::DeviceLost`]; a buffer that is destroyed, mapped or of
    /// another device is [`Error::InvalidBuffer`] (wgpu refuses the copy's submission).
    pub(crate) fn start(
        shared: &Arc<Shared>,
        buffer: &wgpu::Buffer,
        offset: u64,
        size: u64,
    ) -> Result<Option<PendingRead>, Error> {
        let (device, queue) = (&shared.device, &shared.queue);
        require_usage(buffer, None, wgpu::BufferUsages::COPY_SRC)?;
        // Copies move whole words: the range is widened to 4-byte boundaries, which must lie
        // within the buffer's declared size.
        let readable = buffer.size() - buffer.size() % 4;
        let end = offset
            .checked_add(size)
            .and_then(|e| e.checked_next_multiple_of(4))
            .filter(|&e4| e4 <= readable)
            .ok_or(Error::ReadOutOfBounds {
                offset,
                size,
                readable,
            })?;
        if size == 0 {
            return Ok(None);
        }
        let start4 = offset - offset % 4;
        let len = usize::try_from(size).map_err(|_| Error::SizeOverflow {
            what: "read-back bytes",
            value: u128::from(size),
        })?;
        let late = &shared.late;
        let staging = shared.create_buffer(&wgpu::BufferDescriptor {
            label: Some("gpu-xor read-back"),
            size: end - start4,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })?;
        // The range was checked above and the staging buffer is new: a refused copy is the
        // buffer's fault (destroyed, mapped, of another device), or the device's.
        let submission = capture(
            device,
            late,
            |e| Error::InvalidBuffer {
                tensor: None,
                reason: message(&e),
            },
            || {
                let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("gpu-xor read-back"),
                });
                encoder.copy_buffer_to_buffer(buffer, start4, &staging, 0, end - start4);
                queue.submit([encoder.finish()])
            },
        )
        .map_err(|e| {
            shared.lost().unwrap_or_else(|| Error::InvalidBuffer {
                tensor: None,
                reason: shared.unusable(buffer).unwrap_or_else(|| message(&e)),
            })
        })?;
        let mapped = Signal::new();
        // The map's own failure reaches the callback; the scope keeps the same failure (a
        // destroyed buffer, a lost device) away from the device's uncaptured-error handler.
        capture(
            device,
            late,
            |e| Error::Map(WgpuError::new(e)),
            || staging.map_async(wgpu::MapMode::Read, .., mapped.setter()),
        )
        .map_err(|e| shared.lost_or(Error::Map(WgpuError::new(e))))?;
        Ok(Some(PendingRead {
            shared: shared.clone(),
            staging,
            submission,
            mapped,
            from: (offset - start4) as usize,
            len,
        }))
    }

    /// Blocks until the copy has finished and the map has completed (native only: a browser
    /// cannot block).
    #[cfg(not(target_arch = "wasm32"))]
    #[expect(
        clippy::disallowed_methods,
        reason = "the blocking form, for native callers"
    )]
    pub(crate) fn wait(self) -> Result<Vec<u8>, Error> {
        let shared = &*self.shared;
        shared
            .device
            .poll(wgpu::PollType::Wait {
                submission_index: Some(self.submission.clone()),
                timeout: None,
            })
            .map_err(|e| shared.lost_or(Error::Poll(WgpuError::new(e))))?;
        // The callback normally runs inside that poll. When another thread polls the same
        // device, that thread may have collected the callback and be about to run it: the
        // copy is done but the answer is not here yet. Keep polling, without blocking, for a
        // bounded time; a map that still has no answer then will never get one (the device
        // is gone): an error, not a hang.
        let deadline = std::time::Instant::now() + GRACE;
        let mut answer = self.mapped.take();
        while answer.is_none() && std::time::Instant::now() < deadline {
            shared
                .device
                .poll(wgpu::PollType::Poll)
                .map_err(|e| shared.lost_or(Error::Poll(WgpuError::new(e))))?;
            answer = self.mapped.take();
            if answer.is_none() {
                std::thread::sleep(std::time::Duration::from_micros(200));
            }
        }
        match answer {
            Some(r) => r.map_err(|e| shared.lost_or(Error::Map(WgpuError::new(e))))?,
            None => return Err(shared.lost_or(Error::Map(WgpuError::message_only(unanswered())))),
        }
        self.copy_out()
    }

    /// Waits for the map without blocking: in a browser the map completes from the event
    /// loop; on native the future drives the device with non-blocking polls each time it is
    /// polled.
    pub(crate) async fn finish(self) -> Result<Vec<u8>, Error> {
        let shared = &*self.shared;
        match self.mapped.wait(&shared.device).await {
            Ok(r) => r.map_err(|e| shared.lost_or(Error::Map(WgpuError::new(e))))?,
            Err(Unanswered::Poll(e)) => return Err(shared.lost_or(Error::Poll(WgpuError::new(e)))),
            Err(Unanswered::Silent) => {
                return Err(shared.lost_or(Error::Map(WgpuError::message_only(unanswered()))));
            }
        }
        self.copy_out()
    }

    fn copy_out(self) -> Result<Vec<u8>, Error> {
        let bytes = {
            let view = self
                .staging
                .get_mapped_range(..)
                .map_err(|e| self.shared.lost_or(Error::Map(WgpuError::new(e))))?;
            view[self.from..self.from + self.len].to_vec()
        };
        crate::scope::unmap(&self.shared.device, &self.staging);
        Ok(bytes)
    }
}

/// The error of a map whose callback never ran.
fn unanswered() -> String {
    format!(
        "the map did not complete within {} s after the device finished its work",
        GRACE.as_secs()
    )
}
