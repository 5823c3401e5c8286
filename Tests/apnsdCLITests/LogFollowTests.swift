import APNsMock
import CLITestSupport
import Foundation
import TestSupport
import Testing

/// `apnsd log --follow` as a process: it prints what is written after it started, and ends on SIGTERM and SIGINT.
@Suite(.offThePool) struct LogFollowTests {
    @Test func followPrintsWhatIsWrittenAfterItStartedAndEndsOnSIGTERM() async throws {
        let fleet = try await Fleet(devices: 0, rate: 0, campaign: false)
        defer { fleet.stop() }
        let first = Tokens.hex(1)
        let later = Tokens.hex(2)
        try #require(await fleet.cli.run("send", first, "--payload", Fleet.payload).status == 0)
        let follower = try BackgroundWorker(cli: fleet.cli, arguments: ["log", "--follow", "--json"])
        defer { follower.killIfRunning() }
        func printed() -> [[String: Any]] {
            follower.output.split(separator: "\n").compactMap { try? Fleet.json(String($0)) }
        }
        #expect(
            await Fleet.eventually(10) { printed().contains { $0["token"] as? String == first } }, "\(follower.log)")

        // Written after the follower printed what was there: a new row, then the worker's answers.
        try #require(await fleet.cli.run("send", later, "--payload", Fleet.payload).status == 0)
        #expect(
            await Fleet.eventually(10) { printed().contains { $0["token"] as? String == later } }, "\(follower.output)")
        try #require(await fleet.cli.run("worker", "--until-idle").status == 0)
        #expect(
            await Fleet.eventually(10) {
                Set(
                    printed().filter { $0["status"] as? String == "accepted" }.compactMap { $0["token"] as? String }
                ) == [first, later]
            }, "\(follower.output)")
        let rows = printed()
        #expect(
            rows.filter { $0["token"] as? String == later }.map { $0["status"] as? String } == [
                "pending", "accepted",
            ],
            "each change printed once")

        #expect(follower.terminate(within: 10) != nil, "still running after SIGTERM")
        #expect(follower.process.terminationStatus == 0)
        #expect(follower.log.isEmpty, "\(follower.log)")

        // Started with a window, it lists the window and then does not print those rows again.
        let windowed = try BackgroundWorker(
            cli: fleet.cli, arguments: ["log", "--follow", "--since", "1h", "--json"])
        defer { windowed.killIfRunning() }
        #expect(await Fleet.eventually(10) { windowed.output.split(separator: "\n").count >= 2 }, "\(windowed.log)")
        try await Task.sleep(for: .seconds(1))  // a few polls, which must print nothing new
        kill(windowed.pid, SIGINT)
        #expect(windowed.waitForExit(10))
        windowed.process.waitUntilExit()
        #expect(windowed.process.terminationStatus == 0)
        #expect(windowed.output.split(separator: "\n").count == 2, "\(windowed.output)")
    }
}
