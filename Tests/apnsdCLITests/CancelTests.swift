import Foundation
import TestSupport
import Testing

extension WorkerFleet {
    /// `apnsd campaign cancel` / `apnsd cancel`: nothing of the campaign leaves after the command returns except
    /// what was already on the wire, and the log says what happened to every delivery.
    @Suite struct CancelTests {
        static let devices = 3000

        @Test func cancelMidCampaignThroughTheCLI() throws {
            let fleet = try Fleet(devices: Self.devices, rate: 300)
            defer { fleet.stop() }
            let campaign = try #require(fleet.campaign)
            let worker = try fleet.startWorker()
            defer { worker.killIfRunning() }
            #expect(Fleet.waitUntil(20, every: 0.02) { fleet.accepted >= 500 }, "\(worker.log.suffix(2000))")

            let result = try fleet.cli.run("campaign", "cancel", String(campaign), "--json")
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
            Thread.sleep(forTimeInterval: 1.5)
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
            let withdrawn = Int(cancelled.first?["withdrawn"] as? String ?? "") ?? 0
            #expect(withdrawn > 0, "\(cancelled)")

            let took = worker.terminate(within: 10)
            #expect(took != nil && worker.process.terminationStatus == 0, "\(worker.log.suffix(2000))")

            // The log matches the mock token by token: 200 → accepted, never seen → cancelled.
            let stats = fleet.server.stats()
            #expect(stats.totals.tokensAcceptedTwice == 0)
            #expect(stats.tokens.values.allSatisfy { $0.keys.allSatisfy { $0 == "200" } }, "the mock answered only 200")
            let log = try fleet.log()
            #expect(log.count == Self.devices)
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
            let shown = try fleet.show(campaign)
            #expect(shown["status"] as? String == "cancelled")
            #expect(
                shown["accepted"] as? Int == accepted && shown["cancelled"] as? Int == cancelledRows
                    && shown["pending"] as? Int == 0 && shown["total"] as? Int == Self.devices, "\(shown)")
            #expect(
                try fleet.query(
                    "SELECT count(*) FROM deliveries WHERE leased_by IS NOT NULL OR leased_until IS NOT NULL") == ["0"])
            print(
                "cancel: \(acceptedAtCancel) accepted at the cancel, \(withdrawn) withdrawn, \(inFlight) on the wire, \(accepted) accepted in the end"
            )
        }

        @Test func cancelASingleSendBeforeAnyWorkerRuns() throws {
            let fleet = try Fleet(devices: 0, rate: 100, campaign: false)
            defer { fleet.stop() }
            let (kept, dropped) = (Tokens.hex(1, prefix: "5e4d"), Tokens.hex(2, prefix: "5e4d"))
            let first = try fleet.cli.run("send", dropped, "--payload", Fleet.payload)
            let second = try fleet.cli.run("send", kept, "--payload", Fleet.payload)
            try #require(first.status == 0 && second.status == 0, "\(first.stderr)\(second.stderr)")
            let id = first.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let keptID = second.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            try #require(Int(id) != nil && Int(keptID) != nil)

            let cancel = try fleet.cli.run("cancel", id)
            #expect(cancel.status == 0, "\(cancel.stderr)")
            #expect(cancel.stdout == "cancelled campaign \(id): 1 pending deliveries cancelled\n")
            let again = try fleet.cli.run("cancel", id)
            #expect(again.status == 0 && again.stdout.contains("already cancelled"), "\(again.stdout)\(again.stderr)")
            let logged = try fleet.log("--campaign", id)
            #expect(logged.count == 1)
            #expect(
                logged.first?["status"] as? String == "cancelled"
                    && logged.first?["reason"] as? String == "CampaignCancelled"
                    && logged.first?["token"] as? String == dropped, "\(logged)")

            let worker = try fleet.cli.run("worker", "--until-idle")
            #expect(worker.status == 0, "\(worker.stderr)")
            let stats = fleet.server.stats()
            #expect(
                stats.count(token: dropped, status: 200) == 0 && stats.tokens[dropped] == nil,
                "the cancelled send never left")
            #expect(stats.count(token: kept, status: 200) == 1 && stats.totals.requests == 1)
            #expect(try fleet.log("--campaign", id).first?["status"] as? String == "cancelled")
            #expect(try fleet.log("--campaign", keptID).first?["status"] as? String == "accepted")
            #expect(try fleet.show(Int(id)!)["status"] as? String == "cancelled")
        }
    }
}
