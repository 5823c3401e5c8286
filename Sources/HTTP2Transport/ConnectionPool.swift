import Foundation
import Threads

/// `count` connections for one `PoolKey`; each request goes to the least-loaded ready connection.
///
/// libcurl reopens a connection that went away (GOAWAY, reset, idle close) with its next request. One that
/// cannot be set up pauses and then tries again with one request (`PoolRouting`, `SlotHealth`), and a request
/// that could not connect goes to another ready connection instead of failing: every configured connection
/// comes back once APNs answers again.
public final class ConnectionPool: Sendable {
    public let key: PoolKey
    public let connections: [APNsConnection]
    private let routing: Locked<PoolRouting>
    private let random: @Sendable () -> Double

    /// `reconnectBase` and `reconnectCap` bound the pauses of a connection that cannot connect (the worker's
    /// outage schedule, `retry.base` and `retry.cap`).
    public init(
        key: PoolKey, configuration: ConnectionConfiguration, count: Int,
        reconnectBase: Duration = .seconds(1), reconnectCap: Duration = .seconds(300),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) throws(TransportError) {
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
        routing = Locked(PoolRouting(count: count, base: reconnectBase, cap: reconnectCap))
        self.random = random
    }

    /// Sends on the connection `PoolRouting` picks; a request that could not connect (nothing of it written)
    /// tries each other ready connection before its failure is returned.
    public func send(_ request: APNsRequest) async -> TransportResult {
        await exchange(request).result
    }

    /// `send`, with the time APNs took once the request was written.
    public func exchange(_ request: APNsRequest) async -> TransportAnswer {
        await withUnsafeContinuation { continuation in
            submit(request) { continuation.resume(returning: $0) }
        }
    }

    /// `exchange` without a task waiting: `completion` gets the answer (see `TransportCompletion`).
    public func submit(_ request: APNsRequest, completion: @escaping TransportCompletion) {
        submit(request, to: pick(), tried: [], completion: completion)
    }

    /// Sends on `slot`; a request that could not connect goes on to another ready connection not `tried` yet.
    private func submit(
        _ request: APNsRequest, to slot: Int, tried: Set<Int>, completion: @escaping TransportCompletion
    ) {
        connections[slot].submit(request) { [self] answer in
            let now = MonotonicClock.nanoseconds()
            guard case .failure(let error) = answer.result, !error.requestWasSent else {
                routing.withLock { $0.reached(slot, now: now) }
                return completion(answer)
            }
            guard error.meansNoConnection else {
                routing.withLock { $0.abandoned(slot, now: now) }
                return completion(answer)
            }
            var tried = tried
            tried.insert(slot)
            let unit = random()
            let loads = connections.map(\.outstanding)
            let next = routing.withLock { routing in
                routing.connectFailed(slot, now: now, unit: unit)
                return routing.pick(loads: loads, now: now, excluding: tried)
            }
            guard let next else { return completion(answer) }
            submit(request, to: next, tried: tried, completion: completion)
        }
    }

    /// The index of the connection the next request goes to.
    public func pick() -> Int {
        if connections.count == 1 { return 0 }
        let loads = connections.map(\.outstanding)
        let now = MonotonicClock.nanoseconds()
        return routing.withLock { $0.pick(loads: loads, now: now) } ?? 0
    }

    /// What each connection is doing, in connection order.
    public var states: [ConnectionState] {
        let open = connections.map(\.stats.isOpen)
        let slots = routing.withLock { $0.slots }
        return zip(slots, open).map { $0.state(socketOpen: $1) }
    }

    /// Withdraws the unsent requests of `groups` (nil: all) from every connection; returns how many.
    public func withdraw(groups: Set<Int64>?, andLater: Bool = false) async -> Int {
        var total = 0
        for connection in connections { total += await connection.withdraw(groups: groups, andLater: andLater) }
        return total
    }

    /// Per-connection counters, in connection order, each with its connection's state.
    public var stats: [ConnectionStats] {
        let states = self.states
        return connections.enumerated().map { index, connection in
            var stats = connection.stats
            stats.state = states[index]
            return stats
        }
    }

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
