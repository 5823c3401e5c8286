import APNs
import Foundation
import HTTP2Transport
import ProviderAuth
import QueueModel

/// Every decision of one worker run, as a value: each event (a turn of the injected clock, a claim, an answer, a
/// store call's result or fault) updates the state and returns the actions the `Worker` carries out. It does no
/// I/O, so outages, pauses, cancels, storage faults and takeovers are tested without a server.
struct WorkerStateMachine {
    /// What the driver does for the machine; a store call's result comes back through the event it names.
    enum Action {
        /// Send `job` with `credential`; `expired`: mint a token after this one, which APNs said had expired.
        /// The answer comes back as `answered`.
        case send(DeliveryJob, SendingCredential, expired: ProviderToken?)
        /// Take this worker's requests of `groups` back from the transport (`andLater`: their later sends too);
        /// then `withdrew`.
        case withdraw(groups: Set<Int64>, andLater: Bool, Withdrawal)
        /// `heartbeat`, then `heartbeatAnswered`.
        case heartbeat
        /// `rescueStaleWorkers`, then `rescued`.
        case rescue
        /// Register again under a new id (another worker took the leases over), then `reregistered`.
        case register(lost: WorkerID, dropped: Int)
        /// `cancelRequests(after:)`, then `cancelsRead`.
        case readCancels(after: Int64)
        /// `acknowledgeCancels`, then `cancelsAcknowledged`.
        case acknowledgeCancels([(request: CancelRequest, inFlight: Int)], upTo: Int64)
        /// `pausedCampaigns`, then `pausesRead`.
        case readPauses
        /// Give these leases back to the store.
        case release([DeliveryID])
        /// `changeCount`, then `changeCountRead`.
        case readChangeCount(ChangeCheck)
        /// `expandDueCampaigns` one page, and log the campaigns it started.
        case expand(pageSize: Int)
        /// Read the commit signal and change count, `claim`, then `claimed`.
        case claim(limit: Int)
        /// `claimSingles`, then `singlesClaimed`.
        case claimSingles(limit: Int)
        /// `nextDueDate` and `nextRescueDate`, then `nextDatesFound`.
        case findNextDates
        /// Write these outcomes, then `recorded`.
        case record([DeliveryResult])
        /// Write these outcomes (if any) and heartbeat, then `recovered` (or `recoveryFailed`).
        case recover([DeliveryResult])
        /// Log these bulk campaigns as finished (their counts are read from the store).
        case logFinished([CampaignID])
        /// Read the connections' states, then `connectionsSampled`.
        case sampleConnections
        case log(LogLine)
        /// `/readyz` and metrics: this credential is paused (with why and until when) or sends (`nil`).
        case credentialStatus(String, CredentialPauseStatus?)
        /// The credentials were replaced: every status starts again from them.
        case resetCredentialStatuses
        /// Ask the machine for what follows once the actions before it are done (`resume`).
        case then(Step)

        /// Whether carrying it out calls the store (skipped while a storage fault lasts).
        var callsStore: Bool {
            switch self {
            case .heartbeat, .rescue, .register, .readCancels, .acknowledgeCancels, .readPauses, .release,
                .readChangeCount, .expand, .claim, .claimSingles, .findNextDates, .record, .logFinished:
                return true
            case .send, .withdraw, .recover, .sampleConnections, .log, .credentialStatus, .resetCredentialStatuses,
                .then:
                return false
            }
        }
    }

    /// Why requests were withdrawn: what `withdrew` does next.
    enum Withdrawal {
        case stopping(why: String, dropped: Int)
        case leasesLost(dropped: Int)
        case cancelled(CampaignID, dropped: Int)
    }

    /// What a change count was read for.
    enum ChangeCheck {
        /// Waiting for the next claim with nothing queued.
        case idle
        /// Busy with bulk work: a single send may have come in.
        case singles
    }

    /// Points the machine resumes at, after the actions before them are done.
    enum Step {
        /// The cancels were taken in: write what is answered, then acknowledge them.
        case acknowledgeCancels([CancelRequest])
        /// The change count was read: claim if it is due.
        case claim
        /// The change count was read while busy: claim single sends if any came in.
        case claimSingles
    }

    /// A paused credential's state, for `/readyz`.
    struct CredentialPauseStatus: Hashable {
        var detail: String
        var since: Date?
        var nextProbe: Date
    }

