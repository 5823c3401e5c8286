import APNs
import Foundation
import HTTP2Transport
import Logging
import ProviderAuth
import QueueModel
import Threads

/// Sends what the queue holds: claims due deliveries, signs, sends over the pools, classifies the answers,
/// and writes outcomes back in batches. Several workers may share one database: each registers, heartbeats,
/// owns what it claims, and takes over only the leases of workers whose heartbeat stopped.
///
/// A worker owns its `TransportRegistry` (it withdraws its own unsent requests from it when a campaign is
/// cancelled or the worker stops).
public final class Worker: Sendable {
    let store: any DeliveryStore
    /// The pools it sends on.
    public let transport: TransportRegistry
    /// The settings, the logger and the credentials: read at each use, so that `reload` (SIGHUP) changes them while
    /// the loop runs. `generation` counts credential reloads (a reload ends every credential's pause).
    let reloadable:
        Locked<(configuration: WorkerConfiguration, logger: Logger, credentials: CredentialSet, generation: Int)>
    var configuration: WorkerConfiguration { reloadable.withLock { $0.configuration } }
    var logger: Logger { reloadable.withLock { $0.logger } }
    /// The credentials it sends with now.
    public var credentials: CredentialSet { reloadable.withLock { $0.credentials } }
    /// Each credential's state, for `/readyz` and metrics.
    let credentialStates: Locked<[String: CredentialStatus]>
    let clock: @Sendable () -> Date
    let random: @Sendable () -> Double
    let observer: (any WorkerObserver)?
    private let contact = Locked(APNsContact())
    /// How often the loop wakes up when nothing else happens (stop signal, heartbeats, cancels, pauses, and a
    /// commit of this process's store: a notification enqueued by `apnsd serve` is claimed within one turn). The
    /// wake-ups are real time; every decision reads the injected `clock`.
    static let turn: Duration = .milliseconds(10)
    /// The pace of what costs a query: reading another process's change count, re-claiming after an empty claim.
    static let tick: Duration = .milliseconds(50)

    public init(
        store: any DeliveryStore, credentials: CredentialSet, transport: TransportRegistry,
        configuration: WorkerConfiguration, logger: Logger,
        clock: @escaping @Sendable () -> Date = Date.init,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        observer: (any WorkerObserver)? = nil
    ) {
        self.store = store
        self.transport = transport
        self.reloadable = Locked((configuration, logger, credentials, 0))
        self.credentialStates = Locked(Self.statuses(of: credentials))
        self.clock = clock
        self.random = random
        self.observer = observer
    }

    /// When APNs last answered this worker and since when its requests go unanswered, for `/readyz`.
    public var apnsContact: APNsContact { contact.withLock { $0 } }

    /// Every credential's state (sending, or paused and why), by name.
    public var credentialStatuses: [CredentialStatus] {
        credentialStates.withLock { $0.values.sorted { $0.name < $1.name } }
    }

    static func statuses(of credentials: CredentialSet) -> [String: CredentialStatus] {
        Dictionary(
            uniqueKeysWithValues: credentials.byName.values.map { credential in
                (
                    credential.name,
                    CredentialStatus(name: credential.name, certificateExpires: credential.certificateExpires)
                )
            })
    }

