import Foundation

/// A registered worker as `apnsd workers` shows it: its row, with the leases it holds. Each concern of the row is a
/// member of its own (`process`, `view`).
public struct WorkerRecord: Hashable, Sendable {
    public var id: WorkerID
    /// Which process it is (host, pid, and what tells whether that process still lives).
    public var process: ProcessIdentity
    public var startedAt: Date
    public var heartbeatAt: Date
    /// Deliveries it holds leased (claimed and not yet recorded or released).
    public var leases: Int
    /// What it saw at its last heartbeat (APNs, credentials, why it waits); nil before its first, or from a
    /// version that did not store one.
    public var view: WorkerView?

    public init(
        id: WorkerID, process: ProcessIdentity, startedAt: Date, heartbeatAt: Date, leases: Int,
        view: WorkerView? = nil
    ) {
        self.id = id
        self.process = process
        self.startedAt = startedAt
        self.heartbeatAt = heartbeatAt
        self.leases = leases
        self.view = view
    }

    /// The host name the worker runs on.
    public var host: String { process.host }
    public var pid: Int { process.pid }

    /// Whether its heartbeat is older than `lease` at `now`: its leases may be taken over.
    public func isStale(now: Date, lease: Duration) -> Bool {
        now.timeIntervalSince(heartbeatAt) > Double(lease.components.seconds) + Double(lease.components.attoseconds)
            / 1e18
    }
}
