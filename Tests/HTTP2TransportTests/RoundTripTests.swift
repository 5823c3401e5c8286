import APNs
import APNsMock
import Foundation
import HTTP2Transport
import Testing

extension TransportIO {
    /// Real TLS HTTP/2 round trips against the project's APNs simulator.
    @Suite struct RoundTripTests {
        @Test func oneRequestGets200AndAnApnsID() async throws {
            let mock = try MockFixture()
            defer { mock.stop() }
            let connection = try APNsConnection(configuration: mock.connectionConfiguration())
            let result = await connection.send(try mock.request())
            await connection.shutdown(timeout: .seconds(5))
            guard case .response(let status, let apnsID, let body) = result else {
                Issue.record("expected a response, got \(result)")
                return
            }
            #expect(status == 200)
            #expect(body == ErrorResponse(status: 200, reason: nil))
            #expect(apnsID.map { NotificationID.isCanonical(Array($0.utf8)) } == true)
            let stats = connection.stats
            #expect(stats.submitted == 1 && stats.sent == 1 && stats.completed == 1 && stats.failed == 0)
            #expect(mock.server.stats().totals.requests == 1)
        }

        @Test func theApnsIDWeSendIsEchoed() async throws {
            let mock = try MockFixture()
            defer { mock.stop() }
            let connection = try APNsConnection(configuration: mock.connectionConfiguration())
            let id = "8f4b1a3e-0000-4000-8000-00000000abcd"
            let notification = try Notification(
                token: DeviceToken(String(repeating: "0e", count: 32)), topic: "com.example.app",
                id: NotificationID(id), payload: Payload(json: #"{"aps":{"alert":"x"}}"#))
            let result = await connection.send(APNsRequest(notification: notification, bearerToken: mock.token.value))
            await connection.shutdown(timeout: .seconds(5))
            guard case .response(200, let apnsID, _) = result else {
                Issue.record("expected 200, got \(result)")
                return
            }
            #expect(apnsID == id)
        }

        @Test func errorResponsesCarryTheReason() async throws {
            let gone = String(repeating: "de", count: 32)
            let mock = try MockFixture(
                scenario: Scenario(tokens: [gone: TokenBehaviour(respond: .unregistered, timestamp: 1_700_000_000_000)])
            )
            defer { mock.stop() }
            let connection = try APNsConnection(configuration: mock.connectionConfiguration())
            let unregistered = await connection.send(try mock.request(device: gone))
            var unauthorised = try mock.request()
            unauthorised.headers.removeAll { $0.name == "authorization" }
            let missingToken = await connection.send(unauthorised)
            await connection.shutdown(timeout: .seconds(5))
            #expect(
                unregistered.errorResponse
                    == ErrorResponse(status: 410, reason: .unregistered, timestamp: 1_700_000_000_000))
            #expect(missingToken.errorResponse?.status == 403)
            #expect(missingToken.errorResponse?.reason == .missingProviderToken)
        }

        @Test func twoThousandRequestsOverOneConnectionAllGetAStatus() async throws {
            let mock = try MockFixture()
            defer { mock.stop() }
            let connection = try APNsConnection(configuration: mock.connectionConfiguration(maxInFlight: 100))
            let request = try mock.request()
            let statuses = await withTaskGroup(of: Int?.self) { group in
                for _ in 0..<2_000 { group.addTask { await connection.send(request).status } }
                var statuses: [Int?] = []
                for await status in group { statuses.append(status) }
                return statuses
            }
            await connection.shutdown(timeout: .seconds(5))
            #expect(statuses.count == 2_000)
            #expect(statuses.allSatisfy { $0 == 200 }, "\(statuses.filter { $0 != 200 }.count) without 200")
            let server = mock.server.stats()
            #expect(server.totals.requests == 2_000)
            // One APNsConnection; the server may still see a reconnect per ~1000 requests: libcurl 7.88 sends
            // RST_STREAM after finished streams and nghttp2 servers answer 1000 of those with GOAWAY.
            #expect(server.totals.connections <= 3, "\(server.connections)")
            #expect(connection.stats.completed == 2_000)
        }

        @Test func aNewConnectionCarriesOneRequestUntilItHasAnswered() async throws {
            // Its SETTINGS may still lower the stream limit (APNs: one stream until the first authorised request).
            let slow = String(repeating: "5c", count: 32)
            // Answered after 10 s: a test task starved for seconds (a loaded ThreadSanitizer pass once starved it for
            // more than 3) still sees the four in flight together.
            let mock = try MockFixture(scenario: Scenario(tokens: [slow: TokenBehaviour(delayMs: 10_000)]))
            defer { mock.stop() }
            let connection = try APNsConnection(configuration: mock.connectionConfiguration())
            let request = try mock.request(device: slow)
            async let results = sendMany(5, request, via: connection.send)
            // Until the first answer every published snapshot has one in flight, then four together.
            var beforeTheAnswer: Set<Int> = []
            try await waitUntil {
                let stats = connection.stats
                if stats.completed == 0 && stats.submitted == 5 { beforeTheAnswer.insert(stats.inFlight) }
                return stats.inFlight == 4
            }
            #expect(beforeTheAnswer.isSubset(of: [0, 1]), "in flight before the first answer: \(beforeTheAnswer)")
            #expect(await results.statuses == [200: 5])
            await connection.shutdown(timeout: .seconds(5))
            #expect(mock.server.stats().totals.connections == 1)
        }

        @Test(arguments: [0, 1_000])
        func theServersStreamLimitIsFollowed(rate: Int) async throws {
            // APNs allows one stream until the first authorised request, then its SETTINGS raise the limit.
            let mock = try MockFixture(
                scenario: Scenario(
                    connection: ConnectionFaults(
                        maxConcurrentStreams: 10, singleStreamUntilAuthorized: true)))
            defer { mock.stop() }
            let connection = try APNsConnection(
                configuration: mock.connectionConfiguration(rate: rate, maxInFlight: 200))
            let results = await sendMany(600, try mock.request(), via: connection.send)
            await connection.shutdown(timeout: .seconds(5))
            #expect(results.statuses == [200: 600], "\(results.failures)")
            #expect(mock.server.stats().totals.connections <= 2)
        }
    }
}
