import APNs
import APNsMock
import Foundation
import HTTP2Transport
import Testing
import Threads

extension TransportIO {
    /// Expedited requests (single sends) pass what already waits on their connection. The order and the
    /// throttle's timing are `ThrottledAdmissionTests`' to check, on simulated time; this is the real thing.
    @Suite struct ExpeditedTests {
        /// The order in which requests finished.
        final class Finished: @unchecked Sendable {
            private let lock = NSLock()
            private var names: [String] = []
            func append(_ name: String) { lock.withLock { names.append(name) } }
            var order: [String] { lock.withLock { names } }
        }

        @Test func anExpeditedRequestPassesTheQueueButNotTheThrottle() async throws {
            let mock = try MockFixture()
            defer { mock.stop() }
            let connection = try APNsConnection(configuration: mock.connectionConfiguration(rate: 10))
            #expect(await connection.send(try mock.request()).status == 200)  // the connection has answered
            let bulk = try mock.request()
            var expedited = try mock.request(device: String(repeating: "5d", count: 32))
            expedited.isExpedited = true
            let urgent = expedited
            let finished = Finished()
            let doneWhenSubmitted = Locked(0)
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<30 {
                    group.addTask {
                        if await connection.send(bulk).status == 200 { finished.append("bulk") }
                    }
                }
                try? await waitUntil { connection.stats.submitted == 31 }
                group.addTask {
                    if await connection.send(urgent).status == 200 { finished.append("urgent") }
                }
                // Read once the urgent request is in: what finished by then went out before it, expedited or not (a
                // loaded machine may submit it late, when little is left to pass).
                try? await waitUntil { connection.stats.submitted == 32 }
                let done = finished.order.count
                doneWhenSubmitted.withLock { $0 = done }
            }
            await connection.shutdown(timeout: .seconds(5))
            let order = finished.order
            #expect(order.count == 31)
            let position = try #require(order.firstIndex(of: "urgent"))
            // In arrival order it would be last; expedited, it passes most of what still waited when it came (not
            // all: a few were already on the connection, and a starved test task records finishes late).
            let done = doneWhenSubmitted.withLock { $0 }
            if 30 - done >= 6 {
                #expect(
                    position < done + (30 - done) / 2,
                    "finished after \(position) of 30 (\(done) done when it came): \(order)")
            }
        }
    }
}
