import CLITestSupport
import Foundation
import TestSupport
import Testing

/// `apnsd prune` run as an operator (or the systemd timer) would: on a database the worker really filled through
/// apns-mock, rows aged with `sqlite3`, and while a worker sends.
@Suite struct PruneTests {
    static let day: Int64 = 86_400_000

    /// A digest of every row of the database: equal digests, nothing changed.
    static func digest(_ fleet: Fleet) throws -> String {
        try fleet.query(".sha3sum").joined()
    }

    /// Counters of `campaign show --json` (its other fields, e.g. the rate, move with time).
    static func counters(_ fleet: Fleet, _ id: Int) async throws -> [String] {
        let shown = try await fleet.show(id)
        return ["status", "total", "pending", "accepted", "rejected", "unregistered", "failed", "cancelled"].map {
            "\($0)=\(shown[$0] ?? "nil")"
        }
    }

    @Test func prunesOldRowsKeepsCountersAndPendingWorkAndRefusesBadInput() async throws {
        let fleet = try await Fleet(devices: 40, rate: 0)
        defer { fleet.stop() }
        let finished = try #require(fleet.campaign)
        let worker = try await fleet.cli.run("worker", "--until-idle")
        try #require(worker.status == 0, "\(worker.stderr)")
        // A cancelled single send and a running one (its delivery pending: no worker runs).
        let payload = #"{"aps":{"alert":"hi"}}"#
        let cancelled = try #require(
            Int(
                try await fleet.cli.run("send", Tokens.hex(1), "--payload", payload).stdout
                    .trimmingCharacters(in: .whitespacesAndNewlines)))
        try #require(try await fleet.cli.run("cancel", String(cancelled)).status == 0)
        let running = try #require(
            Int(
                try await fleet.cli.run("send", Tokens.hex(2), "--payload", payload).stdout
                    .trimmingCharacters(in: .whitespacesAndNewlines)))
        // Everything happened 40 days ago; devices 1–10 were last registered 100 days ago, 11–15 were deactivated
        // 100 days ago, 16–40 are fresh.
        try SQLiteQuery.execute(
            fleet.cli.database,
            """
            UPDATE deliveries SET created_at = created_at - 40 * \(Self.day), updated_at = updated_at - 40 * \(Self.day);
            UPDATE devices SET registered_at = registered_at - 100 * \(Self.day) WHERE id <= 15;
            UPDATE devices SET active = 0, reason = 'Unregistered', deactivated_at = registered_at WHERE id BETWEEN 11 AND 15;
            """)
        let campaigns = [finished, cancelled, running]
        var shownBefore: [[String]] = []
        for id in campaigns { shownBefore.append(try await Self.counters(fleet, id)) }
        #expect(
            shownBefore[0].contains("status=completed") && shownBefore[1].contains("status=cancelled")
                && shownBefore[2].contains("status=running"), "\(shownBefore)")
        let before = try Self.digest(fleet)

        // Bad values: one line, exit 64, nothing changed.
        for (arguments, environment) in [
            (["--deliveries-older-than", "30x"], [:]), (["--devices-inactive-for", "-5d"], [:]),
            (["--deliveries-older-than", "0d"], [:]), ([], ["APNSD_RETENTION_DEVICES_INACTIVE_FOR": "90"]),
            (["--dry-run", "--enable-incremental-vacuum"], [:]), (["now"], [:]),
        ] as [([String], [String: String])] {
            let result = try await fleet.cli.run(["prune"] + arguments, environment: environment)
            #expect(result.status == 64, "\(arguments) \(environment): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1 && result.stdout.isEmpty, "\(result.stderr)")
        }
        #expect(try Self.digest(fleet) == before)

        // A dry run counts: 40 accepted + 1 cancelled deliveries; devices 1–15 (5 deactivated).
        let dry = try await fleet.cli.run("prune", "--dry-run", "--json")
        try #require(dry.status == 0, "\(dry.stderr)")
        let counted = try Fleet.json(dry.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(counted["dryRun"] as? Bool == true)
        let dryDeliveries = try #require(counted["deliveries"] as? [String: Any])
        let dryDevices = try #require(counted["devices"] as? [String: Any])
        #expect(
            dryDeliveries["removed"] as? Int == 41 && dryDeliveries["olderThan"] as? String == "30d", "\(counted)")
        #expect(
            dryDevices["removed"] as? Int == 15 && dryDevices["deactivated"] as? Int == 5
                && dryDevices["notRegisteredAgain"] as? Int == 10 && dryDevices["inactiveFor"] as? String == "90d",
            "\(counted)")
        #expect(try Self.digest(fleet) == before, "a dry run changes nothing")

        let pruned = try await fleet.cli.run("prune", "--json")
        try #require(pruned.status == 0, "\(pruned.stderr)")
        let report = try Fleet.json(pruned.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(report["dryRun"] as? Bool == false)
        #expect((report["deliveries"] as? [String: Any])?["removed"] as? Int == 41, "\(report)")
        #expect((report["devices"] as? [String: Any])?["removed"] as? Int == 15, "\(report)")
        let space = try #require(report["space"] as? [String: Any])
        #expect(space["incrementalVacuum"] as? Bool == true && space["freePages"] as? Int == 0, "\(space)")
        #expect(
            space["pagesReclaimed"] is Int && space["bytesReclaimed"] is Int && space["fileBytes"] is Int
                && report["steps"] is Int)
        var shownAfter: [[String]] = []
        for id in campaigns { shownAfter.append(try await Self.counters(fleet, id)) }
        #expect(shownAfter == shownBefore, "campaign show keeps every count")
        #expect(
            try fleet.query("SELECT campaign_id, status FROM deliveries") == ["\(running)|pending"],
            "the pending delivery is kept")
        #expect(try fleet.query("SELECT min(id), count(*) FROM devices") == ["16|25"])

        // Nothing left to prune: one plain line.
        let again = try await fleet.cli.run("prune", "--deliveries-older-than", "24h", "--devices-inactive-for", "90m")
        #expect(again.status == 0 && again.lines.count == 1, "\(again.stdout) \(again.stderr)")
        #expect(again.stdout.hasPrefix("removed 0 deliveries"), "\(again.stdout)")
    }

    /// The worker sends a campaign through apns-mock while `prune` deletes, over and over, every delivery finished a
    /// second ago — rows of the very campaign being sent — and 100,000 old rows: nothing is lost or sent twice,
    /// and the campaign's counters end exact.
    @Test func pruneWhileTheWorkerSendsLosesNothing() async throws {
        let devices = 1500
        let fleet = try await Fleet(devices: devices, rate: 500)
        defer { fleet.stop() }
        let campaign = try #require(fleet.campaign)
        let old = Int64(Date().timeIntervalSince1970 * 1000) - 40 * Self.day
        try SQLiteQuery.execute(
            fleet.cli.database,
            """
            INSERT INTO campaigns (id, kind, status, topic, push_type, priority, payload, audience, expanded, scheduled_at,
                                   created_at, finished_at, total, accepted)
                VALUES (1000, 'bulk', 'completed', '\(Fleet.topic)', 'alert', 10, X'7B7D', 'all', 1, \(old), \(old), \(old), 100000, 100000);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000)
            INSERT INTO deliveries (id, campaign_id, token, environment, priority_class, status, attempts, next_attempt_at,
                                    http_status, created_at, updated_at)
                SELECT i, 1000, printf('%064x', i), 'production', 1, 'accepted', 1, 0, 200, \(old), \(old) FROM n;
            """)
        let worker = fleet.runWorker(["--until-idle"])
        defer { worker.stopIfRunning() }
        var prunes = 0
        var removed = 0
        while worker.isRunning {
            let result = try await fleet.cli.run("prune", "--deliveries-older-than", "1s", "--json")
            #expect(result.status == 0, "\(result.stderr)")
            let report = try Fleet.json(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            removed += (report["deliveries"] as? [String: Any])?["removed"] as? Int ?? 0
            prunes += 1
            if prunes > 1 { try await Task.sleep(for: .seconds(0.2)) }
            if fleet.accepted >= devices, (try await fleet.show(campaign))["status"] as? String == "completed" {
                break
            }
            if prunes > 2000 { break }
        }
        #expect(await worker.waitForExit(60), "the worker finishes the campaign")
        #expect(worker.exitStatus == 0, "\(worker.log.suffix(2000))")
        // At least one prune ran while the worker sent (under a sanitizer the first, with its 100,000 old rows, may
        // outlast the whole campaign); one more now takes the campaign's rows finished meanwhile.
        let last = try await fleet.cli.run("prune", "--deliveries-older-than", "1s", "--json")
        removed +=
            (try Fleet.json(last.stdout.trimmingCharacters(in: .whitespacesAndNewlines))["deliveries"]
            as? [String: Any])?["removed"] as? Int ?? 0
        #expect(prunes >= 1 && removed >= 100_000, "\(prunes) prunes removed \(removed) rows")
        let shown = try await fleet.show(campaign)
        #expect(shown["status"] as? String == "completed")
        #expect(
            shown["total"] as? Int == devices && shown["accepted"] as? Int == devices
                && shown["pending"] as? Int == 0, "\(shown)")
        let stats = fleet.server.stats()
        #expect(stats.tokens.count == devices, "every device reached APNs")
        #expect(stats.tokens.values.allSatisfy { $0.values.reduce(0, +) == 1 }, "each exactly once")
        #expect(try fleet.query("SELECT count(*) FROM deliveries WHERE status = 'pending'") == ["0"])
        let problems = worker.events().filter { ["warning", "error"].contains($0["level"] as? String ?? "") }
        #expect(problems.isEmpty, "the worker logged \(problems.prefix(3))")
    }
}

