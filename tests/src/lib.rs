//! Helpers shared by the integration tests. The GPU helpers exist with the `gpu` feature only,
//! the recording of tracing events with the `tracing` feature only.
//!
//! [`doc_tables`] holds two tables for rustdoc: the test command builds this crate's docs with
//! `-D warnings`, so every method doc of every function of the default release is checked
//! (links, HTML, code blocks), and the HTML shows what a user's table looks like.

/// Tables whose generated docs rustdoc checks: a small one and one of every function.
pub mod doc_tables {
    use cuda_driver_table::driver_table;

    /// A table of four functions, as a small program declares it: its methods' docs link to one
    /// another (`cuMemAlloc` mentions `cuMemFree`) and show other functions as plain code.
    #[driver_table(cuInit, cuDeviceGet, cuMemAlloc, cuMemFree, driver = newest)]
    pub struct Four;

    /// Every function of the selected release: every doc text of `cuda.h`, with every link.
    #[driver_table(all, driver = newest)]
    pub struct All;
}

#[cfg(feature = "gpu")]
pub mod gpu {
    use cuda_driver_table::{Config, StreamMode};
    use std::ffi::c_void;
    use std::path::PathBuf;

    /// `libcuda.so.1`, opened for `dlsym` comparisons.
    pub fn libcuda() -> libloading::Library {
        // SAFETY: loading the NVIDIA driver library runs its initialisers, which are safe to run
        // in any process; it is what the driver backend loads too.
        unsafe { libloading::Library::new("libcuda.so.1") }
            .unwrap_or_else(|e| panic!("the GPU tests need libcuda.so.1: {e}"))
    }

    /// The address `dlsym` gives for `name` in `lib`, if it exports it.
    pub fn dlsym(lib: &libloading::Library, name: &str) -> Option<*mut c_void> {
        // SAFETY: the symbol is only read as an address, never called through this type.
        unsafe { lib.get::<*mut c_void>(name.as_bytes()) }
            .ok()
            .map(|s| *s)
            .filter(|p| !p.is_null())
    }

    /// The staged libcudart copies, oldest first: `libcudart.so.*` in each release folder of
    /// `$CUDA_DRIVER_TABLE_TEST_CUDART_DIR` (set by `.gpu/run.sh` to `.gpu/cudart`; the runtime
    /// crate's library tests read the same folder).
    pub fn cudart_matrix() -> Vec<PathBuf> {
        let Some(dir) = std::env::var_os("CUDA_DRIVER_TABLE_TEST_CUDART_DIR") else {
            return Vec::new();
        };
        let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .flat_map(|release| {
                std::fs::read_dir(release.path())
                    .into_iter()
                    .flatten()
                    .flatten()
            })
            .map(|lib| lib.path())
            .filter(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("libcudart.so."))
            })
            .collect();
        v.sort();
        v
    }

    /// The staged libcudart 13.x, for the runtime backend.
    pub fn cudart13() -> PathBuf {
        cudart_matrix()
            .into_iter()
            .find(|p| p.to_string_lossy().ends_with(".so.13"))
            .expect("CUDA_DRIVER_TABLE_TEST_CUDART_DIR holds 13.0/libcudart.so.13 (stage with `cargo gpu-stage tests`)")
    }

    /// The runtime backend on one of the staged libcudart copies.
    pub fn cudart_config(path: PathBuf) -> Config {
        // SAFETY: the staged copies are libcudart of the public nvidia-cuda-runtime wheels.
        unsafe { Config::runtime().library_owned(path) }
    }

    /// The backends under test, named: the driver and libcudart 13.
    pub fn backends() -> Vec<(String, Config)> {
        let rt = cudart13();
        vec![
            ("driver".to_string(), Config::driver()),
            (format!("runtime {}", rt.display()), cudart_config(rt)),
        ]
    }

    /// Both stream modes.
    pub const MODES: [StreamMode; 2] = [StreamMode::Legacy, StreamMode::PerThread];
}

/// The runtime's tracing events, recorded as a test reads them.
#[cfg(feature = "tracing")]
pub mod events {
    use std::collections::BTreeMap;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::{Arc, Mutex};

    use tracing::field::{Field, Visit};
    use tracing::span::{Attributes, Id, Record};
    use tracing::subscriber::Interest;
    use tracing::{Event, Level, Metadata, Subscriber};

