import CLITestSupport
import Foundation
import TestSupport
import Testing

/// `apnsd cancel` on a single send before any worker ran: it is cancelled, the other one is sent.
@Suite struct CancelSingleSendTests {
    @Test func cancelASingleSendBeforeAnyWorkerRuns() async throws {
        let fleet = try await Fleet(devices: 0, rate: 100, campaign: false)
        defer { fleet.stop() }
        let (kept, dropped) = (Tokens.hex(1, prefix: "5e4d"), Tokens.hex(2, prefix: "5e4d"))
        let first = try await fleet.cli.run("send", dropped, "--payload", Fleet.payload)
        let second = try await fleet.cli.run("send", kept, "--payload", Fleet.payload)
        try #require(first.status == 0 && second.status == 0, "\(first.stderr)\(second.stderr)")
        let id = first.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let keptID = second.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(Int(id) != nil && Int(keptID) != nil)

        let cancel = try await fleet.cli.run("cancel", id)
        #expect(cancel.status == 0, "\(cancel.stderr)")
        #expect(cancel.stdout == "cancelled campaign \(id): 1 pending deliveries cancelled\n")
        let again = try await fleet.cli.run("cancel", id)
        #expect(again.status == 0 && again.stdout.contains("already cancelled"), "\(again.stdout)\(again.stderr)")
        let logged = try await fleet.log("--campaign", id)
        #expect(logged.count == 1)
        #expect(
            logged.first?["status"] as? String == "cancelled"
                && logged.first?["reason"] as? String == "CampaignCancelled"
                && logged.first?["token"] as? String == dropped, "\(logged)")

        let worker = try await fleet.cli.run("worker", "--until-idle")
        #expect(worker.status == 0, "\(worker.stderr)")
        let stats = fleet.server.stats()
        #expect(
            stats.count(token: dropped, status: 200) == 0 && stats.tokens[dropped] == nil,
            "the cancelled send never left")
        #expect(stats.count(token: kept, status: 200) == 1 && stats.totals.requests == 1)
        #expect(try await fleet.log("--campaign", id).first?["status"] as? String == "cancelled")
        #expect(try await fleet.log("--campaign", keptID).first?["status"] as? String == "accepted")
        #expect(try await fleet.show(Int(id)!)["status"] as? String == "cancelled")
    }
}