    /// The outcome of one request handed to the transport.
    struct Answer: Sendable {
        var job: DeliveryJob
        var credential: SendingCredential
        /// nil when no provider token could be made: nothing was sent.
        var result: TransportResult?
        /// The token it carried (nil for a certificate).
        var token: ProviderToken?
        /// The token was minted again after APNs said the last one had expired.
        var tokenMinted: Bool
        /// The provider token could not be made.
        var tokenFailure: ProviderAuthError?

        /// Whether the request went on the wire.
        var wasSent: Bool {
            guard let result else { return false }
            if case .failure(let error) = result, !error.requestWasSent { return false }
            return true
        }
    }

    /// The pace of what costs a query: reading another process's change count, re-claiming after an empty claim.
    static let tick: TimeInterval = 0.05
    /// How often the connections' states are sampled for opened/closed lines.
    static let connectionSampleInterval: TimeInterval = 0.25
    /// Days before a certificate expires from which the worker warns.
    static let certificateWarningDays = 30

    /// Settings and credentials as of this turn (a reload replaces them while the run goes on).
    var configuration: WorkerConfiguration
    var credentials: CredentialSet
    /// The credentials' reload generation this run last saw.
    var credentialsGeneration: Int
    /// `--until-idle`: ends once nothing is due within the retry cap; nothing probes a paused credential.
    let untilIdle: Bool
    let random: @Sendable () -> Double

    var id = WorkerID(0)
    var summary = WorkerSummary()
    var work = WorkQueue()
    var outages: [Environment: OutageBackoff] = [:]
    /// The last transport error of each pool in an outage, for the log and the closing line.
    var unreachableBecause: [String: String] = [:]
    /// Outcomes not yet written.
    var results: [DeliveryResult] = []
    var inFlight = 0
    var inFlightByCampaign: [Int64: Int] = [:]
    /// Requests withdrawn from the transport whose answers (`withdrawn`) have not come back yet.
    var withdrawnPending: [Int64: Int] = [:]
    /// Campaigns with a cancel request: nothing more of them is sent.
    var cancelled: Set<Int64> = []
    var cancelSeen: Int64 = 0
    /// Paused campaigns, as last polled: nothing of them is sent.
    var paused: Set<Int64> = []
    /// A configuration error: the loop stops.
    var stop: WorkerStop?
    var stopping = false
    /// A second signal while the database refuses writes: the run ends without writing what it holds.
    var abandoned = false
    /// Why `--until-idle` gave up (APNs unreachable too long).
    var gaveUp: DispatcherError?
    var fault: StorageFault?
    var lastFlush = Date.distantPast
    var nextClaimAt = Date.distantPast
    /// From the last claim that found less than it asked for: when something next comes due.
    var nextDue: Date?
    /// From the same claim: when a worker that went quiet can have its leases taken over.
    var nextRescue: Date?
    /// Nothing was written since that claim, so `nextDue` still holds.
    var idleConfirmed = false
    var nextHeartbeat = Date.distantPast
    var nextCancelPoll = Date.distantPast
    /// The store's commit signal and change count as read before the last claim.
    var commitsSeen: UInt64 = 0
    var changesSeen: Int64?
    var nextChangeCheck = Date.distantPast
    /// The same, as read before the last claim of single sends made while busy with bulk work.
    var singlesCommitsSeen: UInt64 = 0
    var singlesChangesSeen: Int64?
    var singlesMoved = false
    var nextSinglesCheck = Date.distantPast
    /// Since the last throughput line (nil until the first turn).
    var activity: ActivityWindow?
    /// Whether each connection ("environment/index") was open at the last sample.
    var connectionsOpen: [String: Bool] = [:]
    var nextConnectionSample = Date.distantPast
    /// Credentials APNs refused, by name: their deliveries wait.
    var credentialPauses: [String: CredentialPause] = [:]
    /// Bundle ids no credential sends for (each logged once).
    var unrouted: Set<String> = []
    var nextCertificateCheck = Date.distantPast
    /// Bulk campaigns this run sent for, so that their completion is logged (single sends' is not).
    var bulkCampaigns: Set<Int64> = []

    init(
        configuration: WorkerConfiguration, credentials: CredentialSet, generation: Int, untilIdle: Bool,
        random: @escaping @Sendable () -> Double
    ) {
        self.configuration = configuration
        self.credentials = credentials
        self.credentialsGeneration = generation
        self.untilIdle = untilIdle
        self.random = random
    }

