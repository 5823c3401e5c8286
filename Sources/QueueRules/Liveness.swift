import Foundation
import QueueModel

/// Whether another worker is alive, from its row and what this host sees of its process. A worker on this host's
/// boot and in this pid namespace is dead at once when its pid is gone or is another process's (a start time that
/// differs); any other is judged by its heartbeat: fresh, it is alive; silent for `silentAfter` (two heartbeats),
/// its leases are taken over when its lease runs out (`Takeover`).
package struct Liveness: Hashable, Sendable {
    /// What this host's view of a worker says.
    package enum Verdict: Hashable, Sendable {
        /// Its process is gone: its leases are taken over now.
        case dead
        /// It heartbeats: what it holds is its own to send.
        case alive
        /// It has not heartbeat for `silentAfter`: its leases may be taken over from `takeOverAt` (milliseconds).
        case silent(takeOverAt: Int64)
    }

    /// This process: its boot id and pid namespace say which rows' pids can be looked up here.
    package var ours: ProcessIdentity
    /// How long without a heartbeat a worker is silent, in milliseconds.
    package var silentAfter: Int64
    package var takeover: Takeover

    /// `heartbeat` and `lease` are `worker.heartbeat` and `worker.lease`.
    package init(ours: ProcessIdentity, heartbeat: Duration, lease: Duration) {
        self.ours = ours
        silentAfter = 2 * Milliseconds.from(heartbeat)
        takeover = Takeover(staleAfter: lease)
    }

    /// Whether `worker`'s pid names a process this host can see: the same boot and the same pid namespace.
    package func canSee(_ worker: ProcessIdentity) -> Bool { Self.canSee(worker, from: ours) }

    /// Whether `worker`'s pid names a process `ours`'s host can see: the same boot and the same pid namespace.
    package static func canSee(_ worker: ProcessIdentity, from ours: ProcessIdentity) -> Bool {
        guard let boot = ours.bootID, let namespace = ours.pidNamespace else { return false }
        return worker.bootID == boot && worker.pidNamespace == namespace
    }

    /// Whether `ours` sees `worker`'s process gone, `process` being what its host sees of the pid: the same boot and
    /// pid namespace, and the pid gone or another process's (another start time). Dead whatever its heartbeat.
    package static func isGone(_ worker: ProcessIdentity, from ours: ProcessIdentity, process: ProcessState?) -> Bool {
        guard canSee(worker, from: ours), let process else { return false }
        switch process {
        case .gone: return true
        case .running(let started):
            guard let started, let recorded = worker.startTime else { return false }
            return started != recorded
        }
    }

    /// The verdict on a worker last seen at `heartbeat` (milliseconds) at `now`; `process` is what this host sees
    /// of its pid (nil: not looked up, or nothing could be told).
    package func verdict(_ worker: ProcessIdentity, heartbeat: Int64, process: ProcessState?, now: Int64) -> Verdict {
        if Self.isGone(worker, from: ours, process: process) { return .dead }
        guard heartbeat < now - silentAfter else { return .alive }
        return .silent(takeOverAt: takeover.date(heartbeat: heartbeat))
    }

    /// The verdict on `worker`'s row at `now` (milliseconds).
    package func verdict(_ worker: WorkerRecord, process: ProcessState?, now: Int64) -> Verdict {
        verdict(worker.process, heartbeat: worker.heartbeatAt.storeMilliseconds, process: process, now: now)
    }
}
