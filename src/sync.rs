//! Locking that outlives a panic on another thread.

use std::sync::{Mutex, MutexGuard};

/// Locks `m`, recovering its value if another thread panicked while holding it.
///
/// Recovery is sound because no mutex of this crate is ever left half-written: the metadata
/// arena changes only after the last step that can fail, the pipeline caches hold finished
/// pipelines, the callback slots hold finished values, and the error-scope list holds whole
/// entries. A panic in a caller's thread must not turn into a panic in every later call.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
