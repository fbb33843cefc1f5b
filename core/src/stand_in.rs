//! The door a stand-in driver comes in by (the `stand-in` feature): a [`StandIn`] answers the
//! calls of the tables made with [`Config::stand_in`](crate::Config::stand_in) itself, instead of
//! the pointers they resolve. The fake driver and device of the user-facing crate's `fake`
//! feature are one; this crate knows none of them, as `libloading` knows no library.
//!
//! What a call hands a stand-in is a [`Call`]: the C name, the type of the function (its
//! `PFN_*` type at the table's pin), its arguments as one tuple, and its out-values. What the
//! stand-in writes through those with [`write()`] is recorded for the call (`out`), so that the
//! `tracing` feature's event reads only what was written and [`Call::written`] can show it.

use std::any::{Any, TypeId};
use std::ffi::c_void;
use std::fmt;
use std::ptr::NonNull;

use crate::resolve::Resolver;
use crate::stream::StreamMode;
use crate::sys::CUresult;

mod out;

pub(crate) use out::begin;
#[cfg(feature = "tracing")]
pub(crate) use out::was_written;
#[doc(hidden)]
pub use out::OutPlace;
pub use out::{write, write_hex, Written};

/// A stand-in for the driver: it answers lookups as a [`Resolver`] (so that pins, versions and
/// `resolve_all` behave as with a driver), and then answers each call of a table made with
/// [`Config::stand_in`](crate::Config::stand_in) itself.
///
/// # Safety
///
/// A table made with `Config::stand_in(s)` never calls a pointer `s` hands out, and this crate
/// hands none of them out for it (raw accessors, [`Config::resolver`](crate::Config::resolver)
/// and [`resolve`](crate::resolve) refuse such a configuration), so `lookup` may hand out, for a
/// function the stand-in answers, a pointer that is not that function. An implementation doing
/// so must make sure that nothing but `Config::stand_in` can reach it as a [`Resolver`] (a
/// private type whose values only it hands to `Config::stand_in`); otherwise every pointer it
/// hands out keeps [`Resolver`]'s contract. [`Resolver::error_strings`] must be overridden
/// without calling a looked-up pointer.
pub unsafe trait StandIn: Resolver {
    /// Answers `call`: `None` when the stand-in has no answer for it (the call then returns
    /// `CUDA_ERROR_NOT_SUPPORTED`).
    ///
    /// # Safety
    ///
    /// The call's arguments uphold the C function's contract (what the caller of the table's
    /// `unsafe` method promised), and its out-values are among them, each of the type the
    /// function writes through it.
    unsafe fn call(&self, call: &Call<'_>) -> Option<CUresult>;
}

/// One call of a table's method, as a [`StandIn`] receives it.
pub struct Call<'a> {
    name: &'static str,
    stream_mode: StreamMode,
    function: TypeId,
    args: &'a dyn Any,
    keep: fn(&dyn Any) -> Option<Kept>,
    outs: &'a [OutPlace],
}

impl<'a> Call<'a> {
    /// A call of `name` (of type `F`) with `args`, from a table in `stream_mode`.
    pub(crate) fn new<F: DriverFn>(
        name: &'static str,
        stream_mode: StreamMode,
        args: &'a F::Args,
        outs: &'a [OutPlace],
    ) -> Self {
        Self {
            name,
            stream_mode,
            function: TypeId::of::<F>(),
            args,
            keep: keep::<F::Args>,
            outs,
        }
    }

    /// The function's C name (`cuMemAlloc`).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The default-stream mode of the table that calls (its configuration's): what the null
    /// stream means in this call.
    pub fn stream_mode(&self) -> StreamMode {
        self.stream_mode
    }

    /// The `TypeId` of the function's type (its `PFN_*` type at the table's pin).
    pub fn function(&self) -> TypeId {
        self.function
    }

    /// The arguments, as one tuple of the function's argument types (`(dptr, bytesize)`).
    pub fn args(&self) -> &'a dyn Any {
        self.args
    }

    /// The arguments if they are an `A`.
    pub fn args_as<A: Copy + 'static>(&self) -> Option<A> {
        self.args.downcast_ref::<A>().copied()
    }

    /// A copy of the arguments that may be kept and sent to another thread.
    pub fn keep(&self) -> Kept {
        (self.keep)(self.args).unwrap_or(Kept(Box::new(())))
    }

    /// The out-values among the arguments.
    pub fn outs(&self) -> &'a [OutPlace] {
        self.outs
    }

    /// What has been written through the out-values so far during this call, by [`write()`]
    /// (or a stand-in's filling of an out-value with a handle or zeros), in the order of the
    /// out-values.
    pub fn written(&self) -> Vec<Written> {
        out::taken(self.outs)
    }
}

impl fmt::Debug for Call<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Call").field("name", &self.name).finish()
    }
}

/// A kept copy of a call's arguments ([`Call::keep`]).
pub struct Kept(Box<dyn Any + Send + Sync>);

