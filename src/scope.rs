//! Error scopes that never block.
//!
//! wgpu reports what a call did wrong to the innermost error scope, and popping a scope gives
//! a future of what it caught. On native backends that future is ready as soon as the scope is
//! popped; in a browser it resolves only after the GPU process has answered, once control is
//! back in the event loop, so nothing that records or uploads may wait for it. Hence:
//!
//! - [`capture`] pops its scopes and polls each pop once, without blocking. A pop that is
//!   ready gives its error at once (always the case on native, where recording therefore
//!   returns every error as before).
//! - Pops that are not ready yet are kept in the context's [`Late`] list, each with the typed
//!   error its failure means. The next asynchronous call on the context
//!   ([`crate::Context::check_async`], which every `*_async` read-back and wait runs) awaits
//!   them and returns the first error.
//! - [`probe`] is for checks whose answer is only useful at once (is this buffer bindable?):
//!   a pop that is not ready counts as no error, and its future is dropped (the scope has
//!   still kept the error away from the device's uncaptured-error handler).

use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::task::{Context as TaskContext, Poll, Waker};

use crate::error::Error;
use crate::sync::lock;

/// A popped scope's future (`Send` where wgpu's futures are, that is on native targets).
#[cfg(not(target_arch = "wasm32"))]
type PopFuture = Pin<Box<dyn Future<Output = Option<wgpu::Error>> + Send>>;
#[cfg(target_arch = "wasm32")]
type PopFuture = Pin<Box<dyn Future<Output = Option<wgpu::Error>>>>;

/// What an error that a scope caught means, as a typed error.
pub(crate) type Explain = fn(wgpu::Error) -> Error;

/// Scopes popped but not answered yet, with what their errors mean.
#[derive(Default)]
pub(crate) struct Late {
    pending: Mutex<Vec<(PopFuture, Explain)>>,
}

impl Late {
    /// Awaits every pop kept so far and returns the first error (in the order the scopes were
    /// made), explained. Each error is reported once: the pops are taken out of the list.
    pub(crate) async fn settle(&self) -> Option<Error> {
        let pending = std::mem::take(&mut *lock(&self.pending));
        let mut first = None;
        for (pop, explain) in pending {
            if let Some(e) = pop.await
                && first.is_none()
            {
                first = Some(explain(e));
            }
        }
        first
    }

    /// How many pops are waiting for an answer.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        lock(&self.pending).len()
    }

    fn keep(&self, pops: Vec<PopFuture>, explain: Explain) {
        lock(&self.pending).extend(pops.into_iter().map(|p| (p, explain)));
    }
}

/// Runs `f` inside validation, internal and out-of-memory error scopes, so that a driver that
/// cannot compile a kernel or allocate a buffer does not reach the device's uncaptured-error
/// handler (which panics by default). Returns the error the scopes caught if they have
/// answered (always on native); scopes not answered yet go to `late` with `explain`.
pub(crate) fn capture<T>(
    device: &wgpu::Device,
    late: &Late,
    explain: Explain,
    f: impl FnOnce() -> T,
) -> Result<T, wgpu::Error> {
    let (value, pending) = scoped(device, f)?;
    if !pending.is_empty() {
        late.keep(pending, explain);
    }
    Ok(value)
}

/// [`capture`] for checks that are only useful at once: scopes that have not answered yet
/// count as no error.
pub(crate) fn probe<T>(device: &wgpu::Device, f: impl FnOnce() -> T) -> Result<T, wgpu::Error> {
    scoped(device, f).map(|(value, _)| value)
}

/// Unmaps `buffer`, which the crate mapped, inside error scopes. Unmapping is refused once the
/// device is destroyed or lost, which another thread may do at any moment between the mapping
/// and the unmap; the refusal would otherwise reach the device's uncaptured-error handler,
/// whose default panics. It is dropped: the bytes read before it are good, and the loss is
/// what the next wait or call reports.
pub(crate) fn unmap(device: &wgpu::Device, buffer: &wgpu::Buffer) {
    let _ = probe(device, || buffer.unmap());
}

/// Runs `f` in the three scopes, pops them (innermost first, as scopes require) and polls each
/// pop once. The first error already answered, or the value and the pops still pending.
fn scoped<T>(
    device: &wgpu::Device,
    f: impl FnOnce() -> T,
) -> Result<(T, Vec<PopFuture>), wgpu::Error> {
    let memory = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let internal = device.push_error_scope(wgpu::ErrorFilter::Internal);
    let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let value = f();
    let pops: [PopFuture; 3] = [
        Box::pin(validation.pop()),
        Box::pin(internal.pop()),
        Box::pin(memory.pop()),
    ];
    let mut pending = Vec::new();
    let mut cx = TaskContext::from_waker(Waker::noop());
    for mut pop in pops {
        match pop.as_mut().poll(&mut cx) {
            Poll::Ready(Some(e)) => return Err(e),
            Poll::Ready(None) => {}
            Poll::Pending => pending.push(pop),
        }
    }
    Ok((value, pending))
}

#[cfg(test)]
#[allow(
    clippy::disallowed_methods,
    reason = "the tests wait for the futures they make"
)]
mod tests {
    use super::*;
    use crate::error::WgpuError;

    /// A pop that answers only on its second poll, as a browser's does.
    struct Slow(Option<Option<wgpu::Error>>, bool);

    impl Future for Slow {
        type Output = Option<wgpu::Error>;
        fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
            if self.1 {
                Poll::Ready(self.0.take().expect("polled after it answered"))
            } else {
                self.1 = true;
                cx.waker().wake_by_ref();
                Poll::Pending
            }
        }
    }

    fn error(text: &str) -> wgpu::Error {
        wgpu::Error::Validation {
            source: Box::new(std::io::Error::other(text.to_string())),
            description: text.to_string(),
        }
    }

    #[test]
    fn late_errors_are_explained_in_order_and_reported_once() {
        let late = Late::default();
        late.keep(vec![Box::pin(Slow(Some(None), false))], |e| {
            Error::Allocation(WgpuError::new(e))
        });
        late.keep(
            vec![
                Box::pin(Slow(Some(Some(error("first"))), false)),
                Box::pin(Slow(Some(Some(error("second"))), false)),
            ],
            |e| Error::Pipeline(WgpuError::new(e)),
        );
        assert_eq!(late.len(), 3);
        let first = pollster::block_on(late.settle()).expect("an error");
        assert!(
            matches!(&first, Error::Pipeline(m) if m.message().contains("first")),
            "{first:?}"
        );
        assert_eq!(late.len(), 0);
        assert!(pollster::block_on(late.settle()).is_none());
    }
}
