import Foundation
import HTTP2Transport
import TestSupport
import Testing

extension TransportIO {
    /// Certificate-based authentication: a pool's connections present the client certificate of its credential.
    @Suite(.enabled(if: NGHTTPD.isAvailable), .offThePool) struct ClientIdentityTests {
        static let request = APNsRequest(
            path: "/3/device/\(NGHTTPD.okToken)", headers: [("apns-topic", ClientPKI.bundleID)],
            body: Array("{}".utf8))

        /// One request from a connection presenting `client`'s identity to `server`, then the server stopped: the
        /// transport's result and what s_server logged of the handshake. s_server speaks no HTTP/2: the request ends
        /// without a response once the handshake is done.
        static func present(
            _ client: ClientPKI, to server: OpenSSLServer, trusting pki: TestPKI,
            label: String
        ) async throws -> (result: TransportResult, log: String) {
            let connection = try APNsConnection(
                configuration: ConnectionConfiguration(
                    baseURL: server.baseURL, caFile: pki.caFile, connectTimeout: .seconds(5),
                    requestTimeout: .seconds(2),
                    transportRetries: 0, label: label, clientIdentity: client.identity))
            let result = await connection.send(request)
            await connection.shutdown(timeout: .seconds(5))
            server.stop()
            return (result, try server.log())
        }

        @Test(
            "a server that requires a client certificate answers a connection that presents one, and refuses one without"
        )
        func presentedToAServerThatRequiresOne() async throws {
            let directory = try TempDirectory()
            defer { directory.remove() }
            let pki = try TestPKI(in: directory)
            let client = try ClientPKI(in: directory)
            let server = try NGHTTPD(pki: pki, directory: directory, requireClientCertificate: true)
            defer { server.stop() }

            let presenting = try APNsConnection(
                configuration: ConnectionConfiguration(
                    baseURL: server.baseURL, caFile: pki.caFile, connectTimeout: .seconds(5), label: "certificate",
                    clientIdentity: client.identity))
            let answered = await presenting.send(Self.request)
            await presenting.shutdown(timeout: .seconds(5))
            #expect(answered.status == 200, "\(answered)")

            let bare = try APNsConnection(
                configuration: ConnectionConfiguration(
                    baseURL: server.baseURL, caFile: pki.caFile, connectTimeout: .seconds(5), transportRetries: 0,
                    label: "no-certificate"))
            let refused = await bare.send(Self.request)
            await bare.shutdown(timeout: .seconds(5))
            #expect(refused.status == nil, "\(refused)")
            #expect(refused.error != nil)
        }

        @Test(
            "each pool presents its own credential's certificate: the certificate credential is answered, the token one is not"
        )
        func identityFollowsTheCredential() async throws {
            let directory = try TempDirectory()
            defer { directory.remove() }
            let pki = try TestPKI(in: directory)
            let client = try ClientPKI(in: directory)
            let server = try NGHTTPD(pki: pki, directory: directory, requireClientCertificate: true)
            defer { server.stop() }

            let configuration = TransportConfiguration(
                baseURLs: [.production: server.baseURL, .development: server.baseURL], caFile: pki.caFile,
                connectionsPerPool: 1,
                connectTimeout: .seconds(5), transportRetries: 0, clientIdentities: ["push-cert": client.identity])
            #expect(
                configuration.connectionConfiguration(
                    for: PoolKey(credentialID: "push-cert", environment: .development)
                ).clientIdentity == client.identity)
            #expect(
                configuration.connectionConfiguration(for: PoolKey(credentialID: "team-a", environment: .development))
                    .clientIdentity == nil)

