import CLITestSupport
import Foundation
import TestSupport
import Testing

/// `apnsd campaign pause` while a worker sends it, then `resume`: it stops, and goes on to send every device once.
@Suite struct PauseResumeTests {
    @Test func pauseStopsARunningCampaignAndResumeFinishesIt() async throws {
        let fleet = try await Fleet(devices: 1000, rate: 100)
        defer { fleet.stop() }
        let id = String(try #require(fleet.campaign))
        let worker = fleet.runWorker()
        defer { worker.stopIfRunning() }
        #expect(await Fleet.eventually(90, every: 0.02) { fleet.accepted >= 10 }, "\(worker.log.suffix(1500))")
        let paused = try await fleet.cli.run("campaign", "pause", id)
        #expect(
            paused.status == 0 && paused.stdout.hasPrefix("paused campaign \(id)"),
            "\(paused.stdout)\(paused.stderr)")
        #expect(
            await Fleet.eventually(20, every: 0.05) { !worker.events("worker.campaign_paused").isEmpty },
            "\(worker.log.suffix(1500))")
        // Requests already on the connection finish; then nothing more goes out.
        var last = -1
        #expect(
            await Fleet.eventually(60, every: 1) {
                defer { last = fleet.accepted }
                return fleet.accepted == last
            }, "sending did not stop")
        let stopped = fleet.accepted
        #expect(stopped < 1000, "the campaign finished before the pause")
        #expect(try await fleet.show(Int(id)!)["paused"] as? Bool == true)
        #expect(try await fleet.cli.run("campaign", "pause", "999").status == 1)

        let resumed = try await fleet.cli.run("campaign", "resume", id, "--json")
        #expect(
            try resumed.status == 0 && (try Fleet.json(resumed.stdout))["paused"] as? Bool == false,
            "\(resumed.stdout)\(resumed.stderr)")
        #expect(
            await Fleet.eventually(60, every: 0.05) {
                (try? await fleet.show(Int(id)!)["status"] as? String) == "completed"
            },
            "\(worker.log.suffix(1500))")
        #expect(await worker.terminate(within: 20) != nil)
        try await fleet.expectAllAcceptedOnce()
        let finished = try await fleet.cli.run("campaign", "resume", id)
        #expect(finished.status == 1 && finished.stderr.contains("completed"), "\(finished.stderr)")
    }
}
