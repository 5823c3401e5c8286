import CLITestSupport
import Foundation
import TestSupport
import Testing

/// `apnsd campaign watch` (its JSON mode, as a cron job or a pipe sees it) and `campaign list`'s filters.
@Suite struct CampaignWatchTests {
    @Test func watchFollowsACampaignToItsEndAndSaysHowItEnded() async throws {
        let fleet = try await Fleet(devices: 60, rate: 40)
        defer { fleet.stop() }
        let id = String(try #require(fleet.campaign))
        let watch = fleet.cli.launch(["campaign", "watch", id, "--interval", "0.2"])
        defer { watch.stopIfRunning() }
        let worker = fleet.runWorker()
        defer { worker.stopIfRunning() }
        #expect(await watch.waitForExit(120), "watch did not end; \(watch.output.suffix(500))")
        #expect(watch.exitStatus == 0, "\(watch.log)")
        let lines = try watch.output.split(separator: "\n").map { try Fleet.json(String($0)) }
        #expect(lines.count >= 2, "\(watch.output)")
        let last = try #require(lines.last)
        #expect(
            last["status"] as? String == "completed" && last["done"] as? Int == 60
                && last["accepted"] as? Int == 60, "\(last)")
        #expect(last["percent"] as? Double == 100 && last["pending"] as? Int == 0)
        #expect(lines.allSatisfy { $0["id"] as? String == id && $0["ratePerSecond"] is Double })
        let done = lines.compactMap { $0["done"] as? Int }
        #expect(done == done.sorted(), "progress went backwards: \(done)")
        #expect(await worker.terminate(within: 20) != nil)

        // A cancelled campaign ends the watch with exit 1 and says why.
        let later = try await fleet.cli.run(
            "campaign", "create", "--all", "--payload", Fleet.payload, "--at", "2099-01-01T00:00:00Z")
        let laterID = later.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(later.status == 0)
        try #require(try await fleet.cli.run("campaign", "cancel", laterID).status == 0)
        let cancelled = try await fleet.cli.run("campaign", "watch", laterID, "--json")
        #expect(cancelled.status == 1 && cancelled.stderr.contains("was cancelled"), "\(cancelled.stderr)")
        #expect(try Fleet.json(cancelled.lines.last ?? "")["status"] as? String == "cancelled")

        // list: filters and a limit, newest first.
        try #require(await fleet.cli.run("send", Tokens.hex(1), "--payload", Fleet.payload).status == 0)
        let bulk = try await fleet.cli.run("campaign", "list", "--kind", "bulk", "--json").lines.map(Fleet.json)
        #expect(bulk.map { $0["id"] as? String } == [laterID, id], "\(bulk)")
        let newest = try await fleet.cli.run("campaign", "list", "--limit", "1", "--json").lines.map(Fleet.json)
        #expect(newest.count == 1 && newest[0]["kind"] as? String == "single")
        let cancelledOnes = try await fleet.cli.run("campaign", "list", "--status", "cancelled", "--json").lines.map(
            Fleet.json)
        #expect(cancelledOnes.map { $0["id"] as? String } == [laterID])
        #expect(try await fleet.cli.run("campaign", "list", "--kind", "everything").status == 64)
        #expect(try await fleet.cli.run("campaign", "list", "--limit", "0").status == 64)
        #expect(try await fleet.cli.run("campaign", "watch", "abc").status == 64)
        #expect(try await fleet.cli.run("campaign", "watch", "999").status == 1)
    }
}
