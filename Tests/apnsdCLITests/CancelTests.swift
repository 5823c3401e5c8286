import CLITestSupport
import Foundation
import TestSupport
import Testing

extension WorkerFleet {
    /// `apnsd campaign cancel` / `apnsd cancel`: nothing of the campaign leaves after the command returns except
    /// what was already on the wire, and the log says what happened to every delivery.
    @Suite struct CancelTests {
        static let devices = 3000

        @Test func cancelMidCampaignThroughTheCLI() async throws {
            let fleet = try await Fleet(devices: Self.devices, rate: 300)
            defer { fleet.stop() }
            let campaign = try #require(fleet.campaign)
            let worker = try fleet.startWorker()
            defer { worker.killIfRunning() }
            #expect(await Fleet.eventually(20, every: 0.02) { fleet.accepted >= 500 }, "\(worker.log.suffix(2000))")

            let result = try await fleet.cli.run("campaign", "cancel", String(campaign), "--json")
            let atReturn = fleet.server.stats()
            try #require(result.status == 0, "\(result.stderr)")
            let report = try Fleet.json(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            let inFlight = try #require(report["inFlight"] as? Int)
            let cancelledNow = try #require(report["cancelledNow"] as? Int)
            let acceptedAtCancel = try #require(report["accepted"] as? Int)
            #expect(report["status"] as? String == "cancelled")
            #expect(report["unacknowledgedWorkers"] as? Int == 0, "the running worker acknowledged")
            #expect(report["pending"] as? Int == 0 && report["total"] as? Int == Self.devices)
            #expect(acceptedAtCancel + cancelledNow == Self.devices, "\(report)")
            #expect(acceptedAtCancel < Self.devices - 500, "the cancel came too late to test anything")
            #expect(inFlight <= 300, "at most a second of the rate is handed to the connection")

            // Nothing is sent after the command returns beyond what it reported on the wire.
            try await Task.sleep(for: .seconds(1.5))
            let later = fleet.server.stats()
            #expect(
                later.totals.requests <= atReturn.totals.requests + inFlight,
                "\(later.totals.requests - atReturn.totals.requests) requests after the cancel returned, \(inFlight) were on the wire"
            )
            #expect(worker.process.isRunning)
            let cancelled = worker.events("worker.campaign_cancelled")
            #expect(
                cancelled.count == 1 && cancelled.first?["campaign.id"] as? String == String(campaign), "\(cancelled)")
            // What waited for the throttle on the connection (about a second of the rate) was taken back unsent.
            let withdrawn = cancelled.first?["withdrawn"] as? Int ?? 0
            #expect(withdrawn > 0, "\(cancelled)")

            let took = worker.terminate(within: 10)
            #expect(took != nil && worker.process.terminationStatus == 0, "\(worker.log.suffix(2000))")

            // The log matches the mock token by token: 200 → accepted, never seen → cancelled; the audience a worker
            // had not expanded yet has no rows, and the campaign counts it cancelled.
            let stats = fleet.server.stats()
            #expect(stats.totals.tokensAcceptedTwice == 0)
            #expect(stats.tokens.values.allSatisfy { $0.keys.allSatisfy { $0 == "200" } }, "the mock answered only 200")
            let log = try await fleet.log()
            #expect(log.count <= Self.devices)
            var accepted = 0
            var cancelledRows = 0
            for entry in log {
                let token = try #require(entry["token"] as? String)
                if stats.count(token: token, status: 200) > 0 {
                    #expect(entry["status"] as? String == "accepted", "the mock accepted \(token): \(entry)")
                    accepted += 1
                } else {
                    #expect(
                        entry["status"] as? String == "cancelled" && entry["reason"] as? String == "CampaignCancelled"
                            && entry["attempts"] as? Int == 0, "never sent: \(entry)")
                    cancelledRows += 1
                }
            }
            #expect(accepted == stats.tokens.count, "every token the mock saw has a row")
            #expect(
                accepted >= acceptedAtCancel && accepted - acceptedAtCancel <= inFlight,
                "\(accepted - acceptedAtCancel) accepted after the cancel, \(inFlight) reported on the wire")
            let shown = try await fleet.show(campaign)
            #expect(shown["status"] as? String == "cancelled")
            #expect(
                shown["accepted"] as? Int == accepted
                    && shown["cancelled"] as? Int == cancelledRows + Self.devices - log.count
                    && shown["pending"] as? Int == 0 && shown["total"] as? Int == Self.devices, "\(shown)")
            #expect(
                try fleet.query(
                    "SELECT count(*) FROM deliveries WHERE leased_by IS NOT NULL OR leased_until IS NOT NULL") == ["0"])
            print(
                "cancel: \(acceptedAtCancel) accepted at the cancel, \(withdrawn) withdrawn, \(inFlight) on the wire, \(accepted) accepted in the end"
            )
        }

    }
}