    /// Runs until `shouldStop` says so, or — with `untilIdle` — until nothing is due within the retry cap
    /// (pending retries are waited for; campaigns scheduled later are left for a later run).
    ///
    /// Stopping withdraws what waits unsent on the connections, lets the requests on the wire finish, records
    /// their outcomes and releases everything else. While the database refuses writes the worker does not
    /// exit holding outcomes of requests that went out, unless `shouldAbandon` says so (a second signal).
    public func run(
        untilIdle: Bool, shouldStop: @escaping @Sendable () -> Bool = { false },
        shouldAbandon: @escaping @Sendable () -> Bool = { false }
    ) async throws(DispatcherError) -> WorkerSummary {
        let started = clock()
        var state = RunState()
        state.lastFlush = started
        do {
            try await register(&state)
            try await loop(untilIdle: untilIdle, shouldStop: shouldStop, shouldAbandon: shouldAbandon, state: &state)
            try await finish(&state)
        } catch let error as StoreError {
            throw .store(error)
        } catch let error as DispatcherError {
            throw error
        } catch {
            throw .unexpected("\(error)")
        }
        state.summary.seconds = clock().timeIntervalSince(started)
        if let stop = state.stop {
            logger.error("worker.stopped_configuration_error", ("reason", stop.description))
            throw .stopped(stop)
        }
        if untilIdle, let (name, pause) = state.credentialPauses.min(by: { $0.key < $1.key }) {
            throw .stopped(.credentialsRefused(status: pause.status ?? 0, reason: pause.reason, credential: name))
        }
        if untilIdle && !state.unrouted.isEmpty { throw .stopped(.noCredential(topics: state.unrouted.sorted())) }
        if let fault = state.fault { throw .outcomesUnwritten(count: state.results.count, fault.error) }
        if let gaveUp = state.gaveUp { throw gaveUp }
        return state.summary
    }

    // MARK: - Start and end

    private func register(_ state: inout RunState) async throws {
        let now = clock()
        let registration = try await store.registerWorker(host: Self.hostName, pid: Int(getpid()), now: now)
        state.id = registration
        let rescued = try await store.rescueStaleWorkers(
            now: now, staleAfter: configuration.lease, except: registration)
        logRescue(rescued)
        for request in try await store.openCancelRequests() { state.cancelled.insert(request.campaign.rawValue) }
        state.cancelSeen = try await store.cancelRequests(after: 0).last?.seq ?? 0
        state.nextHeartbeat = now.addingTimeInterval(configuration.heartbeat.seconds)
        logger.info("worker.registered", ("worker.id", registration.description))
    }

    /// Writes what is left and releases every lease still held (claimed and unsent, withdrawn, or dropped).
    private func finish(_ state: inout RunState) async throws {
        guard state.fault == nil else { return }  // abandoned: a later worker takes the leases over
        if !state.results.isEmpty {
            _ = try await store.record(state.results, by: state.id, now: clock())
            reportRecorded(state.results)
            state.results.removeAll()
        }
        let released = try await store.unregisterWorker(state.id, now: clock())
        if released > 0 { logger.info("worker.leases_released", ("deliveries", String(released))) }
    }

    // MARK: - The loop

    enum Event: Sendable {
        case sent(Sent)
        case tick
    }

    private func loop(
        untilIdle: Bool, shouldStop: @escaping @Sendable () -> Bool,
        shouldAbandon: @escaping @Sendable () -> Bool, state: inout RunState
    ) async throws {
        try await withThrowingTaskGroup(of: Event.self) { group in
            group.addTask { await Self.sleepOneTick() }
            while true {
                let now = clock()
                if !state.stopping && (shouldStop() || state.stop != nil) {
                    await beginStopping(&state, why: state.stop != nil ? "error" : "signal")
                }
                if state.stopping && state.fault != nil && shouldAbandon() {
                    logger.error(
                        "worker.abandoned", ("outcomes_lost", String(state.results.count)),
                        ("error", state.fault!.error.description))
                    break
                }
                try await duties(&state, now: now, untilIdle: untilIdle)
                if state.fault == nil && !state.stopping && now < state.nextClaimAt
                    && state.queued + state.heldCount == 0
                {
                    try await checkForNewWork(&state, now: now)
                }
                if state.fault == nil && !state.stopping && now >= state.nextClaimAt
                    && state.queued + state.heldCount < max(1, configuration.claimBatch / 2)
                {
                    try await refill(&state, now: now)
                } else if state.fault == nil && !state.stopping && state.queued > 0 {
                    try await claimSinglesWhileBusy(&state, now: now)
                }
                if state.fault == nil { submit(&state, group: &group, now: clock(), untilIdle: untilIdle) }
                if !state.results.isEmpty
                    && (state.results.count >= configuration.recordBatch || state.inFlight == 0
                        || now.timeIntervalSince(state.lastFlush) >= configuration.recordInterval.seconds)
                {
                    try await flush(&state)
                }
                if state.inFlight == 0 && state.queued == 0 && state.heldCount == 0 && state.results.isEmpty
                    && state.fault == nil
                {
                    if state.stopping { break }
                    // Idle: nothing due within the retry cap, and no quiet worker's leases to take over.
                    if untilIdle && state.idleConfirmed && state.nextRescue == nil
                        && (state.nextDue.map { $0.timeIntervalSince(now) > configuration.retry.cap.seconds } ?? true)
                    {
                        break
                    }
                }
                guard let event = try await group.next() else { break }
                switch event {
                case .tick: group.addTask { await Self.sleepOneTick() }
                case .sent(let sent): handle(sent, state: &state, untilIdle: untilIdle)
                }
            }
            group.cancelAll()
        }
    }

