import CLITestSupport
import Foundation
import TestSupport
import Testing

/// `/v1/channels` through `apnsd serve` after a SIGHUP: a reload gives channels (and enqueue) the new credentials,
/// with the worker and API-only.
@Suite(.offThePool) struct ChannelReloadTests {
    static let topic = ChannelSetup.topic

    /// With the worker, and API-only (`--no-worker`, where the credentials are all a reload applies).
    @Test(arguments: [false, true]) func aReloadGivesChannelsAndEnqueueChecksTheNewCredentials(withoutWorker: Bool)
        async throws
    {
        var setup = try await ChannelSetup.make()
        defer { setup.stop() }
        // Credentials from the config file only: first for the scores app alone.
        let key = try #require(setup.cli.environment["APNSD_KEY_FILE"])
        for name in ["APNSD_KEY_FILE", "APNSD_KEY_ID", "APNSD_TEAM_ID"] { setup.cli.environment[name] = nil }
        func configure(_ topics: [String]) throws -> String {
            try setup.cli.write(
                "apnsd.json",
                #"""
                {"apns":{"credentials":[{"name":"sports","keyFile":"\#(key)","keyId":"TESTKEY001","teamId":"TESTTEAM01",
                  "topics":[\#(topics.map { "\"\($0)\"" }.joined(separator: ","))]}]}}
                """#)
        }
        setup.cli.environment["APNSD_CONFIG"] = try configure([Self.topic])
        let api = try await APIHarness(
            cli: setup.cli, arguments: withoutWorker ? ["--no-worker"] : [], initialized: true)
        defer { api.stop() }
        let other = ChannelSetup.other
        let refused = try api.call("POST", "/v1/channels", key: api.admin, json: #"{"topic":"\#(other)"}"#)
        #expect(
            refused.status != 201 && refused.body.contains("no credential sends"),
            "\(refused.status) \(refused.body)")
        let notification =
            #"{"topic":"\#(other)","token":"\#(String(repeating: "ab", count: 32))","payload":{"aps":{"alert":"hi"}}}"#
        #expect(try api.call("POST", "/v1/notifications", key: api.backend, json: notification).status == 400)

        _ = try configure([Self.topic, other])
        kill(api.serve.pid, SIGHUP)
        #expect(
            await Fleet.eventually(20, every: 0.02) { api.serve.log.contains("reload.done") },
            "\(api.serve.log.suffix(1500))")
        #expect(api.serve.log.contains(#""applied":"credentials""#), "\(api.serve.log.suffix(1500))")
        let created = try api.call("POST", "/v1/channels", key: api.admin, json: #"{"topic":"\#(other)"}"#)
        #expect(created.status == 201, "\(created.body)")
        #expect(try APIHarness.object(created)["credential"] as? String == "sports")
        #expect(try api.call("POST", "/v1/notifications", key: api.backend, json: notification).status == 202)
    }
}
