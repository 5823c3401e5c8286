import CLITestSupport
import Foundation
import TestSupport
import Testing
import Threads

/// `apnsd serve --tls-cert --tls-key`: HTTPS end to end, a client that does not trust the certificate refused, and
/// plain HTTP on the TLS port not served.
@Suite(.offThePool) struct HTTPSServeTests {
    @Test func httpsEndToEnd() async throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        try #require(await cli.run("init").status == 0)
        let key = try await APIHarness.createKey(cli, "backend", [])
        let cert = cli.directory.appendingPathComponent("cert.pem").path
        let privateKey = cli.directory.appendingPathComponent("key.pem").path
        let openssl = try await ToolRun.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
                "-subj", "/CN=127.0.0.1",
                "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", privateKey, "-out", cert,
            ])
        try #require(openssl.status == 0, "\(openssl.stderr)")
        let serve = try BackgroundWorker(
            cli: cli,
            arguments: [
                "serve", "--no-worker", "--listen", "127.0.0.1:0", "--tls-cert", cert, "--tls-key", privateKey,
            ])
        defer { serve.killIfRunning() }
        #expect(
            await Fleet.eventually(20, every: 0.02) { serve.output.contains("\n") || !serve.process.isRunning },
            "\(serve.log)")
        let first = try #require(serve.output.split(separator: "\n").first.map(String.init), "log: \(serve.log)")
        let prefix = "listening on https://127.0.0.1:"
        let port = try #require(
            first.hasPrefix(prefix) ? Int(first.dropFirst(prefix.count)) : nil, "first line: \(first)")

        let base = "https://127.0.0.1:\(port)"
        let health = await HTTPClient.request("GET", base + "/healthz", headers: [], curl: ["--cacert", cert])
        #expect(health?.status == 200, "\(String(describing: health))")
        let sent = await HTTPClient.request(
            "POST", base + "/v1/notifications",
            headers: ["Authorization: Bearer \(key)", "Content-Type: application/json"],
            body: APIHarness.notification(Tokens.hex(1), extra: #","topic":"com.example.app""#),
            curl: ["--cacert", cert])
        #expect(sent?.status == 202, "\(String(describing: sent))")
        let listed = await HTTPClient.request(
            "GET", base + "/v1/deliveries", headers: ["Authorization: Bearer \(key)"], curl: ["--cacert", cert])
        #expect(listed?.status == 200 && listed?.body.contains(Tokens.hex(1)) == true)
        await #expect(
            HTTPClient.request("GET", base + "/healthz", headers: [])?.status == nil,
            "an unknown CA is refused by curl")
        let plain = await HTTPClient.request("GET", "http://127.0.0.1:\(port)/healthz", headers: [])
        #expect(plain == nil || plain?.status != 200, "plain HTTP to the TLS port: \(String(describing: plain))")
        #expect(serve.terminate(within: 20) != nil && serve.process.terminationStatus == 0, "\(serve.log)")
    }
}
