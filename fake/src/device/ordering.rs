//! What orders the device's work (`crate::order`), call by call: which agent runs a call's work
//! (the host, a stream, a context's legacy default stream, a thread's per-thread default stream),
//! what that work is ordered after, and what synchronises the host with a stream.

use std::thread;

use super::*;

/// `CU_STREAM_LEGACY` and `CU_STREAM_PER_THREAD`, the handles that name a default stream
/// whatever the table's mode.
const STREAM_LEGACY: usize = 1;
const STREAM_PER_THREAD: usize = 2;

/// Who runs work, for the ordering of memory's uses: the host (agent 0), each context's legacy
/// default stream, each stream, and each thread's per-thread default stream of a context.
pub(super) struct Agents {
    pub(super) clocks: Vec<Clock>,
    pub(super) names: Vec<Arc<str>>,
    pub(super) by_key: HashMap<AgentKey, usize>,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum AgentKey {
    Legacy(usize),
    Stream(usize),
    PerThread(usize, std::thread::ThreadId),
}

/// The host's agent.
pub(super) const HOST: usize = 0;

impl Agents {
    pub(super) fn new() -> Self {
        Self {
            clocks: vec![Clock::default()],
            names: vec!["the host".into()],
            by_key: HashMap::new(),
        }
    }

    /// The agent of `key`, made on first use and named `name()`.
    pub(super) fn get(&mut self, key: AgentKey, name: impl FnOnce() -> String) -> usize {
        if let Some(&agent) = self.by_key.get(&key) {
            return agent;
        }
        let agent = self.clocks.len();
        self.clocks.push(Clock::default());
        self.names.push(name().into());
        self.by_key.insert(key, agent);
        agent
    }
}

thread_local! {
    /// The host functions (`cuLaunchHostFunc`) running on this thread: each device's id and the
    /// work of its stream the function is.
    static HOST_FUNCTIONS: RefCell<Vec<(u64, Arc<Issued>)>> = const { RefCell::new(Vec::new()) };
}

/// Marks a host function of device `id` as running on this thread, as the work `issued`, until
/// dropped.
pub(super) struct InHostFunction;

impl InHostFunction {
    pub(super) fn start(id: u64, issued: Arc<Issued>) -> Self {
        let _ = HOST_FUNCTIONS.try_with(|h| h.borrow_mut().push((id, issued)));
        Self
    }

    /// The work of the host function of device `id` running on this thread, if one is.
    pub(super) fn running(id: u64) -> Option<Arc<Issued>> {
        HOST_FUNCTIONS
            .try_with(|h| {
                h.borrow()
                    .iter()
                    .rev()
                    .find(|(device, _)| *device == id)
                    .map(|(_, issued)| issued.clone())
            })
            .ok()
            .flatten()
    }
}

impl Drop for InHostFunction {
    fn drop(&mut self) {
        let _ = HOST_FUNCTIONS.try_with(|h| h.borrow_mut().pop());
    }
}

impl Cx<'_> {
    /// The agent whose work a call on `stream` is (`None`: the default stream, as the null
    /// stream of this table's mode).
    pub(super) fn agent(&mut self, stream: Option<CUstream>) -> Result<usize, Fail> {
        let ctx = self.current()?;
        let raw = stream.unwrap_or(std::ptr::null_mut());
        let key = match self.stream(raw)? {
            Some(key) => AgentKey::Stream(key),
            None if raw as usize == STREAM_LEGACY => AgentKey::Legacy(ctx),
            None if raw as usize == STREAM_PER_THREAD || self.per_thread => {
                AgentKey::PerThread(ctx, thread::current().id())
            }
            None => AgentKey::Legacy(ctx),
        };
        Ok(self.state.agents.get(key, || match key {
            AgentKey::Stream(k) => format!("stream {k:#x}"),
            AgentKey::Legacy(_) => "the legacy default stream".to_owned(),
            AgentKey::PerThread(..) => "the per-thread default stream".to_owned(),
        }))
    }

    /// Whether `agent` synchronises with the legacy default stream of `ctx`: a blocking stream of
    /// it, or a thread's per-thread default stream of it (not a `CU_STREAM_NON_BLOCKING` one).
    fn blocking(&self, agent: usize, ctx: usize) -> bool {
        self.state
            .agents
            .by_key
            .iter()
            .any(|(key, &a)| a == agent && self.key_blocks(*key, ctx))
    }

    fn key_blocks(&self, key: AgentKey, ctx: usize) -> bool {
        match key {
            AgentKey::Stream(k) => self
                .state
                .streams
                .get(&k)
                .is_some_and(|s| s.context == ctx && !s.non_blocking && s.destroyed.is_none()),
            AgentKey::PerThread(c, _) => c == ctx,
            AgentKey::Legacy(_) => false,
        }
    }

    /// This call's work on `stream`, ordered after its agent's earlier work, after everything
    /// the host did before it, and, on the legacy default stream, after the blocking streams'
    /// work (and on those, after the legacy default stream's): the implicit synchronisation.
    pub(super) fn ordered_work(&mut self, stream: Option<CUstream>) -> Result<Arc<Issued>, Fail> {
        let ctx = self.current()?;
        self.capture_conflict(stream)?;
        let agent = self.agent(stream)?;
        let legacy = self.state.agents.get(AgentKey::Legacy(ctx), || {
            "the legacy default stream".to_owned()
        });
        let agents = &self.state.agents;
        let mut clock = agents.clocks[agent].clone();
        clock.join(&agents.clocks[HOST]);
        if agent == legacy {
            let blocking: Vec<usize> = agents
                .by_key
                .iter()
                .filter(|(key, _)| self.key_blocks(**key, ctx))
                .map(|(_, &a)| a)
                .collect();
            for b in blocking {
                clock.join(&self.state.agents.clocks[b]);
            }
        } else if self.blocking(agent, ctx) {
            clock.join(&self.state.agents.clocks[legacy]);
        }
        let at = clock.tick(agent);
        self.state.agents.clocks[agent] = clock.clone();
        let agent_name = self.state.agents.names[agent].clone();
        Ok(Arc::new(Issued {
            agent,
            at,
            clock,
            name: format!("{} on {agent_name}", self.call).into(),
            agent_name,
        }))
    }

