//! Reading a buffer back to the host: one copy into a staging buffer, one map, and either a
//! blocking wait (native only) or a future that completes when the map does.
//!
//! The two forms share everything but the wait, so that a caller who cannot block (a browser,
//! an async executor) gets exactly what the blocking form returns.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context as TaskContext, Poll, Waker};

use super::context::Shared;
use super::fault::message;
use crate::error::Error;
use crate::kernels::pipelines::capture;

/// How long a blocking read waits, after the device has finished the copy, for a map callback
/// that another thread's poll is delivering.
#[cfg(not(target_arch = "wasm32"))]
const MAP_GRACE: std::time::Duration = std::time::Duration::from_secs(10);

/// What the map callback leaves for the future.
#[derive(Default)]
struct MapSlot {
    result: Option<Result<(), wgpu::BufferAsyncError>>,
    waker: Option<Waker>,
}

/// A copy that has been submitted and a map that has been requested.
pub(crate) struct PendingRead {
    shared: Arc<Shared>,
    staging: wgpu::Buffer,
    /// What the blocking wait waits for (a browser cannot block).
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    submission: wgpu::SubmissionIndex,
    slot: Arc<Mutex<MapSlot>>,
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
        if !buffer.usage().contains(wgpu::BufferUsages::COPY_SRC) {
            return Err(Error::MissingUsage {
                tensor: None,
                needed: "COPY_SRC",
                usage: format!("{:?}", buffer.usage()),
            });
        }
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
        let staging = capture(device, || {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("gpu-xor read-back"),
                size: end - start4,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        })
        .map_err(|e| shared.lost_or(Error::Allocation(e.to_string())))?;
        // The range was checked above and the staging buffer is new: a refused copy is the
        // buffer's fault (destroyed, mapped, of another device), or the device's.
        let submission = capture(device, || {
            let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("gpu-xor read-back"),
            });
            encoder.copy_buffer_to_buffer(buffer, start4, &staging, 0, end - start4);
            queue.submit([encoder.finish()])
        })
        .map_err(|e| {
            shared.lost().unwrap_or_else(|| Error::InvalidBuffer {
                tensor: None,
                reason: shared.unusable(buffer).unwrap_or_else(|| message(&e)),
            })
        })?;
        let slot = Arc::new(Mutex::new(MapSlot::default()));
        let filled = slot.clone();
        // The map's own failure reaches the callback; the scope keeps the same failure (a
        // destroyed buffer, a lost device) away from the device's uncaptured-error handler.
        capture(device, || {
            staging.map_async(wgpu::MapMode::Read, .., move |result| {
                let mut slot = lock(&filled);
                slot.result = Some(result);
                if let Some(waker) = slot.waker.take() {
                    waker.wake();
                }
            })
        })
        .map_err(|e| shared.lost_or(Error::Map(e.to_string())))?;
        Ok(Some(PendingRead {
            shared: shared.clone(),
            staging,
            submission,
            slot,
            from: (offset - start4) as usize,
            len,
        }))
    }

    /// Blocks until the copy has finished and the map has completed (native only: a browser
    /// cannot block).
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn wait(self) -> Result<Vec<u8>, Error> {
        let shared = &*self.shared;
        shared
            .device
            .poll(wgpu::PollType::Wait {
                submission_index: Some(self.submission.clone()),
                timeout: None,
            })
            .map_err(|e| shared.lost_or(Error::Poll(e.to_string())))?;
        // The callback normally runs inside that poll. When another thread polls the same
        // device, that thread may have collected the callback and be about to run it: the
        // copy is done but the answer is not here yet. Keep polling, without blocking, for a
        // bounded time; a map that still has no answer then will never get one (the device
        // is gone): an error, not a hang.
        let deadline = std::time::Instant::now() + MAP_GRACE;
        while lock(&self.slot).result.is_none() && std::time::Instant::now() < deadline {
            shared
                .device
                .poll(wgpu::PollType::Poll)
                .map_err(|e| shared.lost_or(Error::Poll(e.to_string())))?;
            if lock(&self.slot).result.is_none() {
                std::thread::sleep(std::time::Duration::from_micros(200));
            }
        }
        let result = lock(&self.slot).result.take();
        match result {
            Some(r) => r.map_err(|e| shared.lost_or(Error::Map(e.to_string())))?,
            None => {
                return Err(shared.lost_or(Error::Map(
                    "the map did not complete within 10 s after the device finished its work"
                        .to_string(),
                )));
            }
        }
        self.copy_out()
    }

    /// Waits for the map without blocking: in a browser the map completes from the event
    /// loop; on native the future drives the device with non-blocking polls each time it is
    /// polled.
    pub(crate) async fn finish(self) -> Result<Vec<u8>, Error> {
        MapDone { pending: &self }
            .await
            .map_err(|e| self.shared.lost_or(e))?;
        self.copy_out()
    }

    fn copy_out(self) -> Result<Vec<u8>, Error> {
        let bytes = {
            let view = self
                .staging
                .get_mapped_range(..)
                .map_err(|e| self.shared.lost_or(Error::Map(e.to_string())))?;
            view[self.from..self.from + self.len].to_vec()
        };
        self.staging.unmap();
        Ok(bytes)
    }
}

/// Completes when the map callback has run.
struct MapDone<'a> {
    pending: &'a PendingRead,
}

impl Future for MapDone<'_> {
    type Output = Result<(), Error>;

    fn poll(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
        let pending = self.pending;
        if let Some(r) = lock(&pending.slot).result.take() {
            return Poll::Ready(r.map_err(|e| Error::Map(e.to_string())));
        }
        lock(&pending.slot).waker = Some(cx.waker().clone());
        // On native nothing runs the callback unless the device is polled; a non-blocking
        // poll here runs it if the copy has finished, and asking to be polled again keeps the
        // executor coming back until it has. (The lock is not held across the poll: the
        // callback takes it.)
        #[cfg(not(target_arch = "wasm32"))]
        {
            if let Err(e) = pending.shared.device.poll(wgpu::PollType::Poll) {
                return Poll::Ready(Err(Error::Poll(e.to_string())));
            }
            if let Some(r) = lock(&pending.slot).result.take() {
                return Poll::Ready(r.map_err(|e| Error::Map(e.to_string())));
            }
            cx.waker().wake_by_ref();
        }
        Poll::Pending
    }
}

/// Locks the slot, recovering it if a callback panicked while holding it (it only ever holds
/// finished values).
fn lock(m: &Mutex<MapSlot>) -> std::sync::MutexGuard<'_, MapSlot> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
