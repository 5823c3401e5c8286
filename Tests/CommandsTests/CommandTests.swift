import CLITestSupport
import Foundation
import TestSupport
import Testing

/// The CLI's contract for scripts: outputs, JSON shapes, settings precedence, imports.
@Suite struct CommandTests {
    static let topic = "com.example.cli"

    func json(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func initIsIdempotentAndRequiredByOtherCommands() async throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        let missing = try await cli.run("device", "list")
        #expect(missing.status == 1 && missing.stderr.contains("apnsd init"))
        #expect(!FileManager.default.fileExists(atPath: cli.database), "a mistyped path must not create a database")
        #expect(try await cli.run("init").status == 0)
        #expect(try await cli.run("init").status == 0)
    }

    @Test func settingsPrecedenceIsFileThenEnvironmentThenFlags() async throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        let fromFile = cli.directory.appendingPathComponent("file.sqlite").path
        let fromEnv = cli.directory.appendingPathComponent("env.sqlite").path
        let fromFlag = cli.directory.appendingPathComponent("flag.sqlite").path
        let config = try cli.write("apnsd.json", #"{"database":"\#(fromFile)"}"#)
        var env = ["APNSD_CONFIG": config]
        env["APNSD_DATABASE"] = nil
        var cliWithoutDefault = cli
        cliWithoutDefault.environment["APNSD_DATABASE"] = nil
        #expect(try await cliWithoutDefault.run(["init"], environment: env).stdout.contains("file.sqlite"))
        env["APNSD_DATABASE"] = fromEnv
        #expect(try await cliWithoutDefault.run(["init"], environment: env).stdout.contains("env.sqlite"))
        #expect(
            try await cliWithoutDefault.run(["init", "--database", fromFlag], environment: env).stdout.contains(
                "flag.sqlite")
        )
        for path in [fromFile, fromEnv, fromFlag] { #expect(FileManager.default.fileExists(atPath: path)) }
    }

