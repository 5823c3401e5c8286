import APNs
import APNsMock
import Foundation
import HTTP2Transport
import Testing

extension TransportIO {
    /// `HTTPExchange`, the one-shot client, against apns-mock's channel management: POST with a body, GET and DELETE
    /// with request headers, response headers read back (`apns-channel-id`, `apns-request-id`), HTTP/2 required.
    @Suite struct HTTPExchangeTests {
        static let path = ChannelManagement.channelsPath(bundleID: "com.example.app")

        @Test func postGetAndDeleteWithHeadersBothWays() async throws {
            let mock = try MockFixture()
            defer { mock.stop() }
            let exchange = HTTPExchange(
                timeout: .seconds(10), connectTimeout: .seconds(5), caFile: mock.pki.caFile, requireHTTP2: true)
            let auth = ("authorization", "bearer \(mock.token.value)")
            let requestID = "6f4b3c2a-1d0e-4f9a-8b7c-6d5e4f3a2b1c"
            let created = try await exchange.send(
                .post, url: mock.baseURL + Self.path, headers: [auth, ("apns-request-id", requestID)],
                body: ChannelManagement.createBody(.none))
            #expect(created.status == 201 && created.body.isEmpty, "\(created)")
            #expect(created.header("APNS-Request-ID") == requestID, "a response header, by any case")
            let id = try #require(created.header("apns-channel-id"))
            #expect(mock.server.stats().channels.byID[id]?.messageStoragePolicy == 0)

            let read = try await exchange.send(
                .get, url: mock.baseURL + Self.path, headers: [auth, ("apns-channel-id", id)])
            #expect(
                read.status == 200 && ChannelManagement.storage(ofReadBody: read.body) == ChannelStorage.none, "\(read)"
            )
            let listed = try await exchange.send(
                .get, url: mock.baseURL + ChannelManagement.allChannelsPath(bundleID: "com.example.app"),
                headers: [auth])
            #expect(ChannelManagement.channelIDs(ofListBody: listed.body) == [id])

            let deleted = try await exchange.send(
                .delete, url: mock.baseURL + Self.path, headers: [auth, ("apns-channel-id", id)])
            #expect(deleted.status == 204, "\(deleted)")
            let again = try await exchange.send(
                .get, url: mock.baseURL + Self.path, headers: [auth, ("apns-channel-id", id)])
            #expect(
                again.status == 400
                    && ErrorResponse(status: again.status, body: again.body).reason?.rawValue == "ChannelNotRegistered")
            #expect(mock.server.stats().channels.requests == ["create": 1, "read": 2, "list": 1, "delete": 1])
        }

        @Test func aBodyOverTheLimitIsCutAndNoAnswerIsATransportError() async throws {
            let mock = try MockFixture()
            defer { mock.stop() }
            let auth = ("authorization", "bearer \(mock.token.value)")
            for _ in 0..<3 {
                _ = try await HTTPExchange(caFile: mock.pki.caFile, requireHTTP2: true)
                    .send(
                        .post, url: mock.baseURL + Self.path, headers: [auth],
                        body: ChannelManagement.createBody(.latest))
            }
            let small = HTTPExchange(caFile: mock.pki.caFile, requireHTTP2: true, maximumResponseBody: 10)
            let listed = try await small.send(
                .get, url: mock.baseURL + ChannelManagement.allChannelsPath(bundleID: "com.example.app"),
                headers: [auth])
            #expect(listed.status == 200 && listed.body.count == 10)
            // Port 1: nothing listens there.
            await #expect(throws: TransportError.self) {
                _ = try await small.send(.get, url: "https://127.0.0.1:1" + Self.path, headers: [auth])
            }
        }
    }
}
