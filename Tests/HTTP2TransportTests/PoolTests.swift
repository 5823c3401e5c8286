import APNs
import APNsMock
import Foundation
import HTTP2Transport
import Testing
import Threads

extension TransportIO {
    @Suite struct PoolTests {
        @Test func requestsSpreadOverThePoolsConnections() async throws {
            let mock = try MockFixture()
            defer { mock.stop() }
            let pool = try ConnectionPool(
                key: PoolKey(credentialID: "team", environment: .development),
                configuration: mock.connectionConfiguration(maxInFlight: 50), count: 3)
            let results = await sendMany(1_500, try mock.request(), via: pool.send)
            await pool.shutdown(deadline: .now + .seconds(5))
            #expect(results.statuses == [200: 1_500])
            let sent = pool.stats.map(\.sent)
            #expect(sent.reduce(0, +) == 1_500)
            #expect(sent.allSatisfy { $0 >= 200 }, "least-loaded routing uses every connection: \(sent)")
            #expect(mock.server.stats().totals.connections >= 3)
        }

        @Test func reconnectOpensANewHTTP2Connection() async throws {
            let mock = try MockFixture()
            defer { mock.stop() }
            let pool = try ConnectionPool(
                key: PoolKey(credentialID: "team", environment: .production),
                configuration: mock.connectionConfiguration(), count: 1)
            let before = await pool.send(try mock.request())
            pool.reconnectAll()
            let after = await pool.send(try mock.request())
            await pool.shutdown(deadline: .now + .seconds(5))
            #expect(before.status == 200 && after.status == 200)
            #expect(mock.server.stats().totals.connections == 2)
            #expect(pool.stats[0].reconnects == 1)
        }

        @Test func everyConnectionComesBackAfterAnOutageLongerThanTheBackoffCap() async throws {
            let mock = try MockFixture()
            defer { mock.stop() }
            let pool = try ConnectionPool(
                key: PoolKey(credentialID: "team", environment: .production),
                configuration: mock.connectionConfiguration(), count: 3, reconnectBase: .milliseconds(20),
                reconnectCap: .milliseconds(100))
            let request = try mock.request()
            #expect(await sendMany(300, request, via: pool.send).statuses == [200: 300])
            #expect(pool.states == [.open, .open, .open])

            // The outage, with one request at a time as the worker's outage backoff sends them: enough failures on
            // every connection that each pause reached the cap (20, then up to 60, then 100 ms).
            try await withTraffic(on: pool, request, senders: 1) {
                mock.server.stop()
                try await waitUntil { pool.stats.allSatisfy { ($0.connectFailures[.connect] ?? 0) >= 6 } }
            }
            #expect(pool.states.allSatisfy { $0 != .open })
            let back = try mock.restarted()
            #expect(await pool.send(request).status == 200, "the worker's probe")
            try await withTraffic(on: pool, request) {
                try await waitUntil { back.stats().connections.filter { $0.open && $0.requests > 0 }.count == 3 }
            }
            defer { back.stop() }
            #expect(pool.states == [.open, .open, .open])
            await pool.shutdown(deadline: .now + .seconds(5))
        }

        @Test func aConnectionThatGetsGOAWAYIsReplaced() async throws {
            let mock = try MockFixture(
                scenario: Scenario(connection: ConnectionFaults(goawayAfter: 100, faultyConnections: 1)))
            defer { mock.stop() }
            let pool = try ConnectionPool(
                key: PoolKey(credentialID: "team", environment: .production),
                configuration: mock.connectionConfiguration(maxInFlight: 20), count: 2)
            let results = await sendMany(1_000, try mock.request(), via: pool.send)
            #expect(results.statuses == [200: 1_000], "\(results.failures)")
            let connections = mock.server.stats().connections
            #expect(connections.first { $0.id == 1 }?.goawaySent == true)
            #expect(connections.filter { $0.id != 1 && $0.requests > 0 }.count == 2, "\(connections)")
            #expect(pool.stats.map(\.opened).sorted() == [1, 2])
            await pool.shutdown(deadline: .now + .seconds(5))
        }