    private static func sleepOneTick() async -> Event {
        try? await Task.sleep(for: turn)
        return .tick
    }

    /// What is due by time rather than by an answer: storage recovery, heartbeat and takeover, cancels,
    /// expiry of held work, and giving up on an outage with `--until-idle`.
    private func duties(_ state: inout RunState, now: Date, untilIdle: Bool) async throws {
        if state.fault != nil {
            try await recoverStorage(&state, now: now)
            return
        }
        if now >= state.nextHeartbeat { try await heartbeat(&state, now: now) }
        if now >= state.nextCancelPoll && state.fault == nil {
            state.nextCancelPoll = now.addingTimeInterval(configuration.cancelPollInterval.seconds)
            try await pollCancels(&state)
            try await pollPauses(&state, now: now)
        }
        expireHeld(&state, now: now)
        let generation = reloadable.withLock { $0.generation }
        if generation != state.credentialsGeneration {
            state.credentialsGeneration = generation
            endCredentialPauses(&state, now: now, why: "reloaded")
        }
        checkCertificates(&state, now: now)
        if untilIdle && !state.stopping && !state.credentialPauses.isEmpty
            && credentials.byName.keys.allSatisfy({ state.credentialPauses[$0] != nil })
        {
            await beginStopping(&state, why: "every credential refused")
        }
        reportThroughput(&state, now: now)
        reportConnections(&state, now: now)
        if untilIdle && !state.stopping, let since = state.outages.values.compactMap(\.since).min(),
            now.timeIntervalSince(since) > (configuration.unreachableLimit ?? configuration.retry.cap).seconds
        {
            let reasons = state.unreachableBecause.map { "\($0.key): \($0.value)" }.sorted().joined(separator: "; ")
            state.gaveUp = .unreachable(seconds: Int(now.timeIntervalSince(since).rounded()), because: reasons)
            logger.error(
                "worker.gave_up_unreachable", ("seconds", String(Int(now.timeIntervalSince(since)))),
                ("reason", reasons))
            await beginStopping(&state, why: "APNs unreachable")
        }
    }

    /// Waiting for the next claim: claims at once when its store committed something in this process, or another
    /// connection committed since the last claim (SQLite's data_version: one read of the WAL index per tick at
    /// most, not per answer, so a busy worker does not queue behind it on the store).
    private func checkForNewWork(_ state: inout RunState, now: Date) async throws {
        if store.commits.current != state.commitsSeen {
            state.nextClaimAt = now
            return
        }
        guard now >= state.nextChangeCheck, let seen = state.changesSeen else { return }
        state.nextChangeCheck = now.addingTimeInterval(Self.tick.seconds)
        guard let changes = try await guarded(&state, { [store] in try await store.changeCount() }) else { return }
        if changes != seen { state.nextClaimAt = now }
    }

