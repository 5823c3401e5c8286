import APNs
import Foundation
import QueueModel

extension Worker {
    /// Everything one run of the worker holds in memory; touched only by the run's loop.
    struct RunState {
        var id = WorkerID(0)
        var summary = WorkerSummary()
        /// Claimed and not yet handed to the transport.
        var queue: [DeliveryJob] = []
        var queueHead = 0
        /// Claimed deliveries whose pool is paused because APNs could not be reached.
        var held: [Environment: [DeliveryJob]] = [:]
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
        /// A configuration error or a provider token failure: the loop stops.
        var stop: WorkerStop?
        var stopping = false
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
        var nextSinglesCheck = Date.distantPast
        /// Since the last throughput line (nil until the first turn).
        var activity: ActivityWindow?
        /// Whether each connection ("environment/index") was open at the last sample.
        var connectionsOpen: [String: Bool] = [:]
        var nextConnectionSample = Date.distantPast
        /// Paused campaigns, as last polled: nothing of them is sent.
        var paused: Set<Int64> = []
        /// Credentials APNs refused, by name: their deliveries wait.
        var credentialPauses: [String: CredentialPause] = [:]
        /// Bundle ids no credential sends for (each logged once).
        var unrouted: Set<String> = []
        /// The credentials' reload generation this run last saw.
        var credentialsGeneration = 0
        var nextCertificateCheck = Date.distantPast
        /// Bulk campaigns this run sent for, so that their completion is logged (single sends' is not).
        var bulkCampaigns: Set<Int64> = []

        var queued: Int { queue.count - queueHead }
        var heldCount: Int { held.values.reduce(0) { $0 + $1.count } }

        mutating func nextJob() -> DeliveryJob? {
            guard queueHead < queue.count else { return nil }
            defer { queueHead += 1 }
            return queue[queueHead]
        }

        /// Queues claimed jobs: single sends ahead of the bulk work already queued, bulk work behind it.
        mutating func enqueueClaimed(_ jobs: [DeliveryJob]) {
            let singles = jobs.filter { $0.kind == .single }
            requeueFront(singles)
            if singles.count == jobs.count { return }
            if queueHead > 0 {
                queue.removeFirst(queueHead)
                queueHead = 0
            }
            queue.append(contentsOf: singles.isEmpty ? jobs : jobs.filter { $0.kind != .single })
        }

        /// Puts `jobs` at the head of the queue (single sends claimed while busy; held work once its pool is
        /// reachable again): into the slots already taken from the queue when there are enough, so that a busy
        /// worker does not copy its whole queue for every few single sends.
        mutating func requeueFront(_ jobs: [DeliveryJob]) {
            guard !jobs.isEmpty else { return }
            if queueHead >= jobs.count {
                queueHead -= jobs.count
                queue.replaceSubrange(queueHead..<queueHead + jobs.count, with: jobs)
            } else {
                queue = jobs + queue[queueHead...]
                queueHead = 0
            }
        }

        /// Drops the queued and held jobs `shouldDrop` picks; returns how many.
        @discardableResult
        mutating func dropQueued(where shouldDrop: (DeliveryJob) -> Bool) -> Int {
            let before = queued + heldCount
            queue = queue[queueHead...].filter { !shouldDrop($0) }
            queueHead = 0
            for environment in held.keys { held[environment]!.removeAll(where: shouldDrop) }
            return before - queued - heldCount
        }
    }
}