        @Test func aFailedHandshakeOnOneConnectionCostsNoRequestAndTheConnectionComesBack() async throws {
            let mock = try MockFixture(scenario: Scenario(connection: ConnectionFaults(failHandshakes: [1])))
            defer { mock.stop() }
            let pool = try ConnectionPool(
                key: PoolKey(credentialID: "team", environment: .production),
                configuration: mock.connectionConfiguration(maxInFlight: 20), count: 2,
                reconnectBase: .milliseconds(20), reconnectCap: .milliseconds(100))
            let request = try mock.request()
            let results = await sendMany(200, request, via: pool.send)
            #expect(results.statuses == [200: 200], "\(results.failures)")
            try await withTraffic(on: pool, request) {
                try await waitUntil {
                    mock.server.stats().connections.filter { $0.open && $0.requests > 0 }.count == 2
                }
            }
            let stats = pool.stats
            #expect(stats.map { $0.connectFailures.values.reduce(0, +) }.sorted() == [0, 1], "\(stats)")
            #expect(stats.compactMap(\.lastConnectFailure).map { ConnectFailureReason($0) } == [.tls])
            #expect(pool.states == [.open, .open])
            await pool.shutdown(deadline: .now + .seconds(5))
        }

        @Test func theRegistryKeepsOnePoolPerCredentialAndEnvironment() async throws {
            let mock = try MockFixture()
            defer { mock.stop() }
            let registry = TransportRegistry(
                configuration: TransportConfiguration(
                    baseURLs: [.production: mock.baseURL, .development: mock.baseURL], caFile: mock.pki.caFile,
                    connectionsPerPool: 2, ratePerConnection: 0))
            let a = PoolKey(credentialID: "team-a", environment: .production)
            let b = PoolKey(credentialID: "team-a", environment: .development)
            #expect(registry.stats.isEmpty, "pools are created on first use")
            let ra = await registry.send(try mock.request(), on: a)
            let rb = await registry.send(try mock.request(), on: b)
            let again = await registry.send(try mock.request(), on: a)
            #expect([ra.status, rb.status, again.status] == [200, 200, 200])
            #expect(Set(registry.stats.keys) == [a, b])
            #expect(registry.stats[a]?.count == 2)
            #expect(try registry.pool(for: a) === registry.pool(for: a))
            await registry.shutdown(deadline: .now + .seconds(5))
            let late = await registry.send(try mock.request(), on: a)
            #expect(late.error?.kind == .shutdown)
        }

        @Test func defaultBaseURLsAreApples() {
            let configuration = TransportConfiguration()
            #expect(configuration.baseURL(for: .production) == "https://api.push.apple.com")
            #expect(configuration.baseURL(for: .development) == "https://api.sandbox.push.apple.com")
            let connection = configuration.connectionConfiguration(
                for: PoolKey(credentialID: "x", environment: .development))
            #expect(connection.ratePerSecond == 1500)
            #expect(connection.baseURL == "https://api.sandbox.push.apple.com")
        }
    }
}

/// Runs `body` while `senders` tasks send `request` on `pool` over and over (an operator's steady traffic).
func withTraffic<T>(
    on pool: ConnectionPool, _ request: APNsRequest, senders: Int = 4, _ body: () async throws -> T
) async throws -> T {
    let stop = Locked(false)
    let traffic = Task {
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<senders {
                group.addTask {
                    while !stop.withLock({ $0 }) {
                        _ = await pool.send(request)
                        try? await Task.sleep(for: .milliseconds(2))
                    }
                }
            }
        }
    }
    defer { stop.withLock { $0 = true } }
    let result = try await body()
    stop.withLock { $0 = true }
    await traffic.value
    return result
}
