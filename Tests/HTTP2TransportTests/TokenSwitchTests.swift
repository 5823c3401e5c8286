import APNs
import APNsMock
import Foundation
import HTTP2Transport
import ProviderAuth
import Testing

extension TransportIO {
    /// After 429 TooManyProviderTokenUpdates APNs refuses every request on that connection, the old token included,
    /// until the client reconnects: the transport opens a new connection once the refused one's streams are done.
    @Suite struct TokenSwitchTests {
        @Test func aRefusedTokenSwitchMakesTheConnectionReconnect() async throws {
            let directory = try TempDirectory("transport-token-switch")
            defer { directory.remove() }
            let pki = try TestPKI(in: directory)
            let key = try SigningKey.generate()
            let credential = try ProviderCredential(keyId: "KEY1234567", teamId: "TEAM123456")
            let server = try MockServer(
                configuration: MockConfiguration(
                    identity: pki.identity, verifier: JWTVerifier(key: key, credential: credential),
                    tokenUpdateInterval: 1200))
            defer { server.stop() }
            let first = try ProviderToken.mint(
                key: key, credential: credential, issuedAt: Date().addingTimeInterval(-60))
            let second = try ProviderToken.mint(key: key, credential: credential, issuedAt: Date())
            let connection = try APNsConnection(
                configuration: ConnectionConfiguration(
                    baseURL: "https://127.0.0.1:\(server.port)", caFile: pki.caFile, ratePerSecond: 0,
                    connectTimeout: .seconds(5), label: "test"))
            func send(_ token: ProviderToken) async throws -> Int? {
                let notification = try Notification(
                    token: DeviceToken(String(repeating: "0f", count: 32)), topic: "com.example.app",
                    payload: Payload(json: #"{"aps":{"alert":"hi"}}"#))
                return await connection.send(APNsRequest(notification: notification, bearerToken: token.value)).status
            }
            #expect(try await send(first) == 200)
            #expect(try await send(second) == 429, "a switch within the interval is refused")
            #expect(try await send(second) == 200, "the new token works on the new connection")
            #expect(try await send(second) == 200)
            #expect(connection.stats.reconnects == 1)
            await connection.shutdown(timeout: .seconds(5))
        }
    }
}
