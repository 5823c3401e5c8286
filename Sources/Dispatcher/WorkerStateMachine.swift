import APNs
import Foundation
import HTTP2Transport
import QueueModel

/// Every decision of one worker run, as a value: each event (a turn of the injected clock, a claim, an answer, a
/// store call's result or fault) updates the state and returns the actions the `Worker` carries out. It does no
/// I/O, so outages, pauses, cancels, storage faults and takeovers are tested without a server.
struct WorkerStateMachine {
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
    /// This process, as `/proc` told at start: which other workers' pids this host can look up.
    let process: ProcessIdentity

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
    /// From the same claim (or the last look at the workers): when a worker that went quiet can have its leases
    /// taken over.
    var nextRescue: Date?
    /// Workers seen dead (their processes gone) whose leases are not taken over yet.
    var deadHolding: Set<WorkerID> = []
    /// When the workers are next looked at (every heartbeat): a dead one's leases are taken over at once.
    var nextWorkersLook = Date.distantPast
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
    /// Each connection ("environment/index") as the last sample saw it.
    var connectionsSeen: [String: ConnectionStats] = [:]
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
        process: ProcessIdentity = ProcessIdentity(host: "", pid: 0), random: @escaping @Sendable () -> Double
    ) {
        self.configuration = configuration
        self.credentials = credentials
        self.credentialsGeneration = generation
        self.untilIdle = untilIdle
        self.process = process
        self.random = random
    }

    var queued: Int { work.queued }
    var heldCount: Int { work.heldCount }

    /// The run is over: nothing in flight, queued, held or unwritten, and it is stopping, or (`--until-idle`)
    /// nothing is due within the retry cap, no quiet worker's leases are to be taken over and no dead one's are left.
    func isDone(now: Date) -> Bool {
        guard inFlight == 0 && queued == 0 && heldCount == 0 && results.isEmpty && fault == nil else { return false }
        if stopping { return true }
        return untilIdle && idleConfirmed && nextRescue == nil && deadHolding.isEmpty
            && (nextDue.map { $0.timeIntervalSince(now) > configuration.retry.cap.seconds } ?? true)
    }

    /// The next time after `now` something is due by the clock rather than by an answer or a commit (the driver
    /// sleeps until then, or until either comes first); nil when nothing is.
    func nextDeadline(after now: Date) -> Date? {
        if let fault { return fault.nextTry > now ? fault.nextTry : nil }
        var times = [nextHeartbeat, nextWorkersLook, nextCancelPoll, nextConnectionSample, nextCertificateCheck]
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
}

extension WorkerStateMachine {
    /// Each environment in an outage, and since when.
    var unreachableSince: [Environment: Date] { outages.compactMapValues(\.since) }
}