    /// While bulk work waits in the queue (no refill due), a single send committed since the last look is claimed
    /// at once and goes ahead of it: in this process on the store's commit signal, from another process on its
    /// change count (read at most once a tick).
    private func claimSinglesWhileBusy(_ state: inout RunState, now: Date) async throws {
        var moved = store.commits.current != state.singlesCommitsSeen
        if !moved && now >= state.nextSinglesCheck {
            state.nextSinglesCheck = now.addingTimeInterval(Self.tick.seconds)
            guard let changes = try await guarded(&state, { [store] in try await store.changeCount() }) else { return }
            moved = changes != state.singlesChangesSeen
            state.singlesChangesSeen = changes
        }
        // The queue holds at most two claim batches: single sends arriving faster than they can be sent wait
        // in the store (due, unleased) instead of piling up leased in memory.
        let room = 2 * configuration.claimBatch - state.queued - state.heldCount
        guard moved, room > 0 else { return }
        state.singlesCommitsSeen = store.commits.current
        let (id, lease, limit) = (state.id, configuration.lease, min(room, max(1, configuration.claimBatch / 2)))
        guard
            let jobs = try await guarded(
                &state,
                { [store] in
                    try await store.claimSingles(now: now, limit: limit, leaseFor: lease, worker: id)
                })
        else { return }
        state.requeueFront(jobs)
    }

    private func refill(_ state: inout RunState, now: Date) async throws {
        // One page per refill keeps expansion in step with sending: a huge campaign never stalls the first sends.
        let page = configuration.expansionPageSize
        guard
            let expansion = try await guarded(
                &state, { [store] in try await store.expandDueCampaigns(now: now, pageSize: page, maxPages: 1) })
        else { return }
        await reportExpansion(expansion)
        let want = configuration.claimBatch - state.queued - state.heldCount
        // Read before the claim: whatever commits after it moves them, and wakes the next idle turn.
        state.commitsSeen = store.commits.current
        guard let changes = try await guarded(&state, { [store] in try await store.changeCount() }) else { return }
        state.changesSeen = changes
        let (id, lease) = (state.id, configuration.lease)
        guard
            let jobs = try await guarded(
                &state, { [store] in try await store.claim(now: now, limit: want, leaseFor: lease, worker: id) })
        else { return }
        state.enqueueClaimed(jobs)
        if jobs.count < want {
            // Everything due is claimed: look again when the next thing comes due (or the leases of a worker
            // that went quiet can be taken over), or at the poll interval.
            let (staleAfter, quiet) = (configuration.lease, configuration.heartbeat * 2)
            guard let due = try await guarded(&state, { [store] in try await store.nextDueDate() }),
                let rescue = try await guarded(
                    &state,
                    { [store] in
                        try await store.nextRescueDate(now: now, staleAfter: staleAfter, silentFor: quiet, except: id)
                    })
            else { return }
            state.nextDue = due
            state.nextRescue = rescue
            let poll = now.addingTimeInterval(configuration.pollInterval.seconds)
            let next = [due, rescue].compactMap { $0 }.min() ?? poll
            state.nextClaimAt = min(poll, max(next, now.addingTimeInterval(Self.tick.seconds)))
            state.idleConfirmed = true
        } else {
            state.nextClaimAt = now
        }
    }

    private func submit(
        _ state: inout RunState, group: inout ThrowingTaskGroup<Event, any Error>, now: Date, untilIdle: Bool
    ) {
        // Read once per turn, not per job: the settings sit behind a lock (SIGHUP may replace them).
        let (configuration, credentials) = (self.configuration, self.credentials)
        // A paused pool gets one probe once its pause is over.
        for environment in state.held.keys where !(state.held[environment]?.isEmpty ?? true) {
            guard !state.stopping, state.inFlight < configuration.maxInFlight,
                state.outages[environment]?.maySend(now: now) ?? true
            else { continue }
            let job = state.held[environment]!.removeFirst()
            guard
                let credential = sendingCredential(
                    for: job, from: credentials, state: &state, now: now, untilIdle: untilIdle)
            else { continue }
            state.outages[environment]?.probeSent()
            launch(job, with: credential, state: &state, group: &group)
        }
        while !state.stopping, state.inFlight < configuration.maxInFlight, let job = state.nextJob() {
            if state.cancelled.contains(job.campaignID.rawValue) {
                state.summary.cancelled += 1
                continue
            }
            if DeliveryDecision.isExpired(job, now: now, policy: configuration.retry) {
                let result = DeliveryDecision.expired(job)
                state.summary.count(result)
                state.results.append(result)
                continue
            }
            guard
                let credential = sendingCredential(
                    for: job, from: credentials, state: &state, now: now, untilIdle: untilIdle)
            else { continue }
            if var outage = state.outages[job.environment], outage.isOut {
                if state.held[job.environment, default: []].isEmpty && outage.maySend(now: now) {
                    outage.probeSent()
                    state.outages[job.environment] = outage
                } else {
                    state.held[job.environment, default: []].append(job)
                    continue
                }
            }
            launch(job, with: credential, state: &state, group: &group)
        }
    }

