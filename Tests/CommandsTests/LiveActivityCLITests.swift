import CLITestSupport
import Foundation
import TestSupport
import Testing

/// `apnsd send` and `apnsd campaign create` with `--push-type liveactivity`: a valid start, update and end are
/// enqueued with the suffixed topic; every invalid variant exits 64 with one line naming what is wrong, and
/// changes nothing.
@Suite struct LiveActivityCLITests {
    static let topic = "com.example.cli"

    /// The rows an enqueue would add to, counted by the `sqlite3` shell.
    func written(_ cli: CLI) throws -> [String] {
        try SQLiteQuery.query(
            cli.database,
            """
            SELECT (SELECT count(*) FROM campaigns), (SELECT count(*) FROM deliveries), (SELECT count(*) FROM campaign_audience),
                   (SELECT count(*) FROM idempotency_keys), (SELECT count(*) FROM deferred_batches)
            """)
    }

    func prepared() async throws -> CLI {
        let cli = try CLI()
        try #require(await cli.run("init").status == 0)
        try #require(await cli.run("device", "add", Tokens.hex(1), "--topic", Self.topic, "--user", "u1").status == 0)
        return cli
    }

    @Test func startUpdateAndEndAreEnqueuedWithTheLiveActivityTopic() async throws {
        let cli = try await prepared()
        defer { cli.cleanUp() }
        for (payload, priority) in [
            (LiveActivityExamples.start, "10"), (LiveActivityExamples.update, "5"), (LiveActivityExamples.end, "10"),
        ] {
            let sent = try await cli.run(
                "send", Tokens.hex(1), "--topic", Self.topic, "--push-type", "liveactivity", "--priority", priority,
                "--payload", payload)
            #expect(sent.status == 0, "\(sent.stderr)")
            let id = sent.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let shown = try await cli.run("campaign", "show", id)
            #expect(
                shown.stdout.contains(
                    "topic        \(Self.topic).push-type.liveactivity  push type liveactivity  priority \(priority)"),
                "\(shown.stdout)")
        }
        // --all and --user reach kind device only: a Live Activity campaign names the activity type.
        let campaign = try await cli.run(
            "campaign", "create", "--all", "--topic", Self.topic, "--push-type", "liveactivity",
            "--payload", LiveActivityExamples.update)
        #expect(
            campaign.status == 64 && campaign.stderr.contains("a liveactivity push goes to Live Activity tokens"),
            "\(campaign.stderr)")
        let toUser = try await cli.run(
            "send", "--user", "u1", "--topic", Self.topic, "--push-type", "liveactivity", "--payload",
            LiveActivityExamples.update)
        #expect(toUser.status == 64 && toUser.stderr.contains("give the activity type"), "\(toUser.stderr)")
        let rows = try written(cli)
        #expect(rows[0].hasPrefix("3|"), "three notifications: \(rows)")
    }

    @Test(arguments: LiveActivityExamples.refusals.indices)
    func refusedWithOneLineAndNothingWritten(index: Int) async throws {
        let refusal = LiveActivityExamples.refusals[index]
        let cli = try await prepared()
        defer { cli.cleanUp() }
        let before = try written(cli)
        var options = [
            "--topic", refusal.topic ?? Self.topic, "--push-type", "liveactivity", "--payload", refusal.payload,
        ]
        if let priority = refusal.priority { options += ["--priority", String(priority)] }
        for command in [
            ["send", Tokens.hex(1)], ["campaign", "create", "--all"], ["campaign", "create", "--user", "u1"],
        ] {
            let result = try await cli.run(command + options)
            #expect(
                result.status == 64, "\(refusal.name), \(command[0]): exit \(result.status), stderr: \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(refusal.name)")
            let lines = result.stderr.split(separator: "\n")
            #expect(
                lines.count == 1 && lines[0].hasPrefix("apnsd: error: ") && lines[0].contains(refusal.says),
                "\(refusal.name), \(command[0]): \(result.stderr)")
        }
        #expect(try written(cli) == before, "\(refusal.name) changed the database")
    }

    @Test func aPayloadFileIsCheckedTheSameWay() async throws {
        let cli = try await prepared()
        defer { cli.cleanUp() }
        let before = try written(cli)
        let file = try cli.write("end.json", #"{"aps":{"event":"end","timestamp":1765006000000}}"#)
        let result = try await cli.run(
            "send", Tokens.hex(1), "--topic", Self.topic, "--push-type", "liveactivity", "--payload", "@" + file)
        #expect(result.status == 64)
        #expect(
            result.stderr
                == "apnsd: error: aps.timestamp 1765006000000 looks like milliseconds; give seconds since 1970 (1765006000)\n",
            "\(result.stderr)")
        #expect(try written(cli) == before)
        let piped = try await cli.run(
            ["send", Tokens.hex(1), "--topic", Self.topic, "--push-type", "liveactivity", "--payload", "@-"],
            stdin: LiveActivityExamples.end)
        #expect(piped.status == 0, "\(piped.stderr)")
    }
}
