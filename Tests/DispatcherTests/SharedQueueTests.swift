import APNs
import APNsMock
import Dispatcher
import Foundation
import Logging
import QueueModel
import Store
import Testing

/// The queue tells the truth with slow backlogs, several workers and outages: the worker against apns-mock over
/// real TLS HTTP/2, with real SQLite files.
@Suite
struct SharedQueueTests {
    /// Log lines a test looks into.
    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        var logger: Logger { Logger(label: "test", minimumLevel: .debug, sink: .custom { line in self.append(line) }) }
        func append(_ line: String) { lock.withLock { lines.append(line) } }
        func count(_ message: String) -> Int {
            lock.withLock { lines.filter { $0.contains("\"msg\":\"\(message)\"") }.count }
        }
    }

    /// Polls `condition` every 20 ms until it holds (true) or `seconds` pass (false).
    static func poll(seconds: Double = 60, _ condition: () throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        while ContinuousClock.now < deadline {
            if try condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return try condition()
    }

    @Test func aBacklogThatOutlastsTheLeaseIsSentOnce() async throws {
        // 240 devices at 40/s take 6 s; the lease is 2 s (a heartbeat every 0.1 s, with room for a loaded machine's
        // late ones). A live worker never loses its own claims.
        let harness = try await DispatchHarness(connections: 1, rate: 40)
        try await harness.register(240)
        let campaign = try await harness.campaign()
        let lines = Lines()
        let worker = harness.worker(logger: lines.logger) { configuration in
            configuration.lease = .seconds(2)
            configuration.heartbeat = .milliseconds(100)
        }
        let summary = try await worker.run(untilIdle: true)
        let rows = try await harness.log(campaign)
        #expect(rows.count == 240 && rows.allSatisfy { $0.status == .accepted && $0.attempts == 1 })
        let stats = harness.server.stats()
        #expect(stats.totals.tokensAcceptedTwice == 0)
        #expect(stats.totals.requests == 240)
        #expect(summary.sent == 240)
        #expect(lines.count("worker.stale_leases_taken_over") == 0)
        #expect(try await harness.store.workers().isEmpty, "the worker unregistered")
        await harness.shutdown()
    }

    @Test(arguments: [2, 3])
    func workersStartedAtDifferentMomentsShareTheQueueWithoutDuplicates(workers count: Int) async throws {
        let harness = try await DispatchHarness(connections: 1, rate: 400)
        try await harness.register(3000)
        let campaign = try await harness.campaign()
        let lines = Lines()
        var workers = [harness.worker(logger: lines.logger)]
        for _ in 1..<count { workers.append(try await harness.extraWorker(logger: lines.logger)) }
        let summaries = try await withThrowingTaskGroup(of: WorkerSummary.self) { group in
            for (index, worker) in workers.enumerated() {
                // Worker k starts once APNs has seen 300·k requests: mid-queue, whatever the machine's speed.
                if index > 0 {
                    let seen = index * 300
                    #expect(
                        try await Self.poll { harness.server.stats().totals.requests >= seen },
                        "never reached \(seen) requests")
                }
                group.addTask { try await worker.run(untilIdle: true) }
            }
            var summaries: [WorkerSummary] = []
            for try await summary in group { summaries.append(summary) }
            return summaries
        }
        let rows = try await harness.log(campaign)
        #expect(rows.count == 3000)
        #expect(Set(rows.map(\.token)).count == 3000, "one row per device")
        #expect(rows.allSatisfy { $0.status == .accepted && $0.attempts == 1 })
        let stats = harness.server.stats()
        #expect(stats.totals.tokensAcceptedTwice == 0)
        #expect(stats.totals.requests == 3000)
        // Each worker did part of the work, and a starting worker took nothing over from the live ones.
        #expect(summaries.allSatisfy { $0.accepted > 0 }, "\(summaries.map(\.accepted))")
        #expect(summaries.map(\.accepted).reduce(0, +) == 3000)
        #expect(lines.count("worker.stale_leases_taken_over") == 0)
        #expect(lines.count("worker.registered") == count)
        let campaignRow = try await harness.store.campaign(campaign)
        #expect(
            campaignRow.status == .completed && campaignRow.counters.accepted == 3000
                && campaignRow.counters.pending == 0)
        await harness.shutdown()
    }

    @Test func anOutageLongerThanTheBackoffScheduleSpendsNoAttempts() async throws {
        // APNs is down when the worker starts and comes back 2 s later: longer than the whole retry schedule
        // (3 attempts, 20 ms … 200 ms), far shorter than the 60 s after which --until-idle would give up (a loaded
        // machine stretches the 2 s). Probes back off to retry.cap, 1 s.
        let harness = try await DispatchHarness(connections: 2, startingServer: false)
        try await harness.register(300)
        let campaign = try await harness.campaign()
        let lines = Lines()
        let worker = harness.worker(maxAttempts: 3, logger: lines.logger) { configuration in
            configuration.retry.cap = .seconds(1)
            configuration.unreachableLimit = .seconds(60)
        }
        let run = Task { try await worker.run(untilIdle: true) }
        // The worker has found APNs down, then the outage lasts 2 s more: longer than the whole retry schedule.
        #expect(try await Self.poll { lines.count("worker.apns_unreachable") == 1 }, "the worker never found APNs down")
        try await Task.sleep(for: .seconds(2))
        let during = try await harness.log(campaign)
        #expect(
            during.allSatisfy { $0.status == .pending && $0.attempts == 0 },
            "nothing failed or spent an attempt while down")
        try harness.startServer()
        let summary = try await run.value
        let rows = try await harness.log(campaign)
        #expect(rows.count == 300)
        #expect(rows.allSatisfy { $0.status == .accepted && $0.attempts == 1 })
        #expect(summary.failed == 0 && summary.accepted == 300)
        #expect(harness.server.stats().totals.tokensAcceptedTwice == 0)
        #expect(lines.count("worker.apns_unreachable") == 1)
        #expect(lines.count("worker.apns_reachable") == 1)
        await harness.shutdown()
    }

    @Test func untilIdleGivesUpOnAnOutageWithTheWorkStillPending() async throws {
        let harness = try await DispatchHarness(connections: 1, startingServer: false)
        try await harness.register(50)
        let campaign = try await harness.campaign()
        let worker = harness.worker { configuration in configuration.unreachableLimit = .milliseconds(600) }
        await #expect(throws: DispatcherError.self) { try await worker.run(untilIdle: true) }
        do {
            _ = try await worker.run(untilIdle: true)
        } catch {
            #expect("\(error)".contains("APNs unreachable"), "\(error)")
        }
        let rows = try await harness.log(campaign)
        #expect(rows.count == 50 && rows.allSatisfy { $0.status == .pending && $0.attempts == 0 })
        // Released: claimable by the next run at once.
        #expect(try await harness.store.claim(now: Date(), limit: 100, leaseFor: .seconds(1)).count == 50)
        await harness.shutdown()
    }

    @Test func aWorkerWhoseHeartbeatStoppedLosesItsLeasesToTheNextOne() async throws {
        let harness = try await DispatchHarness(connections: 1)
        try await harness.register(40)
        let campaign = try await harness.campaign()
        // A worker claimed half and died (no heartbeat since); its leases block the rows until they are stale.
        let dead = try await harness.store.registerWorker(host: "gone", pid: 1, now: Date().addingTimeInterval(-0.5))
        _ = try await harness.store.expandDueCampaigns(now: Date(), pageSize: 1000, maxPages: 1)
        let claimed = try await harness.store.claim(now: Date(), limit: 20, leaseFor: .seconds(60), worker: dead)
        #expect(claimed.count == 20)
        let lines = Lines()
        let summary = try await harness.worker(logger: lines.logger) { configuration in
            configuration.lease = .seconds(1)
            configuration.heartbeat = .milliseconds(100)
        }.run(untilIdle: true)
        #expect(summary.accepted == 40)
        #expect(lines.count("worker.stale_leases_taken_over") == 1)
        let rows = try await harness.log(campaign)
        #expect(rows.allSatisfy { $0.status == .accepted && $0.attempts == 1 })
        #expect(try await harness.store.workers().isEmpty)
        await harness.shutdown()
    }
}
