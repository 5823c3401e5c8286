import CLITestSupport
import Foundation
import TestSupport
import Testing

/// Every invalid input gets one line on stderr, the right exit code, and changes nothing.
@Suite struct BadInputTests {
    static let topic = "com.example.cli"

    /// The rows of every table an operator cares about, as the CLI prints them.
    func snapshot(_ cli: CLI) async throws -> [String] {
        var rows: [String] = []
        for command in ["device list --json", "campaign list --json", "log --json"] {
            rows += try await cli.run(command.split(separator: " ").map(String.init)).lines
        }
        return rows
    }

    func prepared() async throws -> CLI {
        let cli = try CLI()
        try #require(await cli.run("init").status == 0)
        try #require(await cli.run("device", "add", Tokens.hex(1), "--topic", Self.topic, "--user", "u1").status == 0)
        try #require(
            await cli.run("send", Tokens.hex(1), "--topic", Self.topic, "--payload", #"{"aps":{"alert":"hi"}}"#).status
                == 0)
        return cli
    }

    static let good = #"{"aps":{"alert":"hi"}}"#
    static let cases: [(String, [String], Int32)] = [
        ("malformed token", ["send", "abc", "--topic", topic, "--payload", good], 64),
        ("non-hex token", ["send", "zz" + Tokens.hex(1).dropFirst(2), "--topic", topic, "--payload", good], 64),
        (
            "oversize payload",
            [
                "send", Tokens.hex(1), "--topic", topic, "--payload",
                #"{"aps":{"alert":""# + String(repeating: "x", count: 4080) + #""}}"#,
            ], 64
        ),
        ("bad JSON", ["send", Tokens.hex(1), "--topic", topic, "--payload", #"{"aps":"#], 64),
        ("payload without aps", ["send", Tokens.hex(1), "--topic", topic, "--payload", #"{"alert":"x"}"#], 64),
        ("bad priority", ["send", Tokens.hex(1), "--topic", topic, "--priority", "7", "--payload", good], 64),
        ("bad push type", ["send", Tokens.hex(1), "--topic", topic, "--push-type", "banner", "--payload", good], 64),
        (
            "background at priority 10",
            [
                "send", Tokens.hex(1), "--topic", topic, "--push-type", "background", "--priority", "10", "--payload",
                #"{"aps":{"content-available":1}}"#,
            ], 64
        ),
        (
            "collapse id over 64 bytes",
            [
                "send", Tokens.hex(1), "--topic", topic, "--collapse-id", String(repeating: "c", count: 65),
                "--payload",
                good,
            ], 64
        ),
        (
            "bad expiration", ["send", Tokens.hex(1), "--topic", topic, "--expiration", "tomorrow", "--payload", good],
            64
        ),
        ("missing payload", ["send", Tokens.hex(1), "--topic", topic], 64),
        ("no topic", ["send", Tokens.hex(1), "--payload", good], 64),
        ("unknown option", ["send", Tokens.hex(1), "--topic", topic, "--payload", good, "--urgent"], 64),
        ("two audiences", ["campaign", "create", "--all", "--user", "u1", "--topic", topic, "--payload", good], 64),
        ("no audience", ["campaign", "create", "--topic", topic, "--payload", good], 64),
        ("bad --at", ["campaign", "create", "--all", "--topic", topic, "--payload", good, "--at", "next week"], 64),
        ("unknown campaign show", ["campaign", "show", "999"], 1),
        ("unknown campaign cancel", ["campaign", "cancel", "999"], 1),
        ("campaign id not a number", ["campaign", "show", "abc"], 64),
        ("log of unknown campaign", ["log", "--campaign", "999"], 1),
        ("log with bad status", ["log", "--status", "sent"], 64),
        ("log with bad --since", ["log", "--since", "yesterday"], 64),
        ("log with a date that does not exist", ["log", "--until", "2026-02-30T00:00:00Z"], 64),
        ("log with --until before --since", ["log", "--since", "1h", "--until", "2h"], 64),
        ("log --follow with --until", ["log", "--follow", "--until", "1h"], 64),
        ("log with bad --limit", ["log", "--limit", "0"], 64),
        ("log with bad --reason", ["log", "--reason", "not a reason"], 64),
        ("log with empty --user", ["log", "--user", ""], 64),
        ("device list with empty --user", ["device", "list", "--user", ""], 64),
        ("bad retry jitter", ["worker", "--retry-jitter", "random"], 64),
        ("device add bad token", ["device", "add", "12345", "--topic", topic], 64),
        (
            "device add bad environment",
            ["device", "add", Tokens.hex(2), "--topic", topic, "--environment", "staging"], 64
        ),
        ("unknown command", ["deliver"], 64),
        ("unknown subcommand", ["device", "remove"], 64),
        ("bad connections flag", ["worker", "--connections", "0"], 64),
        ("bad rate flag", ["worker", "--rate", "fast"], 64),
        ("worker without key", ["worker", "--until-idle"], 64),
        ("lease shorter than two heartbeats", ["worker", "--until-idle", "--heartbeat", "5", "--lease", "9"], 64),
        ("bad max age", ["worker", "--max-age", "0"], 64),
        ("cancel id not a number", ["cancel", "abc"], 64),
        ("cancel unknown campaign", ["cancel", "999"], 1),
        ("retry with a status that cannot be retried", ["campaign", "retry", "1", "--status", "accepted"], 64),
        ("retry unknown campaign", ["campaign", "retry", "999"], 1),
        ("workers with an argument", ["workers", "all"], 64),
    ]

    @Test(arguments: cases.indices)
    func refusedWithOneLineAndNothingWritten(index: Int) async throws {
        let (name, arguments, expected) = Self.cases[index]
        let cli = try await prepared()
        defer { cli.cleanUp() }
        let before = try await snapshot(cli)
        let result = try await cli.run(arguments)
        #expect(result.status == expected, "\(name): exit \(result.status), stderr: \(result.stderr)")
        #expect(result.stdout.isEmpty, "\(name)")
        let errorLines = result.stderr.split(separator: "\n")
        #expect(errorLines.count == 1 && errorLines[0].hasPrefix("apnsd: error: "), "\(name): \(result.stderr)")
        #expect(try await snapshot(cli) == before, "\(name) changed the database")
    }

    @Test func aTokenFileWithOneBadLineCreatesNothing() async throws {
        let cli = try await prepared()
        defer { cli.cleanUp() }
        let file = try cli.write(
            "tokens.txt", (1...50).map { Tokens.hex($0) }.joined(separator: "\n") + "\nnot-a-token\n")
        let before = try await snapshot(cli)
        let result = try await cli.run(
            "campaign", "create", "--tokens", file, "--topic", Self.topic, "--payload", Self.good)
        #expect(result.status == 64)
        #expect(result.stderr.contains("tokens.txt:51"))
        #expect(try await snapshot(cli) == before)
    }

    @Test func aBrokenKeyFileStopsTheWorkerBeforeAnythingIsClaimed() async throws {
        let cli = try await prepared()
        defer { cli.cleanUp() }
        let key = try cli.write(
            "AuthKey_BROKEN0001.p8", "-----BEGIN PRIVATE KEY-----\nnot base64\n-----END PRIVATE KEY-----\n")
        let before = try await snapshot(cli)
        let result = try await cli.run(
            "worker", "--until-idle", "--key-file", key, "--key-id", "BROKEN0001", "--team-id", "TESTTEAM01")
        #expect(result.status == 1)
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(!result.stderr.contains("not base64"), "key material must not be echoed")
        #expect(try await snapshot(cli) == before)
    }

    @Test func aBadConfigFileValueIsNamed() async throws {
        let cli = try await prepared()
        defer { cli.cleanUp() }
        let config = try cli.write("rate.json", #"{"apns":{"rate":"lots"}}"#)
        let result = try await cli.run("campaign", "list", "--config", config)
        #expect(result.status == 1)
        #expect(result.stderr.contains("apns.rate") && result.stderr.contains("lots"))
        let unknown = try cli.write("typo.json", #"{"apns":{"conections":2}}"#)
        #expect(
            try await cli.run("campaign", "list", "--config", unknown).stderr.contains(
                "unknown setting 'apns.conections'"))
        let env = try await cli.run(["campaign", "list"], environment: ["APNSD_CONNECTIONS": "many"])
        #expect(env.status == 64 && env.stderr.contains("APNSD_CONNECTIONS"))
    }
}
