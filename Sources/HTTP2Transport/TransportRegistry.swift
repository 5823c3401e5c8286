import APNs
import Foundation
import Threads

/// Every connection pool of the process, by (credential, environment), created on first use.
public final class TransportRegistry: Sendable {
    public let configuration: TransportConfiguration
    private struct State {
        var pools: [PoolKey: ConnectionPool] = [:]
        var closed = false
        /// Groups withdrawn so far: pools created later refuse them too.
        var withdrawnGroups: Set<Int64> = []
        /// Client certificates of credentials added after the registry was made (a reload), by credential id.
        var identities: [String: ClientIdentity] = [:]
    }
    private let state = Locked(State())

    public init(configuration: TransportConfiguration) {
        self.configuration = configuration
    }

    /// The pool for `key`, created (and its connections' threads started) on first use.
    public func pool(for key: PoolKey) throws(TransportError) -> ConnectionPool {
        let result: Result<ConnectionPool, TransportError> = state.withLock { state in
            if state.closed { return .failure(.shutdown("transport registry is shut down")) }
            if let pool = state.pools[key] { return .success(pool) }
            do throws(TransportError) {
                var settings = configuration.connectionConfiguration(for: key)
                if let identity = state.identities[key.credentialID] { settings.clientIdentity = identity }
                let pool = try ConnectionPool(
                    key: key, configuration: settings, count: configuration.connectionsPerPool,
                    reconnectBase: configuration.reconnectBase, reconnectCap: configuration.reconnectCap)
                if !state.withdrawnGroups.isEmpty {
                    for connection in pool.connections { connection.refuse(groups: state.withdrawnGroups) }
                }
                state.pools[key] = pool
                return .success(pool)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// The client certificate the pools of `credentialID` present from now on (a credential added by a reload; its id
    /// is new, so no pool of it exists yet).
    public func setClientIdentity(_ identity: ClientIdentity, for credentialID: String) {
        state.withLock { $0.identities[credentialID] = identity }
    }

    /// Sends `request` on the pool for `key`.
    public func send(_ request: APNsRequest, on key: PoolKey) async -> TransportResult {
        await exchange(request, on: key).result
    }

    /// `send`, with the time APNs took once the request was written.
    public func exchange(_ request: APNsRequest, on key: PoolKey) async -> TransportAnswer {
        await withUnsafeContinuation { continuation in
            submit(request, on: key) { continuation.resume(returning: $0) }
        }
    }

    /// `exchange` without a task waiting: `completion` gets the answer (see `TransportCompletion`).
    public func submit(_ request: APNsRequest, on key: PoolKey, completion: @escaping TransportCompletion) {
        do {
            try pool(for: key).submit(request, completion: completion)
        } catch {
            completion(TransportAnswer(.failure(error)))
        }
    }

    /// Takes back every request of `groups` (nil: every request) that has not started on the wire, in every
    /// pool: each fails with `TransportError.withdrawn` before this returns. With `andLater` (a cancelled
    /// campaign), requests of `groups` sent later fail the same way at once, so none that was on its way while
    /// this ran slips through. Returns how many were withdrawn. Requests already written finish as usual:
    /// APNs cannot be asked to forget them.
    public func withdraw(groups: Set<Int64>?, andLater: Bool = false) async -> Int {
        let all: [ConnectionPool] = state.withLock { state in
            if andLater, let groups { state.withdrawnGroups.formUnion(groups) }
            return Array(state.pools.values)
        }
        var total = 0
        for pool in all { total += await pool.withdraw(groups: groups, andLater: andLater) }
        return total
    }

    /// Counters of every connection, by pool.
    public var stats: [PoolKey: [ConnectionStats]] {
        state.withLock { $0.pools }.mapValues(\.stats)
    }

    /// Shuts every pool down, draining in-flight requests until `deadline`; later sends fail with `.shutdown`.
    public func shutdown(deadline: ContinuousClock.Instant) async {
        let all: [ConnectionPool] = state.withLock { state in
            state.closed = true
            defer { state.pools.removeAll() }
            return Array(state.pools.values)
        }
        await withTaskGroup(of: Void.self) { group in
            for pool in all { group.addTask { await pool.shutdown(deadline: deadline) } }
        }
    }
}
