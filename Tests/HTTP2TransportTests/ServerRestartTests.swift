import Foundation
import HTTP2Transport
import Testing

extension TransportIO {
    /// The server process dies mid-run (SIGKILL, no GOAWAY) and comes back on the same port.
    @Suite(.enabled(if: NGHTTPD.isAvailable)) struct ServerRestartTests {
        @Test func failuresAreRetryableAndTheConnectionRecovers() async throws {
            let directory = try TempDirectory()
            defer { directory.remove() }
            let pki = try TestPKI(in: directory)
            var server = try NGHTTPD(pki: pki, directory: directory)
            let port = server.port
            let connection = try APNsConnection(
                configuration: ConnectionConfiguration(
                    baseURL: server.baseURL, caFile: pki.caFile, ratePerSecond: 500, connectTimeout: .seconds(2),
                    label: "restart"))
            let request = APNsRequest(
                path: "/3/device/\(NGHTTPD.okToken)", headers: [("apns-topic", "t")], body: Array("{}".utf8))

            // A steady stream of requests (6 s at 500/s: a late test task still finds it running); the server dies
            // in the middle of it.
            async let during = sendMany(3_000, request, via: connection.send)
            try await waitUntil { connection.stats.completed >= 200 }
            server.kill()
            let results = await during
            #expect((results.statuses[200] ?? 0) > 0)
            let failures = results.failures
            #expect(!failures.isEmpty, "some requests were cut or refused")
            for failure in failures {
                #expect(failure.isRetryable, "\(failure)")
                #expect(failure.isConnectionFatal, "\(failure)")
                #expect(failure.kind == .connect || failure.kind == .connectionLost, "\(failure)")
            }

            // Back on the same port: the same connection object reconnects by itself.
            server = try NGHTTPD(pki: pki, directory: directory, port: port)
            defer { server.stop() }
            let after = await sendMany(200, request, via: connection.send)
            await connection.shutdown(timeout: .seconds(5))
            #expect(after.statuses == [200: 200], "\(after.failures)")
        }
    }
}
