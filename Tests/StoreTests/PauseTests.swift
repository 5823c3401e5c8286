import APNs
import Foundation
import QueueModel
import Testing

@testable import Store

/// Pausing a bulk campaign parks what is unleased, keeps parked what workers release or retry meanwhile, stops its
/// expansion, and resuming makes it all due again in its order.
@Suite struct PauseTests {
    @Test(arguments: Engine.all) func pauseParksEverythingAndResumeGoesOnInOrder(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        try await store.registerDevices(0..<20, now: t0)
        let id = try await store.createCampaign(bulk(.all()), now: t0)
        try await store.expandAll(now: t0)
        let worker = try await store.registerWorker(host: "test", pid: 1, now: at(1))
        let held = try await store.claim(now: at(1), limit: 5, leaseFor: .seconds(60), worker: worker)
        #expect(held.count == 5)

        let (paused, parked) = try await store.pauseCampaign(id, now: at(2))
        #expect(parked == 15 && paused.isPaused && paused.status == .running)
        #expect(try await store.claim(now: at(3), limit: 100, leaseFor: .seconds(60), worker: worker).isEmpty)
        #expect(try await store.nextDueDate() == nil, "a paused campaign's deliveries are never due")
        #expect(try await store.pausedCampaigns() == [id])
        // What the worker held: one answer to retry, the rest released; both stay parked.
        _ = try await store.record(
            [.retry(held[0], at: at(4), httpStatus: 503, reason: .serviceUnavailable)], by: worker, now: at(3))
        #expect(try await store.release(held.dropFirst().map(\.id), by: worker, now: at(3)) == 4)
        #expect(try await store.claim(now: at(10), limit: 100, leaseFor: .seconds(60), worker: worker).isEmpty)
        #expect(try await store.gauges(now: at(10)).pendingBulk == 20)

        let (resumed, due) = try await store.resumeCampaign(id, now: at(11))
        #expect(due == 20 && !resumed.isPaused)
        let all = try await store.claim(now: at(11), limit: 100, leaseFor: .seconds(60), worker: worker)
        #expect(all.count == 20)
        #expect(all.map(\.id.rawValue) == all.map(\.id.rawValue).sorted(), "in their order")
    }

    @Test(arguments: Engine.all) func aPausedCampaignIsNotExpandedAndOnlyBulkUnfinishedCampaignsPause(engine: Engine)
        async throws
    {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        try await store.registerDevices(0..<10, now: t0)
        let id = try await store.createCampaign(bulk(.all()), now: t0)
        _ = try await store.pauseCampaign(id, now: t0)
        try await store.expandAll(now: at(1))
        #expect(try await store.campaign(id).counters.total == 0)
        #expect(try await store.nextDueDate() == nil)
        _ = try await store.resumeCampaign(id, now: at(2))
        try await store.expandAll(now: at(2))
        #expect(try await store.campaign(id).counters.total == 10)

        let single = try await store.enqueueSingle(single(token(50)), now: at(2))
        await #expect(throws: StoreError.self) { try await store.pauseCampaign(single, now: at(3)) }
        _ = try await store.finishCancel(id, request: nil, unacknowledged: 0, now: at(3))
        await #expect(throws: StoreError.self) { try await store.pauseCampaign(id, now: at(4)) }
        await #expect(throws: StoreError.self) { try await store.resumeCampaign(id, now: at(4)) }
    }
}
