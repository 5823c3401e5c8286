import APNs
import APNsMock
import Foundation
import HTTP2Transport
import Testing

extension TransportIO {
    @Suite struct ShutdownTests {
        @Test func shutdownDrainsWhatIsInFlight() async throws {
            let slow = String(repeating: "5b", count: 32)
            let mock = try MockFixture(scenario: Scenario(tokens: [slow: TokenBehaviour(delayMs: 300)]))
            defer { mock.stop() }
            let connection = try APNsConnection(configuration: mock.connectionConfiguration())
            let request = try mock.request(device: slow)
            // A new connection carries one request until it has answered; then all 50 go out together.
            #expect(await connection.send(try mock.request()).status == 200)
            async let results = sendMany(50, request, via: connection.send)
            try await waitUntil { connection.stats.inFlight == 50 }
            await connection.shutdown(timeout: .seconds(5))
            let all = await results
            #expect(all.statuses == [200: 50], "\(all.failures)")
        }

        @Test(.measuresTime) func atTheDeadlineWhatIsLeftFailsWithShutdown() async throws {
            let mock = try MockFixture()
            defer { mock.stop() }
            let connection = try APNsConnection(configuration: mock.connectionConfiguration(rate: 10))
            let request = try mock.request()
            async let results = sendMany(50, request, via: connection.send)
            try await waitUntil { connection.stats.submitted == 50 }
            try await Task.sleep(for: .milliseconds(200))
            let start = ContinuousClock.now
            await connection.shutdown(timeout: .milliseconds(300))
            #expect(ContinuousClock.now - start < .seconds(2))
            let all = await results
            let shutdownFailures = all.failures.filter { $0.kind == .shutdown }
            #expect(all.count == 50)
            #expect((all.statuses[200] ?? 0) >= 1 && (all.statuses[200] ?? 0) <= 10, "\(all.statuses)")
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

        @Test func droppingTheLastReferenceEndsTheLoopThread() async throws {
            let mock = try MockFixture()
            defer { mock.stop() }
            var settings = mock.connectionConfiguration()
            settings.label = "drop\(Int.random(in: 100_000...999_999))"
            let threadName = "apns-\(settings.label)"
            var connection: APNsConnection? = try APNsConnection(configuration: settings)
            let first = await connection!.send(try mock.request())
            #expect(first.status == 200)
            try await waitUntil { Self.threads(named: threadName) == 1 }
            connection = nil  // no shutdown: deinit must still stop the loop thread and close the connection
            try await waitUntil { Self.threads(named: threadName) == 0 }
            try await waitUntil { mock.server.stats().connections.allSatisfy { !$0.open } }
        }

        /// Threads of this process whose name is `name` (Linux: /proc/self/task/*/comm).
        static func threads(named name: String) -> Int {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
            return tasks.filter { task in
                (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines) == name
            }.count
        }
    }
}

/// Polls `condition` every 10 ms for up to 10 s.
func waitUntil(_ condition: () -> Bool) async throws {
    for _ in 0..<1_000 {
        if condition() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    Issue.record("condition not met within 10 s")
}