@Suite struct PruneVacuumConversionTests {
    @Test func convertsOnceAndNotUnderARunningWorker() async throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        try #require(try await cli.run("init").status == 0)
        try #require(try await cli.run("device", "add", Tokens.hex(1), "--topic", "com.example.app").status == 0)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        // The file as an older apnsd made it (no incremental vacuum), and a worker that heartbeats.
        try SQLiteQuery.execute(
            cli.database,
            """
            PRAGMA auto_vacuum = NONE; VACUUM;
            INSERT INTO workers (id, host, pid, started_at, heartbeat_at) VALUES (7, 'h', 1, \(now), \(now + 3_600_000));
            """)
        let mode = { try ToolRun.run("/usr/bin/sqlite3", ["-readonly", cli.database, "PRAGMA auto_vacuum"]).stdout }
        #expect(try mode() == "0\n")
        let plain = try await cli.run("prune")
        #expect(
            plain.status == 0 && plain.stderr.contains("--enable-incremental-vacuum"),
            "a note says how to convert: \(plain.stderr)")

        let refused = try await cli.run("prune", "--enable-incremental-vacuum")
        #expect(
            refused.status == 1 && refused.stderr.split(separator: "\n").count == 1
                && refused.stderr.contains("worker"),
            "\(refused.stderr)")
        #expect(try mode() == "0\n", "nothing changed")

        try SQLiteQuery.execute(cli.database, "DELETE FROM workers")
        let converted = try await cli.run("prune", "--enable-incremental-vacuum", "--json")
        #expect(converted.status == 0, "\(converted.stderr)")
        #expect(converted.stdout.contains(#""incrementalVacuum":true"#), "\(converted.stdout)")
        #expect(try mode() == "2\n")
    }
}
