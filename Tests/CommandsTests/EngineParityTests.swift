import APNsMock
import CLITestSupport
import Foundation
import TestSupport
import Testing

/// Every command works on both engines and prints the same: one script of commands run on a SQLite file and on
/// a PostgreSQL database, each with its own apns-mock, outputs compared line by line (times and rates aside).
@Suite(.enabled(if: PostgresCluster.enabled)) struct EngineParityTests {
    @Test func everyCommandPrintsTheSameOnBothEngines() async throws {
        let sqlite = try await Self.script(database: nil)
        let postgres = try await Self.script(database: try PostgresCluster.shared.createDatabase())
        #expect(sqlite.count == postgres.count)
        // The update to the activities of a type reached the update token, and only it.
        let update = try #require(sqlite.first { $0.hasPrefix("$ apnsd log --token \(Tokens.hex(44))") })
        #expect(update.contains(#""status":"accepted""#) && update.split(separator: "\n").count == 2, "\(update)")
        // The dry runs' counts (devices 3, 42 and the removed ones are inactive; u2 has only a Live Activity token;
        // of the tokens file, 1 is registered in production, 42 is skipped, 99 is not registered), and the past
        // time refused.
        let dryRuns = sqlite.filter {
            $0.hasPrefix("$ apnsd campaign create") && ($0.contains(" --dry-run") || $0.contains("2020-01-01"))
        }
        #expect(
            dryRuns.map { $0.split(separator: "\n").dropFirst().joined(separator: "\n") } == [
                #"{"dryRun":true,"audience":{"production":39,"development":0}}"#,
                #"{"dryRun":true,"audience":{"production":0,"development":0}}"#,
                #"{"dryRun":true,"audience":{"production":1,"development":1}}"#,
                #"{"dryRun":true,"audience":{"production":1,"development":0}}"#,
                "apnsd: error: --at: <time> is more than 5 minutes in the past (it is <time> now): give a later time, or now",
                "apnsd: error: --at: <time> is more than 5 minutes in the past (it is <time> now): give a later time, or now",
            ], "\(dryRuns)")
        #expect(
            dryRuns.map { $0.split(separator: "\n")[0].split(separator: " ").last ?? "" }
                == ["0", "0", "0", "0", "64", "64"], "\(dryRuns)")
        for (left, right) in zip(sqlite, postgres) {
            #expect(left == right, "SQLite and PostgreSQL differ:\n\(left)\nvs\n\(right)")
        }
    }

    /// The commands and their normalized outputs (exit status, stdout, stderr).
    static func script(database: String?) async throws -> [String] {
        let dead = Tokens.hex(3)
        let fleet = try await Fleet(
            devices: 40, rate: 0, database: database,
            scenario: Scenario(tokens: [dead: TokenBehaviour(respond: .unregistered)]))
        defer { fleet.stop() }
        let cli = fleet.cli
        let payload = #"{"aps":{"alert":"parity"}}"#
        var outputs: [String] = []
        func run(_ arguments: String...) async throws {
            let result = try await cli.run(arguments)
            // A worker's log lines come in an order that depends on timing (token minted, connection opened,
            // campaign started): its summary is compared, and which lines it logged. Not the sampled ones: a
            // connection is reported at the next sample, which a short run may end before.
            let sampled: Set<Substring> = [
                "apns.connection_opened", "apns.connection_closed", "apns.connection_failed", "worker.throughput",
            ]
            let stderr =
                arguments[0] == "worker"
                ? Set(
                    result.stderr.split(separator: "\n").compactMap { $0.firstMatch(of: /"msg":"([^"]+)"/)?.1 }
                ).subtracting(sampled).sorted().joined(separator: " ")
                : normalize(result.stderr)
            outputs.append(
                "$ apnsd \(arguments.joined(separator: " ")) → \(result.status)\n\(normalize(result.stdout))\(stderr)"
                    .replacingOccurrences(of: cli.directory.path, with: "<dir>"))
        }
        try await run("device", "add", Tokens.hex(41), "--user", "u1")
        try await run("device", "add", Tokens.hex(42), "--user", "u1")
        try await run("device", "add", Tokens.hex(43), "--replaces", Tokens.hex(42))
        try await run("device", "list", "--user", "u1", "--json")
        try await run("device", "add", "not-a-token")
        try await run("send", Tokens.hex(41), "--payload", payload)
        try await run("send", "--user", "u1", "--payload", payload, "--priority", "5")
        try await run("campaign", "create", "--user", "u1", "--payload", payload)
        try await run("campaign", "create", "--all", "--payload", payload, "--at", "2099-01-01T00:00:00Z")
        try await run("campaign", "pause", "5")
        try await run("campaign", "resume", "5")
        try await run("campaign", "list", "--json")
        try await run("worker", "--until-idle")
        try await run("campaign", "list", "--json")
        try await run("campaign", "show", "1", "--json")
        try await run("campaign", "list", "--kind", "single", "--json")
        try await run("campaign", "cancel", "5", "--json")
        try await run("campaign", "retry", "1", "--status", "failed")
        try await run("log", "--json")
        try await run("log", "--status", "unregistered", "--json")
        try await run("log", "--user", "u1", "--json")
        try await run("log", "--token", dead, "--json")
        try await run("device", "list", "--inactive", "--json")
        try await run("device", "remove", "--user", "u1")
        try await run("device", "list", "--json")
        try await run("stats", "--json")
        try await run("stats", "--campaign", "1", "--json")
        try await run("workers", "--json")
        try await run("prune", "--dry-run", "--json")
        try await run("prune", "--json")
        try await run("log", "--json")
        // Live Activity tokens, and an update to the activities of a type (the devices above are never in it).
        try await run(
            "device", "add", Tokens.hex(44), "--user", "u2", "--kind", "activity", "--activity-type",
            "DeliveryAttributes")
        try await run("device", "add", Tokens.hex(45), "--kind", "pushToStart", "--activity-type", "DeliveryAttributes")
        try await run("device", "add", Tokens.hex(46), "--kind", "activity")
        try await run("device", "list", "--kind", "activity", "--json")
        // Dry runs count the devices a campaign would reach, by environment, and write nothing (no key either).
        let campaigns = try await cli.run("campaign", "list", "--json").stdout
        let tokens = try cli.write(
            "dry-run.tokens", [1, 1, 42, 99].map { Tokens.hex($0) }.joined(separator: "\n"))
        try await run("campaign", "create", "--all", "--payload", payload, "--at", "now", "--dry-run")
        try await run("campaign", "create", "--user", "u2", "--payload", payload, "--dry-run")
        try await run(
            "campaign", "create", "--tokens", tokens, "--environment", "development", "--payload", payload,
            "--dry-run", "--idempotency-key", "dry")
        try await run(
            "campaign", "create", "--activity-type", "DeliveryAttributes", "--push-type", "liveactivity", "--payload",
            #"{"aps":{"timestamp":1700000000,"event":"update","content-state":{"eta":5}}}"#, "--dry-run")
        try await run("campaign", "create", "--all", "--payload", payload, "--at", "2020-01-01T00:00:00Z")
        try await run("campaign", "create", "--all", "--payload", payload, "--at", "2020-01-01T00:00:00Z", "--dry-run")
        #expect(try await cli.run("campaign", "list", "--json").stdout == campaigns, "a dry run wrote a campaign")
        #expect(try fleet.query("SELECT count(*) FROM idempotency_keys") == ["0"], "a dry run kept its key")
        try await run(
            "campaign", "create", "--activity-type", "DeliveryAttributes", "--push-type", "liveactivity",
            "--payload", #"{"aps":{"timestamp":1700000000,"event":"update","content-state":{"eta":5}}}"#)
        try await run("worker", "--until-idle")
        try await run("log", "--token", Tokens.hex(44), "--json")
        try await run("campaign", "list", "--kind", "bulk", "--json")
        try await run("campaign", "show", "999")
        return outputs
    }

    /// Times, durations, rates, the apns-ids the mock makes up, the database's name and the storage figures of
    /// `prune` (a file's pages, or PostgreSQL's) differ between the two runs; everything else must not.
    static func normalize(_ text: String) -> String {
        var text = text
        let patterns = [
            #"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z"#: "<time>",
            #""(seconds|requestsPerSecond|acceptedPerSecond|rate|elapsed|eta)":[0-9.e+-]+"#: #""$1":<n>"#,
            #"in [0-9.]+ s"#: "in <n> s",
            #"database [^ ]*:"#: "database <db>:",
            #""database":"[^"]*""#: #""database":"<db>""#,
            #"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"#: "<uuid>",
            #""space":\{[^}]*\}"#: #""space":<engine>"#,
        ]
        for (pattern, replacement) in patterns {
            text = text.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
        }
        return text
    }
}
