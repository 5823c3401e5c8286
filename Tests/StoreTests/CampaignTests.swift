import APNs
import Foundation
import QueueModel
import TestSupport
import Testing

@testable import Store

@Suite struct CampaignTests {
    @Test(arguments: Engine.all) func cancelStopsPendingWorkAndInFlightResultsStillCount(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        try await store.registerDevices(0..<10)
        let id = try await store.createCampaign(bulk(.all()), now: t0)
        try await store.expandAll(now: t0)
        let inFlight = try await store.claim(now: at(1), limit: 3, leaseFor: .seconds(30), worker: nil)

        let cancelled = try await store.finishCancel(id, request: nil, unacknowledged: 0, now: at(2)).campaign
        #expect(cancelled.status == .cancelled)
        #expect(cancelled.finishedAt == at(2))
        #expect(cancelled.counters == CampaignCounters(total: 10, cancelled: 10))
        #expect(try await store.claim(now: at(100), limit: 10, leaseFor: .seconds(30), worker: nil).isEmpty)
        #expect(
            try await store.allLog(LogFilter(campaign: id)).allSatisfy { $0.reason?.rawValue == "CampaignCancelled" })

        // The request that was in flight reached APNs: the log and counters say so.
        _ = try await store.record(
            [
                .accepted(inFlight[0], apnsID: nil),
                .retry(inFlight[1], at: at(10)),
            ], by: nil, now: at(3))
        let after = try await store.campaign(id)
        #expect(after.counters == CampaignCounters(total: 10, accepted: 1, cancelled: 9))
        #expect(after.status == .cancelled)

        // Cancelling again changes nothing.
        #expect(
            try await store.finishCancel(id, request: nil, unacknowledged: 0, now: at(4)).campaign.counters
                == after.counters)
    }

    /// The first page counts the whole audience (`ExpansionCounts`); a cancel ends the part never expanded as
    /// cancelled, so the campaign's counters still add up to its audience.
    @Test(arguments: Engine.all) func cancellingBeforeExpansionStopsTheExpansion(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        try await store.registerDevices(0..<30)
        let id = try await store.createCampaign(bulk(.all()), now: t0)
        _ = try await store.expandDueCampaigns(now: t0, pageSize: 10, maxPages: 1)
        #expect(try await store.campaign(id).counters == CampaignCounters(total: 30, pending: 30))
        let cancel = try await store.finishCancel(id, request: nil, unacknowledged: 0, now: at(1))
        #expect(cancel.cancelled == 30)
        let report = try await store.expandDueCampaigns(now: at(2), pageSize: 10, maxPages: 10)
        #expect(report.pages == 0)
        #expect(try await store.campaign(id).counters == CampaignCounters(total: 30, cancelled: 30))
        #expect(try await store.scalar("SELECT COUNT(*) FROM deliveries") == 10, "only the first page was written")
    }

    @Test(arguments: Engine.all) func unknownCampaignIsAnErrorThatNamesTheID(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        await #expect(throws: StoreError.unknownCampaign(CampaignID(42))) {
            _ = try await store.finishCancel(CampaignID(42), request: nil, unacknowledged: 0, now: t0)
        }
        let error = await #expect(throws: StoreError.self) { _ = try await store.campaign(CampaignID(42)) }
        #expect(error?.description == "no campaign with id 42")
    }

    @Test(arguments: Engine.all) func campaignKeepsItsSendingParameters(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        _ = try await store.register(DeviceRegistration(token: token(1), topic: topic), now: t0)
        let content = try NotificationContent(
            bundleID: topic, pushType: .background,
            expiration: try Expiration(secondsSince1970: 1_800_000_000), collapseID: try CollapseID("news"),
            payload: try Payload(json: #"{"aps":{"content-available":1}}"#, pushType: .background))
        let spec = CampaignSpec(
            kind: .bulk, audience: .tokens([token(1)], environment: .development), content: content, scheduledAt: at(5))
        let id = try await store.createCampaign(spec, now: t0)
        let campaign = try await store.campaign(id)
        #expect(campaign.kind == .bulk)
        #expect(campaign.status == .scheduled)
        #expect(campaign.content == content)
        #expect(campaign.content.priority == .conservePower)  // the push type's default
        #expect(campaign.scheduledAt == at(5))
        #expect(campaign.createdAt == t0)
        #expect(campaign.audience == AudienceSummary(kind: .tokens, environment: .development, size: 1))

        try await store.expandAll(now: at(5))
        let job = try #require(try await store.claim(now: at(5), limit: 1, leaseFor: .seconds(30), worker: nil).first)
        #expect(job.content == content)
    }

    @Test func invalidContentCannotBeMade() throws {
        // The content is checked once, where it is made: a campaign can only hold a valid one.
        #expect(throws: APNsError.priorityNotAllowed(.immediate, .background)) {
            try NotificationContent(
                bundleID: topic, pushType: .background, priority: .immediate,
                payload: try Payload(json: #"{"aps":{"content-available":1}}"#))
        }
        #expect(throws: APNsError.self) { try NotificationContent(bundleID: "com example", payload: payload()) }
    }

    @Test(arguments: Engine.all) func campaignsAreListedNewestFirstWithFilters(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        let a = try await store.createCampaign(bulk(.all()), now: t0)
        let b = try await store.enqueueSingle(single(token(1)), now: t0)
        let c = try await store.createCampaign(bulk(.all(), at: at(100)), now: t0)
        #expect(try await store.campaigns(kind: nil, status: nil, before: nil, limit: 100).map(\.id) == [c, b, a])
        #expect(try await store.campaigns(kind: .bulk, status: nil, before: nil, limit: 100).map(\.id) == [c, a])
        #expect(try await store.campaigns(kind: nil, status: .running, before: nil, limit: 100).map(\.id) == [b])
        #expect(try await store.campaigns(kind: nil, status: nil, before: c, limit: 1).map(\.id) == [b])
    }

    /// A campaign of `largeAudience` tokens or more stages them through the small page cache: every token is there,
    /// in order, and the connection's cache has its size again.
    @Test(.disabled(if: Sanitizers.thread, "megabytes of JSON and SQLite on one task: not a concurrency test"))
    func aLargeAudienceIsStagedThroughASmallCache() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await Store.open(at: folder.databasePath)
        let cacheSize = try await store.scalar("PRAGMA cache_size")
        let count = Store.largeAudience
        let id = try await store.createCampaign(bulk(.tokens((0..<count).map { token($0) })), now: t0)
        #expect(try await store.campaign(id).audience.size == count)
        #expect(try await store.scalar("SELECT count(*) FROM campaign_audience") == Int64(count))
        #expect(
            try await store.scalar("SELECT count(*) FROM campaign_audience WHERE value = '\(token(count - 1).hex)'")
                == 1)
        #expect(try await store.scalar("PRAGMA cache_size") == cacheSize)
    }
}