    /// This call's work on the host itself (a free, a host-synchronous allocation, a host
    /// access of pinned memory), ordered after what the host synchronised with.
    pub(super) fn host_work(&mut self) -> Arc<Issued> {
        let clock = &mut self.state.agents.clocks[HOST];
        let at = clock.tick(HOST);
        Arc::new(Issued {
            agent: HOST,
            at,
            clock: clock.clone(),
            name: format!("{} on the host", self.call).into(),
            agent_name: self.state.agents.names[HOST].clone(),
        })
    }

    /// The host waits for everything `agent` was given so far.
    pub(super) fn host_waits_for(&mut self, agent: usize) {
        let theirs = self.state.agents.clocks[agent].clone();
        self.state.agents.clocks[HOST].join(&theirs);
    }

    /// `cuStreamSynchronize` (and a `cuStreamQuery` that answers done, as the fake's always
    /// does): the host is ordered after the stream's work.
    pub(super) fn stream_synchronize(&mut self, stream: CUstream) -> Answer {
        let agent = self.agent(Some(stream))?;
        self.sync_during_capture(&[stream as usize])?;
        self.host_waits_for(agent);
        Ok(())
    }

    /// `cuCtxSynchronize`: the host is ordered after every stream of the context.
    pub(super) fn ctx_synchronize(&mut self, ctx: usize) -> Answer {
        let streams: Vec<usize> = self
            .state
            .streams
            .iter()
            .filter(|(_, s)| s.context == ctx)
            .map(|(&h, _)| h)
            .collect();
        self.sync_during_capture(&streams)?;
        let agents: Vec<usize> = self
            .state
            .agents
            .by_key
            .iter()
            .filter(|(key, _)| match **key {
                AgentKey::Legacy(c) | AgentKey::PerThread(c, _) => c == ctx,
                AgentKey::Stream(k) => self.state.streams.get(&k).is_some_and(|s| s.context == ctx),
            })
            .map(|(_, &a)| a)
            .collect();
        for agent in agents {
            self.host_waits_for(agent);
        }
        Ok(())
    }

    /// `cuEventSynchronize` (and a `cuEventQuery` that answers done): the host is ordered after
    /// the work the event was recorded after.
    pub(super) fn event_synchronize(&mut self, e: CUevent) -> Answer {
        let key = self.event(e)?;
        if let Some(clock) = self.state.event_clocks.get(&key).cloned() {
            self.state.agents.clocks[HOST].join(&clock);
        }
        Ok(())
    }

    /// A use of the pinned host memory at `p` (`n` bytes) by `issued`: a hazard when an earlier
    /// use of its allocation is not ordered before it ([`State::note_pinned`]).
    pub(super) fn note_host_use(&mut self, p: Ptr, n: usize, issued: &Issued, write: bool) {
        if let Some(finding) = self.state.note_pinned(p, n, issued, write) {
            self.state.findings.push(finding);
        }
    }
}

impl State {
    /// A use of the pinned host memory at `p` (`n` bytes) by `issued`: the hazard when an
    /// earlier use of its allocation is not ordered before it. Memory the device did not
    /// allocate (pageable memory, which the driver copies synchronously) is not tracked.
    pub(super) fn note_pinned(
        &mut self,
        p: Ptr,
        n: usize,
        issued: &Issued,
        write: bool,
    ) -> Option<Finding> {
        if n == 0 || !self.memory.checks.order {
            return None;
        }
        let addr = p as usize;
        let (&base, h) = self.host.range_mut(..=addr).next_back()?;
        if addr - base >= h.layout.size() {
            return None;
        }
        let verb = if write { "writes" } else { "reads" };
        let hazard = h.uses.touch(addr - base, n, issued, write, verb)?;
        let kind = FindingKind::Hazard;
        let earlier = hazard.earlier_verb;
        let message = format!(
            "{}: {} {verb} the {}-byte pinned host allocation at {base:#x} that {} made, which \
             {} {earlier}, and nothing orders the two: {}",
            kind.name(),
            issued.name,
            h.layout.size(),
            h.made_by,
            hazard.earlier,
            hazard.advice
        );
        Some(Finding { kind, message })
    }

    /// The host's own access of pinned memory, as a test says it happens
    /// ([`Device::host_reads`]): work of the host, ordered after what it synchronised with; or,
    /// from a host function (`in_stream`), work of that function's stream.
    pub(super) fn host_access(
        &mut self,
        p: Ptr,
        n: usize,
        write: bool,
        what: &str,
        in_stream: Option<&Issued>,
    ) -> Option<Finding> {
        let issued = match in_stream {
            Some(function) => Issued {
                name: format!("{what} in the host function of {}", function.name).into(),
                ..function.clone()
            },
            None => {
                let clock = &mut self.agents.clocks[HOST];
                let at = clock.tick(HOST);
                Issued {
                    agent: HOST,
                    at,
                    clock: clock.clone(),
                    name: format!("{what} on the host").into(),
                    agent_name: self.agents.names[HOST].clone(),
                }
            }
        };
        let finding = self.note_pinned(p, n, &issued, write)?;
        self.findings.push(finding.clone());
        Some(finding)
    }
}
