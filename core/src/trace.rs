//! Call tracing (the `tracing` feature): what generated methods expand their driver call into.
//!
//! Every method's call goes through `__cdt_call!` (below). Without the feature that
//! is the call and the `CUresult` check, nothing else: no code, no cost. With it, when a
//! subscriber is interested in target `cuda_driver_table`, the call is timed and an event records
//! the function's C name, each argument under its C parameter name, the result and the time the
//! driver took: level TRACE, or DEBUG for a failing `CUresult`. The event of a successful call
//! also shows what the driver wrote through its out-values, `out.<parameter>` (`out.dptr`
//! beside `dptr`, the address it was written to): the parameters the generator marked, read
//! only once the call returned `CUDA_SUCCESS` and that event is enabled, never through a null
//! pointer (then the field is absent). Resolution emits its own event
//! (`table::fill`). Raw `pfn_*` accessors are not traced: that is their point.
//!
//! The driver call itself goes through `__cdt_invoke!`: the call alone, unless the `fake`
//! feature is on (then a table configured with a fake driver calls the fake's closure, traced
//! like any call).

/// One driver call, with the `CUresult` check (`check:`) or returning the value (`value:`),
/// traced when the `tracing` feature is on. Without `tracing`, the lookup of the function, the
/// call (`__cdt_invoke!`: the call alone, unless the `fake` feature is on) and the check: what
/// every method of a table expands to in most builds.
///
/// `call!(check: <the table's TableCore>, <index>, "<C name>", (<args>), (<out-values>))`: the
/// function's slot, its name, the method's parameters and the out-values among them, each name
/// followed by `Hex` when it is a device pointer (`(dptr Hex, bytesize)`), which a traced call
/// shows in hex. `__cdt_f`, the resolved function, is a name the table's block shadows (see the
/// macro crate's `expand`), so no constant of the user's can stand for it in its pattern.
#[cfg(not(feature = "tracing"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __cdt_call {
    // The out-values, unused here, are taken whole: one group, which the compiler need not read.
    (check: $table:expr, $index:literal, $name:literal, ($($arg:ident $($hex:ident)?),*), $outs:tt) => {{
        let __cdt_f = $table.get::<$index>()?;
        $crate::__private::check(
            $table.config(),
            $name,
            $crate::__cdt_invoke!($table.config(), $name, __cdt_f, ($($arg),*), $outs),
        )
    }};
    (value: $table:expr, $index:literal, $name:literal, ($($arg:ident $($hex:ident)?),*), $outs:tt) => {{
        let __cdt_f = $table.get::<$index>()?;
        ::core::result::Result::Ok($crate::__cdt_invoke!($table.config(), $name, __cdt_f, ($($arg),*), $outs))
    }};
}

/// One driver call, with the `CUresult` check (`check:`) or returning the value (`value:`),
/// traced when the `tracing` feature is on.
#[cfg(feature = "tracing")]
#[doc(hidden)]
#[macro_export]
macro_rules! __cdt_call {
    (check: $table:expr, $index:literal, $name:literal, ($($arg:ident $($hex:ident)?),*), ($($out:ident $($out_hex:ident)?),*)) => {{
        let __cdt_f = $table.get::<$index>()?;
        if $crate::__private::tracing::enabled!(
            target: "cuda_driver_table",
            $crate::__private::tracing::Level::DEBUG
        ) {
            // Out of line: the method's fast path keeps only the check above.
            $crate::__private::cold(|| {
            let __cdt_start = ::std::time::Instant::now();
            let __cdt_code = $crate::__cdt_invoke!($table.config(), $name, __cdt_f, ($($arg),*), ($($out $($out_hex)?),*));
            let __cdt_elapsed = $crate::__private::nanos(__cdt_start.elapsed());
            let __cdt_r = $crate::__private::check($table.config(), $name, __cdt_code);
            #[allow(unused_imports)]
            use $crate::__private::{DebugArg as _, OpaqueArg as _};
            $crate::__private::emit(|| match &__cdt_r {
                ::core::result::Result::Ok(()) => $crate::__private::tracing::event!(
                    target: "cuda_driver_table",
                    $crate::__private::tracing::Level::TRACE,
                    function = $name,
                    $($arg = ?(&$crate::__private::Arg(&$($crate::__private::$hex)?($arg))).arg(),)*
                    // Evaluated only when this event is enabled, after `CUDA_SUCCESS`.
                    // SAFETY: each `$out` is a parameter the generator marked as an out-value
                    // (`cuda.h` documents the driver as returning one value of its pointee type
                    // through it), and the call succeeded: the driver wrote that value where the
                    // caller's contract (the method's `# Safety`) let it; `written` reads nothing
                    // through a null pointer.
                    $(out.$out = unsafe { $crate::__private::written($table.config(), $out, $crate::__private::shown!($($out_hex)?)) },)*
                    result = "CUDA_SUCCESS",
                    elapsed_ns = __cdt_elapsed,
                ),
                ::core::result::Result::Err(__cdt_e) => $crate::__private::tracing::event!(
                    target: "cuda_driver_table",
                    $crate::__private::tracing::Level::DEBUG,
                    function = $name,
                    $($arg = ?(&$crate::__private::Arg(&$($crate::__private::$hex)?($arg))).arg(),)*
                    result = $crate::__private::result_name(__cdt_e),
                    code = __cdt_code.0,
                    elapsed_ns = __cdt_elapsed,
                ),
            });
            __cdt_r
            })
        } else {
            $crate::__private::check($table.config(), $name, $crate::__cdt_invoke!($table.config(), $name, __cdt_f, ($($arg),*), ($($out $($out_hex)?),*)))
        }
    }};
    (value: $table:expr, $index:literal, $name:literal, ($($arg:ident $($hex:ident)?),*), ($($out:ident $($out_hex:ident)?),*)) => {{
        let __cdt_f = $table.get::<$index>()?;
        if $crate::__private::tracing::enabled!(
            target: "cuda_driver_table",
            $crate::__private::tracing::Level::TRACE
        ) {
            $crate::__private::cold(|| {
            let __cdt_start = ::std::time::Instant::now();
            let __cdt_value = $crate::__cdt_invoke!($table.config(), $name, __cdt_f, ($($arg),*), ($($out $($out_hex)?),*));
            let __cdt_elapsed = $crate::__private::nanos(__cdt_start.elapsed());
            #[allow(unused_imports)]
            use $crate::__private::{DebugArg as _, OpaqueArg as _};
            $crate::__private::emit(|| $crate::__private::tracing::event!(
                target: "cuda_driver_table",
                $crate::__private::tracing::Level::TRACE,
                function = $name,
                $($arg = ?(&$crate::__private::Arg(&$($crate::__private::$hex)?($arg))).arg(),)*
                result = ?(&$crate::__private::Arg(&__cdt_value)).arg(),
                elapsed_ns = __cdt_elapsed,
            ));
            ::core::result::Result::Ok(__cdt_value)
            })
        } else {
            ::core::result::Result::Ok($crate::__cdt_invoke!($table.config(), $name, __cdt_f, ($($arg),*), ($($out $($out_hex)?),*)))
        }
    }};
}

