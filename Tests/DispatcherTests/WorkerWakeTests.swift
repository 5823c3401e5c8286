import APNs
import Dispatcher
import Foundation
import QueueModel
import Store
import TestSupport
import Testing
import Threads

/// New work reaches an idle worker long before its poll interval (an hour here): in-process through its store's
/// `commits` signal, from another connection to the file (another process) through the store's change count.
@Suite(.measuresTime)
struct WorkerWakeTests {
    /// Polls `condition` every 20 ms for up to `seconds`.
    static func eventually(_ seconds: Double, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return try await condition()
    }

    static func single(_ token: DeviceToken) throws -> CampaignSpec {
        CampaignSpec.single(
            to: token, environment: nil,
            content: try NotificationContent(
                bundleID: DispatchHarness.topic, payload: Payload(json: #"{"aps":{"alert":"hi"}}"#)))
    }

    /// Runs a worker polling hourly, sends one notification so it has claimed and gone idle, then enqueues a second
    /// one with `enqueue` and says whether it was accepted within 60 s (generous: the suite runs on a loaded machine).
    static func secondSendArrives(enqueue: (DispatchHarness, DeviceToken) async throws -> CampaignID) async throws
        -> Bool
    {
        let harness = try await DispatchHarness()
        let tokens = try await harness.register(2)
        let stop = Locked(false)
        let worker = harness.worker { $0.pollInterval = .seconds(3600) }
        let run = Task { try await worker.run(untilIdle: false, shouldStop: { stop.withLock { $0 } }) }
        let first = try await harness.store.enqueueSingle(try single(tokens[0]))
        let firstArrived = try await eventually(60) { try await harness.store.campaign(first).counters.accepted == 1 }
        try #require(firstArrived)
        // Long enough for the claim after recording to have found nothing: the worker now waits for its poll.
        try await Task.sleep(for: .milliseconds(300))
        let second = try await enqueue(harness, tokens[1])
        let arrived = try await eventually(60) { try await harness.store.campaign(second).counters.accepted == 1 }
        stop.withLock { $0 = true }
        _ = try await run.value
        await harness.shutdown()
        return arrived
    }

    @Test func anInProcessEnqueueWakesTheWorkerAtOnce() async throws {
        let arrived = try await Self.secondSendArrives { harness, token in
            try await harness.store.enqueueSingle(try Self.single(token))
        }
        #expect(arrived, "the second send waited for the hourly poll")
    }

    @Test func anotherProcessesEnqueueIsSeenPromptly() async throws {
        let arrived = try await Self.secondSendArrives { harness, token in
            let producer = try await Store.open(at: harness.store.path)
            let id = try await producer.enqueueSingle(try Self.single(token))
            await producer.close()
            return id
        }
        #expect(arrived, "the second send waited for the hourly poll")
    }
}

/// A single send enqueued while the worker is busy with a throttled bulk campaign is claimed at once and sent
/// ahead of the bulk work the worker already holds (counted in bulk deliveries, not in time).
@Suite(.measuresTime) struct SingleOvertakesBulkTests {
    @Test func aSingleSendGoesAheadOfClaimedBulkWork() async throws {
        // 1 connection at 40/s; the worker claims 600 at a time (refilling below 300) and keeps 40 in flight.
        let harness = try await DispatchHarness(connections: 1, rate: 40)
        let tokens = try await harness.register(1000)
        let bulk = try await harness.campaign()
        let stop = Locked(false)
        let worker = harness.worker {
            $0.pollInterval = .seconds(3600)
            $0.claimBatch = 600
        }
        let run = Task { try await worker.run(untilIdle: false, shouldStop: { stop.withLock { $0 } }) }
        // Generous: a test process whose threads other suites hold may take long to get going.
        let busy = try await WorkerWakeTests.eventually(300) {
            try await harness.store.campaign(bulk).counters.accepted >= 20
        }
        try #require(busy)
        let acceptedBefore = try await harness.store.campaign(bulk).counters.accepted
        let single = try await harness.store.enqueueSingle(try WorkerWakeTests.single(tokens[999]))
        let arrived = try await WorkerWakeTests.eventually(60) {
            try await harness.store.campaign(single).counters.accepted == 1
        }
        let acceptedAfter = try await harness.store.campaign(bulk).counters.accepted
        stop.withLock { $0 = true }
        _ = try await run.value
        await harness.shutdown()
        #expect(arrived)
        // Before, it waited behind what the worker held: hundreds queued, and 40 in flight. Now only requests
        // already handed to the connection before the claim (at most its 40 in flight) go first.
        // Generous for a loaded machine (the loop may take a few turns to claim); without the overtaking it is ~240.
        #expect(
            acceptedAfter - acceptedBefore <= 100,
            "bulk deliveries sent before the single: \(acceptedAfter - acceptedBefore)")
    }
}