    private func launch(
        _ job: DeliveryJob, with credential: SendingCredential, state: inout RunState,
        group: inout ThrowingTaskGroup<Event, any Error>
    ) {
        state.inFlight += 1
        state.inFlightByCampaign[job.campaignID.rawValue, default: 0] += 1
        group.addTask { .sent(await self.send(job, with: credential)) }
    }

    private func handle(_ sent: Sent, state: inout RunState, untilIdle: Bool) {
        let (configuration, logger) = (self.configuration, self.logger)
        let job = sent.job
        let campaign = job.campaignID.rawValue
        if job.kind == .bulk { state.bulkCampaigns.insert(campaign) }
        state.inFlight -= 1
        state.inFlightByCampaign[campaign, default: 1] -= 1
        if state.inFlightByCampaign[campaign] == 0 { state.inFlightByCampaign[campaign] = nil }
        state.summary.sent += sent.requests
        state.summary.tokenRefreshes += sent.tokenRefreshes
        if let failure = sent.tokenFailure {
            // The key cannot sign: a configuration error of this credential only.
            pauseCredential(
                sent.credential, status: nil, reason: .invalidProviderToken,
                detail: "cannot make a provider token: \(failure)", state: &state, now: clock())
            wait(job, of: sent.credential, state: &state, now: clock(), untilIdle: untilIdle)
            return
        }
        guard let answer = sent.answer else { return }  // never sent: released when the worker ends
        if case .failure(let error) = answer, error.kind == .withdrawn {
            if state.withdrawnPending[campaign, default: 0] > 0 { state.withdrawnPending[campaign]! -= 1 }
            if state.cancelled.contains(campaign) { state.summary.cancelled += 1 }
            return  // never sent: still leased to us; released when we stop, or cancelled by the cancel
        }
        let now = clock()
        let decision = DeliveryDecision.decide(
            job: job, answer: answer, now: now, policy: configuration.retry, unit: random())
        if case .credentialsRefused(let status, let reason, _)? = decision.stop {
            pauseCredential(
                sent.credential, status: status, reason: reason, detail: "\(status) \(reason)", state: &state, now: now)
            wait(job, of: sent.credential, state: &state, now: now, untilIdle: untilIdle)
            return
        }
        if let stop = decision.stop { state.stop = state.stop ?? stop }
        if answer.status != nil, state.credentialPauses[sent.credential] != nil {
            resumeCredential(sent.credential, state: &state, now: now)
        } else if answer.status == nil, var pause = state.credentialPauses[sent.credential], pause.backoff.probing {
            // The probe got no answer: it proved nothing; the next one goes after another pause.
            pause.backoff.unreachable(now: now, unit: random())
            state.credentialPauses[sent.credential] = pause
        }
        let environment = job.environment
        if decision.unreachable {
            guard !state.stopping, !state.cancelled.contains(campaign) else { return }
            var outage =
                state.outages[environment]
                ?? OutageBackoff(base: configuration.retry.base, cap: configuration.retry.cap)
            let wasOut = outage.isOut
            let until = outage.unreachable(now: now, unit: random())
            state.outages[environment] = outage
            if case .failure(let error) = answer { state.unreachableBecause[environment.rawValue] = error.description }
            state.held[environment, default: []].insert(job, at: 0)
            if !wasOut {
                logger.warning(
                    "worker.apns_unreachable", ("apns.environment", environment.rawValue),
                    ("reason", state.unreachableBecause[environment.rawValue] ?? ""),
                    ("pause_seconds", String(format: "%.2f", until.timeIntervalSince(now))))
            }
            return
        }
        if decision.result != nil, state.outages[environment]?.isOut == true {
            let seconds = state.outages[environment]!.since.map { now.timeIntervalSince($0) } ?? 0
            state.outages[environment]!.reached()
            state.unreachableBecause[environment.rawValue] = nil
            let held = state.held[environment] ?? []
            state.held[environment] = nil
            state.requeueFront(held)
            logger.info(
                "worker.apns_reachable", ("apns.environment", environment.rawValue),
                ("outage_seconds", String(format: "%.1f", seconds)))
        }
        guard var result = decision.result else { return }
        if state.cancelled.contains(campaign), case .retry = result.disposition {
            result = DeliveryResult(
                job, disposition: .cancelled, httpStatus: result.httpStatus,
                reason: .campaignCancelled, apnsID: result.apnsID, countsAsAttempt: result.countsAsAttempt)
        }
        state.summary.count(result)
        state.results.append(result)
    }

