import APNsMock
import CLITestSupport
import Foundation
import TestSupport
import Testing

/// `apnsd migrate --from PATH --to URL`: a SQLite database with history (accepted, retried, deactivated,
/// pending work, API keys) copied into PostgreSQL reads the same there, and workers carry on from it.
@Suite(.enabled(if: PostgresCluster.enabled)) struct MigrateTests {
    @Test func roundTripKeepsCountsRowsAndOutput() async throws {
        let devices = 600
        let dead = Tokens.hex(3)
        let bad = Tokens.hex(5)
        let flaky = Tokens.hex(7)
        let fleet = try await Fleet(
            devices: devices, rate: 0,
            scenario: Scenario(tokens: [
                dead: TokenBehaviour(respond: .unregistered), bad: TokenBehaviour(respond: .badDeviceToken),
                flaky: TokenBehaviour(failTimes: 2, failStatus: 503),
            ]))
        defer { fleet.stop() }
        let cli = fleet.cli
        let sqlite = cli.database
        for index in 1...20 {
            #expect(try await cli.run("device", "add", Tokens.hex(index), "--user", "user-\(index % 4)").status == 0)
        }
        let sent = try await cli.run("worker", "--until-idle")
        #expect(sent.status == 0, "\(sent.stderr)")
        // Work that is still to do: a campaign for later, and an API key.
        let later = try await cli.run(
            "campaign", "create", "--all", "--payload", Fleet.payload, "--at", "2099-01-01T00:00:00Z")
        #expect(later.status == 0, "\(later.stderr)")
        #expect(try await cli.run("api-key", "create", "ops", "--scope", "read").status == 0)
        // A Live Activity token and a campaign to the activities of its type: kinds and audiences are copied.
        #expect(
            try await cli.run(
                "device", "add", Tokens.hex(devices + 1), "--user", "user-1", "--kind", "activity",
                "--activity-type", "DeliveryAttributes"
            ).status == 0)
        let activities = try await cli.run(
            "campaign", "create", "--activity-type", "DeliveryAttributes", "--kind", "activity", "--user", "user-1",
            "--push-type", "liveactivity", "--at", "2099-01-01T00:00:00Z",
            "--payload", #"{"aps":{"timestamp":1700000000,"event":"update","content-state":{"eta":5}}}"#)
        #expect(activities.status == 0, "\(activities.stderr)")
        // Broadcast channels (the mock serves channel management too): one live, one deleted; both rows are copied.
        var channels = cli
        channels.environment["APNSD_CHANNEL_PRODUCTION_URL"] = cli.environment["APNSD_PRODUCTION_URL"]
        #expect(try await channels.run("channel", "create", "--topic", Fleet.topic).status == 0)
        #expect(try await channels.run("channel", "create", "--topic", Fleet.topic, "--storage", "none").status == 0)
        #expect(try await channels.run("channel", "delete", "1").status == 0)

        let url = try PostgresCluster.shared.createDatabase()
        let migrated = try await cli.run("migrate", "--from", sqlite, "--to", url, "--json")
        #expect(migrated.status == 0, "\(migrated.stderr)")
        let copied = try Fleet.json(migrated.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(copied["devices"] as? Int == devices + 1 && copied["deliveries"] as? Int == devices, "\(copied)")
        #expect((copied["delivery_attempts"] as? Int ?? 0) >= 2, "the flaky token's retried answers: \(copied)")

        // Counts and rows equal, table by table (values as both shells print them; booleans as 0/1).
        for (table, columns) in [
            (
                "devices",
                "id, token, topic, environment, user_id, CASE WHEN active THEN 1 ELSE 0 END, registered_at, deactivated_at, reason, kind, activity_type"
            ),
            ("campaigns", "id, audience, audience_size, audience_activity_type, audience_activity_kind"),
            (
                "deliveries",
                "id, campaign_id, device_id, token, status, attempts, http_status, reason, created_at, updated_at"
            ),
            ("delivery_attempts", "delivery_id, attempt, at, http_status, reason"),
            ("events", "id, type, token, reason, campaign_id, delivery_id, at"),
            ("api_keys", "id, name, secret_hash, scopes"),
            ("channels", "id, channel_id, topic, environment, storage, credential, created_at, deleted_at"),
        ] {
            let sqliteColumns = columns.replacingOccurrences(
                of: "CASE WHEN active THEN 1 ELSE 0 END", with: "active")
            let left = try fleet.query("SELECT \(sqliteColumns) FROM \(table) ORDER BY 1, 2")
            let right = try PostgresCluster.query(url, "SELECT \(columns) FROM \(table) ORDER BY 1, 2").split(
                separator: "\n"
            ).map(String.init)
            let difference = zip(left, right).first { $0 != $1 }.map { "\($0) vs \($1)" } ?? "none"
            #expect(
                !left.isEmpty && left == right,
                "\(table): \(left.count) rows in SQLite, \(right.count) in PostgreSQL; first difference: \(difference)"
            )
        }
        // The commands print the same on both engines.
        var postgres = cli
        postgres.environment["APNSD_DATABASE"] = url
        for arguments in [
            ["campaign", "list", "--json"], ["campaign", "show", "1", "--json"],
            ["log", "--json", "--status", "unregistered"],
            ["log", "--json", "--token", flaky, "--attempts"], ["device", "list", "--user", "user-1", "--json"],
            ["channel", "list", "--deleted", "--json"],
        ] {
            let before = try await cli.run(arguments)
            let after = try await postgres.run(arguments)
            #expect(
                before.status == 0 && after.status == 0 && before.stdout == after.stdout && !before.stdout.isEmpty,
                "\(arguments.joined(separator: " ")):\n\(before.stdout)\(before.stderr)\nvs\n\(after.stdout)\(after.stderr)"
            )
        }
        // New ids continue after the copied ones; the scheduled campaign is still there, pending.
        let next = try await postgres.run("campaign", "create", "--all", "--payload", Fleet.payload)
        let laterID = try #require(Int(later.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(
            next.status == 0 && Int(next.stdout.trimmingCharacters(in: .whitespacesAndNewlines))! > laterID,
            "\(next.stdout)\(next.stderr)")
        #expect(
            try await postgres.run("campaign", "show", String(laterID), "--json").stdout.contains(
                #""status":"scheduled""#))
        var postgresChannels = postgres
        postgresChannels.environment["APNSD_CHANNEL_PRODUCTION_URL"] = cli.environment["APNSD_PRODUCTION_URL"]
        let channel = try await postgresChannels.run("channel", "create", "--topic", Fleet.topic)
        #expect(
            channel.status == 0 && channel.stdout.hasPrefix("created channel 3:"),
            "\(channel.stdout)\(channel.stderr)")

        // Into a database that holds rows: refused, unless --replace.
        let again = try await cli.run("migrate", "--from", sqlite, "--to", url)
        #expect(
            again.status == 1 && again.stderr.contains("already holds rows") && again.stderr.contains("--replace"),
            "\(again.stderr)")
        let replaced = try await cli.run("migrate", "--from", sqlite, "--to", url, "--replace")
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(
            try await postgres.run("campaign", "list", "--json").stdout
                == (try await cli.run("campaign", "list", "--json").stdout))
        #expect(try await cli.run("migrate", "--from", sqlite, "--to", "/tmp/x.sqlite").status == 64)
    }
}
