import Foundation
import Synchronization

/// `count` connections for one `PoolKey`; each request goes to the least-loaded connection.
///
/// A connection that hit a fatal transport error replaces its HTTP/2 connection by itself (libcurl
/// reconnects on the next request); while it is failing the pool prefers healthy connections.
public final class ConnectionPool: Sendable {
    public let key: PoolKey
    public let connections: [APNsConnection]
    /// Where the next pick starts (round-robin among equally loaded connections).
    private let cursor = Atomic<Int>(0)

    public init(key: PoolKey, configuration: ConnectionConfiguration, count: Int) throws(TransportError) {
        guard count >= 1 else {
            throw TransportError(
                kind: .invalidRequest, curlCode: 0, message: "a pool needs at least one connection (got \(count))",
                isConnectionFatal: false, isRetryable: false)
        }
        self.key = key
        var connections: [APNsConnection] = []
        for index in 0..<count {
            var settings = configuration
            settings.label = "\(configuration.label).\(key.environment).\(index)"
            do {
                connections.append(try APNsConnection(configuration: settings))
            } catch {
                for connection in connections { connection.shutdownWithoutWaiting() }
                throw error
            }
        }
        self.connections = connections
    }

    /// Sends on the least-loaded healthy connection (any connection if none is healthy).
    public func send(_ request: APNsRequest) async -> TransportResult {
        await pick().send(request)
    }

    /// The connection the next request goes to: fewest outstanding requests, healthy ones first,
    /// ties broken round-robin.
    public func pick() -> APNsConnection {
        let count = connections.count
        if count == 1 { return connections[0] }
        let start = Int(UInt(bitPattern: cursor.wrappingAdd(1, ordering: .relaxed).oldValue) % UInt(count))
        var best = start
        var bestLoad = Int.max
        var bestHealthy = false
        for step in 0..<count {
            let index = (start + step) % count
            let (load, healthy) = connections[index].load
            if (healthy && !bestHealthy) || (healthy == bestHealthy && load < bestLoad) {
                best = index
                bestLoad = load
                bestHealthy = healthy
            }
        }
        return connections[best]
    }

    /// Withdraws the unsent requests of `groups` (nil: all) from every connection; returns how many.
    public func withdraw(groups: Set<Int64>?, andLater: Bool = false) async -> Int {
        var total = 0
        for connection in connections { total += await connection.withdraw(groups: groups, andLater: andLater) }
        return total
    }

    /// Per-connection counters, in connection order.
    public var stats: [ConnectionStats] { connections.map(\.stats) }

    /// Closes every connection of the pool after its in-flight streams; requests continue on new ones.
    public func reconnectAll() { for connection in connections { connection.reconnect() } }

    /// Shuts every connection down (concurrently), draining until `deadline`.
    public func shutdown(deadline: ContinuousClock.Instant) async {
        await withTaskGroup(of: Void.self) { group in
            for connection in connections { group.addTask { await connection.shutdown(deadline: deadline) } }
        }
    }
}

extension APNsConnection {
    /// Fails what is queued and ends the thread without waiting.
    func shutdownWithoutWaiting() { Task { await shutdown(timeout: .zero) } }
}