    var queued: Int { work.queued }
    var heldCount: Int { work.heldCount }

    /// The run is over: nothing in flight, queued, held or unwritten, and it is stopping, or (`--until-idle`)
    /// nothing is due within the retry cap and no quiet worker's leases are to be taken over.
    func isDone(now: Date) -> Bool {
        guard inFlight == 0 && queued == 0 && heldCount == 0 && results.isEmpty && fault == nil else { return false }
        if stopping { return true }
        return untilIdle && idleConfirmed && nextRescue == nil
            && (nextDue.map { $0.timeIntervalSince(now) > configuration.retry.cap.seconds } ?? true)
    }

    /// The next time after `now` something is due by the clock rather than by an answer or a commit (the driver
    /// sleeps until then, or until either comes first); nil when nothing is.
    func nextDeadline(after now: Date) -> Date? {
        if let fault { return fault.nextTry > now ? fault.nextTry : nil }
        var times = [nextHeartbeat, nextCancelPoll, nextConnectionSample, nextCertificateCheck]
        if !stopping {
            if queued + heldCount < max(1, configuration.claimBatch / 2) { times.append(nextClaimAt) }
            if queued + heldCount == 0 && changesSeen != nil { times.append(nextChangeCheck) }
            if queued > 0 { times.append(nextSinglesCheck) }
        }
        if !results.isEmpty { times.append(lastFlush.addingTimeInterval(configuration.recordInterval.seconds)) }
        if let activity { times.append(activity.since.addingTimeInterval(configuration.throughputLogInterval.seconds)) }
        for (environment, jobs) in work.held where !jobs.isEmpty {
            if let until = outages[environment]?.pausedUntil { times.append(until) }
        }
        // What was due at `now` was done in this turn; what is still past waits for an answer or a commit.
        return times.filter { $0 > now }.min()
    }

    // MARK: - Start

    /// The store registered this run as `id`; `cancelled` are the campaigns with open cancel requests.
    mutating func registered(
        _ id: WorkerID, rescued: RescueReport, cancelled: [CancelRequest], cancelSeen: Int64, now: Date
    ) -> [Action] {
        self.id = id
        for request in cancelled { self.cancelled.insert(request.campaign.rawValue) }
        self.cancelSeen = cancelSeen
        lastFlush = now
        nextHeartbeat = now.addingTimeInterval(configuration.heartbeat.seconds)
        return logRescue(rescued) + [.log(LogLine(.info, "worker.registered", ("worker.id", id.description)))]
    }

    // MARK: - A turn

    /// What is due at `now` by time rather than by an answer: stopping on a signal, storage recovery, heartbeat
    /// and takeover, cancels and pauses, expiry of held work, a reload, certificates, activity lines, and giving
    /// up on an outage with `--until-idle`. `configuration`, `credentials` and `generation` are this turn's.
    mutating func turn(
        now: Date, stopAsked: Bool, abandonAsked: Bool, configuration: WorkerConfiguration,
        credentials: CredentialSet, generation: Int
    ) -> [Action] {
        self.configuration = configuration
        self.credentials = credentials
        var actions: [Action] = []
        if !stopping && (stopAsked || stop != nil) { actions += beginStopping(why: stop != nil ? "error" : "signal") }
        if stopping, let fault, abandonAsked {
            abandoned = true
            return actions + [
                .log(
                    LogLine(
                        .error, "worker.abandoned", ("outcomes_lost", String(results.count)),
                        ("error", fault.error.description)))
            ]
        }
        if fault != nil {
            if let fault, now >= fault.nextTry { actions.append(.recover(results)) }
            return actions
        }
        if now >= nextHeartbeat {
            nextHeartbeat = now.addingTimeInterval(configuration.heartbeat.seconds)
            actions += [.heartbeat, .rescue]
        }
        if now >= nextCancelPoll {
            nextCancelPoll = now.addingTimeInterval(configuration.cancelPollInterval.seconds)
            actions += [.readCancels(after: cancelSeen), .readPauses]
        }
        expireHeld(now: now)
        if generation != credentialsGeneration {
            credentialsGeneration = generation
            actions += endCredentialPauses(now: now)
        }
        actions += checkCertificates(now: now)
        if untilIdle && !stopping && !credentialPauses.isEmpty
            && credentials.byName.keys.allSatisfy({ credentialPauses[$0] != nil })
        {
            actions += beginStopping(why: "every credential refused")
        }
        actions += reportThroughput(now: now)
        if now >= nextConnectionSample {
            nextConnectionSample = now.addingTimeInterval(Self.connectionSampleInterval)
            actions.append(.sampleConnections)
        }
        actions += giveUpOnOutage(now: now)
        return actions
    }

