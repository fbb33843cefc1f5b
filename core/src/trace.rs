//! Call tracing (the `tracing` feature): the events of calls and resolutions.
//!
//! When a subscriber is interested in target `cuda_driver_table`, `__cdt_call!` (`call`) times
//! each call and emits an event with the function's C name, each argument under its C parameter
//! name, the result and the time the driver took: level TRACE, or DEBUG for a failing
//! `CUresult`. The event of a successful call also shows what the driver wrote through its
//! out-values, `out.<parameter>` (`out.dptr` beside `dptr`, the address it was written to): the
//! parameters the generator marked, read only once the call returned `CUDA_SUCCESS` and that
//! event is enabled, never through a null pointer (then the field is absent). Resolution emits
//! its own event (`table::settle`). Raw `pfn_*` accessors are not traced: that is their point.

#[cfg(feature = "tracing")]
pub use self::on::*;

#[cfg(feature = "tracing")]
mod on {
    use std::any::type_name;
    use std::cell::Cell;
    use std::fmt;
    #[cfg(feature = "stand-in")]
    use std::mem::size_of;
    use std::time::Duration;

    use crate::config::Config;
    use crate::error::{Error, ErrorKind};
    use crate::stream::StreamMode;

    /// An argument of a traced call, shown by [`DebugArg`] where its type has `Debug` (pointers
    /// in hex, integers and the bindings' enums by value), else by [`OpaqueArg`] as its type's
    /// name. The choice is made at the call site, by method resolution (an impl on `Arg` wins
    /// over one on `&Arg`).
    pub struct Arg<'a, T>(pub &'a T);

    /// `Debug` arguments: shown as they are.
    pub trait DebugArg {
        /// The value to record.
        fn arg(&self) -> &dyn fmt::Debug;
    }

    impl<T: fmt::Debug> DebugArg for Arg<'_, T> {
        fn arg(&self) -> &dyn fmt::Debug {
            self.0
        }
    }

    /// Arguments without `Debug` (some by-value structs of the bindings): their type's name.
    pub trait OpaqueArg {
        /// The value to record.
        fn arg(&self) -> Opaque;
    }

    impl<T> OpaqueArg for &Arg<'_, T> {
        fn arg(&self) -> Opaque {
            Opaque(type_name::<T>())
        }
    }

    /// A value shown as `<its type>`.
    pub struct Opaque(&'static str);

    impl fmt::Debug for Opaque {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            let short = self.0.rsplit("::").next().unwrap_or(self.0);
            write!(f, "<{short}>")
        }
    }

    /// Runs `f` out of line: the traced path of a call, kept out of the method so that with no
    /// interested subscriber the method is the enabled check, the call and the `CUresult` check.
    #[cold]
    #[inline(never)]
    pub fn cold<R>(f: impl FnOnce() -> R) -> R {
        f()
    }

    thread_local! {
        /// Whether this thread is inside one of this crate's events.
        static EMITTING: Cell<bool> = const { Cell::new(false) };
    }

    /// Emits one of this crate's events through `f`, unless this thread is inside one already.
    /// A subscriber may call a table from inside an event (to log a context, say): that call is
    /// made, resolved and checked as always, but emits nothing, so a subscriber that reacts to
    /// every event cannot recurse without end.
    pub fn emit(f: impl FnOnce()) {
        /// Leaves the event even if the subscriber panics.
        struct Leave;
        impl Drop for Leave {
            fn drop(&mut self) {
                let _ = EMITTING.try_with(|e| e.set(false));
            }
        }
        // During thread teardown (no thread-local left) nothing is emitted.
        if !matches!(EMITTING.try_with(|e| e.replace(true)), Ok(false)) {
            return;
        }
        let _leave = Leave;
        f();
    }

    /// A duration in whole nanoseconds, saturating.
    pub fn nanos(d: Duration) -> u64 {
        u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
    }

    /// What the driver wrote through an out-value, for the event of a successful call: the value `p`
    /// points to, shown by `show`; `None` (no field in the event) where `p` is null.
    ///
    /// For a call answered by a stand-in driver (`config` is a stand-in's), only what the
    /// stand-in wrote is read: it records each out-value it writes (`stand_in::write`), and an
    /// out-value it did not write is absent from the event, however the call returned.
    ///
    /// # Safety
    ///
    /// `p` is null, or valid for reads of a `T`, which is initialized unless the call was
    /// answered by a stand-in: the driver wrote it (the call returned `CUDA_SUCCESS` and `cuda.h`
    /// documents the parameter as returned). It need not be aligned.
    pub unsafe fn written<T: Copy, D: fmt::Debug>(
        config: &Config,
        p: *mut T,
        show: impl FnOnce(T) -> D,
    ) -> Option<tracing::field::DebugValue<D>> {
        if p.is_null() {
            return None;
        }
        #[cfg(feature = "stand-in")]
        if config.stand_in_driver().is_some()
            && !crate::stand_in::was_written(p as usize, size_of::<T>())
        {
            return None;
        }
        #[cfg(not(feature = "stand-in"))]
        let _ = config;
        // SAFETY: `p` is not null, and valid for reads of an initialized `T` (the caller's promise);
        // an unaligned read asks nothing more.
        let value = unsafe { p.read_unaligned() };
        Some(tracing::field::debug(show(value)))
    }

    /// The event of one resolution: the function, the ABI version and flag asked (`request`, as
    /// the resolution computed it), the backend (`backend`, asked only for an event that is
    /// emitted), the time it took and, for a failure (at DEBUG), the error.
    pub(crate) fn resolution(
        backend: &dyn Fn() -> String,
        name: &str,
        (abi, mode): (u32, StreamMode),
        result: &Result<std::ptr::NonNull<std::ffi::c_void>, Error>,
        elapsed: Duration,
    ) {
        if !tracing::enabled!(target: "cuda_driver_table", tracing::Level::DEBUG) {
            return;
        }
        // Inside `emit`: a nested resolution, which emits nothing, builds no description either.
        emit(|| {
            let backend = backend();
            let elapsed_ns = nanos(elapsed);
            match result {
                Ok(p) => tracing::event!(
                    target: "cuda_driver_table",
                    tracing::Level::TRACE,
                    resolved = name,
                    abi,
                    flag = ?mode,
                    backend,
                    pointer = ?p,
                    elapsed_ns,
                ),
                Err(e) => tracing::event!(
                    target: "cuda_driver_table",
                    tracing::Level::DEBUG,
                    resolved = name,
                    abi,
                    flag = ?mode,
                    backend,
                    error = %e,
                    elapsed_ns,
                ),
            }
        });
    }

    /// The `CUresult`'s name for an event (`CUDA_ERROR_INVALID_VALUE`), or `unknown CUresult`.
    pub fn result_name(error: &Error) -> &str {
        match error.kind() {
            ErrorKind::Cuda {
                name: Some(name), ..
            } => name,
            _ => "unknown CUresult",
        }
    }
}
