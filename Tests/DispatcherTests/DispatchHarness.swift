import APNs
import APNsMock
import Dispatcher
import Foundation
import HTTP2Transport
import Logging
import ProviderAuth
import QueueModel
import Store
import TestSupport

/// A real dispatch setup for one test: a SQLite file in a temp folder, apns-mock over TLS HTTP/2 with a
/// throwaway CA, the fixture key, the libcurl transport and the worker. Nothing is mocked.
final class DispatchHarness: @unchecked Sendable {
    static let topic = "com.example.dispatch"
    let directory: URL
    let key: SigningKey
    let credential: ProviderCredential
    private var mock: MockServer?
    /// While the simulator is down, the harness holds its port bound and not listening: connections are refused,
    /// and no other test's server can take the port (which would answer TLS with a certificate we do not trust).
    private var reservedPort: Int32?
    private let makeServer: @Sendable (Int) throws -> MockServer
    /// The simulator (started with the harness unless `startingServer` was false).
    var server: MockServer { mock! }
    let port: Int
    let store: Store
    let transport: TransportRegistry
    let tokens: ProviderTokenCache
    let caFile: String
    let transportConfiguration: TransportConfiguration
    /// Stores and transports of extra workers (`extraWorker`), closed by `shutdown`.
    private var extras: [(Store, TransportRegistry)] = []

    init(
        scenario: Scenario = Scenario(), connections: Int = 2, rate: Int = 0, serverTeamID: String = "TESTTEAM01",
        tokenClock: (@Sendable () -> Date)? = nil, tokenUpdateInterval: TimeInterval = 1200,
        startingServer: Bool = true
    ) async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("apnsd-dispatch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        key = try SigningKey(contentsOfFile: Self.fixture("keys/AuthKey_TESTKEY001.p8"))
        credential = try ProviderCredential(keyId: "TESTKEY001", teamId: "TESTTEAM01")
        let identity = try TLSIdentity.throwaway()
        caFile = directory.appendingPathComponent("ca.pem").path
        try identity.caCertificatePEM!.write(toFile: caFile, atomically: true, encoding: .utf8)
        let serverCredential = try ProviderCredential(keyId: "TESTKEY001", teamId: serverTeamID)
        let verifier = JWTVerifier(key: key, credential: serverCredential)
        makeServer = { port in
            // Token stats listed: tests look up what one device got (count(token:status:)).
            try MockServer(
                configuration: MockConfiguration(
                    port: port, identity: identity, verifier: verifier, scenario: scenario,
                    tokenUpdateInterval: tokenUpdateInterval, statsTokens: true))
        }
        if startingServer {
            mock = try makeServer(0)
            port = mock!.port
        } else {
            let refusing = Ports.refusing()
            reservedPort = refusing.descriptor
            port = refusing.port
        }
        store = try await Store.open(at: directory.appendingPathComponent("apnsd.sqlite").path)
        transportConfiguration = TransportConfiguration(
            baseURLs: [.production: "https://127.0.0.1:\(port)", .development: "https://127.0.0.1:\(port)"],
            caFile: caFile,
            connectionsPerPool: connections, ratePerConnection: rate, connectTimeout: .seconds(10),
            requestTimeout: .seconds(10))
        transport = TransportRegistry(configuration: transportConfiguration)
        tokens = ProviderTokenCache(key: key, credential: credential, clock: tokenClock ?? { Date() })
    }

    /// Starts the simulator on the harness's port (for a harness made with `startingServer: false`).
    func startServer() throws {
        releasePort()
        mock = try makeServer(port)
    }

    /// Lets go of the port held while the simulator was down.
    private func releasePort() {
        if let reserved = reservedPort { close(reserved) }
        reservedPort = nil
    }

    /// A worker with a fast retry policy, so backoffs take milliseconds.
    func worker(
        maxAttempts: Int = 5, logger: Logger = Logger(label: "test", sink: .none), tokens: ProviderTokenCache? = nil,
        observer: (any WorkerObserver)? = nil,
        configure: (inout WorkerConfiguration) -> Void = { _ in }
    ) -> Worker {
        Worker(
            store: store, credentials: credentials(tokens ?? self.tokens), transport: transport,
            configuration: workerConfiguration(maxAttempts, configure), logger: logger, observer: observer)
    }

    /// The fixture key as the one credential, `default`, sending every topic.
    func credentials(_ tokens: ProviderTokenCache) -> CredentialSet {
        CredentialSet(
            only: SendingCredential(
                name: "default",
                authorization: .token(
                    tokens, keyID: credential.keyId, teamID: credential.teamId,
                    fingerprint: "fixture")))
    }

    /// Another worker process, as far as the queue can tell: its own connection to the file, its own pools.
    func extraWorker(
        maxAttempts: Int = 5, logger: Logger = Logger(label: "test", sink: .none),
        configure: (inout WorkerConfiguration) -> Void = { _ in }
    ) async throws -> Worker {
        let store = try await Store.open(at: self.store.path)
        let transport = TransportRegistry(configuration: transportConfiguration)
        extras.append((store, transport))
        return Worker(
            store: store, credentials: credentials(ProviderTokenCache(key: key, credential: credential)),
            transport: transport,
            configuration: workerConfiguration(maxAttempts, configure), logger: logger)
    }

    private func workerConfiguration(_ maxAttempts: Int, _ configure: (inout WorkerConfiguration) -> Void)
        -> WorkerConfiguration
    {
        var configuration = WorkerConfiguration(
            // A long lease: on a loaded machine a heartbeat can be seconds late, and only the tests of takeover
            // want another worker to take a live one's claims (they set a short lease of their own).
            lease: .seconds(30), heartbeat: .milliseconds(200),
            retry: RetryPolicy(base: .milliseconds(20), cap: .milliseconds(200), maxAttempts: maxAttempts),
            pollInterval: .milliseconds(50),
            // A handshake that times out on a loaded machine (sanitizers) is an outage:
            // `--until-idle` must not give up on it at the tests' tiny retry cap.
            unreachableLimit: .seconds(30))
        configuration.pace(
            ratePerConnection: transportConfiguration.ratePerConnection,
            connections: transportConfiguration.connectionsPerPool)
        configure(&configuration)
        return configuration
    }

    /// Registers `count` devices whose tokens start with `prefix`.
    @discardableResult
    func register(_ count: Int, prefix: String = "a11c", environment: Environment = .production, now: Date = Date())
        async throws -> [DeviceToken]
    {
        let tokens = try (0..<count).map { i in try DeviceToken(prefix + String(format: "%060x", i + 1)) }
        _ = try await store.importDevices(
            tokens.map { DeviceRegistration(token: $0, topic: Self.topic, environment: environment) }, now: now)
        return tokens
    }

    func campaign(
        _ audience: Audience = .all(), payload: String = #"{"aps":{"alert":"test"}}"#, expiration: Expiration? = nil
    ) async throws -> CampaignID {
        try await store.createCampaign(
            CampaignSpec(
                audience: audience,
                content: NotificationContent(
                    bundleID: Self.topic, expiration: expiration,
                    payload: Payload(json: payload))))
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
        for (store, transport) in extras {
            await transport.shutdown(deadline: .now + .seconds(2))
            await store.close()
        }
        mock?.stop()
        releasePort()
        await store.close()
        try? FileManager.default.removeItem(at: directory)
    }

    static func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("Fixtures").appendingPathComponent(name).path
    }

    /// A token with `prefix`, distinct by `index`.
    static func token(_ prefix: String, _ index: Int) -> DeviceToken {
        try! DeviceToken(prefix + String(format: "%060x", index))
    }
}