    /// With `--until-idle`: APNs stayed unreachable longer than the limit, so the run ends with the work left.
    private mutating func giveUpOnOutage(now: Date) -> [Action] {
        guard untilIdle && !stopping, let since = outages.values.compactMap(\.since).min(),
            now.timeIntervalSince(since) > (configuration.unreachableLimit ?? configuration.retry.cap).seconds
        else { return [] }
        let reasons = unreachableBecause.map { "\($0.key): \($0.value)" }.sorted().joined(separator: "; ")
        gaveUp = .unreachable(seconds: Int(now.timeIntervalSince(since).rounded()), because: reasons)
        let line = LogLine(
            .error, "worker.gave_up_unreachable", ("seconds", String(Int(now.timeIntervalSince(since)))),
            ("reason", reasons))
        return [.log(line)] + beginStopping(why: "APNs unreachable")
    }

    /// Stops claiming and sending: drops what waits in memory (released when the worker ends) and withdraws
    /// its requests that have not started on the wire; those on the wire finish and are recorded.
    mutating func beginStopping(why: String) -> [Action] {
        stopping = true
        let dropped = work.drop { _ in true }
        let groups = Set(inFlightByCampaign.keys)
        guard groups.isEmpty else {
            return [.withdraw(groups: groups, andLater: true, .stopping(why: why, dropped: dropped))]
        }
        return withdrew(0, .stopping(why: why, dropped: dropped))
    }

    /// The transport took `count` requests back for `why`.
    mutating func withdrew(_ count: Int, _ why: Withdrawal) -> [Action] {
        switch why {
        case .stopping(let reason, let dropped):
            return [
                .log(
                    LogLine(
                        .info, "worker.stopping", ("why", reason), ("in_flight", String(inFlight - count)),
                        ("withdrawn", String(count)), ("unsent_released", String(dropped))))
            ]
        case .leasesLost(let dropped):
            return [.register(lost: id, dropped: dropped + count)]
        case .cancelled(let campaign, let dropped):
            withdrawnPending[campaign.rawValue, default: 0] += count
            return [
                .log(
                    LogLine(
                        .info, "worker.campaign_cancelled", ("campaign.id", campaign.description),
                        ("dropped", String(dropped)), ("withdrawn", String(count))))
            ]
        }
    }

    /// Drops what the worker holds unsent and withdraws its requests not yet on the wire: another worker took
    /// the leases over (our heartbeat was stale), so they are no longer ours.
    mutating func loseLeases() -> [Action] {
        let dropped = work.drop { _ in true }
        let groups = Set(inFlightByCampaign.keys)
        guard groups.isEmpty else { return [.withdraw(groups: groups, andLater: false, .leasesLost(dropped: dropped))] }
        return withdrew(0, .leasesLost(dropped: dropped))
    }

    /// Registered again as `id` after losing the leases of `lost`.
    mutating func reregistered(_ id: WorkerID, lost: WorkerID, dropped: Int) -> [Action] {
        self.id = id
        return [
            .log(
                LogLine(
                    .warning, "worker.leases_lost", ("worker.id", lost.description),
                    ("new_worker.id", id.description), ("dropped", String(dropped)),
                    ("why", "the heartbeat was older than worker.lease and another worker took the leases over")))
        ]
    }

    private mutating func expireHeld(now: Date) {
        for environment in work.held.keys {
            work.held[environment]!.removeAll { job in
                guard DeliveryDecision.isExpired(job, now: now, policy: configuration.retry) else { return false }
                let result = DeliveryDecision.expired(job)
                summary.count(result)
                results.append(result)
                return true
            }
        }
    }

    /// Outcomes wait to be written until a batch is full, nothing is in flight, or `recordInterval` passed.
    mutating func flushIfDue(now: Date) -> [Action] {
        guard
            !results.isEmpty
                && (results.count >= configuration.recordBatch || inFlight == 0
                    || now.timeIntervalSince(lastFlush) >= configuration.recordInterval.seconds)
        else { return [] }
        return flush(now: now)
    }

    mutating func flush(now: Date) -> [Action] {
        lastFlush = now
        guard !results.isEmpty, fault == nil else { return [] }
        return [.record(results)]
    }
}
