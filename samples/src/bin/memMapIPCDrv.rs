//! memMapIPCDrv: NVIDIA's `memMapIPCDrv` sample (`Samples/3_CUDA_Features/memMapIPCDrv`), ported.
//!
//! Memory shared between processes through the virtual memory management API. The parent picks
//! every GPU that supports it (virtual memory management, POSIX file descriptor handles, the
//! default compute mode) and can reach all the others, creates one 4 MiB allocation per picked
//! GPU with `cuMemCreate` (backed on the first one, exportable as a file descriptor), exports each
//! with `cuMemExportToShareableHandle` and starts one child process per GPU (this program again,
//! with `--child`). It hands every child all the descriptors over a Unix-domain socket
//! (`SCM_RIGHTS`); each child imports them with `cuMemImportFromShareableHandle`, maps them into
//! one reserved address range (`cuMemAddressReserve`, `cuMemMap`, `cuMemSetAccess`) and, in as
//! many steps as there are children, fills a different buffer each step with its own value. The
//! parent keeps the children in step (a barrier over the sockets), so the last writer of each
//! buffer is known: child `i` checks that its buffer `i` holds the value of child `i + 1`, and the
//! parent, which mapped the same memory before the children started, checks every buffer.
//!
//! Linux only (elsewhere the sample is waived: the original's Windows handles are not ported).
//!
//! `cargo run -p cuda-driver-table-samples --bin memMapIPCDrv [-- --driver]`
#![allow(non_snake_case)]

use cuda_driver_table_samples::{Args, Failure};
use std::process::ExitCode;

fn main() -> ExitCode {
    // A child's lines name it, so that they are not mistaken for the sample's result.
    let name = if std::env::args().any(|a| a == "--child") {
        "memMapIPCDrv (child)"
    } else {
        "memMapIPCDrv"
    };
    cuda_driver_table_samples::main(name, run)
}

#[cfg(not(target_os = "linux"))]
fn run(_: &Args) -> Result<(), Failure> {
    Err(Failure::Waived(
        "the processes share memory through POSIX file descriptors, which this port supports on Linux only".into(),
    ))
}

#[cfg(target_os = "linux")]
fn run(args: &Args) -> Result<(), Failure> {
    if args.has("--child") {
        linux::child(args)
    } else {
        linux::parent(args)
    }
}

#[cfg(target_os = "linux")]
mod linux {
    use cuda_driver_table::{driver_table, kernel_args, sys};
    use cuda_driver_table_samples::{Args, Failure};
    use scopeguard::{guard, ScopeGuard};
    use std::ffi::{c_int, c_void};
    use std::io::{self, Read, Write};
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use std::os::linux::net::SocketAddrExt;
    use std::os::unix::net::{SocketAddr, UnixListener, UnixStream};
    use std::process::{Child, Command, Stdio};
    use std::ptr;
    use std::time::{Duration, Instant};

