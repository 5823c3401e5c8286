import APNs
import Foundation
import QueueModel
import Testing

@testable import Store

/// `stats` on both engines: outcomes from the per-minute counters written with each batch, deactivations from the events by
/// time, one campaign from its deliveries — against a known log.
@Suite struct StatsTests {
    @Test(arguments: Engine.all) func aKnownLogGivesKnownFigures(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        try await store.registerDevices(0..<10, now: t0)
        let campaign = try await store.createCampaign(bulk(.all()), now: t0)
        try await store.expandAll(now: t0)
        let worker = try await store.registerWorker(host: "h", pid: 1, now: t0)
        let jobs = try await store.claim(now: at(1), limit: 10, leaseFor: .seconds(60), worker: nil).sorted {
            $0.token! < $1.token!
        }
        // An hour ago: two accepted. Now: three accepted, a 429 to retry, a 410, a BadDeviceToken. Written by two
        // writers (on PostgreSQL, two shards of the per-minute counters, summed when read).
        _ = try await store.record(
            [.accepted(jobs[0], apnsID: nil), .accepted(jobs[1], apnsID: nil)], by: nil, now: at(60))
        let now = at(2 * 3600)
        _ = try await store.record(
            [
                .accepted(jobs[2], apnsID: nil), .accepted(jobs[3], apnsID: nil),
                .retry(jobs[5], at: now.addingTimeInterval(60), httpStatus: 429, reason: .tooManyRequests),
                .unregistered(jobs[6], reason: .unregistered, timestamp: nil),
            ], by: nil, now: now)
        _ = try await store.record(
            [.accepted(jobs[4], apnsID: nil), .badToken(jobs[7], reason: .badDeviceToken)], by: worker, now: now)
        // A single send waiting.
        _ = try await store.enqueueSingle(single(token(99)), now: now)

        let recent = try await store.stats(
            since: now.addingTimeInterval(-3600), campaign: nil, now: now.addingTimeInterval(1))
        #expect(
            recent.outcomes == [
                "accepted": ["none": 3], "retry": ["TooManyRequests": 1], "unregistered": ["Unregistered": 1],
                "rejected": ["BadDeviceToken": 1],
            ], "\(recent.outcomes)")
        #expect(recent.requests == 6 && recent.accepted == 3)
        #expect(recent.deactivations == ["Unregistered": 1, "BadDeviceToken": 1])
        #expect(recent.queue.pendingSingle == 1 && recent.queue.pendingBulk == 3)
        #expect(recent.campaign == nil)

        let all = try await store.stats(since: t0, campaign: nil, now: now.addingTimeInterval(1))
        #expect(all.outcomes["accepted"] == ["none": 5] && all.requests == 8)

