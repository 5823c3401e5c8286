import APNs
import APNsMock
import Foundation
import HTTP2Transport
import TestSupport
import Testing

extension TransportIO {
    @Suite struct ShutdownTests {
        @Test func shutdownDrainsWhatIsInFlight() async throws {
            let slow = String(repeating: "5b", count: 32)
            // Answered after 3 s: the shutdown finds them in flight.
            let mock = try MockFixture(scenario: Scenario(tokens: [slow: TokenBehaviour(delayMs: 3_000)]))
            defer { mock.stop() }
            let connection = try APNsConnection(configuration: mock.connectionConfiguration())
            let request = try mock.request(device: slow)
            // A new connection carries one request until it has answered; then all 50 go out together.
            #expect(await connection.send(try mock.request()).status == 200)
            async let results = sendMany(50, request, via: connection.send)
            // Every one handed over and none left waiting: each is in flight, or (a slow, sanitized machine took
            // more than 3 s to hand them all over) already answered.
            try await waitUntil {
                let stats = connection.stats
                return stats.submitted == 51 && stats.queued == 0
            }
            await connection.shutdown(timeout: .seconds(20))
            let all = await results
            #expect(all.statuses == [200: 50], "\(all.failures)")
        }

        @Test(.measuresTime) func atTheDeadlineWhatIsLeftFailsWithShutdown() async throws {
            let mock = try MockFixture()
            defer { mock.stop() }
            let opened = ContinuousClock.now
            let connection = try APNsConnection(configuration: mock.connectionConfiguration(rate: 2))
            let request = try mock.request()
            async let results = sendMany(50, request, via: connection.send)
            try await waitUntil { connection.stats.submitted == 50 }
            try await Task.sleep(for: .milliseconds(200))
            let start = ContinuousClock.now
            await connection.shutdown(timeout: .milliseconds(300))
            // At 2/s the 50 would take 25 s: the shutdown ends at its deadline instead (10 s: room for a loaded
            // machine), and no more went out than the time the connection lived allows.
            #expect(ContinuousClock.now - start < .seconds(10))
            let lived = (ContinuousClock.now - opened) / .seconds(1)
            let all = await results
            let shutdownFailures = all.failures.filter { $0.kind == .shutdown }
            #expect(all.count == 50)
            let sent = all.statuses[200] ?? 0
            #expect(sent >= 1 && sent < 50 && Double(sent) <= 2 * lived + 2, "\(all.statuses) in \(lived) s")
            #expect(shutdownFailures.count == 50 - (all.statuses[200] ?? 0))
            #expect(shutdownFailures.allSatisfy { $0.isRetryable })
        }

        @Test func sendingAfterShutdownFailsAtOnce() async throws {
            let mock = try MockFixture()
            defer { mock.stop() }
            let connection = try APNsConnection(configuration: mock.connectionConfiguration())
            await connection.shutdown(timeout: .seconds(1))
            let result = await connection.send(try mock.request())
            #expect(result.error?.kind == .shutdown)
            await connection.shutdown(timeout: .seconds(1))  // twice is fine
        }

        @Test func droppingTheLastReferenceEndsTheLoopAndClosesTheConnection() async throws {
            let mock = try MockFixture()
            defer { mock.stop() }
            var connection: APNsConnection? = try APNsConnection(configuration: mock.connectionConfiguration())
            let first = await connection!.send(try mock.request())
            #expect(first.status == 200)
            #expect(mock.server.stats().connections.filter(\.open).count == 1)
            connection = nil  // no shutdown: deinit must still stop the loop, which closes the HTTP/2 connection
            #expect(
                try await eventually { mock.server.stats().connections.allSatisfy { !$0.open } },
                "\(mock.server.stats().connections)")
        }
    }
}

/// Whether `condition` becomes true within 30 s (polled every 10 ms; room for a loaded machine).
func eventually(_ condition: () -> Bool) async throws -> Bool {
    for _ in 0..<3_000 {
        if condition() { return true }
        try await Task.sleep(for: .milliseconds(10))
    }
    return false
}

/// Polls `condition` every 10 ms for up to 90 s (generous: a loaded sanitizer pass gives a test its CPU late).
func waitUntil(_ condition: () -> Bool) async throws {
    for _ in 0..<9_000 {
        if condition() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    Issue.record("condition not met within 90 s")
}
