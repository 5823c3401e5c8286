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
        @Test func anExpeditedRequestPassesTheQueueButNotTheThrottle() async throws {
            // The order is the mock's, as requests arrived on the wire: the tasks of a starved test process would
            // note their answers late, and out of order.
            let arrivals = FileManager.default.temporaryDirectory.appendingPathComponent("arrivals-\(UUID())").path
            defer { try? FileManager.default.removeItem(atPath: arrivals) }
            let mock = try MockFixture(arrivals: arrivals)
            defer { mock.stop() }
            let connection = try APNsConnection(configuration: mock.connectionConfiguration(rate: 10))
            #expect(await connection.send(try mock.request()).status == 200)  // the connection has answered
            let bulk = try mock.request()
            var expedited = try mock.request(device: String(repeating: "5d", count: 32))
            expedited.isExpedited = true
            let urgentID = UUID().uuidString.lowercased()
            expedited.headers.append((name: "apns-id", value: urgentID))
            let urgent = expedited
            let admittedWhenSubmitted = Locked(0)
            let statuses = Locked<[Int]>([])
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<30 {
                    group.addTask {
                        let status = await connection.send(bulk).status ?? 0
                        statuses.withLock { $0.append(status) }
                    }
                }
                try? await waitUntil { connection.stats.submitted == 31 }
                group.addTask {
                    let status = await connection.send(urgent).status ?? 0
                    statuses.withLock { $0.append(status) }
                }
                // Read once the urgent request is in: what the connection had sent by then (read late, it only
                // grows) may arrive before it, expedited or not.
                try? await waitUntil { connection.stats.submitted == 32 }
                let sent = connection.stats.sent
                admittedWhenSubmitted.withLock { $0 = sent }
            }
            await connection.shutdown(timeout: .seconds(5))
            mock.server.stop()  // writes the arrivals out
            #expect(statuses.withLock { $0 } == Array(repeating: 200, count: 31))
            let order = try String(contentsOfFile: arrivals, encoding: .utf8).split(separator: "\n")
                .map { $0.split(separator: " ").last.map(String.init) ?? "" }
            #expect(order.count == 32)
            let position = try #require(order.firstIndex(of: urgentID), "\(order)")
            // In arrival order it would be last; expedited, it goes out next: behind what the connection had already
            // sent, and what the loop's turn under way admits. A turn takes callers' requests once, then admits
            // twice (before libcurl runs, and into the slots it freed), each time with a token if one is due: on a
            // loaded machine both may be, so two requests can go ahead of one that came in during the turn.
            let admitted = admittedWhenSubmitted.withLock { $0 }
            if 32 - admitted >= 6 {
                #expect(position <= admitted + 2, "arrived after \(position) of 31 (\(admitted) sent when it came)")
            }
        }
    }
}