    /// One event: its level, target and fields, each field as text (a value as `Debug` shows it).
    #[derive(Debug, Clone)]
    pub struct Recorded {
        pub level: Level,
        pub target: String,
        pub fields: BTreeMap<String, String>,
    }

    impl Recorded {
        /// The C name of the function whose call the event records (its `function` field), if
        /// it records a call.
        pub fn function(&self) -> Option<&str> {
            self.fields.get("function").map(String::as_str)
        }

        /// The names of the out-values it shows (`out.dptr`).
        pub fn out_values(&self) -> Vec<&str> {
            self.fields
                .keys()
                .map(String::as_str)
                .filter(|k| k.starts_with("out."))
                .collect()
        }
    }

    /// Every event `f` emits on this thread.
    pub fn record(f: impl FnOnce()) -> Vec<Recorded> {
        record_events(None, f)
    }

    /// Every event `f` emits on this thread at `max` or a more important level: a call's event
    /// is built only when its level is enabled.
    pub fn record_up_to(max: Level, f: impl FnOnce()) -> Vec<Recorded> {
        record_events(Some(max), f)
    }

    fn record_events(max: Option<Level>, f: impl FnOnce()) -> Vec<Recorded> {
        let recorder = Recorder {
            max,
            ..Recorder::default()
        };
        tracing::subscriber::with_default(recorder.clone(), f);
        let events = recorder.events.lock().unwrap().clone();
        events
    }

    /// The events of the calls of `function` among `events`, in order.
    pub fn calls_of<'a>(events: &'a [Recorded], function: &str) -> Vec<&'a Recorded> {
        events
            .iter()
            .filter(|e| e.function() == Some(function))
            .collect()
    }

    /// The event of the first call of `function` among `events`.
    ///
    /// # Panics
    ///
    /// When there is none, with the events it has.
    pub fn first_call<'a>(events: &'a [Recorded], function: &str) -> &'a Recorded {
        events
            .iter()
            .find(|e| e.function() == Some(function))
            .unwrap_or_else(|| panic!("no event of a call of {function}: {events:#?}"))
    }

    /// A subscriber that keeps every event (up to `max`, when given).
    #[derive(Clone, Default)]
    struct Recorder {
        events: Arc<Mutex<Vec<Recorded>>>,
        next_id: Arc<AtomicU64>,
        max: Option<Level>,
    }

    struct Fields<'a>(&'a mut BTreeMap<String, String>);

    impl Visit for Fields<'_> {
        fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
            self.0.insert(field.name().to_owned(), format!("{value:?}"));
        }
        fn record_str(&mut self, field: &Field, value: &str) {
            self.0.insert(field.name().to_owned(), value.to_owned());
        }
    }

    impl Subscriber for Recorder {
        // Asked at every event: tests run in parallel, each thread with its own recorder, so no
        // recorder's answer may be cached for the others.
        fn register_callsite(&self, _: &'static Metadata<'static>) -> Interest {
            Interest::sometimes()
        }
        fn enabled(&self, metadata: &Metadata<'_>) -> bool {
            self.max.is_none_or(|max| *metadata.level() <= max)
        }
        fn new_span(&self, _: &Attributes<'_>) -> Id {
            Id::from_u64(self.next_id.fetch_add(1, Ordering::Relaxed) + 1)
        }
        fn record(&self, _: &Id, _: &Record<'_>) {}
        fn record_follows_from(&self, _: &Id, _: &Id) {}
        fn event(&self, event: &Event<'_>) {
            let mut fields = BTreeMap::new();
            event.record(&mut Fields(&mut fields));
            self.events.lock().unwrap().push(Recorded {
                level: *event.metadata().level(),
                target: event.metadata().target().to_owned(),
                fields,
            });
        }
        fn enter(&self, _: &Id) {}
        fn exit(&self, _: &Id) {}
    }
}

/// A documented public table, so `cargo doc -D warnings` checks the docs the macro generates.
pub mod documented {
    /// Every kind of function: a pin, a per-thread twin, a long `cuda.h` text.
    #[cuda_driver_table::driver_table(
        cuInit,
        cuCtxCreate = 3020,
        cuLaunchKernel,
        cuLibraryLoadData,
        cuStreamGetCaptureInfo,
        driver = newest
    )]
    pub struct Documented;
}