    #[driver_table(
        cuInit,
        cuDeviceGetCount,
        cuDeviceGet,
        cuDeviceGetAttribute,
        cuDeviceCanAccessPeer,
        cuDevicePrimaryCtxRetain,
        cuDevicePrimaryCtxRelease,
        cuCtxSetCurrent,
        cuCtxSynchronize,
        cuMemGetAllocationGranularity,
        cuMemCreate,
        cuMemExportToShareableHandle,
        cuMemImportFromShareableHandle,
        cuMemRelease,
        cuMemAddressReserve,
        cuMemAddressFree,
        cuMemMap,
        cuMemUnmap,
        cuMemSetAccess,
        cuMemsetD8,
        cuMemcpyDtoH,
        cuMemcpyDtoHAsync,
        cuStreamCreate,
        cuStreamDestroy,
        cuStreamSynchronize,
        cuModuleLoadData,
        cuModuleUnload,
        cuModuleGetFunction,
        cuOccupancyMaxActiveBlocksPerMultiprocessor,
        cuLaunchKernel,
        // Virtual memory management came with CUDA 10.2; every ABI here is one a CUDA 12.0 driver
        // has.
        driver = 12000
    )]
    struct Cuda;

    /// The size of each process's buffer (a multiple of every GPU's allocation granularity).
    const BUF_SIZE: usize = 4 << 20;
    /// At most this many GPUs (one child each).
    const MAX_PROCESSES: usize = 32;
    /// Threads per block of the fill kernel.
    const THREADS: u32 = 128;
    /// How long a process waits for the other side of the socket before giving up.
    const TIMEOUT: Duration = Duration::from_secs(120);
    const HANDLE_TYPE: sys::CUmemAllocationHandleType =
        sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;

    /// The abstract socket name the parent with process id `pid` listens on.
    fn socket_addr(pid: u32) -> io::Result<SocketAddr> {
        SocketAddr::from_abstract_name(format!("cuda-driver-table.memMapIPCDrv.{pid}"))
    }

    /// A failure of the exchange between the processes (not a driver call).
    fn ipc(what: &str, e: io::Error) -> Failure {
        Failure::Check(format!("{what}: {e}"))
    }

    /// The byte child `id` writes (never 0, the value the parent clears the buffers to).
    fn value_of(id: usize) -> u8 {
        (id + 1) as u8
    }

    /// The value buffer `b` holds at the end: that of its last writer, child `b + 1` (wrapping).
    fn expected(b: usize, n: usize) -> u8 {
        value_of((b + 1) % n)
    }

    /// `location` as the device the memory is accessed from or backed on.
    fn on_device(dev: sys::CUdevice) -> sys::CUmemLocation {
        sys::CUmemLocation {
            type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
            id: dev,
        }
    }

    /// Read and write access for `dev`, for `cuMemSetAccess`.
    fn read_write(dev: sys::CUdevice) -> sys::CUmemAccessDesc {
        sys::CUmemAccessDesc {
            location: on_device(dev),
            flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
        }
    }

    /// Whether `dev` can take part: virtual memory management, POSIX file descriptor handles and
    /// the default compute mode (two processes use it).
    fn supports_ipc(cu: &Cuda, ordinal: i32, dev: sys::CUdevice) -> Result<bool, Failure> {
        let attr = |a: sys::CUdevice_attribute| -> Result<c_int, Failure> {
            let mut v = 0;
            // SAFETY: `v` is a valid place for the attribute of a device the driver handed out.
            unsafe { cu.cuDeviceGetAttribute(&mut v, a, dev) }?;
            Ok(v)
        };
        use sys::CUdevice_attribute as A;
        if attr(A::CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED)? == 0 {
            println!("Device {ordinal} does not support virtual memory management, skipping");
            return Ok(false);
        }
        if attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_MODE)?
            != sys::CUcomputemode::CU_COMPUTEMODE_DEFAULT.0 as c_int
        {
            println!("Device {ordinal} is not in the default compute mode, skipping");
            return Ok(false);
        }
        if attr(A::CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED)? == 0 {
            println!("Device {ordinal} does not export POSIX file descriptor handles, skipping");
            return Ok(false);
        }
        Ok(true)
    }

    /// The parent: picks the GPUs, creates, exports and maps the memory, runs the children and
    /// checks the buffers.
    pub fn parent(args: &Args) -> Result<(), Failure> {
        let cu = Cuda::with_config(args.per_thread_config());
        let mut count = 0;
        // SAFETY: `count` is a valid place for the device count.
        unsafe {
            cu.cuInit(0)?;
            cu.cuDeviceGetCount(&mut count)?;
        }
        // (ordinal, device) of every picked GPU.
        let mut picked: Vec<(i32, sys::CUdevice)> = Vec::new();
        for ordinal in 0..count {
            let mut dev = 0;
            // SAFETY: `dev` is a valid place for the handle of an ordinal below the count.
            unsafe { cu.cuDeviceGet(&mut dev, ordinal) }?;
            if !supports_ipc(&cu, ordinal, dev)? {
                continue;
            }
            let mut all_peers = true;
            for &(_, other) in &picked {
                let (mut there, mut back) = (0, 0);
                // SAFETY: valid places for the answers, about two devices the driver handed out.
                unsafe {
                    cu.cuDeviceCanAccessPeer(&mut there, dev, other)?;
                    cu.cuDeviceCanAccessPeer(&mut back, other, dev)?;
                }
                all_peers &= there != 0 && back != 0;
            }
            if all_peers {
                picked.push((ordinal, dev));
                if picked.len() == MAX_PROCESSES {
                    break;
                }
            } else {
                println!("Device {ordinal} cannot reach every device picked before it, skipping");
            }
        }
        let Some(&(_, backing)) = picked.first() else {
            return Err(Failure::Waived(
                "no GPU supports virtual memory management with POSIX file descriptor handles in the default compute mode".into(),
            ));
        };
        let n = picked.len();
        println!("{n} process(es), one per GPU; {n} buffer(s) of {BUF_SIZE} bytes on the first");

        // Each guard releases what it holds once, when `parent` returns, in reverse order: the
        // mapped stripes, the addresses, the allocations, then the context, made not current.
        let _primary = cuda_driver_table_samples::primary_context!(&cu, backing)?;

        // As the C sample's `CUmemAllocationProp prop = {}`: every field the driver reads is set
        // below or is meant to be zero (no Windows metadata, default allocation flags).
        // SAFETY: the struct is plain data (integers and a pointer), for which zero is valid.
        let mut prop: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location = on_device(backing);
        prop.requestedHandleTypes = HANDLE_TYPE;
        let mut granularity = 0;
        // SAFETY: valid places and a fully initialised `prop`.
        unsafe {
            cu.cuMemGetAllocationGranularity(
                &mut granularity,
                &prop,
                sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM,
            )
        }?;
        if granularity == 0 || !BUF_SIZE.is_multiple_of(granularity) {
            return Err(Failure::Waived(format!(
                "the allocation granularity, {granularity} bytes, does not divide {BUF_SIZE}"
            )));
        }

        // Create and export every buffer, then map them all into one range of the parent's own
        // address space, cleared to 0 before any child writes.
        let release = |handle| {
            // SAFETY: each handle given was created below and is released once, after its
            // mapping is gone.
            let _ = unsafe { cu.cuMemRelease(handle) };
        };
        let mut handles = Vec::with_capacity(n);
        let mut fds = Vec::with_capacity(n);
        let total = n * BUF_SIZE;
        let mut base: sys::CUdeviceptr = 0;
        // SAFETY: every out-parameter is a valid place; `prop` is fully initialised.
        unsafe {
            for _ in 0..n {
                let mut handle: sys::CUmemGenericAllocationHandle = 0;
                cu.cuMemCreate(&mut handle, BUF_SIZE, &prop, 0)?;
                handles.push(guard(handle, release));
                let mut fd: c_int = -1;
                cu.cuMemExportToShareableHandle((&raw mut fd).cast(), handle, HANDLE_TYPE, 0)?;
                // SAFETY: the export created this descriptor for the caller, who owns it.
                fds.push(OwnedFd::from_raw_fd(fd));
            }
            cu.cuMemAddressReserve(&mut base, total, BUF_SIZE, 0, 0)?;
        }
        let _reserved = guard(base, |base| {
            // SAFETY: reserved above, once; nothing is mapped in it any more.
            let _ = unsafe { cu.cuMemAddressFree(base, total) };
        });
        // The stripes mapped so far, from `base` on: unmapped together.
        let mut mapped = guard(0, |stripes: usize| {
            if stripes > 0 {
                // SAFETY: the first `stripes` slices of the range were mapped below; nothing
                // uses them any more.
                let _ = unsafe { cu.cuMemUnmap(base, stripes * BUF_SIZE) };
            }
        });
        // SAFETY: each handle is mapped at its own BUF_SIZE slice of the range reserved for all
        // of them; the memset stays inside the mapped range.
        unsafe {
            for (i, handle) in handles.iter().enumerate() {
                cu.cuMemMap(base + (i * BUF_SIZE) as u64, BUF_SIZE, 0, **handle, 0)?;
                *mapped += 1;
            }
            cu.cuMemSetAccess(base, total, &read_write(backing), 1)?;
            cu.cuMemsetD8(base, 0, total)?;
            cu.cuCtxSynchronize()?;
        }

        let children = run_children(args, &picked, &fds)?;
        // The children imported the descriptors (or failed): the parent's copies are not needed.
        drop(fds);
        let mut failed = Vec::new();
        for (id, mut child) in children.into_iter().enumerate() {
            match child.wait() {
                Ok(status) if status.success() => {}
                Ok(status) => failed.push(format!("child {id} {status}")),
                Err(e) => failed.push(format!("child {id}: {e}")),
            }
        }
        if !failed.is_empty() {
            return Err(Failure::Check(format!(
                "{} (its message is above)",
                failed.join(", ")
            )));
        }

        let mut host = vec![0u8; BUF_SIZE];
        let mut wrong = None;
        for b in 0..n {
            // SAFETY: `host` holds BUF_SIZE bytes; buffer `b` is mapped and readable.
            unsafe {
                cu.cuMemcpyDtoH(
                    host.as_mut_ptr().cast(),
                    base + (b * BUF_SIZE) as u64,
                    BUF_SIZE,
                )
            }?;
            let want = expected(b, n);
            if let Some(j) = host.iter().position(|&v| v != want) {
                wrong.get_or_insert((b, j, host[j], want));
            }
        }
        println!("Parent: checked {n} buffer(s)");
        match wrong {
            None => Ok(()),
            Some((b, j, got, want)) => Err(Failure::Check(format!(
                "buffer {b}, byte {j}: {got}, expected {want} (the value of child {})",
                (b + 1) % n
            ))),
        }
    }

    /// Starts one child per picked GPU, sends each every descriptor and keeps them in step until
    /// their last step; returns them, still to be waited for.
    fn run_children(
        args: &Args,
        picked: &[(i32, sys::CUdevice)],
        fds: &[OwnedFd],
    ) -> Result<Vec<Child>, Failure> {
        let n = picked.len();
        let addr = socket_addr(std::process::id()).map_err(|e| ipc("socket name", e))?;
        // Bound before any child starts, so every child's connection is queued.
        let listener = UnixListener::bind_addr(&addr).map_err(|e| ipc("listen", e))?;
        let exe = std::env::current_exe().map_err(|e| ipc("this program's path", e))?;
        let mut children = Vec::with_capacity(n);
        for (id, &(ordinal, _)) in picked.iter().enumerate() {
            let mut command = Command::new(&exe);
            command
                .arg("--child")
                .arg(ordinal.to_string())
                .arg(id.to_string())
                .arg(n.to_string())
                .stdin(Stdio::null());
            if args.driver {
                command.arg("--driver");
            }
            match command.spawn() {
                Ok(child) => children.push(child),
                Err(e) => {
                    reap(children);
                    return Err(ipc("starting a child process", e));
                }
            }
        }
        match exchange(&listener, &mut children, fds) {
            Ok(()) => Ok(children),
            Err(e) => {
                // The sockets are closed: a child still waiting on one sees the end and stops.
                reap(children);
                Err(e)
            }
        }
    }

    /// Ends the children the parent gives up on: each stops by itself once its socket is gone
    /// (given a second to do so, and to print why it failed, if it did); one that does not, stuck
    /// in a driver call, say, is killed.
    fn reap(children: Vec<Child>) {
        let deadline = Instant::now() + Duration::from_secs(1);
        for (id, mut child) in children.into_iter().enumerate() {
            let status = loop {
                match child.try_wait() {
                    Ok(Some(status)) => break Some(status),
                    Ok(None) if Instant::now() < deadline => {
                        std::thread::sleep(Duration::from_millis(10));
                    }
                    // Still running, or not to be waited for: stop it.
                    _ => {
                        let _ = child.kill();
                        break child.wait().ok();
                    }
                }
            };
            if let Some(status) = status.filter(|s| !s.success()) {
                eprintln!("memMapIPCDrv: child {id} {status}");
            }
        }
    }

    /// Accepts every child's connection, sends each all the descriptors, then runs the
    /// barrier of each of the children's steps: every child reports it is done (one byte), then
    /// every child is told to go on (one byte).
    fn exchange(
        listener: &UnixListener,
        children: &mut [Child],
        fds: &[OwnedFd],
    ) -> Result<(), Failure> {
        let n = children.len();
        listener
            .set_nonblocking(true)
            .map_err(|e| ipc("listen", e))?;
        let start = Instant::now();
        let mut streams = Vec::with_capacity(n);
        while streams.len() < n {
            match listener.accept() {
                Ok((stream, _)) => streams.push(stream),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    // A child that ended before connecting will never connect.
                    for (id, child) in children.iter_mut().enumerate() {
                        if let Ok(Some(status)) = child.try_wait() {
                            return Err(Failure::Check(format!(
                                "child {id} {status} before it connected"
                            )));
                        }
                    }
                    if start.elapsed() > TIMEOUT {
                        return Err(ipc(
                            "waiting for the children to connect",
                            io::ErrorKind::TimedOut.into(),
                        ));
                    }
                    std::thread::sleep(Duration::from_millis(10));
                }
                Err(e) => return Err(ipc("accept", e)),
            }
        }
        for stream in &streams {
            stream
                .set_nonblocking(false)
                .and_then(|()| stream.set_read_timeout(Some(TIMEOUT)))
                .and_then(|()| send_fds(stream, fds))
                .map_err(|e| ipc("sending the descriptors", e))?;
        }
        for step in 0..n {
            for mut stream in &streams {
                let mut done = [0u8];
                stream
                    .read_exact(&mut done)
                    .map_err(|e| ipc(&format!("waiting for a child's step {step}"), e))?;
            }
            for mut stream in &streams {
                stream
                    .write_all(&[1])
                    .map_err(|e| ipc(&format!("releasing the children after step {step}"), e))?;
            }
            println!("Step {step} done");
        }
        Ok(())
    }

    /// Sends `fds` over `stream` in one message (`SCM_RIGHTS`), with one byte of data (the
    /// count), which a stream socket needs to carry the descriptors.
    fn send_fds(stream: &UnixStream, fds: &[OwnedFd]) -> io::Result<()> {
        let count = [fds.len() as u8];
        let mut iov = libc::iovec {
            iov_base: count.as_ptr().cast_mut().cast(),
            iov_len: count.len(),
        };
        let payload = (fds.len() * size_of::<c_int>()) as u32;
        // SAFETY: CMSG_SPACE only computes a size.
        let space = unsafe { libc::CMSG_SPACE(payload) } as usize;
        // u64s: the buffer is aligned for the `cmsghdr` it holds.
        let mut control = vec![0u64; space.div_ceil(8)];
        // SAFETY: `msghdr` is plain data (pointers and integers) for which zero is valid; every
        // field sendmsg reads is set below or meant to be zero (no address: a connected socket).
        let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
        msg.msg_iov = &raw mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = space as _;
        // SAFETY: the control buffer has room for one header and `payload` bytes of data
        // (CMSG_SPACE), so CMSG_FIRSTHDR is not null and CMSG_DATA's `fds.len()` ints are inside
        // it; `msg`, `iov` and the buffers outlive the sendmsg call, which only reads them.
        unsafe {
            let cmsg = libc::CMSG_FIRSTHDR(&msg);
            (*cmsg).cmsg_level = libc::SOL_SOCKET;
            (*cmsg).cmsg_type = libc::SCM_RIGHTS;
            (*cmsg).cmsg_len = libc::CMSG_LEN(payload) as _;
            let data = libc::CMSG_DATA(cmsg).cast::<c_int>();
            for (i, fd) in fds.iter().enumerate() {
                data.add(i).write_unaligned(fd.as_raw_fd());
            }
            if libc::sendmsg(stream.as_raw_fd(), &msg, libc::MSG_NOSIGNAL) < 0 {
                return Err(io::Error::last_os_error());
            }
        }
        Ok(())
    }

    /// Receives the `n` descriptors the parent sends with [`send_fds`], close-on-exec.
    fn recv_fds(stream: &UnixStream, n: usize) -> io::Result<Vec<OwnedFd>> {
        let mut count = [0u8];
        let mut iov = libc::iovec {
            iov_base: count.as_mut_ptr().cast(),
            iov_len: count.len(),
        };
        let payload = (n * size_of::<c_int>()) as u32;
        // SAFETY: CMSG_SPACE only computes a size.
        let space = unsafe { libc::CMSG_SPACE(payload) } as usize;
        let mut control = vec![0u64; space.div_ceil(8)];
        // SAFETY: as in `send_fds`: plain data, every field recvmsg reads set below.
        let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
        msg.msg_iov = &raw mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = space as _;
        // SAFETY: `msg` points at `iov` and `control`, both alive and writable for the sizes it
        // gives; the socket is ours.
        let got = unsafe { libc::recvmsg(stream.as_raw_fd(), &mut msg, libc::MSG_CMSG_CLOEXEC) };
        if got < 0 {
            return Err(io::Error::last_os_error());
        }
        if got == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        let mut fds = Vec::with_capacity(n);
        // SAFETY: recvmsg filled `control` with well-formed headers up to `msg_controllen`, which
        // CMSG_FIRSTHDR/CMSG_NXTHDR walk without leaving it; an SCM_RIGHTS header's data is
        // `cmsg_len - CMSG_LEN(0)` bytes of descriptors, new in this process and ours to own.
        unsafe {
            let mut cmsg = libc::CMSG_FIRSTHDR(&msg);
            while !cmsg.is_null() {
                if (*cmsg).cmsg_level == libc::SOL_SOCKET && (*cmsg).cmsg_type == libc::SCM_RIGHTS {
                    let bytes = (*cmsg).cmsg_len as usize - libc::CMSG_LEN(0) as usize;
                    let data = libc::CMSG_DATA(cmsg).cast::<c_int>();
                    for i in 0..bytes / size_of::<c_int>() {
                        fds.push(OwnedFd::from_raw_fd(data.add(i).read_unaligned()));
                    }
                }
                cmsg = libc::CMSG_NXTHDR(&msg, cmsg);
            }
        }
        if msg.msg_flags & libc::MSG_CTRUNC != 0 || fds.len() != n || usize::from(count[0]) != n {
            return Err(io::Error::other(format!(
                "expected {n} descriptors, received {}",
                fds.len()
            )));
        }
        Ok(fds)
    }

    /// `--child ORDINAL ID N`: the GPU to run on, this child's index and the number of children.
    fn child_args(args: &Args) -> Option<(i32, usize, usize)> {
        let at = args.rest.iter().position(|a| a == "--child")?;
        let mut values = args.rest.get(at + 1..at + 4)?.iter();
        let ordinal = values.next()?.parse().ok()?;
        let id = values.next()?.parse().ok()?;
        let n: usize = values.next()?.parse().ok()?;
        (id < n && n <= MAX_PROCESSES).then_some((ordinal, id, n))
    }

    /// A child: imports and maps every buffer, fills buffer `(step + id) % n` at each step, and
    /// checks its own buffer at the end.
    pub fn child(args: &Args) -> Result<(), Failure> {
        let (ordinal, id, n) = child_args(args).ok_or_else(|| {
            Failure::Usage(format!(
                "expected --child ORDINAL ID N (N at most {MAX_PROCESSES}), got {:?}",
                args.rest
            ))
        })?;
        let parent = std::os::unix::process::parent_id();
        let mut socket = socket_addr(parent)
            .and_then(|addr| UnixStream::connect_addr(&addr))
            .map_err(|e| ipc("connecting to the parent", e))?;
        socket
            .set_read_timeout(Some(TIMEOUT))
            .map_err(|e| ipc("socket", e))?;
        let fds = recv_fds(&socket, n).map_err(|e| ipc("receiving the descriptors", e))?;

        let cu = Cuda::with_config(args.per_thread_config());
        let mut dev = 0;
        let mut stream: sys::CUstream = ptr::null_mut();
        let (mut blocks, mut sms) = (0, 0);
        let total = n * BUF_SIZE;
        let mut base: sys::CUdeviceptr = 0;
        // Declared before the stream's guard, which waits for the stream: outlives any copy
        // into it.
        let mut host = vec![0u8; BUF_SIZE];
        // SAFETY: a valid place.
        unsafe {
            cu.cuInit(0)?;
            cu.cuDeviceGet(&mut dev, ordinal)?;
        }
        // Each guard releases what it holds once, when `child` returns, in reverse order: the
        // mapped stripes, the addresses, the module, the stream, then the context, made not
        // current.
        let _primary = cuda_driver_table_samples::primary_context!(&cu, dev)?;
        // SAFETY: a valid place; the context is current.
        unsafe { cu.cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING.0) }?;
        let stream = guard(stream, |stream| {
            // SAFETY: created above, once; waited for before it goes.
            unsafe {
                let _ = cu.cuStreamSynchronize(stream);
                let _ = cu.cuStreamDestroy(stream);
            }
        });
        let (_module, [func]) = cuda_driver_table_samples::module!(
            &cu,
            cuda_driver_table_samples::ptx!("memMapIPCDrv"),
            [c"fill_bytes"]
        )?;
        // SAFETY: valid places; the module is loaded; the device is the driver's.
        unsafe {
            cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(&mut blocks, func, THREADS as c_int, 0)?;
            cu.cuDeviceGetAttribute(
                &mut sms,
                sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                dev,
            )?;
            cu.cuMemAddressReserve(&mut base, total, BUF_SIZE, 0, 0)?;
        }
        let _reserved = guard(base, |base| {
            // SAFETY: reserved above, once; nothing is mapped in it any more.
            let _ = unsafe { cu.cuMemAddressFree(base, total) };
        });
        // The stripes mapped so far, from `base` on: unmapped together.
        let mut mapped = guard(0, |stripes: usize| {
            if stripes > 0 {
                // SAFETY: the first `stripes` slices of the range were mapped below; every
                // launch on them was synchronised.
                let _ = unsafe { cu.cuMemUnmap(base, stripes * BUF_SIZE) };
            }
        });
        // SAFETY: each imported handle is mapped at its own BUF_SIZE slice of the range reserved
        // for all of them and released once: by its guard when the mapping fails, else right
        // after it (the mapping keeps the memory alive).
        unsafe {
            for (i, fd) in fds.iter().enumerate() {
                let mut handle: sys::CUmemGenericAllocationHandle = 0;
                // A POSIX descriptor is passed as the pointer-sized integer itself.
                let os_handle = ptr::without_provenance_mut::<c_void>(fd.as_raw_fd() as usize);
                cu.cuMemImportFromShareableHandle(&mut handle, os_handle, HANDLE_TYPE)?;
                let handle = guard(handle, |handle| {
                    let _ = cu.cuMemRelease(handle);
                });
                cu.cuMemMap(base + (i * BUF_SIZE) as u64, BUF_SIZE, 0, *handle, 0)?;
                *mapped += 1;
                cu.cuMemRelease(ScopeGuard::into_inner(handle))?;
            }
            cu.cuMemSetAccess(base, total, &read_write(dev), 1)?;
        }
        // Imported: the descriptors are no longer needed.
        drop(fds);

        let grid = (blocks.max(1) * sms.max(1)) as u32;
        for step in 0..n {
            let buffer = base + (((step + id) % n) * BUF_SIZE) as u64;
            let (len, value) = (BUF_SIZE as u64, value_of(id));
            // SAFETY: `fill_bytes(unsigned char *, unsigned long long, unsigned char)` writes the
            // `len` bytes at `buffer`, which are mapped read-write for this device.
            unsafe {
                kernel_args![&buffer, &len, &value].with_params(|params| {
                    cu.cuLaunchKernel(
                        func,
                        grid,
                        1,
                        1,
                        THREADS,
                        1,
                        1,
                        0,
                        *stream,
                        params,
                        ptr::null_mut(),
                    )
                })?;
                cu.cuStreamSynchronize(*stream)?;
            }
            // Every child finishes this step before any starts the next, so each buffer's last
            // writer is known.
            let mut go = [0u8];
            socket
                .write_all(&[1])
                .and_then(|()| socket.read_exact(&mut go))
                .map_err(|e| ipc(&format!("the barrier after step {step}"), e))?;
        }

        println!("Process {id}: verifying...");
        // SAFETY: `host` holds BUF_SIZE bytes, alive until the stream is synchronised.
        unsafe {
            cu.cuMemcpyDtoHAsync(
                host.as_mut_ptr().cast(),
                base + (id * BUF_SIZE) as u64,
                BUF_SIZE,
                *stream,
            )?;
            cu.cuStreamSynchronize(*stream)?;
        }
        let want = expected(id, n);
        match host.iter().position(|&v| v != want) {
            None => Ok(()),
            Some(j) => Err(Failure::Check(format!(
                "process {id}: byte {j} of its buffer is {}, expected {want}",
                host[j]
            ))),
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use std::io::pipe;

        /// Three pipes' write ends sent over a socket pair arrive as descriptors of the same
        /// pipes, in order, and the received count is checked.
        #[test]
        fn descriptors_sent_arrive_in_order_as_the_same_pipes() -> io::Result<()> {
            let (mut readers, mut writers) = (Vec::new(), Vec::new());
            for _ in 0..3 {
                let (r, w) = pipe()?;
                readers.push(r);
                writers.push(OwnedFd::from(w));
            }
            let (a, b) = UnixStream::pair()?;
            send_fds(&a, &writers)?;
            drop(writers);
            let received = recv_fds(&b, 3)?;
            for (i, fd) in received.into_iter().enumerate() {
                std::fs::File::from(fd).write_all(&[i as u8 + 10])?;
            }
            for (i, mut r) in readers.into_iter().enumerate() {
                let mut got = Vec::new();
                r.read_to_end(&mut got)?;
                assert_eq!(got, [i as u8 + 10], "pipe {i}");
            }
            Ok(())
        }

        #[test]
        fn fewer_descriptors_than_expected_is_an_error() -> io::Result<()> {
            let (_r, w) = pipe()?;
            let (a, b) = UnixStream::pair()?;
            send_fds(&a, &[OwnedFd::from(w)])?;
            let e = recv_fds(&b, 2).expect_err("one descriptor sent, two expected");
            assert!(
                e.to_string().contains("expected 2 descriptors, received 1"),
                "{e}"
            );
            Ok(())
        }

        #[test]
        fn a_closed_socket_is_the_end_of_file() -> io::Result<()> {
            let (a, b) = UnixStream::pair()?;
            drop(a);
            let e = recv_fds(&b, 1).expect_err("nothing was sent");
            assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
            Ok(())
        }

        #[test]
        fn child_arguments_are_ordinal_id_and_count() {
            let args = |rest: &[&str]| Args {
                driver: false,
                rest: rest.iter().map(|s| s.to_string()).collect(),
            };
            assert_eq!(
                child_args(&args(&["--child", "3", "1", "2"])),
                Some((3, 1, 2))
            );
            assert_eq!(child_args(&args(&["--child", "0", "2", "2"])), None);
            assert_eq!(child_args(&args(&["--child", "0", "0"])), None);
            assert_eq!(child_args(&args(&["--child", "0", "x", "2"])), None);
            assert_eq!(child_args(&args(&[])), None);
        }

        /// After the children's steps, buffer `b` holds the value of child `b + 1`: simulated
        /// on the host with the same schedule.
        #[test]
        fn the_schedule_leaves_each_buffer_to_the_next_child() {
            for n in 1..=MAX_PROCESSES {
                let mut buffers = vec![0u8; n];
                for step in 0..n {
                    for id in 0..n {
                        buffers[(step + id) % n] = value_of(id);
                    }
                }
                for (b, &v) in buffers.iter().enumerate() {
                    assert_eq!(v, expected(b, n), "{n} processes, buffer {b}");
                    assert_ne!(v, 0, "the parent clears the buffers to 0");
                }
            }
        }
    }
}
