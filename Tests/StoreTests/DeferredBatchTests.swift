import APNs
import Foundation
import QueueModel
import TestSupport
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

    /// A batch of many megabytes is rows of about `rowItems` bytes each, ids in sequence, written through the small
    /// page cache (which the connection has its size back after): every notification reads back, is written out by
    /// the worker row after row, and a cancel in a later row finds its notification.
    @Test(.disabled(if: Sanitizers.thread, "megabytes of JSON and SQLite on one task: not a concurrency test"))
    func aBatchOfManyMegabytesIsRowsOfAMegabyte() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await Store.open(at: folder.databasePath)
        let cacheSize = try await store.scalar("PRAGMA cache_size")
        let alert = String(repeating: "x", count: 3_900)
        let content = try NotificationContent(
            bundleID: topic, payload: Payload(json: #"{"aps":{"alert":"\#(alert)"}}"#))
        let specs = (0..<2_200).map { CampaignSpec.single(to: token($0), content: content) }
        let encoded = DeferredBatch.encode(specs.dropLast())
        #expect(encoded.count >= Store.largeItems)
        let done = try await store.enqueue([EnqueueRequest(specs: specs)], now: t0)[0].get()
        #expect(done.ids.count == 2_200 && done.deliveries == Array(repeating: 1, count: 2_200))
        #expect(try await store.scalar("PRAGMA cache_size") == cacheSize)
        #expect(try await store.scalar("SELECT sum(length(items)) FROM deferred_batches") == Int64(encoded.count))
        let rows = try #require(try await store.scalar("SELECT count(*) FROM deferred_batches"))
        #expect(rows == Int64((encoded.count + Store.rowItems - 1) / Store.rowItems))
        #expect(
            try await store.scalar("SELECT max(length(items)) FROM deferred_batches")! < Int64(Store.rowItems + 4_200))
        #expect(try await store.scalar("SELECT sum(count) FROM deferred_batches") == 2_199)
        #expect(try await store.gauges(now: at(1)).pendingSingle == 2_200)
        #expect(try await store.campaign(done.ids[2_000]).content == content)
        let cancelled = try await store.cancel(done.ids[2_000], staleAfter: .seconds(30), waitUpTo: 0)
        #expect(cancelled.campaign.status == .cancelled)
        // Every other record reads back: the worker writes them all out, each to its own token.
        while try await store.expandDeferredBatch(limit: 10_000).notifications > 0 {}
        #expect(try await store.scalar("SELECT count(*) FROM deferred_batches") == 0)
        #expect(try await store.scalar("SELECT count(DISTINCT token) FROM deliveries") == 2_200)
        #expect(try await store.scalar("SELECT count(*) FROM campaigns") == 2_200)
    }
}
