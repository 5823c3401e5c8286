import APNs
import APNsMock
import Dispatcher
import Foundation
import HTTP2Transport
import Logging
import ProviderAuth
import Threads

extension APITester {
    /// What `apnsd serve` runs beside the API, in process: the real worker on the tester's store, sending over TLS
    /// HTTP/2 to the in-process apns-mock with the fixture key (as the `default` credential, for every topic).
    final class Sending: Sendable {
        let server: MockServer
        let transport: TransportRegistry
        private let ownsServer: Bool
        private let stopping = Locked(false)
        private let running: Task<Void, Never>

        /// The tester's own mock, unless `server` (trusted through `caFile`) is given: then stopping leaves it running.
        init(_ tester: APITester, to given: (server: MockServer, caFile: String)? = nil) throws {
            let key = try SigningKey(contentsOfFile: Self.fixture("keys/AuthKey_TESTKEY001.p8"))
            let credential = try ProviderCredential(keyId: "TESTKEY001", teamId: "TESTTEAM01")
            let caFile: String
            if let given {
                (server, caFile, ownsServer) = (given.server, given.caFile, false)
            } else {
                let identity = try TLSIdentity.throwaway()
                caFile = try tester.write("ca.pem", identity.caCertificatePEM!)
                // Token stats listed: tests count what one device got.
                server = try MockServer(
                    configuration: MockConfiguration(
                        identity: identity, verifier: JWTVerifier(key: key, credential: credential), statsTokens: true))
                ownsServer = true
            }
            let url = "https://127.0.0.1:\(server.port)"
            transport = TransportRegistry(
                configuration: TransportConfiguration(
                    baseURLs: [.production: url, .development: url], caFile: caFile, connectionsPerPool: 1,
                    ratePerConnection: 0, connectTimeout: .seconds(10), requestTimeout: .seconds(10)))
            let tokens = ProviderTokenCache(key: key, credential: credential)
            let worker = Worker(
                store: tester.store,
                credentials: CredentialSet(
                    only: SendingCredential(
                        name: "default",
                        authorization: .token(
                            tokens, keyID: credential.keyId, teamID: credential.teamId, fingerprint: "fixture"))),
                transport: transport,
                configuration: WorkerConfiguration(
                    lease: .seconds(2), heartbeat: .milliseconds(200),
                    retry: RetryPolicy(base: .milliseconds(20), cap: .milliseconds(200), maxAttempts: 5),
                    pollInterval: .milliseconds(50), unreachableLimit: .seconds(30)),
                logger: Logger(label: "apnsd.worker", sink: .none))
            let stopping = stopping
            running = Task { _ = try? await worker.run(untilIdle: false, shouldStop: { stopping.withLock { $0 } }) }
        }

        /// Stops the worker as SIGTERM does, then the transport and the mock it started.
        func stop() async {
            stopping.withLock { $0 = true }
            await running.value
            await transport.shutdown(deadline: .now + .seconds(2))
            if ownsServer { server.stop() }
        }

        static func fixture(_ name: String) -> String {
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent()
                .appendingPathComponent("Fixtures").appendingPathComponent(name).path
        }
    }
}
