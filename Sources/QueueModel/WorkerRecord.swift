import Foundation

/// A registered worker as `apnsd workers` shows it.
public struct WorkerRecord: Hashable, Sendable {
    public var id: WorkerID
    /// The host name the worker runs on.
    public var host: String
    public var pid: Int
    public var startedAt: Date
    public var heartbeatAt: Date
    /// Deliveries it holds leased (claimed and not yet recorded or released).
    public var leases: Int

    public init(id: WorkerID, host: String, pid: Int, startedAt: Date, heartbeatAt: Date, leases: Int) {
        self.id = id
        self.host = host
        self.pid = pid
        self.startedAt = startedAt
        self.heartbeatAt = heartbeatAt
        self.leases = leases
    }

    /// Whether its heartbeat is older than `lease` at `now`: its leases may be taken over.
    public func isStale(now: Date, lease: Duration) -> Bool {
        now.timeIntervalSince(heartbeatAt) > Double(lease.components.seconds) + Double(lease.components.attoseconds)
            / 1e18
    }
}