/// The driver call itself: `$f` (the resolved function) called with the method's arguments.
/// Without the `fake` feature that is the call alone: no code, no cost.
#[cfg(not(feature = "fake"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __cdt_invoke {
    ($config:expr, $name:literal, $f:ident, ($($arg:ident),*), $outs:tt) => {
        // SAFETY: `$f` is the driver's function at exactly the ABI of the typedef its slot is
        // bound to, called with the method's arguments, whose caller upholds the C function's
        // contract (the method's `# Safety`).
        unsafe { $f($($arg),*) }
    };
}

/// The driver call itself: with the `fake` feature, the fake driver's closure when the table's
/// configuration is a fake's, else `$f` called with the method's arguments
/// (`fake::fake_invoke`).
#[cfg(feature = "fake")]
#[doc(hidden)]
#[macro_export]
macro_rules! __cdt_invoke {
    ($config:expr, $name:literal, $f:ident, ($($arg:ident),*), ($($out:ident $($out_hex:ident)?),*)) => {
        // SAFETY: `$f` is the function the table resolved through `$config`, called with the
        // method's arguments, whose caller upholds the C function's contract (the method's
        // `# Safety`): `fake_invoke` calls `$f` with them, or hands them to the fake driver;
        // each `$out` is one of them, an out-value the generator marked, of its pointee type.
        unsafe {
            $crate::__private::fake_invoke(
                $config,
                $name,
                $f,
                ($($arg,)*),
                &[$($crate::__private::OutPlace::new(::core::stringify!($out), $out)),*],
            )
        }
    };
}

/// How a traced call shows an out-value: `shown!(Hex)` in hex (a device pointer), `shown!()` as it
/// is. A path, not a closure: a closure's parameter is a pattern, which a user's constant of its
/// name would take over.
#[cfg(feature = "tracing")]
#[doc(hidden)]
#[macro_export]
macro_rules! __cdt_shown {
    () => {
        ::core::convert::identity
    };
    (Hex) => {
        $crate::__private::Hex
    };
}

/// An integer shown in hex in traces: device pointers (`CUdeviceptr`) are integers in C. Present
/// without the feature too, so that generated code can name it either way.
#[derive(Clone, Copy)]
pub struct Hex<T>(pub T);

impl<T: std::fmt::LowerHex> std::fmt::Debug for Hex<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:#x}", self.0)
    }
}

#[cfg(feature = "tracing")]
pub use self::on::*;

#[cfg(feature = "tracing")]
mod on {
    use std::any::type_name;
    use std::cell::Cell;
    use std::fmt;
    #[cfg(feature = "fake")]
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
    /// For a call answered by a fake driver (`config` is a fake's), only what the fake wrote is
    /// read: the fake records each out-value it writes (`fake::write`), and an out-value it
    /// did not write is absent from the event, however the call returned.
    ///
    /// # Safety
    ///
    /// `p` is null, or valid for reads of a `T`, which is initialized unless the call was
    /// answered by a fake: the driver wrote it (the call returned `CUDA_SUCCESS` and `cuda.h`
    /// documents the parameter as returned). It need not be aligned.
    pub unsafe fn written<T: Copy, D: fmt::Debug>(
        config: &Config,
        p: *mut T,
        show: impl FnOnce(T) -> D,
    ) -> Option<tracing::field::DebugValue<D>> {
        if p.is_null() {
            return None;
        }
        #[cfg(feature = "fake")]
        if config.fake().is_some() && !crate::fake::was_written(p as usize, size_of::<T>()) {
            return None;
        }
        #[cfg(not(feature = "fake"))]
        let _ = config;
        // SAFETY: `p` is not null, and valid for reads of an initialized `T` (the caller's promise);
        // an unaligned read asks nothing more.
        let value = unsafe { p.read_unaligned() };
        Some(tracing::field::debug(show(value)))
    }

    /// The event of one resolution: the function, the ABI version and flag asked (`request`, as
    /// the resolution computed it), the backend, the time it took and, for a failure (at DEBUG),
    /// the error.
    pub(crate) fn resolution(
        config: &Config,
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
            let backend = crate::library::resolver_for(config)
                .map_or_else(|_| "no library".to_owned(), |r| r.describe());
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
