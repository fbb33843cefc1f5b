//! Every method's call path: what generated methods expand their driver call into.
//!
//! Every method's call goes through `__cdt_call!` (below): the lookup of the function, the call
//! (`__cdt_invoke!`) and the `CUresult` check. Without the `tracing` feature that is all: no
//! code, no cost. With it, when a subscriber is interested in target `cuda_driver_table`, the
//! call is timed and an event records it (`trace` has the events and what they show).
//!
//! The driver call itself goes through `__cdt_invoke!`: the call alone, unless the `stand-in`
//! feature is on (then a table configured with a stand-in driver hands the call to it,
//! `stand_in::invoke`, traced like any call).

/// One driver call, with the `CUresult` check (`check:`) or returning the value (`value:`),
/// traced when the `tracing` feature is on. Without `tracing`, the lookup of the function, the
/// call (`__cdt_invoke!`: the call alone, unless the `stand-in` feature is on) and the check: what
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
/// Without the `stand-in` feature that is the call alone: no code, no cost.
#[cfg(not(feature = "stand-in"))]
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

/// The driver call itself: with the `stand-in` feature, the stand-in's answer when the table's
/// configuration is a stand-in's, else `$f` called with the method's arguments
/// (`stand_in::invoke`).
#[cfg(feature = "stand-in")]
#[doc(hidden)]
#[macro_export]
macro_rules! __cdt_invoke {
    ($config:expr, $name:literal, $f:ident, ($($arg:ident),*), ($($out:ident $($out_hex:ident)?),*)) => {
        // SAFETY: `$f` is the function the table resolved through `$config`, called with the
        // method's arguments, whose caller upholds the C function's contract (the method's
        // `# Safety`): `invoke` calls `$f` with them, or hands them to the stand-in driver;
        // each `$out` is one of them, an out-value the generator marked, of its pointee type.
        unsafe {
            $crate::__private::invoke(
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

#[cfg(feature = "stand-in")]
pub use self::stand_in_call::invoke;

/// The call path of a table whose configuration may be a stand-in's (`stand_in`).
#[cfg(feature = "stand-in")]
mod stand_in_call {
    use crate::config::Config;
    use crate::stand_in::{self, Call, DriverFn, OutPlace, StandIn, Unanswered};
    use crate::stream::StreamMode;

    /// One call of a table's method: to the stand-in when `config` is a stand-in's, else to `f`. What `__cdt_invoke!` expands to with the `stand-in` feature: a method then tests
    /// one field of its configuration before its call; the stand-in's side is out of line. `outs`
    /// are the call's out-values.
    ///
    /// # Safety
    ///
    /// `f` is the function the table resolved for `name`, `args` uphold its C contract (the caller
    /// of the table's method upholds it), and `outs` are out-values among `args`, each of the type
    /// the function writes through it.
    #[doc(hidden)]
    #[inline]
    pub unsafe fn invoke<F: DriverFn>(
        config: &Config,
        name: &'static str,
        f: F,
        args: F::Args,
        outs: &[OutPlace],
    ) -> F::Ret {
        match config.stand_in_driver() {
            // SAFETY: the caller's contract.
            None => unsafe { f.call(args) },
            // SAFETY: the caller's contract.
            Some(stand_in) => unsafe {
                call_stand_in::<F>(stand_in, config.stream_mode(), name, &args, outs)
            },
        }
    }

    /// [`invoke`] for a stand-in's configuration.
    ///
    /// # Safety
    ///
    /// As [`invoke`].
    #[inline(never)]
    unsafe fn call_stand_in<F: DriverFn>(
        stand_in: &dyn StandIn,
        stream_mode: StreamMode,
        name: &'static str,
        args: &F::Args,
        outs: &[OutPlace],
    ) -> F::Ret {
        stand_in::begin();
        let call = Call::new::<F>(name, stream_mode, args, outs);
        // SAFETY: the caller's contract.
        match unsafe { stand_in.call(&call) } {
            Some(result) => F::Ret::from_result(result),
            None => F::Ret::unanswered(),
        }
    }
}
