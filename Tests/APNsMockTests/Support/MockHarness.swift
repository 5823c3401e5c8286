import APNs
import APNsMock
import Foundation
import ProviderAuth

/// An in-process simulator on a free loopback port, with a curl client that trusts its throwaway CA.
/// Call `stop()` at the end of every test.
final class MockHarness {
    let server: MockServer
    let directory: TempDirectory
    let caPath: String
    let curl: Curl
    /// One provider token for the harness's pushes. ES256 signatures are randomised, so every mint is a
    /// different JWT — and switching JWTs on a connection is what APNs limits. Reuse this one.
    let authorization: String

    /// Per-token stats are listed (`statsTokens`) unless a test turns them off.
    /// `verifier` defaults to the fixture team's key with any topic.
    init(
        scenario: Scenario = Scenario(), tokenUpdateInterval: TimeInterval = 20 * 60, statsTokens: Bool = true,
        handshakeTimeout: TimeInterval = 10, idleTimeout: TimeInterval = 300, arrivalsFile: String? = nil,
        verifier: JWTVerifier? = nil, environment: Environment = .production, clientCAPEM: String? = nil,
        withoutBroadcast: Set<String> = [], maxChannelsPerApp: Int = 10_000
    ) throws {
        directory = try TempDirectory("mock")
        let identity = try TLSIdentity.throwaway()
        guard let ca = identity.caCertificatePEM else { throw HarnessError("throwaway identity has no CA") }
        caPath = try directory.write("ca.pem", ca)
        server = try MockServer(
            configuration: MockConfiguration(
                port: 0, identity: identity,
                verifier: verifier ?? JWTVerifier(key: Fixture.key, credential: Fixture.credential),
                scenario: scenario, tokenUpdateInterval: tokenUpdateInterval, statsTokens: statsTokens,
                handshakeTimeout: handshakeTimeout, idleTimeout: idleTimeout, arrivalsFile: arrivalsFile,
                environment: environment, clientCAPEM: clientCAPEM, withoutBroadcast: withoutBroadcast,
                maxChannelsPerApp: maxChannelsPerApp))
        authorization = try Fixture.authorization()
        curl = Curl(baseURL: "https://127.0.0.1:\(server.port)", caPath: caPath, directory: directory)
    }

    var port: Int { server.port }

    func stop() {
        server.stop()
        directory.remove()
    }

    func send(_ request: CurlRequest) throws -> CurlResponse { try curl.send(request) }

    /// A curl that presents `certificate` as its TLS client certificate.
    func curl(presenting certificate: ClientCertificateFiles) -> Curl {
        Curl(baseURL: curl.baseURL, caPath: caPath, directory: directory, clientCertificate: certificate)
    }

    func send(_ requests: [CurlRequest], rate: String? = nil) throws -> [CurlResponse] {
        try curl.send(requests, rate: rate)
    }

    /// A valid push to `token` with the harness's provider token.
    func push(_ token: String, extra: [(name: String, value: String)] = []) throws -> CurlRequest {
        CurlRequest.push(token: token, authorization: authorization, extra: extra)
    }

    /// `GET /_mock/stats` over curl, decoded.
    func stats() throws -> MockStats {
        let response = try curl.send(CurlRequest(method: "GET", path: "/_mock/stats"))
        guard response.status == 200 else {
            throw HarnessError("stats answered \(response.status): \(response.bodyText)")
        }
        return try JSONDecoder().decode(MockStats.self, from: Data(response.body))
    }

    /// Connections that carried at least one answered request (the stats request's own connection carries none).
    func busyConnections() throws -> [MockStats.Connection] {
        try stats().connections.filter { $0.requests > 0 }
    }
}

/// Apple's apns-id form: canonical lowercase UUID, 8-4-4-4-12 hex digits.
func isCanonicalLowercaseUUID(_ text: String?) -> Bool {
    guard let text else { return false }
    let groups = text.split(separator: "-", omittingEmptySubsequences: false)
    return groups.map(\.count) == [8, 4, 4, 4, 12]
        && groups.allSatisfy { $0.allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) } }
}
