import CLITestSupport
import Foundation
import TestSupport
import Testing

/// `apns.credentials` on the command line: a topic no credential sends is refused at enqueue (nothing written), a
/// topic with a push type's suffix is its app's, and a wrong list stops every command with one line.
@Suite struct SeveralCredentialsTests {
    static let good = #"{"aps":{"alert":"hi"}}"#

    /// A CLI whose only credential, `ios`, sends com.example.app.
    static func configured() async throws -> CLI {
        var cli = try CLI()
        let key = CLI.fixture("keys/AuthKey_TESTKEY001.p8")
        cli.environment["APNSD_CONFIG"] = try cli.write(
            "apnsd.json",
            #"""
            {"apns":{"credentials":[{"name":"ios","keyFile":"\#(key)","keyId":"TESTKEY001","teamId":"TESTTEAM01","topics":["com.example.app"]}]}}
            """#)
        try #require(await cli.run("init").status == 0)
        return cli
    }

    @Test func aTopicNoCredentialSendsIsRefusedAtEnqueue() async throws {
        let cli = try await Self.configured()
        defer { cli.cleanUp() }
        for command in [
            ["send", Tokens.hex(1), "--topic", "com.example.other", "--payload", Self.good],
            ["campaign", "create", "--all", "--topic", "com.example.other", "--payload", Self.good],
        ] {
            let refused = try await cli.run(command)
            #expect(refused.status == 64, "\(command): \(refused.stderr)")
            #expect(
                refused.stderr
                    == "apnsd: error: no credential sends for topic 'com.example.other' (apns.credentials topics: com.example.app)\n",
                "\(refused.stderr)")
        }
        #expect(try await cli.run("campaign", "list", "--kind", "single", "--json").lines.isEmpty)
        #expect(try await cli.run("campaign", "list", "--json").lines.isEmpty)
        let voip = try await cli.run(
            "send", Tokens.hex(1), "--topic", "com.example.app", "--push-type", "voip", "--payload", Self.good)
        #expect(voip.status == 0, "\(voip.stderr)")
    }

    @Test func aWrongCredentialListStopsEveryCommandWithOneLine() async throws {
        var cli = try CLI()
        defer { cli.cleanUp() }
        cli.environment["APNSD_CONFIG"] = try cli.write(
            "apnsd.json",
            #"""
            {"apns":{"credentials":[{"name":"a","certificate":"/x.p12","topics":["com.a"]},{"name":"b","certificate":"/y.p12","topics":["com.a"]}]}}
            """#)
        let result = try await cli.run("device", "list")
        #expect(result.status == 64)
        #expect(
            result.stderr
                == "apnsd: error: topic com.a is listed by credentials 'a' and 'b': a bundle id belongs to one credential\n",
            "\(result.stderr)")
    }
}
