//! Kernel arguments: the `kernelParams` array `cuLaunchKernel` takes (one pointer per parameter
//! of the kernel, each to the value the driver copies), built from typed, borrowed values by
//! [`kernel_args!`](crate::kernel_args!), on the stack.
//!
//! The array borrows every value for as long as it lives, so no value can be dropped, moved or
//! changed while a launch could still read it; its pointers are only ever read by the driver.
//! The array's own pointer is handed out only inside [`KernelArgs::with_params`], while the array
//! is borrowed and so alive.
//! Nothing here allocates or calls the driver, and nothing here is `unsafe`: the launch itself
//! is, and its `# Safety` says what the values must be.

use std::ffi::c_void;
use std::fmt;
use std::marker::PhantomData;
use std::ptr;

/// A type a kernel can take by value: its bytes are what the kernel's parameter expects, and the
/// driver copies them as they are.
///
/// Implemented for the integers, floats, `bool` and raw pointers (a `sys::CUdeviceptr` is a
/// `u64`). Implement it for a `#[repr(C)]` struct the kernel takes by value, with the kernel's
/// layout; for a type of another crate, such as a `sys` struct, wrap it in a
/// `#[repr(transparent)]` struct of your own and implement it for that.
///
/// Host containers (`Vec`, `String`, references, slices) are not kernel parameters: pass device
/// memory by its `CUdeviceptr`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a kernel parameter",
    label = "not a value a kernel can take",
    note = "a kernel parameter is a plain value the driver copies byte for byte: an integer, a float, a device pointer (`sys::CUdeviceptr`), a raw pointer, or a `#[repr(C)]` type of your own that implements `KernelParam`",
    note = "pass device memory by its `CUdeviceptr`, not a host container or reference"
)]
pub trait KernelParam: Copy {}

macro_rules! kernel_params {
    ($($t:ty),*) => {$(
        impl KernelParam for $t {}
    )*};
}
kernel_params!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize, f32, f64, bool);
impl<T> KernelParam for *const T {}
impl<T> KernelParam for *mut T {}

/// One entry of `kernelParams`: a pointer to a value borrowed for `'a`. Made by
/// [`kernel_args!`](crate::kernel_args!) (or [`KernelArg::new`]).
///
/// With the `stand-in` feature it also knows the value's size and type, which a stand-in driver
/// can check against the kernel's parameters (`lent`).
#[derive(Clone, Copy)]
#[cfg_attr(not(feature = "stand-in"), repr(transparent))]
pub struct KernelArg<'a> {
    pointer: *mut c_void,
    #[cfg(feature = "stand-in")]
    value_type: lent::ValueType,
    value: PhantomData<&'a ()>,
}

impl<'a> KernelArg<'a> {
    /// Points at `value`, which stays borrowed as long as the argument (and the
    /// [`KernelArgs`] holding it) lives.
    pub const fn new<T: KernelParam>(value: &'a T) -> Self {
        Self {
            // `*mut` because `kernelParams` is `void **`; the driver only reads through it.
            pointer: ptr::from_ref(value).cast_mut().cast(),
            #[cfg(feature = "stand-in")]
            value_type: lent::ValueType::of::<T>(),
            value: PhantomData,
        }
    }
}

impl fmt::Debug for KernelArg<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.pointer.fmt(f)
    }
}

