import Foundation

/// The simulator's shared ledger, written by every event loop and read by the stats endpoint.
final class StatsBook: @unchecked Sendable {
    /// Closed connections kept in the per-connection list (the oldest go first; totals count them all), so a
    /// client that reconnects forever does not grow the ledger forever.
    static let closedConnectionsKept = 10_000

    private let lock = NSLock()
    private var connections: [Int: MockStats.Connection] = [:]
    private var closedOrder: [Int] = []
    private var closedHead = 0
    private var nextConnectionID = 1
    private var statuses: [Int: Int] = [:]
    private var reasons: [String: Int] = [:]
    private var requests = 0
    private var derSignatures = 0
    private var tokens: [String: [Int: Int]] = [:]
    private var acceptedTwice = 0
    private var failures: [String: MockStats.Failure] = [:]
    let tracksTokens: Bool
    let listsTokens: Bool
    /// The broadcast channels, whose counts the snapshot includes.
    let channels: ChannelBook?

    init(tracksTokens: Bool, listsTokens: Bool = false, channels: ChannelBook? = nil) {
        self.tracksTokens = tracksTokens || listsTokens
        self.listsTokens = listsTokens
        self.channels = channels
    }

    /// Registers a new connection and returns its id (1, 2, … in accept order).
    func openConnection() -> Int {
        lock.lock()
        defer { lock.unlock() }
        let id = nextConnectionID
        nextConnectionID += 1
        connections[id] = MockStats.Connection(
            id: id, requests: 0, maxRequestsPerSecond: 0, distinctProviderTokens: 0,
            statuses: [:], open: true, goawaySent: false)
        return id
    }

    /// Records one answered request.
    func record(
        connection: Int, status: Int, reason: String? = nil, token: String?, windowMaximum: Int, distinctTokens: Int,
        derSignature: Bool, failure: (reason: String, example: String)?
    ) {
        lock.lock()
        defer { lock.unlock() }
        requests += 1
        statuses[status, default: 0] += 1
        if let reason { reasons[reason, default: 0] += 1 }
        if derSignature { derSignatures += 1 }
        if var entry = connections[connection] {
            entry.requests += 1
            entry.maxRequestsPerSecond = max(entry.maxRequestsPerSecond, windowMaximum)
            entry.distinctProviderTokens = distinctTokens
            entry.statuses[String(status), default: 0] += 1
            connections[connection] = entry
        }
        if tracksTokens, let token {
            var counts = tokens.removeValue(forKey: token) ?? [:]
            counts[status, default: 0] += 1
            if status == 200 && counts[200] == 2 { acceptedTwice += 1 }
            tokens[token] = counts
        }
        if let failure {
            failures[failure.reason, default: MockStats.Failure(count: 0, example: failure.example)].count += 1
        }
    }

    func connectionEvent(_ id: Int, closed: Bool = false, goaway: Bool = false) {
        lock.lock()
        defer { lock.unlock() }
        if goaway { connections[id]?.goawaySent = true }
        if closed, connections[id]?.open == true {
            connections[id]?.open = false
            closedOrder.append(id)
            if closedOrder.count - closedHead > Self.closedConnectionsKept {
                connections[closedOrder[closedHead]] = nil
                closedHead += 1
                if closedHead > 4096 && closedHead * 2 > closedOrder.count {
                    closedOrder.removeFirst(closedHead)
                    closedHead = 0
                }
            }
        }
    }

    func snapshot() -> MockStats {
        let channelStats = channels?.snapshot() ?? MockStats.Channels()
        lock.lock()
        defer { lock.unlock() }
        var tokenTable: [String: [String: Int]]?
        if listsTokens {
            var table: [String: [String: Int]] = [:]
            table.reserveCapacity(tokens.count)
            for (token, counts) in tokens {
                table[token] = Dictionary(uniqueKeysWithValues: counts.map { (String($0.key), $0.value) })
            }
            tokenTable = table
        }
        return MockStats(
            totals: .init(
                requests: requests, connections: nextConnectionID - 1,
                statuses: Dictionary(uniqueKeysWithValues: statuses.map { (String($0.key), $0.value) }),
                reasons: reasons,
                derSignatures: derSignatures, tokensAcceptedTwice: acceptedTwice),
            connections: connections.values.sorted { $0.id < $1.id },
            listedTokens: tokenTable,
            validationFailures: failures,
            channels: channelStats)
    }

    /// The snapshot as pretty, key-sorted JSON.
    func json() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return (try? Array(encoder.encode(snapshot()))) ?? Array("{}".utf8)
    }
}
