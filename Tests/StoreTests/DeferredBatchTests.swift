import APNs
import Foundation
import QueueModel
import Testing

@testable import Store

/// Large enqueue requests stored as one `deferred_batches` row and written as campaigns by the worker.
@Suite struct DeferredBatchTests {
    private func batch(_ range: Range<Int>) -> EnqueueRequest {
        EnqueueRequest(specs: range.map { single(token($0)) })
    }

    @Test func aLargeRequestIsOneRowUntilTheWorkerWritesItsNotifications() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await Store.open(at: folder.databasePath)
        let before = try await store.enqueueSingle(single(token(999)), now: t0)
        let done = try await store.enqueue([batch(0..<40)], now: at(1))[0].get()
        #expect(done.ids.map(\.rawValue) == Array((before.rawValue + 1)...(before.rawValue + 40)))
        #expect(done.deliveries == Array(repeating: 1, count: 40))
        // Only the last notification is a campaign with its delivery so far; the rest is one row.
        #expect(try await store.scalar("SELECT count(*) FROM campaigns") == 2)
        #expect(try await store.scalar("SELECT count(*) FROM deferred_batches") == 1)
        // A campaign created meanwhile takes an id after the batch's range.
        let after = try await store.enqueueSingle(single(token(998)), now: at(2))
        #expect(after.rawValue == done.ids.last!.rawValue + 1)

        // A waiting notification reads as a scheduled single send with its content.
        let waiting = try await store.campaign(done.ids[3])
        #expect(waiting.kind == .single && waiting.status == .scheduled && !waiting.isExpanded)
        #expect(
            waiting.audience.kind == .tokens && waiting.audience.size == 1
                && waiting.content == single(token(3)).content)
        #expect(waiting.createdAt == at(1))
        #expect(try await store.gauges(now: at(2)).pendingSingle == 42)
        #expect(try await store.nextDueDate() != nil)

        // The worker writes them page by page, each with the batch's time, ahead of nothing else lost.
        let page = try await store.expandDueCampaigns(now: at(3), pageSize: 15, maxPages: 1)
        #expect(page.pages == 1 && page.deliveriesInserted == 15 && page.moreRemaining)
        try await store.expandAll(now: at(3), pageSize: 15)
        #expect(try await store.scalar("SELECT count(*) FROM deferred_batches") == 0)
        let log = try await store.allLog()
        #expect(log.count == 42)
        for (n, id) in done.ids.enumerated() {
            let campaign = try await store.campaign(id)
            #expect(campaign.status == .running && campaign.createdAt == at(1) && campaign.counters.pending == 1)
            #expect(log.filter { $0.campaignID == id }.map(\.token) == [token(n)])
        }
        #expect(try await store.gauges(now: at(3)).pendingSingle == 42)
        #expect(try await store.scalar("SELECT count(*) FROM deliveries WHERE status = 'pending'") == 42)
    }

    @Test func cancellingAWaitingNotificationWritesItFirst() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await Store.open(at: folder.databasePath)
        let done = try await store.enqueue([batch(0..<20)], now: t0)[0].get()
        let report = try await store.finishCancel(done.ids[5], request: nil, now: at(1))
        #expect(report.cancelled == 1 && !report.wasFinished && report.campaign.status == .cancelled)
        // Those before it were written too; those after still wait.
        #expect(try await store.campaign(done.ids[4]).status == .running)
        #expect(try await store.campaign(done.ids[6]).status == .scheduled)
        try await store.expandAll(now: at(2))
        #expect(try await store.scalar("SELECT count(*) FROM deliveries WHERE status = 'pending'") == 19)
        #expect(try await store.scalar("SELECT count(*) FROM deliveries WHERE status = 'cancelled'") == 1)
        #expect(try await store.gauges(now: at(2)).pendingSingle == 19)
    }

    @Test func aBusyWorkerClaimsWaitingNotificationsAheadOfBulkWork() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await Store.open(at: folder.databasePath)
        _ = try await store.enqueue([batch(0..<30)], now: t0)
        let jobs = try await store.claimSingles(now: at(1), limit: 10, leaseFor: .seconds(60))
        // The last notification was a delivery already; ten more were written and the oldest claimed.
        #expect(jobs.count == 10 && jobs.allSatisfy { $0.kind == .single })
        #expect(try await store.scalar("SELECT cursor FROM deferred_batches") == 10)
    }

    @Test func aReplayedLargeRequestReturnsTheSameIds() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await Store.open(at: folder.databasePath)
        let key = IdempotencyKey(scope: .apiKey(id: 1), key: "k", requestHash: "h")
        var request = batch(0..<25)
        request.idempotency = key
        let first = try await store.enqueue([request], now: t0)[0].get()
        let replay = try await store.enqueue([request], now: at(1))[0].get()
        #expect(replay.isReplay && replay.ids == first.ids)
        #expect(try await store.scalar("SELECT count(*) FROM deferred_batches") == 1)
    }

    @Test func everyFieldOfARecordSurvives() throws {
        let content = try NotificationContent(
            bundleID: topic, pushType: .background, priority: .conservePower,
            expiration: Expiration(secondsSince1970: 4_102_444_800),
            collapseID: CollapseID("c-1"), apnsID: NotificationID("123e4567-e89b-12d3-a456-426614174000"),
            payload: Payload(json: #"{"aps":{"content-available":1},"ü":"é"}"#, pushType: .background))
        let specs = [
            CampaignSpec(
                kind: .single, audience: .tokens([token(1), token(2)], environment: .development), content: content),
            CampaignSpec(
                kind: .single, audience: .users(["alice", "bö b"], environment: .production),
                content: single(token(3)).content),
            CampaignSpec(kind: .single, audience: .users(["carol"]), content: content),
        ]
        let encoded = DeferredBatch.encode(specs)
        var reader = DeferredBatch.Reader(encoded)
        #expect(try (0..<3).map { _ in try reader.next() } == specs)
        var skipping = DeferredBatch.Reader(encoded)
        try skipping.skip()
        #expect(try skipping.next() == specs[1])
        // A truncated record is reported, not misread.
        var truncated = DeferredBatch.Reader(Array(encoded.dropLast()))
        _ = try truncated.next()
        _ = try truncated.next()
        #expect(throws: StoreError.self) { try truncated.next() }
    }
}
