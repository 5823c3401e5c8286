import APNs
import Dispatcher
import Foundation
import QueueModel
import Store
import Testing
import Threads

/// New work reaches an idle worker long before its poll interval (an hour here): in-process through its store's
/// `commits` signal, from another connection to the file (another process) through the store's change count.
@Suite(.serialized)
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
        CampaignSpec.single(to: token, environment: nil,
                            content: try NotificationContent(bundleID: DispatchHarness.topic, payload: Payload(json: #"{"aps":{"alert":"hi"}}"#)))
    }

    /// Runs a worker polling hourly, sends one notification so it has claimed and gone idle, then enqueues a second
    /// one with `enqueue` and says whether it was accepted within 60 s (generous: the suite runs on a loaded machine).
    static func secondSendArrives(enqueue: (DispatchHarness, DeviceToken) async throws -> CampaignID) async throws -> Bool {
        let harness = try await DispatchHarness()
        let tokens = try await harness.register(2)
        let stop = Locked(false)
        let worker = harness.worker { $0.pollInterval = .seconds(3600) }
        let run = Task { try await worker.run(untilIdle: false, shouldStop: { stop.withLock { $0 } }) }
        let first = try await harness.store.enqueueSingle(try single(tokens[0]))
        let firstArrived = try await eventually(20) { try await harness.store.campaign(first).counters.accepted == 1 }
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
