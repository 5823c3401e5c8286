import APNs
import APNsMock
import Foundation
import HTTP2Transport
import ProviderAuth

/// The project's APNs simulator on a free loopback port, with a throwaway CA, key and team,
/// and a valid provider token to send with.
final class MockFixture: @unchecked Sendable {
    let directory: TempDirectory
    let pki: TestPKI
    let server: MockServer
    let token: ProviderToken
    private let configuration: MockConfiguration

    /// `arrivals`: a file the mock notes each request's arrival in, in order (`MockConfiguration.arrivalsFile`).
    init(scenario: Scenario = Scenario(), port: Int = 0, arrivals: String? = nil) throws {
        directory = try TempDirectory("transport-mock")
        pki = try TestPKI(in: directory)
        let key = try SigningKey.generate()
        let credential = try ProviderCredential(keyId: "KEY1234567", teamId: "TEAM123456")
        token = try ProviderToken.mint(key: key, credential: credential, issuedAt: Date())
        configuration = MockConfiguration(
            port: port, identity: pki.identity, verifier: JWTVerifier(key: key, credential: credential),
            scenario: scenario, arrivalsFile: arrivals)
        server = try MockServer(configuration: configuration)
    }

    /// A new simulator like this one, on the same port, after `server.stop()` (APNs back after an outage).
    func restarted() throws -> MockServer {
        var again = configuration
        again.port = server.port
        return try MockServer(configuration: again)
    }

    var baseURL: String { "https://127.0.0.1:\(server.port)" }

    func connectionConfiguration(
        rate: Int = 0, maxInFlight: Int = 1000, transportRetries: Int = 1,
        requestTimeout: Duration = .seconds(30)
    ) -> ConnectionConfiguration {
        ConnectionConfiguration(
            baseURL: baseURL, caFile: pki.caFile, ratePerSecond: rate, connectTimeout: .seconds(5),
            requestTimeout: requestTimeout, maxInFlight: maxInFlight, transportRetries: transportRetries,
            label: "test")
    }

    /// A request for device `hex` (64 hex digits by default) with this fixture's provider token.
    func request(device hex: String = String(repeating: "0f", count: 32), topic: String = "com.example.app") throws
        -> APNsRequest
    {
        let notification = try Notification(
            token: DeviceToken(hex), topic: topic, payload: Payload(json: #"{"aps":{"alert":"hi"}}"#))
        return APNsRequest(notification: notification, bearerToken: token.value)
    }

    func stop() {
        server.stop()
        directory.remove()
    }
}
