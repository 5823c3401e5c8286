import APNs
import APNsMock
import Foundation
import HTTP2Transport
import TestSupport
import Testing

extension TransportIO {
    /// `withdraw` takes back what has not started on the wire, and only that.
    @Suite struct WithdrawTests {
        @Test func queuedRequestsOfAGroupAreTakenBackUnsent() async throws {
            let mock = try MockFixture()
            defer { mock.stop() }
            let connection = try APNsConnection(configuration: mock.connectionConfiguration(rate: 4))
            #expect(await connection.send(try mock.request()).status == 200)  // the connection has answered
            var cancelled = try mock.request()
            cancelled.group = 7
            var kept = try mock.request(device: String(repeating: "5d", count: 32))
            kept.group = 8
            let requests = [cancelled, kept]
            let results = try await withThrowingTaskGroup(of: (Int64?, TransportResult).self) { group in
                for index in 0..<20 {
                    let request = requests[index % 2]
                    group.addTask { (request.group, await connection.send(request)) }
                }
                try await waitUntil { connection.stats.submitted == 21 }
                let withdrawn = await connection.withdraw(groups: [7])
                #expect(withdrawn >= 7, "at 4/s at most a few of the 10 can have left")
                var results: [(Int64?, TransportResult)] = []
                for try await result in group { results.append(result) }
                return results
            }
            await connection.shutdown(timeout: .seconds(5))
            let group7 = results.filter { $0.0 == 7 }.map(\.1)
            let group8 = results.filter { $0.0 == 8 }.map(\.1)
            #expect(group8.allSatisfy { $0.status == 200 })
            let withdrawn = group7.compactMap { result -> TransportError? in
                if case .failure(let error) = result { return error } else { return nil }
            }
            #expect(withdrawn.allSatisfy { $0.kind == .withdrawn && !$0.requestWasSent })
            let sent7 = group7.filter { $0.status == 200 }.count
            #expect(sent7 + withdrawn.count == 10)
            // The server saw exactly what was not withdrawn.
            let stats = mock.server.stats()
            #expect(stats.totals.requests == 1 + 10 + sent7)
        }

        @Test func aFailedConnectSaysNothingWasSent() async throws {
            let (refusing, port) = Ports.refusing()
            defer { close(refusing) }
            let connection = try APNsConnection(
                configuration: ConnectionConfiguration(
                    baseURL: "https://127.0.0.1:\(port)", ratePerSecond: 0, connectTimeout: .seconds(2), label: "test"))
            let mock = try MockFixture()
            let result = await connection.send(try mock.request())
            mock.stop()
            await connection.shutdown(timeout: .seconds(2))
            guard case .failure(let error) = result else {
                Issue.record("expected a failure, got \(result)")
                return
            }
            #expect(error.kind == .connect)
            #expect(!error.requestWasSent)
            #expect(error.meansUnreachable)
        }
    }
}