    // MARK: - Stopping, cancels, heartbeats

    /// Stops claiming and sending: drops what waits in memory (released when the worker ends) and withdraws
    /// its requests that have not started on the wire; those on the wire finish and are recorded.
    func beginStopping(_ state: inout RunState, why: String) async {
        state.stopping = true
        let (dropped, withdrawn) = await dropUnsent(&state, andLater: true)
        logger.info(
            "worker.stopping", ("why", why), ("in_flight", String(state.inFlight - withdrawn)),
            ("withdrawn", String(withdrawn)), ("unsent_released", String(dropped)))
    }

    /// Drops every job held unsent and withdraws this worker's requests not yet on the wire (with `andLater`, its
    /// campaigns' later sends too). Returns how many of each.
    private func dropUnsent(_ state: inout RunState, andLater: Bool) async -> (dropped: Int, withdrawn: Int) {
        let dropped = state.dropQueued { _ in true }
        let groups = Set(state.inFlightByCampaign.keys)
        let withdrawn = groups.isEmpty ? 0 : await transport.withdraw(groups: groups, andLater: andLater)
        return (dropped, withdrawn)
    }

    private func heartbeat(_ state: inout RunState, now: Date) async throws {
        state.nextHeartbeat = now.addingTimeInterval(configuration.heartbeat.seconds)
        let id = state.id
        guard let alive = try await guarded(&state, { [store] in try await store.heartbeat(id, now: now) }) else {
            return
        }
        if !alive { try await lostLeases(&state, now: now) }
        let (lease, me) = (configuration.lease, state.id)
        guard
            let rescued = try await guarded(
                &state,
                { [store] in
                    try await store.rescueStaleWorkers(now: now, staleAfter: lease, except: me)
                })
        else { return }
        logRescue(rescued)
        if rescued.deliveries > 0 { state.nextClaimAt = now }
    }

    /// Another worker took our leases over (our heartbeat was stale): what we hold unsent is no longer ours.
    private func lostLeases(_ state: inout RunState, now: Date) async throws {
        let (dropped, withdrawn) = await dropUnsent(&state, andLater: false)
        let old = state.id
        state.id = try await store.registerWorker(host: Self.hostName, pid: Int(getpid()), now: now)
        logger.warning(
            "worker.leases_lost", ("worker.id", old.description), ("new_worker.id", state.id.description),
            ("dropped", String(dropped + withdrawn)),
            ("why", "the heartbeat was older than worker.lease and another worker took the leases over"))
    }