/// The `kernelParams` of a launch with `N` parameters: `N` pointers, each to a value borrowed
/// for `'a`, in an array of its own (no allocation). Made by [`kernel_args!`](crate::kernel_args!).
///
/// Launch inside [`with_params`](Self::with_params): it calls the launch with the array as
/// `kernelParams` while the array is borrowed, so the array lives through the launch call
/// whether it is a temporary (`kernel_args![&a, &n].with_params(|params| ...)`) or kept in a
/// variable and launched again. The driver reads the array and the values during the call (it
/// copies the values, so they may change once the call has returned, even for an asynchronous
/// launch); a graph's `cuGraphAddKernelNode` copies them too, so the node's
/// `CUDA_KERNEL_NODE_PARAMS` is filled and added inside the closure.
///
/// There is no `as_mut_ptr`. A raw pointer holds no borrow, so
/// `let p = kernel_args![&a, &n].as_mut_ptr();` would compile without a warning, from rustc or
/// clippy, and leave `p` pointing at an array dropped at the end of that statement: a launch with
/// `p` would read freed stack. The closure of `with_params` is the only place the pointer is
/// handed out, and the array is alive there; a call of `as_mut_ptr` is a compile error that says
/// so. (Do not return the pointer from the closure: it is a raw pointer again, and nothing keeps
/// a temporary array alive past the call.)
///
/// A temporary array, alive until the closure returns, and a kept array launched twice, the same
/// values each time:
///
/// ```
/// # use cuda_driver_table::kernel_args;
/// # use std::ffi::c_void;
/// # fn launch(params: *mut *mut c_void) -> u32 { unsafe { *(*params.add(1)).cast::<u32>() } }
/// let (dptr, n) = (0x7000_0000_u64, 1024_u32);
/// assert_eq!(kernel_args![&dptr, &n].with_params(|params| launch(params)), 1024);
///
/// let args = kernel_args![&dptr, &n];
/// assert_eq!(args.len(), 2);
/// assert_eq!(args.with_params(|params| launch(params)), 1024);
/// assert_eq!(args.with_params(|params| launch(params)), 1024); // launched again
/// ```
#[must_use = "a `KernelArgs` does nothing until `with_params` passes it to a launch"]
#[derive(Clone, Copy, Debug)]
pub struct KernelArgs<'a, const N: usize> {
    args: [KernelArg<'a>; N],
}

impl<'a, const N: usize> KernelArgs<'a, N> {
    /// The array of `args`, in the order of the kernel's parameters.
    pub const fn new(args: [KernelArg<'a>; N]) -> Self {
        Self { args }
    }

    /// Calls `launch` with the array as `cuLaunchKernel`'s `kernelParams` (`void **`; null for a
    /// kernel without parameters) and returns what it returns. `self` stays borrowed during the
    /// call, so the pointer is valid for all of it, for an array made in the same expression
    /// (`kernel_args![&a, &n].with_params(|params| ...)`) as for one kept in a variable; it is not
    /// valid after `launch` returns if `self` was a temporary, so never return or store it past
    /// the closure.
    ///
    /// The pointer is `*mut` because `kernelParams` is `void **`; the driver only reads through
    /// it, so a shared borrow is enough and a kept array needs no `mut`.
    pub fn with_params<R>(&self, launch: impl FnOnce(*mut *mut c_void) -> R) -> R {
        if N == 0 {
            return launch(ptr::null_mut());
        }
        #[cfg(not(feature = "stand-in"))]
        {
            // `KernelArg` is a transparent `*mut c_void`, so the array is an array of `void *`.
            launch(self.args.as_ptr().cast_mut().cast())
        }
        #[cfg(feature = "stand-in")]
        {
            // With a stand-in, a `KernelArg` is a pointer and a value's type: the launch gets an
            // array of the pointers alone, and `lent` the types beside it while it runs.
            let pointers = self.args.map(|arg| arg.pointer);
            let params = pointers.as_ptr().cast_mut();
            lent::lending(params, self.args.map(|arg| arg.value_type).to_vec(), || {
                launch(params)
            })
        }
    }

    /// Not a method: there is no `as_mut_ptr`, and a call is a compile error that says to launch
    /// inside [`with_params`](Self::with_params) ([`KernelArgs`] says why). It is declared only
    /// for that error, which names the fix where a missing method would not.
    #[doc(hidden)]
    pub fn as_mut_ptr(&self) -> *mut *mut c_void
    where
        Self: no_as_mut_ptr::LaunchInsideWithParams,
    {
        unreachable!("no type implements `LaunchInsideWithParams`")
    }

    /// The number of parameters, `N`.
    pub const fn len(&self) -> usize {
        N
    }

    /// Whether there are no parameters.
    pub const fn is_empty(&self) -> bool {
        N == 0
    }
}

/// The arrays that [`KernelArgs::with_params`] is lending now, on any thread, with the type of
/// each value: what a stand-in driver checks a launch's `kernelParams` against, so that it never
/// reads a value as another type than the one it is (the `stand-in` feature).
#[cfg(feature = "stand-in")]
#[doc(hidden)]
pub mod lent {
    use std::ffi::c_void;
    use std::mem::size_of;
    use std::sync::{Mutex, PoisonError};

