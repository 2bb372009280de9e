//! Callbacks as futures: what wgpu answers through a callback (a finished map, finished work)
//! awaited without blocking.
//!
//! In a browser the callback runs from the event loop once the GPU process has answered. On
//! native nothing runs it unless the device is polled, so the future drives the device with a
//! non-blocking poll each time it is polled and asks to be polled again: any executor
//! (`pollster::block_on`, an async runtime's worker) brings it to an end.

use crate::sync::lock;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context as TaskContext, Poll, Waker};

/// How long a native wait goes on after the device reports an empty queue without the
/// callback having run: another thread's poll may have collected the callback and be about to
/// run it. A callback that has still not run then never will (the device is gone).
pub(crate) const GRACE: std::time::Duration = std::time::Duration::from_secs(10);

struct Slot<T> {
    value: Option<T>,
    waker: Option<Waker>,
}

/// A value that a callback will deliver.
pub(crate) struct Signal<T> {
    slot: Arc<Mutex<Slot<T>>>,
}

/// Why a native wait ended without the callback's value.
#[derive(Debug)]
pub(crate) enum Unanswered {
    /// The device's poll failed.
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    Poll(wgpu::PollError),
    /// The queue was empty for [`GRACE`] and the callback never ran.
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    Silent,
}

impl<T: Send + 'static> Signal<T> {
    pub(crate) fn new() -> Signal<T> {
        Signal {
            slot: Arc::new(Mutex::new(Slot {
                value: None,
                waker: None,
            })),
        }
    }

    /// The callback to hand to wgpu: it stores the value and wakes the waiting task.
    pub(crate) fn setter(&self) -> impl FnOnce(T) + Send + 'static {
        let slot = self.slot.clone();
        move |value| {
            let mut slot = lock(&slot);
            slot.value = Some(value);
            if let Some(waker) = slot.waker.take() {
                waker.wake();
            }
        }
    }

    /// The value, if the callback has run (taken: a second call gives `None`).
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    pub(crate) fn take(&self) -> Option<T> {
        lock(&self.slot).value.take()
    }

    /// Completes with the value once the callback has run.
    pub(crate) fn wait<'a>(&'a self, device: &'a wgpu::Device) -> Wait<'a, T> {
        Wait {
            signal: self,
            device,
            #[cfg(not(target_arch = "wasm32"))]
            empty_since: None,
        }
    }
}

/// The future of [`Signal::wait`].
pub(crate) struct Wait<'a, T> {
    signal: &'a Signal<T>,
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    device: &'a wgpu::Device,
    #[cfg(not(target_arch = "wasm32"))]
    empty_since: Option<std::time::Instant>,
}

impl<T: Send + 'static> Future for Wait<'_, T> {
    type Output = Result<T, Unanswered>;

    #[cfg_attr(target_arch = "wasm32", allow(unused_mut))]
    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
        {
            // The waker is stored under the same lock the callback takes, so a callback that
            // runs after this check wakes this task.
            let mut slot = lock(&self.signal.slot);
            if let Some(value) = slot.value.take() {
                return Poll::Ready(Ok(value));
            }
            slot.waker = Some(cx.waker().clone());
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            // The lock is not held across the poll: the callback takes it.
            #[expect(clippy::disallowed_methods, reason = "PollType::Poll returns at once")]
            let status = match self.device.poll(wgpu::PollType::Poll) {
                Ok(status) => status,
                Err(e) => return Poll::Ready(Err(Unanswered::Poll(e))),
            };
            if let Some(value) = self.signal.take() {
                return Poll::Ready(Ok(value));
            }
            if status.is_queue_empty() {
                let since = *self.empty_since.get_or_insert_with(std::time::Instant::now);
                if since.elapsed() > GRACE {
                    return Poll::Ready(Err(Unanswered::Silent));
                }
            } else {
                self.empty_since = None;
            }
            cx.waker().wake_by_ref();
        }
        Poll::Pending
    }
}