        // One campaign: the final outcomes of its deliveries written in the window.
        let one = try await store.stats(since: t0, campaign: campaign, now: now.addingTimeInterval(1))
        #expect(
            one.outcomes == [
                "accepted": ["none": 5], "unregistered": ["Unregistered": 1], "rejected": ["BadDeviceToken": 1],
            ], "\(one.outcomes)")
        #expect(one.campaign?.id == campaign && one.deactivations.values.reduce(0, +) == 2)
        await #expect(throws: StoreError.self) { try await store.stats(since: t0, campaign: CampaignID(999), now: now) }

    }

    @Test(arguments: Engine.all) func aSeriesCountsEveryStepOfEverythingAndOfOneBulkCampaign(engine: Engine)
        async throws
    {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        try await store.registerDevices(0..<10, now: t0)
        let campaign = try await store.createCampaign(bulk(.all()), now: t0)
        try await store.expandAll(now: t0)
        let send = try await store.enqueueSingle(single(token(99)), now: t0)
        let worker = try await store.registerWorker(host: "h", pid: 1, now: t0)
        let jobs = try await store.claim(now: t0, limit: 11, leaseFor: .seconds(600), worker: nil)
        let single = try #require(jobs.first { $0.campaignID == send })
        let bulk = jobs.filter { $0.campaignID == campaign }
        try #require(bulk.count == 10)
        // t0 is 20 s into its minute M. M: two accepted. M+1: a 429 to retry and a 410 of the campaign (two
        // writers: on PostgreSQL two shards, summed when read), and the single send accepted. M+3: one accepted.
        _ = try await store.record(
            [.accepted(bulk[0], apnsID: nil), .accepted(bulk[1], apnsID: nil)], by: nil, now: t0)
        _ = try await store.record(
            [.retry(bulk[2], at: at(600), httpStatus: 429, reason: .tooManyRequests), .accepted(single, apnsID: nil)],
            by: nil, now: at(60))
        _ = try await store.record(
            [.unregistered(bulk[3], reason: .unregistered, timestamp: nil)], by: worker, now: at(61))
        _ = try await store.record([.accepted(bulk[4], apnsID: nil)], by: worker, now: at(200))
        let minute = Int(t0.timeIntervalSince1970 / 60)

        let everything = try await store.outcomeSeries(since: t0, step: 60, campaign: nil, now: at(200))
        #expect(everything.step == 60 && everything.campaign == nil && everything.until == at(200))
        #expect(everything.points.map(\.at) == (0..<4).map { Date(timeIntervalSince1970: Double((minute + $0) * 60)) })
        #expect(
            everything.points.map(\.outcomes) == [
                ["accepted": 2], ["retry": 1, "unregistered": 1, "accepted": 1], [:], ["accepted": 1],
            ])
        #expect(everything.points.map(\.requests) == [2, 3, 0, 1])
        #expect(
            everything.reasons == [
                "accepted": ["none": 4], "retry": ["TooManyRequests": 1], "unregistered": ["Unregistered": 1],
            ], "\(everything.reasons)")

        // The campaign's own counters: the single send is not in them.
        let one = try await store.outcomeSeries(since: t0, step: 60, campaign: campaign, now: at(200))
        #expect(one.campaign == campaign)
        #expect(
            one.points.map(\.outcomes) == [["accepted": 2], ["retry": 1, "unregistered": 1], [:], ["accepted": 1]])
        #expect(one.points.map(\.requests) == [2, 2, 0, 1])
        #expect(
            one.reasons == [
                "accepted": ["none": 3], "retry": ["TooManyRequests": 1], "unregistered": ["Unregistered": 1],
            ])
        let alone = try await store.outcomeSeries(since: t0, step: 60, campaign: send, now: at(200))
        #expect(alone.points.count == 4 && alone.points.allSatisfy { $0.requests == 0 && $0.outcomes.isEmpty })

        // Five-minute steps start at multiples of five minutes; all the window's outcomes land in them.
        let coarse = try await store.outcomeSeries(since: t0, step: 300, campaign: campaign, now: at(200))
        #expect(coarse.step == 300)
        #expect(coarse.points.allSatisfy { Int($0.at.timeIntervalSince1970) % 300 == 0 })
        #expect(coarse.points.first!.at <= t0 && coarse.points.last!.at <= at(200))
        #expect(coarse.points.map(\.requests).reduce(0, +) == 5)
        #expect(coarse.points.map { $0.outcomes["accepted", default: 0] }.reduce(0, +) == 3)
        // A window after the outcomes: zeros. An unknown campaign: not found.
        let later = try await store.outcomeSeries(since: at(3600), step: 60, campaign: campaign, now: at(3700))
        #expect(later.points.allSatisfy { $0.requests == 0 })
        await #expect(throws: StoreError.self) {
            try await store.outcomeSeries(since: t0, step: 60, campaign: CampaignID(999), now: at(200))
        }
    }

    /// SQLite's plans.
    @Test func theQueriesUseTheirIndexes() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await Store.open(at: folder.databasePath)
        let plans = try await store.read { db in
            try [
                "EXPLAIN QUERY PLAN SELECT status, reason, SUM(count), SUM(requests) FROM outcome_counts WHERE minute >= 1 GROUP BY 1, 2",
                "EXPLAIN QUERY PLAN SELECT COALESCE(reason, 'none'), COUNT(*) FROM events WHERE at >= 1 AND type = 'device.deactivated' AND (NULL IS NULL OR campaign_id = NULL) GROUP BY 1",
            ]
            .map { sql -> String in
                let statement = try db.prepare(sql)
                var details: [String] = []
                while try statement.step() { details.append(statement.string(3)) }
                return details.joined(separator: "; ")
            }
        }
        #expect(plans[0].contains("USING PRIMARY KEY") || plans[0].contains("SEARCH outcome_counts"), "\(plans[0])")
        #expect(plans[1].contains("events_by_time"), "\(plans[1])")
    }
}