    /// A value's size and type, as `kernel_args!` typed it.
    #[derive(Clone, Copy, Debug)]
    pub struct ValueType {
        /// Its size in bytes.
        pub size: usize,
        /// Its type's name ([`std::any::type_name`]).
        pub name: fn() -> &'static str,
    }

    impl ValueType {
        /// `T`'s.
        pub const fn of<T>() -> Self {
            Self {
                size: size_of::<T>(),
                name: std::any::type_name::<T>,
            }
        }
    }

    /// The arrays being lent: each array's address, and its values' types.
    static LENDING: Mutex<Vec<(usize, Vec<ValueType>)>> = Mutex::new(Vec::new());

    fn lending_now() -> std::sync::MutexGuard<'static, Vec<(usize, Vec<ValueType>)>> {
        LENDING.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Takes an array off the list when its lending ends (by return or by unwinding).
    struct Lending(usize);

    impl Drop for Lending {
        fn drop(&mut self) {
            let mut lending = lending_now();
            if let Some(i) = lending.iter().rposition(|(params, _)| *params == self.0) {
                lending.swap_remove(i);
            }
        }
    }

    /// Runs `launch` while `params`, whose values are of `types`, is on the list of arrays lent.
    pub(crate) fn lending<R>(
        params: *mut *mut c_void,
        types: Vec<ValueType>,
        launch: impl FnOnce() -> R,
    ) -> R {
        lending_now().push((params.addr(), types));
        let _lending = Lending(params.addr());
        launch()
    }

    /// The types of the values of `params` when `params` is an array a `with_params` is lending
    /// now (on any thread: the array is alive until that call returns, and the launch that reads
    /// it is inside it); `None` for an array built another way, or kept past its `with_params`.
    pub fn types(params: *mut *mut c_void) -> Option<Vec<ValueType>> {
        lending_now()
            .iter()
            .rev()
            .find(|(lent, _)| *lent == params.addr())
            .map(|(_, types)| types.clone())
    }
}

/// The bound of the `as_mut_ptr` that cannot be called: a public trait in a private module, so
/// that no crate can implement it, and its message is the error a call gets.
mod no_as_mut_ptr {
    #[diagnostic::on_unimplemented(
        message = "`KernelArgs` has no `as_mut_ptr`: launch inside `with_params`, which lends the pointer while the array lives",
        label = "no pointer here: a raw pointer holds no borrow of the array",
        note = "`let p = kernel_args![..].as_mut_ptr();` would point at a temporary array dropped at the end of that statement, and nothing would warn",
        note = "write `kernel_args![&a, &n].with_params(|params| ...)` and launch inside the closure, with `params` as `kernelParams`; a kept array calls `with_params` again for each launch"
    )]
    pub trait LaunchInsideWithParams {}
}