    @Test func importReportsBadLinesAndKeepsGoodOnes() async throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        try #require(await cli.run("init").status == 0)
        let lines = [
            Tokens.hex(1) + ",alice", Tokens.hex(2) + ",bob,development", "# a comment", "", "xyz,carol",
            Tokens.hex(3) + ",dave,staging", Tokens.hex(4).uppercased(),
        ]
        let result = try await cli.run(
            ["device", "import", "-", "--topic", Self.topic], stdin: lines.joined(separator: "\n"))
        #expect(result.status == 1)
        #expect(result.stderr.contains("-:5:") && result.stderr.contains("-:6:"))
        let devices = try await cli.run("device", "list", "--json").lines.map(json)
        #expect(devices.count == 3)
        let second = try #require(devices.first { $0["token"] as? String == Tokens.hex(2) })
        #expect(second["environment"] as? String == "development" && second["user"] as? String == "bob")
        #expect(devices.contains { $0["token"] as? String == Tokens.hex(4) }, "tokens are lowercased")
        #expect(devices.allSatisfy { ($0["active"] as? Bool) == true && $0["deactivatedAt"] is NSNull })
        let registered = try #require(devices.first?["registeredAt"] as? String)
        #expect(ISO8601DateFormatter().date(from: registered) != nil || registered.hasSuffix("Z"))
    }

    @Test func importLinksTheUsersAnImportStoppedBeforeItsEndLeftWaiting() async throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        try #require(await cli.run("init").status == 0)
        try #require(
            await cli.run(["device", "import", "-", "--topic", Self.topic], stdin: Tokens.hex(1) + ",alice").status == 0
        )
        #expect(try await cli.run("device", "list", "--user", "alice", "--json").lines.count == 1)
        // What a killed import leaves: its devices written with their users, the links still waiting.
        try SQLiteQuery.execute(
            cli.database,
            """
            DELETE FROM device_users;
            INSERT INTO device_users_pending (device_id, user_id) SELECT id, user_id FROM devices;
            """)
        #expect(try await cli.run("device", "list", "--user", "alice", "--json").lines.isEmpty)
        let next = try await cli.run(
            ["device", "import", "-", "--topic", Self.topic], stdin: Tokens.hex(2) + ",bob")
        #expect(next.status == 0, "\(next.stderr)")
        #expect(try await cli.run("device", "list", "--user", "alice", "--json").lines.count == 1)
        #expect(try await cli.run("device", "list", "--user", "bob", "--json").lines.count == 1)
        #expect(try SQLiteQuery.query(cli.database, "SELECT COUNT(*) FROM device_users_pending") == ["0"])
    }

    @Test func sendPrintsOnlyTheIdAndTheLogShowsIt() async throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        try #require(await cli.run("init").status == 0)
        let sent = try await cli.run(
            "send", Tokens.hex(9), "--topic", Self.topic, "--payload", #"{"aps":{"alert":"hi"}}"#,
            "--push-type", "alert", "--priority", "5", "--collapse-id", "order-1")
        #expect(sent.status == 0)
        let id = sent.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(Int(id) != nil)
        let log = try await cli.run("log", "--campaign", id, "--json").lines.map(json)
        #expect(log.count == 1)
        #expect(
            Set(log[0].keys) == [
                "id", "campaign", "token", "status", "httpStatus", "reason", "apnsId", "attempts", "updatedAt",
                "channel",
            ])
        #expect(log[0]["campaign"] as? String == id, "ids are JSON strings: \(log[0])")
        #expect((log[0]["id"] as? String).flatMap { Int($0) } != nil, "a delivery's id is a JSON string: \(log[0])")
        #expect(log[0]["status"] as? String == "pending" && log[0]["token"] as? String == Tokens.hex(9))
        let campaign = try json(try #require(await cli.run("campaign", "show", id, "--json").lines.first))
        #expect(campaign["id"] as? String == id, "ids are JSON strings: \(campaign)")
        #expect(
            campaign["kind"] as? String == "single" && campaign["priority"] as? Int == 5
                && campaign["collapseId"] as? String == "order-1")
    }

    @Test func campaignCreateCancelAndSchedule() async throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        try #require(await cli.run("init").status == 0)
        let file = try cli.write("tokens.txt", (1...25).map { Tokens.hex($0) }.joined(separator: "\n") + "\n")
        let created = try await cli.run(
            "campaign", "create", "--tokens", file, "--topic", Self.topic, "--payload", #"{"aps":{"alert":"x"}}"#,
            "--at", "2099-01-01T00:00:00Z")
        #expect(created.status == 0)
        let id = created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let shown = try json(try #require(await cli.run("campaign", "show", id, "--json").lines.first))
        #expect(shown["audienceSize"] as? Int == 25 && shown["scheduledAt"] as? String == "2099-01-01T00:00:00.000Z")
        #expect(shown["status"] as? String == "scheduled")
        let cancelled = try await cli.run("campaign", "cancel", id, "--json")
        #expect(cancelled.status == 0)
        #expect(
            try json(cancelled.stdout.trimmingCharacters(in: .whitespacesAndNewlines))["status"] as? String
                == "cancelled")
        // Nothing of a campaign is expanded or sent before its time, and a cancelled one never will be.
        #expect(
            try await cli.run("log", "--campaign", id, "--json").lines.allSatisfy {
                $0.contains(#""status":"cancelled""#)
            })
    }

    @Test func aTokenFileCampaignRunAgainWithItsKeyIsTheSameCampaign() async throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        try #require(await cli.run("init").status == 0)
        // More tokens than one chunk of the file's streaming (10,000).
        let file = try cli.write("tokens.txt", (1...12_000).map { Tokens.hex($0) }.joined(separator: "\n") + "\n")
        func create(_ path: String) async throws -> CLI.Result {
            try await cli.run(
                "campaign", "create", "--tokens", path, "--topic", Self.topic, "--payload", #"{"aps":{"alert":"x"}}"#,
                "--at", "2099-01-01T00:00:00Z", "--idempotency-key", "nightly-1")
        }
        let first = try await create(file)
        let again = try await create(file)
        #expect(first.status == 0 && again.status == 0 && first.stdout == again.stdout, "\(first) \(again)")
        let id = first.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let shown = try json(try #require(await cli.run("campaign", "show", id, "--json").lines.first))
        #expect(shown["audienceSize"] as? Int == 12_000)
        let other = try cli.write("other.txt", (2...12_001).map { Tokens.hex($0) }.joined(separator: "\n") + "\n")
        let refused = try await create(other)
        #expect(refused.status != 0 && refused.stdout.isEmpty, "\(refused)")
        #expect(try await cli.run("campaign", "list", "--json").lines.count == 1)
    }

    @Test func helpOnEveryLevel() async throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        let main = try await cli.run("--help")
        #expect(main.status == 0 && main.stdout.contains("USAGE: apnsd <command>"))
        for command in ["init", "device", "send", "campaign", "worker", "log"] {
            let help = try await cli.run(command, "--help")
            #expect(help.status == 0 && help.stdout.contains("USAGE"), "\(command)")
        }
    }
}