impl Kept {
    /// The arguments, if they are an `A`.
    pub fn get<A: Copy + 'static>(&self) -> Option<A> {
        self.0.downcast_ref::<Sent<A>>().map(|a| a.0)
    }
}

impl fmt::Debug for Kept {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Kept(..)")
    }
}

/// The arguments of a kept call.
struct Sent<A>(A);

// SAFETY: a `Sent` holds only the arguments of a driver function (`DriverFn::Args`): C values
// (integers, enums, raw pointers and handles, `#[repr(C)]` structs and unions of them) with no
// thread affinity. Nothing here dereferences them; sending or sharing such a value is safe
// (dereferencing a pointer is the receiver's `unsafe`).
unsafe impl<A> Send for Sent<A> {}
// SAFETY: as `Send`; shared only to be copied out.
unsafe impl<A> Sync for Sent<A> {}

fn keep<A: Copy + 'static>(args: &dyn Any) -> Option<Kept> {
    let args = args.downcast_ref::<A>()?;
    Some(Kept(Box::new(Sent(*args))))
}

mod sealed {
    pub trait Sealed {}
}

/// The type of a driver function a stand-in can answer: `unsafe extern "C" fn(A, B, ...) -> R`
/// with up to 16 arguments (the most any driver function has), each `Copy`, and a `CUresult`
/// result. Implemented here for those types only.
pub trait DriverFn: Copy + Send + Sync + 'static + sealed::Sealed {
    /// The arguments, as one tuple: `(A, B)`, `(A,)`, `()`.
    type Args: Copy + 'static;
    /// The result.
    type Ret: Unanswered + 'static;

    /// A function of this type that touches nothing and returns [`Unanswered::unanswered`].
    #[doc(hidden)]
    fn stand_in() -> Option<NonNull<c_void>>;

    /// Calls `self` with `args`.
    ///
    /// # Safety
    ///
    /// As calling the function: `args` uphold its C contract.
    #[doc(hidden)]
    unsafe fn call(self, args: Self::Args) -> Self::Ret;
}

/// What a call no stand-in answers returns: for a `CUresult`, `CUDA_ERROR_NOT_SUPPORTED`.
#[doc(hidden)]
pub trait Unanswered: sealed::Sealed {
    /// The result.
    fn unanswered() -> Self;
    /// `result` as this type.
    fn from_result(result: CUresult) -> Self;
}

impl sealed::Sealed for CUresult {}

impl Unanswered for CUresult {
    fn unanswered() -> Self {
        CUresult::CUDA_ERROR_NOT_SUPPORTED
    }
    fn from_result(result: CUresult) -> Self {
        result
    }
}

macro_rules! driver_fn {
    ($($arg:ident $value:ident),*) => {
        impl<$($arg: Copy + 'static,)* R: Unanswered + 'static> sealed::Sealed
            for unsafe extern "C" fn($($arg),*) -> R
        {
        }

        impl<$($arg: Copy + 'static,)* R: Unanswered + 'static> DriverFn
            for unsafe extern "C" fn($($arg),*) -> R
        {
            type Args = ($($arg,)*);
            type Ret = R;

            fn stand_in() -> Option<NonNull<c_void>> {
                #[allow(clippy::too_many_arguments)]
                extern "C" fn stand_in<$($arg,)* R: Unanswered>($(_: $arg),*) -> R {
                    R::unanswered()
                }
                let f: Self = stand_in::<$($arg,)* R>;
                NonNull::new(f as *mut c_void)
            }

            unsafe fn call(self, ($($value,)*): Self::Args) -> R {
                // SAFETY: the arguments uphold the function's contract (this fn's `# Safety`).
                unsafe { self($($value),*) }
            }
        }
    };
}

driver_fn!();
driver_fn!(A a);
driver_fn!(A a, B b);
driver_fn!(A a, B b, C c);
driver_fn!(A a, B b, C c, D d);
driver_fn!(A a, B b, C c, D d, E e);
driver_fn!(A a, B b, C c, D d, E e, F f);
driver_fn!(A a, B b, C c, D d, E e, F f, G g);
driver_fn!(A a, B b, C c, D d, E e, F f, G g, H h);
driver_fn!(A a, B b, C c, D d, E e, F f, G g, H h, I i);
driver_fn!(A a, B b, C c, D d, E e, F f, G g, H h, I i, J j);
driver_fn!(A a, B b, C c, D d, E e, F f, G g, H h, I i, J j, K k);
driver_fn!(A a, B b, C c, D d, E e, F f, G g, H h, I i, J j, K k, L l);
driver_fn!(A a, B b, C c, D d, E e, F f, G g, H h, I i, J j, K k, L l, M m);
driver_fn!(A a, B b, C c, D d, E e, F f, G g, H h, I i, J j, K k, L l, M m, N n);
driver_fn!(A a, B b, C c, D d, E e, F f, G g, H h, I i, J j, K k, L l, M m, N n, O o);
driver_fn!(A a, B b, C c, D d, E e, F f, G g, H h, I i, J j, K k, L l, M m, N n, O o, P p);
