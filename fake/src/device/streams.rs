//! Streams, events and the fake clock that orders their work.

use super::*;

impl Cx<'_> {
    /// The stream `stream` (a default stream too), live, or the failure naming it.
    pub(super) fn stream(&self, stream: CUstream) -> Result<Option<usize>, Fail> {
        let ctx = self.current()?;
        if is_default_stream(stream) {
            return Ok(None);
        }
        let key = stream as usize;
        match self.state.streams.get(&key) {
            None => Err(self.invalid_handle(format!(
                "stream {key:#x}, which is no stream of this device"
            ))),
            Some(s) => match s.destroyed {
                Some(by) => Err(self.invalid_handle(format!(
                    "stream {key:#x} that {} created and {by} destroyed",
                    s.made_by
                ))),
                None if !self.state.context_live(s.context) => Err(self.invalid_handle(format!(
                    "stream {key:#x} that {} created, whose context was destroyed",
                    s.made_by
                ))),
                None => {
                    let _ = ctx;
                    Ok(Some(key))
                }
            },
        }
    }

    /// Runs an operation of `cost` on `stream` (`None`: the call is synchronous, on the legacy
    /// default stream), advancing the fake clock; returns when it ended.
    pub(super) fn issue(
        &mut self,
        stream: Option<CUstream>,
        what: String,
        cost_ns: u64,
    ) -> Result<u64, Fail> {
        let ctx = self.current()?;
        let key = self.stream(stream.unwrap_or(std::ptr::null_mut()))?;
        let call = self.call.function;
        let state = &mut *self.state;
        let default_time = state.contexts[&ctx].default_stream.time_ns;
        let blocking = |s: &Stream| s.context == ctx && !s.non_blocking && s.destroyed.is_none();
        let end = match key {
            Some(key) => {
                let s = state
                    .streams
                    .get_mut(&key)
                    .map(|s| (s.non_blocking, &mut s.timeline));
                let Some((non_blocking, timeline)) = s else {
                    return Ok(0);
                };
                let start = if non_blocking {
                    timeline.time_ns
                } else {
                    timeline.time_ns.max(default_time)
                };
                let end = start + cost_ns;
                timeline.time_ns = end;
                timeline.work.push(Work {
                    call,
                    what,
                    start_ns: start,
                    end_ns: end,
                });
                end
            }
            None => {
                // The legacy default stream waits for every blocking stream, and they for it.
                let start = state
                    .streams
                    .values()
                    .filter(|s| blocking(s))
                    .map(|s| s.timeline.time_ns)
                    .fold(default_time, u64::max);
                let end = start + cost_ns;
                for s in state.streams.values_mut().filter(|s| blocking(s)) {
                    s.timeline.time_ns = s.timeline.time_ns.max(end);
                }
                let timeline = &mut state.contexts.get_mut(&ctx).map(|c| &mut c.default_stream);
                if let Some(timeline) = timeline {
                    timeline.time_ns = end;
                    timeline.work.push(Work {
                        call,
                        what,
                        start_ns: start,
                        end_ns: end,
                    });
                }
                end
            }
        };
        Ok(end)
    }

    pub(super) fn stream_create(&mut self, ph: *mut CUstream, flags: c_uint) -> Answer {
        let ctx = self.current()?;
        if ph.is_null() {
            return Err(null_out(self.call, "pointer to write the stream to"));
        }
        let h = self.shared.token();
        let default_time = self.state.contexts[&ctx].default_stream.time_ns;
        self.state.streams.insert(
            h,
            Stream {
                context: ctx,
                made_by: self.call,
                destroyed: None,
                non_blocking: flags & 1 != 0,
                timeline: Timeline {
                    time_ns: default_time,
                    work: Vec::new(),
                },
            },
        );
        // SAFETY: `ph` is valid for writes (the C contract; not null, checked above).
        unsafe { put(self.call, ph, handle(h)) }
    }

    pub(super) fn stream_destroy(&mut self, s: CUstream) -> Answer {
        if is_default_stream(s) {
            return Err(self.invalid_handle(format!(
                "the default stream {:#x}, which cannot be destroyed",
                s as usize
            )));
        }
        let key = self.stream(s)?.unwrap_or_default();
        let call = self.call;
        if let Some(s) = self.state.streams.get_mut(&key) {
            s.destroyed = Some(call);
        }
        Ok(())
    }

    pub(super) fn event(&self, e: CUevent) -> Result<usize, Fail> {
        self.current()?;
        let key = e as usize;
        match self.state.events.get(&key) {
            None => {
                Err(self
                    .invalid_handle(format!("event {key:#x}, which is no event of this device")))
            }
            Some(ev) => match ev.destroyed {
                Some(by) => Err(self.invalid_handle(format!(
                    "event {key:#x} that {} created and {by} destroyed",
                    ev.made_by
                ))),
                None if !self.state.context_live(ev.context) => Err(self.invalid_handle(format!(
                    "event {key:#x} that {} created, whose context was destroyed",
                    ev.made_by
                ))),
                None => Ok(key),
            },
        }
    }

    pub(super) fn event_create(&mut self, ph: *mut CUevent, flags: c_uint) -> Answer {
        let ctx = self.current()?;
        if ph.is_null() {
            return Err(null_out(self.call, "pointer to write the event to"));
        }
        let h = self.shared.token();
        self.state.events.insert(
            h,
            Event {
                context: ctx,
                made_by: self.call,
                destroyed: None,
                timing: flags & sys::CUevent_flags::CU_EVENT_DISABLE_TIMING.0 == 0,
                recorded: None,
            },
        );
        // SAFETY: `ph` is valid for writes (the C contract; not null, checked above).
        unsafe { put(self.call, ph, handle(h)) }
    }

    pub(super) fn event_destroy(&mut self, e: CUevent) -> Answer {
        let key = self.event(e)?;
        let call = self.call;
        if let Some(ev) = self.state.events.get_mut(&key) {
            ev.destroyed = Some(call);
        }
        Ok(())
    }

    pub(super) fn event_record(&mut self, e: CUevent, s: CUstream) -> Answer {
        let key = self.event(e)?;
        let issued = self.ordered_work(Some(s))?;
        let at = self.issue(Some(s), format!("records event {key:#x}"), 0)?;
        if let Some(ev) = self.state.events.get_mut(&key) {
            ev.recorded = Some(at);
        }
        self.state.event_clocks.insert(key, issued.clock.clone());
        Ok(())
    }

    pub(super) fn stream_wait_event(&mut self, s: CUstream, e: CUevent) -> Answer {
        let key = self.event(e)?;
        let stream = self.stream(s)?;
        if self.captures(Some(s)) {
            self.capture_conflict(Some(s))?;
        }
        // The stream's later work is ordered after what the event was recorded after.
        if let Some(clock) = self.state.event_clocks.get(&key).cloned() {
            let agent = self.agent(Some(s))?;
            self.state.agents.clocks[agent].join(&clock);
        }
        let Some(at) = self.state.events[&key].recorded else {
            return Ok(());
        };
        let ctx = self.current()?;
        let timeline = match stream {
            Some(k) => self.state.streams.get_mut(&k).map(|s| &mut s.timeline),
            None => self
                .state
                .contexts
                .get_mut(&ctx)
                .map(|c| &mut c.default_stream),
        };
        if let Some(t) = timeline {
            t.time_ns = t.time_ns.max(at);
            t.work.push(Work {
                call: self.call.function,
                what: format!("waits for event {key:#x}"),
                start_ns: t.time_ns,
                end_ns: t.time_ns,
            });
        }
        Ok(())
    }

    pub(super) fn elapsed(&self, ms: *mut f32, start: CUevent, end: CUevent) -> Answer {
        let times = [self.event(start)?, self.event(end)?].map(|k| {
            let ev = &self.state.events[&k];
            (k, ev.timing, ev.recorded)
        });
        let mut at = [0_u64; 2];
        for (i, (k, timing, recorded)) in times.into_iter().enumerate() {
            if !timing {
                return Err(Fail::error(
                    CUresult::CUDA_ERROR_INVALID_HANDLE,
                    format!(
                        "{} times event {k:#x}, made with CU_EVENT_DISABLE_TIMING",
                        self.call
                    ),
                ));
            }
            let Some(t) = recorded else {
                return Err(Fail::error(
                    CUresult::CUDA_ERROR_INVALID_HANDLE,
                    format!("{} times event {k:#x}, which was never recorded", self.call),
                ));
            };
            at[i] = t;
        }
        #[allow(clippy::cast_precision_loss)]
        let millis = (at[1] as f64 - at[0] as f64) / 1e6;
        #[allow(clippy::cast_possible_truncation)]
        // SAFETY: as in `driver_version`.
        unsafe {
            put(self.call, ms, millis as f32)
        }
    }
}