/// The `kernelParams` of a launch, from references to its arguments in the order of the
/// kernel's parameters: a [`KernelArgs`] holding one pointer per argument, on the stack, that
/// hands its pointer to a launch in [`KernelArgs::with_params`].
///
/// Each argument is a reference to a [`KernelParam`] (an integer, a float, a device pointer,
/// a raw pointer, or a `#[repr(C)]` type of yours): the values stay borrowed while the
/// `KernelArgs` lives, so the borrow checker refuses code that would drop or change one before
/// the launch.
///
/// A temporary array, launched inside `with_params` (the array lives until the closure returns):
///
/// ```no_run
/// use cuda_driver_table::{driver_table, kernel_args, sys};
///
/// #[driver_table(cuLaunchKernel, driver = 12000)]
/// struct Cuda;
///
/// /// Launches `vadd(a, b, c, n)` with one thread per element.
/// unsafe fn vadd(
///     cu: &Cuda,
///     f: sys::CUfunction,
///     (a, b, c): (sys::CUdeviceptr, sys::CUdeviceptr, sys::CUdeviceptr),
///     n: u32,
/// ) -> Result<(), cuda_driver_table::Error> {
///     kernel_args![&a, &b, &c, &n].with_params(|params| {
///         // SAFETY: `f` is a live function whose parameters are three device pointers and a
///         // `u32`, and `params` points at those four values, in that order, for this call; the
///         // caller guarantees `a`, `b` and `c` hold `n` floats each.
///         unsafe {
///             cu.cuLaunchKernel(
///                 f,
///                 n.div_ceil(256), 1, 1,
///                 256, 1, 1,
///                 0,
///                 std::ptr::null_mut(),
///                 params,
///                 std::ptr::null_mut(),
///             )
///         }
///     })
/// }
/// ```
///
/// A kept array, launched twice with the same values:
///
/// ```
/// # use cuda_driver_table::kernel_args;
/// # use std::ffi::c_void;
/// # fn launch(params: *mut *mut c_void) -> u32 { unsafe { *(*params.add(1)).cast::<u32>() } }
/// let (dptr, n) = (0x7000_0000_u64, 1024_u32);
/// let args = kernel_args![&dptr, &n];
/// let first = args.with_params(|params| launch(params));
/// let second = args.with_params(|params| launch(params));
/// assert_eq!((first, second), (1024, 1024));
/// ```
///
/// There is no `as_mut_ptr` to take the pointer out:
/// `let p = kernel_args![&dptr, &n].as_mut_ptr();` would keep a pointer to a temporary array
/// dropped at the end of that statement, and a raw pointer holds no borrow, so nothing would say
/// so. It does not compile (the error says to launch inside `with_params`):
///
/// ```compile_fail,E0277
/// # use cuda_driver_table::kernel_args;
/// let n = 1024_u32;
/// let params = kernel_args![&n].as_mut_ptr();
/// # let _ = params;
/// ```
///
/// A value that would not outlive the array is a compile error:
///
/// ```compile_fail,E0716
/// # use cuda_driver_table::kernel_args;
/// let n = 1024_u32;
/// let args = kernel_args![&(n / 2)]; // a temporary, gone at the end of this statement
/// args.with_params(|_| ());
/// ```
#[macro_export]
macro_rules! kernel_args {
    ($($arg:expr),* $(,)?) => {
        $crate::KernelArgs::new([$($crate::KernelArg::new($arg)),*])
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads parameter `i` of `params` as a `T`, as the driver does when it copies a launch's
    /// parameters.
    ///
    /// # Safety
    ///
    /// `params` holds more than `i` pointers and the `i`th points at a live `T`.
    unsafe fn read<T: Copy>(params: *mut *mut c_void, i: usize) -> T {
        // SAFETY: the caller's contract.
        unsafe { (*params.add(i)).cast::<T>().read() }
    }

    /// A stand-in for `cuLaunchKernel` of a kernel `(u64, u64, u32, f32)`: reads its parameters
    /// during the call.
    fn launch(params: *mut *mut c_void) -> (u64, u64, u32, f32) {
        // SAFETY: every caller passes the four parameters of this signature.
        unsafe {
            (
                read(params, 0),
                read(params, 1),
                read(params, 2),
                read(params, 3),
            )
        }
    }

    #[test]
    fn each_pointer_points_at_its_value_in_order() {
        let (a, b, n, scale): (u64, u64, u32, f32) = (0x1000, 0x2000, 7, 0.5);
        let args = kernel_args![&a, &b, &n, &scale];
        assert_eq!(args.len(), 4);
        assert!(!args.is_empty());
        assert_eq!(args.with_params(launch), (0x1000, 0x2000, 7, 0.5));
        // Launched again with the same array: the values are still there.
        assert_eq!(args.with_params(launch), (0x1000, 0x2000, 7, 0.5));
        // Both launches see the kept array itself, not a copy of it (with a stand-in, an array of
        // the pointers alone, made for each launch).
        #[cfg(not(feature = "stand-in"))]
        assert_eq!(args.with_params(|p| p), args.with_params(|p| p));
    }

    #[test]
    fn a_temporary_array_lives_through_the_call_it_is_made_in() {
        let (a, b, n) = (1u64, 2u64, 3u32);
        // Values computed in the statement live to its end too.
        assert_eq!(
            kernel_args![&a, &b, &(n + 1), &(f32::from(b as u8) * 0.75)].with_params(launch),
            (1, 2, 4, 1.5)
        );
    }

    #[test]
    fn with_params_launches_while_the_array_lives() {
        let (a, b, n, scale) = (7u64, 8u64, 9u32, 0.25f32);
        assert_eq!(
            kernel_args![&a, &b, &n, &scale].with_params(launch),
            (7, 8, 9, 0.25)
        );
        assert!(kernel_args![].with_params(|p| p.is_null()));
    }

    #[test]
    fn no_arguments_is_a_null_array() {
        let args = kernel_args![];
        assert!(args.is_empty());
        assert_eq!(args.len(), 0);
        assert!(args.with_params(|p| p.is_null()));
    }

    #[test]
    fn a_repr_c_struct_of_the_user_is_passed_as_its_bytes() {
        #[derive(Clone, Copy, Debug, PartialEq)]
        #[repr(C)]
        struct Params {
            base: u64,
            count: u32,
            flag: bool,
        }
        impl KernelParam for Params {}
        let params = Params {
            base: 0xABC,
            count: 3,
            flag: true,
        };
        let raw: *const f32 = ptr::null();
        let (got, got_raw): (Params, *const f32) = kernel_args![&params, &raw].with_params(|p| {
            // SAFETY: the array holds two pointers, to a `Params` and a `*const f32`, and lives
            // through this closure.
            unsafe { (read(p, 0), read(p, 1)) }
        });
        assert_eq!(got, params);
        assert!(got_raw.is_null());
    }

    /// What a stand-in sees of a launch's array: the types of its values while `with_params`
    /// lends it, from any thread, nested arrays each their own; nothing for an array built by
    /// hand, or once it returns.
    #[cfg(feature = "stand-in")]
    #[test]
    fn a_stand_in_sees_the_types_of_every_array_being_lent() {
        let sizes = |params| lent::types(params).map(|t| t.iter().map(|t| t.size).collect());
        let names = |params| lent::types(params).map(|t| t.iter().map(|t| (t.name)()).collect());
        let (a, n, x) = (0x7000_u64, 3_u32, true);
        let mut outer_params = ptr::null_mut();
        kernel_args![&a, &n].with_params(|outer| {
            outer_params = outer;
            assert_eq!(sizes(outer), Some(vec![8, 4]));
            assert_eq!(names(outer), Some(vec!["u64", "u32"]));
            kernel_args![&x].with_params(|inner| {
                assert_eq!(names(inner), Some(vec!["bool"]));
                assert_eq!(sizes(outer), Some(vec![8, 4]), "the outer one still");
            });
            assert_eq!(sizes(outer), Some(vec![8, 4]));
            let mut by_hand = [ptr::from_ref(&a).cast_mut().cast::<c_void>()];
            assert_eq!(sizes(by_hand.as_mut_ptr()), None);
            let seen_elsewhere = std::thread::scope(|s| {
                let address = outer.addr();
                s.spawn(move || sizes(ptr::without_provenance_mut(address)))
                    .join()
            });
            assert_eq!(
                seen_elsewhere.ok(),
                Some(Some(vec![8, 4])),
                "another thread launching the array sees it too"
            );
        });
        assert_eq!(sizes(outer_params), None);
    }

    #[test]
    fn the_array_is_the_pointers_to_the_values_and_nothing_else() {
        let (a, b) = (5u8, -6i64);
        kernel_args![&a, &b,].with_params(|p| {
            // SAFETY: two pointers, to the `u8` and the `i64` above, in an array that lives
            // through this closure.
            unsafe {
                assert_eq!(*p, ptr::from_ref(&a).cast_mut().cast());
                assert_eq!(*p.add(1), ptr::from_ref(&b).cast_mut().cast());
            }
        });
        // Without a stand-in, the array is what the driver reads; with it, each entry also holds
        // its value's type, and `with_params` lends an array of the pointers alone (as above).
        #[cfg(not(feature = "stand-in"))]
        assert_eq!(size_of::<KernelArgs<'_, 2>>(), 2 * size_of::<*mut c_void>());
        assert_eq!(
            format!("{:?}", KernelArg::new(&a)),
            format!("{:?}", &raw const a)
        );
    }
}
