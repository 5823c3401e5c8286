import APNs
import APNsMock
import Foundation
import HTTP2Transport
import Testing

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
