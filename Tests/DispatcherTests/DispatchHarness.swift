import APNs
import APNsMock
import Dispatcher
import Foundation
import HTTP2Transport
import Logging
import ProviderAuth
import Store

/// A real dispatch setup for one test: a SQLite file in a temp folder, apns-mock over TLS HTTP/2 with a
/// throwaway CA, the fixture key, the libcurl transport and the worker. Nothing is mocked.
final class DispatchHarness: @unchecked Sendable {
    static let topic = "com.example.dispatch"
    let directory: URL
    let key: SigningKey
    let credential: ProviderCredential
    let server: MockServer
    let store: Store
    let transport: TransportRegistry
    let tokens: ProviderTokenCache
    let caFile: String

    init(scenario: Scenario = Scenario(), connections: Int = 2, rate: Int = 0, serverTeamID: String = "TESTTEAM01",
         tokenClock: (@Sendable () -> Date)? = nil, tokenUpdateInterval: TimeInterval = 1200) async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("apnsd-dispatch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        key = try SigningKey(contentsOfFile: Self.fixture("keys/AuthKey_TESTKEY001.p8"))
        credential = try ProviderCredential(keyId: "TESTKEY001", teamId: "TESTTEAM01")
        let identity = try TLSIdentity.throwaway()
        caFile = directory.appendingPathComponent("ca.pem").path
        try identity.caCertificatePEM!.write(toFile: caFile, atomically: true, encoding: .utf8)
        let serverCredential = try ProviderCredential(keyId: "TESTKEY001", teamId: serverTeamID)
        server = try MockServer(configuration: MockConfiguration(
            identity: identity, verifier: JWTVerifier(key: key, credential: serverCredential), scenario: scenario,
            tokenUpdateInterval: tokenUpdateInterval))
        store = try await Store.open(at: directory.appendingPathComponent("apnsd.sqlite").path)
        let url = "https://127.0.0.1:\(server.port)"
        transport = TransportRegistry(configuration: TransportConfiguration(
            baseURLs: [.production: url, .development: url], caFile: caFile, connectionsPerPool: connections,
            ratePerConnection: rate, requestTimeout: .seconds(10)))
        tokens = ProviderTokenCache(key: key, credential: credential, clock: tokenClock ?? { Date() })
    }

    /// A worker with a fast retry policy, so backoffs take milliseconds.
    func worker(maxAttempts: Int = 5, logger: Logger = Logger(label: "test", sink: .none)) -> Worker {
        Worker(store: store, tokens: tokens, transport: transport,
               configuration: WorkerConfiguration(credentialID: credential.keyId,
                                                  retry: RetryPolicy(base: .milliseconds(20), cap: .milliseconds(200), maxAttempts: maxAttempts),
                                                  pollInterval: .milliseconds(50)),
               logger: logger)
    }

    /// Registers `count` devices whose tokens start with `prefix`.
    @discardableResult
    func register(_ count: Int, prefix: String = "a11c", environment: Environment = .production, now: Date = Date()) async throws -> [DeviceToken] {
        let tokens = try (0..<count).map { i in try DeviceToken(prefix + String(format: "%060x", i + 1)) }
        _ = try await store.importDevices(tokens.map { DeviceRegistration(token: $0, topic: Self.topic, environment: environment) }, now: now)
        return tokens
    }

    func campaign(_ audience: Audience = .all(), payload: String = #"{"aps":{"alert":"test"}}"#, expiration: Expiration? = nil) async throws -> CampaignID {
        try await store.createCampaign(CampaignSpec(audience: audience, payload: Payload(json: payload), topic: Self.topic, expiration: expiration))
    }

    /// Every log row of `campaign`.
    func log(_ campaign: CampaignID) async throws -> [LogEntry] {
        var rows: [LogEntry] = []
        var after: DeliveryID?
        while true {
            let page = try await store.log(LogFilter(campaign: campaign), after: after, limit: 1000)
            rows += page
            guard let last = page.last, page.count == 1000 else { return rows }
            after = last.id
        }
    }

    func shutdown() async {
        await transport.shutdown(deadline: .now + .seconds(2))
        server.stop()
        await store.close()
        try? FileManager.default.removeItem(at: directory)
    }

    static func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures").appendingPathComponent(name).path
    }

    /// A token with `prefix`, distinct by `index`.
    static func token(_ prefix: String, _ index: Int) -> DeviceToken {
        try! DeviceToken(prefix + String(format: "%060x", index))
    }
}
