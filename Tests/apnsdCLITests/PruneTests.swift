import CLITestSupport
import Foundation
import TestSupport
import Testing

extension WorkerFleet {
    /// `apnsd prune` while a worker process sends.
    @Suite struct PruneTests {
        static let day: Int64 = 86_400_000

        /// The worker sends a campaign through apns-mock while `prune` deletes, over and over, every delivery finished a
        /// second ago — rows of the very campaign being sent — and 100,000 old rows: nothing is lost or sent twice,
        /// and the campaign's counters end exact.
        @Test func pruneWhileTheWorkerSendsLosesNothing() async throws {
            let devices = 1500
            let fleet = try await Fleet(devices: devices, rate: 500)
            defer { fleet.stop() }
            let campaign = try #require(fleet.campaign)
            let old = Int64(Date().timeIntervalSince1970 * 1000) - 40 * 86_400_000
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
            let worker = try fleet.startWorker(["--until-idle"])
            defer { worker.killIfRunning() }
            var prunes = 0
            var removed = 0
            while worker.process.isRunning {
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
            #expect(worker.waitForExit(60), "the worker finishes the campaign")
            #expect(worker.process.terminationStatus == 0, "\(worker.log.suffix(2000))")
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
}

/// `apnsd prune --enable-incremental-vacuum` on a database created before incremental vacuum.