    private func pollCancels(_ state: inout RunState) async throws {
        let seen = state.cancelSeen
        guard let requests = try await guarded(&state, { [store] in try await store.cancelRequests(after: seen) }),
            let last = requests.last
        else { return }
        var acknowledged: [(request: CancelRequest, inFlight: Int)] = []
        for request in requests {
            let campaign = request.campaign.rawValue
            let isNew = state.cancelled.insert(campaign).inserted
            var withdrawn = 0
            if isNew {
                let dropped = state.dropQueued { $0.campaignID.rawValue == campaign }
                state.summary.cancelled += dropped
                if state.inFlightByCampaign[campaign, default: 0] > 0 {
                    withdrawn = await transport.withdraw(groups: [campaign], andLater: true)
                    state.withdrawnPending[campaign, default: 0] += withdrawn
                }
                logger.info(
                    "worker.campaign_cancelled", ("campaign.id", request.campaign.description),
                    ("dropped", String(dropped)), ("withdrawn", String(withdrawn)))
            }
            let onWire = state.inFlightByCampaign[campaign, default: 0] - state.withdrawnPending[campaign, default: 0]
            acknowledged.append((request, max(0, onWire)))
        }
        // Outcomes answered but not written yet are not pending: written first, the cancel neither counts them
        // as cancelled nor leaves them out of "already sent to APNs".
        try await flush(&state)
        guard state.fault == nil else { return }
        let id = state.id
        guard
            try await guarded(
                &state, { [store] in try await store.acknowledgeCancels(acknowledged, upTo: last.seq, by: id) }) != nil
        else { return }
        state.cancelSeen = last.seq
    }

    private func expireHeld(_ state: inout RunState, now: Date) {
        for environment in state.held.keys {
            state.held[environment]!.removeAll { job in
                guard DeliveryDecision.isExpired(job, now: now, policy: configuration.retry) else { return false }
                let result = DeliveryDecision.expired(job)
                state.summary.count(result)
                state.results.append(result)
                return true
            }
        }
    }

    private func logRescue(_ report: RescueReport) {
        guard !report.workers.isEmpty || report.deliveries > 0 || report.cancelsFinished > 0 else { return }
        logger.warning(
            "worker.stale_leases_taken_over", ("workers", report.workers.map(\.description).joined(separator: ",")),
            ("deliveries", String(report.deliveries)), ("cancels_finished", String(report.cancelsFinished)))
    }

    // MARK: - Writing

    private func flush(_ state: inout RunState) async throws {
        state.lastFlush = clock()
        guard !state.results.isEmpty, state.fault == nil else { return }
        let (results, id, now) = (state.results, state.id, clock())
        guard let report = try await guarded(&state, { [store] in try await store.record(results, by: id, now: now) })
        else { return }
        reportRecorded(results)
        await logRecorded(results, report, state: &state)
        state.results.removeAll(keepingCapacity: true)
        state.idleConfirmed = false
        state.nextClaimAt = min(state.nextClaimAt, now.addingTimeInterval(Self.tick.seconds))
    }

    /// Runs a store call; a fault that may pass (locked, read-only, full, I/O) pauses sending and returns nil
    /// instead of ending the run.
    func guarded<T>(_ state: inout RunState, _ body: () async throws -> T) async throws -> T? {
        do {
            return try await body()
        } catch let error as StoreError where error.isTransient {
            let now = clock()
            if state.fault == nil {
                state.fault = StorageFault(error, now: now, unit: random())
                logger.error(
                    "worker.storage_fault", ("error", error.description),
                    ("outcomes_held", String(state.results.count)),
                    ("action", "sending paused; outcomes are kept and written again until the database accepts them"))
            } else {
                state.fault!.failedAgain(error, now: now, unit: random())
            }
            return nil
        }
    }

