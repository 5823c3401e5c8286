import APNs
import APNsMock
import Foundation
import HTTP2Transport
import TestSupport
import Testing

extension TransportIO {
    /// GOAWAY, abrupt closes and timeouts from the simulator: what reaches the caller, and what the transport absorbs.
    @Suite struct FaultTests {
        @Test func goawayIsAbsorbedAndTheConnectionReconnects() async throws {
            let mock = try MockFixture(scenario: Scenario(connection: ConnectionFaults(goawayAfter: 100)))
            defer { mock.stop() }
            let connection = try APNsConnection(configuration: mock.connectionConfiguration(maxInFlight: 50))
            let results = await sendMany(1_000, try mock.request(), via: connection.send)
            await connection.shutdown(timeout: .seconds(5))
            #expect(results.statuses == [200: 1_000], "\(results.failures)")
            let server = mock.server.stats()
            #expect(server.totals.connections >= 10)
            #expect(server.connections.allSatisfy { $0.goawaySent })
        }

        @Test func anAbruptCloseFailsTheStreamsInFlightAndTheyAreResent() async throws {
            // Only the first connection drops: everything cut there is re-sent on the next one.
            let mock = try MockFixture(
                scenario: Scenario(connection: ConnectionFaults(closeAfter: 100, faultyConnections: 1)))
            defer { mock.stop() }
            let connection = try APNsConnection(configuration: mock.connectionConfiguration(maxInFlight: 50))
            let results = await sendMany(500, try mock.request(), via: connection.send)
            await connection.shutdown(timeout: .seconds(5))
            #expect(results.statuses == [200: 500], "\(results.failures)")
            let stats = connection.stats
            #expect(stats.retried > 0)
            #expect(stats.connectionErrors == stats.retried)
            #expect(stats.lastError?.kind == .connectionLost)
            #expect(stats.sent == 500 + stats.retried)
        }

        @Test func whenResendsRunOutTheFailureIsRetryableAndConnectionFatal() async throws {
            let mock = try MockFixture(scenario: Scenario(connection: ConnectionFaults(closeAfter: 20)))
            defer { mock.stop() }
            let connection = try APNsConnection(
                configuration: mock.connectionConfiguration(maxInFlight: 20, transportRetries: 0))
            let results = await sendMany(200, try mock.request(), via: connection.send)
            await connection.shutdown(timeout: .seconds(5))
            let failures = results.failures
            #expect(!failures.isEmpty)
            #expect((results.statuses[200] ?? 0) > 0, "the connection keeps reconnecting")
            for failure in failures {
                #expect(failure.kind == .connectionLost, "\(failure)")
                #expect(failure.isRetryable && failure.isConnectionFatal)
                #expect([16, 18, 55, 56, 92].contains(failure.curlCode), "\(failure)")
            }
            #expect(connection.stats.failed == failures.count)
        }

        @Test func aSlowAnswerHitsTheRequestTimeout() async throws {
            let slow = String(repeating: "5a", count: 32)
            // A timeout long enough for the fast request's answer on a loaded machine (a sanitizer pass), and a delay
            // well past it.
            let mock = try MockFixture(scenario: Scenario(tokens: [slow: TokenBehaviour(delayMs: 8_000)]))
            defer { mock.stop() }
            let connection = try APNsConnection(
                configuration: mock.connectionConfiguration(requestTimeout: .milliseconds(1_500)))
            let result = await connection.send(try mock.request(device: slow))
            let fast = await connection.send(try mock.request())
            await connection.shutdown(timeout: .seconds(5))
            #expect(result.error?.kind == .timeout, "\(result)")
            #expect(result.error?.curlCode == 28)
            #expect(result.error?.isRetryable == true)
            // (A timeout that did not fire would have returned the 200 the server sends after 8 s.)
            #expect(fast.status == 200, "the connection still works: \(fast)")
        }
    }
}
