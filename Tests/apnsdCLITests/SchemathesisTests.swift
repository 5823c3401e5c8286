import APNsMock
import Foundation
import ProviderAuth
import TestSupport
import Testing

/// schemathesis (PyPI; installed by scripts/setup) generates requests from `/openapi.json` against a real
/// `apnsd serve` and checks that no answer is a 5xx, has an undocumented status, or breaks its schema.
@Suite(.offThePool) struct SchemathesisTests {
    /// Where scripts/setup installs it (APNSD_TOOLS overrides the folder, as there).
    static var executable: String {
        let environment = ProcessInfo.processInfo.environment
        let tools = environment["APNSD_TOOLS"] ?? (environment["HOME"] ?? "/root") + "/.cache/apnsd"
        return tools + "/schemathesis/bin/schemathesis"
    }

    @Test func generatedRequestsGetDocumentedAnswers() throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: Self.executable),
            "no \(Self.executable): run scripts/setup")
        var cli = try CLI()
        defer { cli.cleanUp() }
        // A key and apns-mock for channel management: /v1/channels reaches APNs (the mock takes any bundle id).
        let identity = try TLSIdentity.throwaway()
        let mock = try MockServer(
            configuration: MockConfiguration(
                identity: identity,
                verifier: JWTVerifier(
                    key: try SigningKey(contentsOfFile: CLI.fixture("keys/AuthKey_TESTKEY001.p8")),
                    credential: try ProviderCredential(keyId: "TESTKEY001", teamId: "TESTTEAM01"))))
        defer { mock.stop() }
        let url = "https://127.0.0.1:\(mock.port)"
        cli.environment.merge([
            "APNSD_KEY_FILE": CLI.fixture("keys/AuthKey_TESTKEY001.p8"), "APNSD_KEY_ID": "TESTKEY001",
            "APNSD_TEAM_ID": "TESTTEAM01",
            "APNSD_CA_FILE": try cli.write("ca.pem", identity.caCertificatePEM!),
            "APNSD_CHANNEL_PRODUCTION_URL": url, "APNSD_CHANNEL_DEVELOPMENT_URL": url,
        ]) { $1 }
        try #require(cli.run("init").status == 0)
        let key = try cli.run(
            "api-key", "create", "schemathesis", "--scope", "send", "--scope", "read", "--scope", "admin")
        try #require(key.status == 0 && key.lines.count == 1, "\(key.stderr)")
        // Something to find, so the GET routes answer 200 with items as well as 404 and empty pages.
        let topic = ["--default-topic", "com.example.schemathesis"]
        try #require(cli.run(["device", "add", Tokens.hex(1), "--user", "u1"] + topic).status == 0)
        let sent = try cli.run(["send", Tokens.hex(1), "--payload", #"{"aps":{"alert":"hi"}}"#] + topic)
        try #require(sent.status == 0, "\(sent.stderr)")
        let campaign = try cli.run(
            ["campaign", "create", "--all", "--payload", #"{"aps":{"alert":"all"}}"#] + topic)
        try #require(campaign.status == 0, "\(campaign.stderr)")

        let (serve, base) = try ServeTests.start(cli, ["--no-worker"] + topic)
        defer { serve.killIfRunning() }
        // GET /v1/events long-polls up to `wait` seconds (≤ 30): past the request timeout, so it is asked not to wait.
        let config = try cli.write(
            "schemathesis.toml",
            """
            [[operations]]
            include-name = "GET /v1/events"
            parameters = { "query.wait" = 0 }
            """)
        // Run in the scratch folder: schemathesis keeps the failures it found there and replays them next time.
        // One worker: schemathesis's threads trip a CPython 3.11 bug in ast.parse ("AST constructor recursion depth").
        let run = try ToolRun.run(
            "/usr/bin/env",
            [
                "-C", cli.directory.path, Self.executable, "--config-file", config, "run", base + "/openapi.json",
                "--header", "Authorization: Bearer \(key.lines[0])",
                "--checks",
                "not_a_server_error,status_code_conformance,response_schema_conformance,content_type_conformance",
                "--max-examples", "15", "--seed", "20261201", "--generation-database", "none",
                "--workers", "1", "--max-time", "30", "--request-timeout", "10", "--no-color",
            ])
        #expect(
            run.status == 0, "schemathesis:\n\(run.stdout)\n\(run.stderr)\nserve log:\n\(serve.log.suffix(3000))")
        #expect(run.stdout.contains("passed"), "schemathesis ran nothing?\n\(run.stdout)")
        #expect(serve.process.isRunning, "apnsd serve died: \(serve.log.suffix(3000))")
    }
}
