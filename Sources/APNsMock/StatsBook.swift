import Foundation

/// The simulator's shared ledger, written by every event loop and read by the stats endpoint.
final class StatsBook: @unchecked Sendable {
    private let lock = NSLock()
    private var connections: [Int: MockStats.Connection] = [:]
    private var nextConnectionID = 1
    private var statuses: [Int: Int] = [:]
    private var requests = 0
    private var derSignatures = 0
    private var tokens: [String: [Int: Int]] = [:]
    private var failures: [String: MockStats.Failure] = [:]
    let tracksTokens: Bool

    init(tracksTokens: Bool) { self.tracksTokens = tracksTokens }

    /// Registers a new connection and returns its id (1, 2, … in accept order).
    func openConnection() -> Int {
        lock.lock()
        defer { lock.unlock() }
        let id = nextConnectionID
        nextConnectionID += 1
        connections[id] = MockStats.Connection(id: id, requests: 0, maxRequestsPerSecond: 0, distinctProviderTokens: 0,
                                               statuses: [:], open: true, goawaySent: false)
        return id
    }

    /// Records one answered request.
    func record(connection: Int, status: Int, token: String?, windowMaximum: Int, distinctTokens: Int,
                derSignature: Bool, failure: (reason: String, example: String)?) {
        lock.lock()
        defer { lock.unlock() }
        requests += 1
        statuses[status, default: 0] += 1
        if derSignature { derSignatures += 1 }
        if var entry = connections[connection] {
            entry.requests += 1
            entry.maxRequestsPerSecond = max(entry.maxRequestsPerSecond, windowMaximum)
            entry.distinctProviderTokens = distinctTokens
            entry.statuses[String(status), default: 0] += 1
            connections[connection] = entry
        }
        if tracksTokens, let token { tokens[token, default: [:]][status, default: 0] += 1 }
        if let failure {
            failures[failure.reason, default: MockStats.Failure(count: 0, example: failure.example)].count += 1
        }
    }

    func connectionEvent(_ id: Int, closed: Bool = false, goaway: Bool = false) {
        lock.lock()
        defer { lock.unlock() }
        if closed { connections[id]?.open = false }
        if goaway { connections[id]?.goawaySent = true }
    }

    func snapshot() -> MockStats {
        lock.lock()
        defer { lock.unlock() }
        var tokenTable: [String: [String: Int]] = [:]
        tokenTable.reserveCapacity(tokens.count)
        var acceptedTwice = 0
        for (token, counts) in tokens {
            if (counts[200] ?? 0) > 1 { acceptedTwice += 1 }
            tokenTable[token] = Dictionary(uniqueKeysWithValues: counts.map { (String($0.key), $0.value) })
        }
        return MockStats(
            totals: .init(requests: requests, connections: connections.count,
                          statuses: Dictionary(uniqueKeysWithValues: statuses.map { (String($0.key), $0.value) }),
                          derSignatures: derSignatures, tokensAcceptedTwice: acceptedTwice),
            connections: connections.values.sorted { $0.id < $1.id },
            tokens: tokenTable,
            validationFailures: failures)
    }

    /// The snapshot as pretty, key-sorted JSON.
    func json() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return (try? Array(encoder.encode(snapshot()))) ?? Array("{}".utf8)
    }
}
