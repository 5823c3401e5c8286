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
            let connection = try APNsConnection(configuration: mock.connectionConfiguration(rate: 20))
            #expect(await connection.send(try mock.request()).status == 200)  // the connection has answered
            let bulk = try mock.request()
            var expedited = try mock.request(device: String(repeating: "5d", count: 32))
            expedited.isExpedited = true
            let urgent = expedited
            let finished = Finished()
            let waitingAtSubmit = Locked((0, 0))
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<30 {
                    group.addTask {
                        if await connection.send(bulk).status == 200 { finished.append("bulk") }
                    }
                }
                try? await waitUntil { connection.stats.submitted == 31 }
                // What waits now is what the urgent request can pass (on a loaded machine the bulk tasks may have
                // been submitted so slowly that some were already sent).
                let finishedBefore = finished.order.count
                let waiting = connection.stats.queued
                waitingAtSubmit.withLock { $0 = (finishedBefore, waiting) }
                group.addTask {
                    if await connection.send(urgent).status == 200 { finished.append("urgent") }
                }
            }
            await connection.shutdown(timeout: .seconds(5))
            let order = finished.order
            #expect(order.count == 31)
            let position = try #require(order.firstIndex(of: "urgent"))
            // In arrival order it would be last; at 20/s it passes most of what still waited when it came.
            let (finishedBefore, waiting) = waitingAtSubmit.withLock { $0 }
            // With a handful waiting or fewer (a starved test process), there is nothing to pass.
            if waiting >= 4 {
                #expect(
                    position < 30 - waiting / 2,
                    "finished after \(position) of 30 (\(finishedBefore) done and \(waiting) waiting when it came): \(order)"
                )
            }
        }
    }
}