            let registry = TransportRegistry(configuration: configuration)
            let certificate = await registry.send(
                Self.request, on: PoolKey(credentialID: "push-cert", environment: .development))
            let certificateProduction = await registry.send(
                Self.request, on: PoolKey(credentialID: "push-cert", environment: .production))
            let token = await registry.send(
                Self.request, on: PoolKey(credentialID: "team-a", environment: .development))
            await registry.shutdown(deadline: .now + .seconds(5))
            #expect(certificate.status == 200, "\(certificate)")
            #expect(certificateProduction.status == 200, "\(certificateProduction)")
            #expect(token.status == nil, "\(token)")
        }

        @Test("the server sees the loaded certificate's subject, and its chain verifies against the CA that issued it")
        func serverVerifiesThePresentedCertificate() async throws {
            let directory = try TempDirectory()
            defer { directory.remove() }
            let pki = try TestPKI(in: directory)
            let client = try ClientPKI(in: directory)
            let server = try OpenSSLServer(pki: pki, clientCAFile: client.caFile, directory: directory)
            let (result, log) = try await Self.present(client, to: server, trusting: pki, label: "certificate")

            #expect(result.status == nil)
            #expect(
                log.contains("depth=0 UID = \(ClientPKI.bundleID), CN = Apple Push Services: \(ClientPKI.bundleID)"),
                "\(log)")
            #expect(log.contains("depth=1 CN = apnsd test client CA"), "\(log)")
            #expect(!log.contains("verify error"), "\(log)")
        }

        @Test(
            "the intermediate certificate from the file is presented too: a server that trusts only the root verifies the chain"
        )
        func chainIsPresented() async throws {
            let directory = try TempDirectory()
            defer { directory.remove() }
            let pki = try TestPKI(in: directory)
            let client = try ClientPKI(in: directory, intermediate: true)
            let server = try OpenSSLServer(pki: pki, clientCAFile: client.caFile, directory: directory)
            let (_, log) = try await Self.present(client, to: server, trusting: pki, label: "chain")

            #expect(
                log.contains("depth=0 UID = \(ClientPKI.bundleID), CN = Apple Push Services: \(ClientPKI.bundleID)"),
                "\(log)")
            #expect(log.contains("depth=1 CN = apnsd test intermediate CA"), "\(log)")
            #expect(log.contains("depth=2 CN = apnsd test client CA"), "\(log)")
            #expect(!log.contains("verify error"), "\(log)")
        }

        @Test("a certificate from another CA does not verify on that server: the check above can fail")
        func otherCAIsRefused() async throws {
            let directory = try TempDirectory()
            defer { directory.remove() }
            let pki = try TestPKI(in: directory)
            let client = try ClientPKI(in: directory)
            let stranger = try ClientPKI(in: directory, name: "stranger")
            let server = try OpenSSLServer(pki: pki, clientCAFile: client.caFile, directory: directory)
            let (result, log) = try await Self.present(stranger, to: server, trusting: pki, label: "stranger")

            #expect(result.status == nil)
            #expect(log.contains("verify error"), "\(log)")
        }

        @Test("a connection's settings and a client identity print no key bytes")
        func redacted() throws {
            let directory = try TempDirectory()
            defer { directory.remove() }
            let client = try ClientPKI(in: directory)
            let configuration = ConnectionConfiguration(baseURL: "https://127.0.0.1:1", clientIdentity: client.identity)
            let keyLines = String(decoding: client.identity.privateKeyPEM, as: UTF8.self).split(separator: "\n")
                .dropFirst().dropLast()
            var dumped = ""
            dump(configuration, to: &dumped)
            for shown in [client.identity.description, String(reflecting: client.identity), "\(configuration)", dumped]
            {
                #expect(!shown.contains("PRIVATE KEY"))
                #expect(!keyLines.contains { shown.contains($0) })
            }
        }

        @Test("a client identity missing its key or certificate is refused before any connection")
        func incompleteIdentity() {
            let empty = ClientIdentity(
                certificateChainPEM: Array("-----BEGIN CERTIFICATE-----".utf8), privateKeyPEM: [])
            #expect(throws: TransportError.self) {
                try ConnectionConfiguration(baseURL: "https://127.0.0.1:1", clientIdentity: empty).validate()
            }
        }
    }
}