    private func recoverStorage(_ state: inout RunState, now: Date) async throws {
        guard var fault = state.fault, now >= fault.nextTry else { return }
        do {
            if !state.results.isEmpty {
                let report = try await store.record(state.results, by: state.id, now: now)
                reportRecorded(state.results)
                await logRecorded(state.results, report, state: &state)
                state.results.removeAll(keepingCapacity: true)
            }
            let alive = try await store.heartbeat(state.id, now: now)
            state.fault = nil
            state.nextClaimAt = now
            state.idleConfirmed = false
            logger.info(
                "worker.storage_recovered", ("seconds", String(format: "%.1f", now.timeIntervalSince(fault.since))),
                ("tries", String(fault.tries)))
            if !alive { try await lostLeases(&state, now: now) }
        } catch let error as StoreError where error.isTransient {
            fault.failedAgain(error, now: now, unit: random())
            if now.timeIntervalSince(fault.loggedAt) >= 30 {
                fault.loggedAt = now
                logger.warning(
                    "worker.storage_fault_continues", ("error", error.description),
                    ("seconds", String(Int(now.timeIntervalSince(fault.since)))),
                    ("outcomes_held", String(state.results.count)))
            }
            state.fault = fault
        }
    }

    private func reportRecorded(_ results: [DeliveryResult]) {
        guard let observer else { return }
        let final = results.filter { if case .retry = $0.disposition { false } else { true } }
        if !final.isEmpty { observer.recorded(final: final) }
    }

    // MARK: - Sending

    /// Sends one request on the transport, telling the observer and the APNs contact how it went.
    private func transmit(_ request: APNsRequest, on key: PoolKey, for job: DeliveryJob) async -> TransportResult {
        let start = clock()
        let answer = await transport.send(request, on: key)
        // Taken back or cut by our own stop: says nothing about APNs.
        if case .failure(let error) = answer, error.kind == .withdrawn || error.kind == .shutdown { return answer }
        let end = clock()
        contact.withLock { if answer.status != nil { $0.answered(at: end) } else { $0.unanswered(at: end) } }
        observer?.apnsAnswered(key.environment, status: answer.status, seconds: max(0, end.timeIntervalSince(start)))
        logAnswer(job, answer, seconds: max(0, end.timeIntervalSince(start)))
        return answer
    }

    struct Sent: Sendable {
        var job: DeliveryJob
        /// The name of the credential it was sent with.
        var credential: String
        /// nil when no provider token could be made: nothing was sent.
        var answer: TransportResult?
        /// Requests that went on the wire (0 when it never left).
        var requests: Int
        var tokenRefreshes: Int
        /// The provider token could not be made (or made again after ExpiredProviderToken).
        var tokenFailure: ProviderAuthError?
    }

    /// Sends one job with `credential`; on ExpiredProviderToken, mints a new token once and sends again at once.
    private func send(_ job: DeliveryJob, with credential: SendingCredential) async -> Sent {
        let key = credential.poolKey(job.environment)
        let name = credential.name
        guard case .token(let tokens, _, _, _) = credential.authorization else {
            let answer = await transmit(APNsRequest(job: job, authorization: nil), on: key, for: job)
            let requests = if case .failure(let error) = answer, !error.requestWasSent { 0 } else { 1 }
            return Sent(
                job: job, credential: name, answer: answer, requests: requests, tokenRefreshes: 0, tokenFailure: nil)
        }
        var token: ProviderToken
        do {
            token = try await tokens.token()
        } catch {
            return Sent(job: job, credential: name, answer: nil, requests: 0, tokenRefreshes: 0, tokenFailure: error)
        }
        var answer = await transmit(APNsRequest(job: job, authorization: token.authorizationHeader), on: key, for: job)
        var refreshes = 0
        if answer.status == 403, answer.errorResponse?.reason == .expiredProviderToken {
            do {
                token = try await tokens.tokenAfterExpired(token)
            } catch {
                return Sent(
                    job: job, credential: name, answer: answer, requests: 1, tokenRefreshes: 0, tokenFailure: error)
            }
            refreshes = 1
            answer = await transmit(APNsRequest(job: job, authorization: token.authorizationHeader), on: key, for: job)
        }
        var requests = 1 + refreshes
        if case .failure(let error) = answer, !error.requestWasSent { requests -= 1 }
        return Sent(
            job: job, credential: name, answer: answer, requests: requests, tokenRefreshes: refreshes, tokenFailure: nil
        )
    }

    /// This machine's name, for `apnsd workers`.
    static let hostName: String = {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "unknown" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }()
}
