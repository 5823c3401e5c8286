import APNs
import Foundation
import QueueModel
import Testing

@testable import Store

/// The log's filters by user, reason and time, newest-first paging, changes in update order (`--follow`) and the
/// answers each delivery got (`--attempts`), on both engines with times from a fixed clock.
@Suite struct LogWindowTests {
    /// 6 devices (users u0, u1, u2: two each) and one campaign to all; at t0+10 s tokens 0–2 are accepted,
    /// at +20 s token 3 gets 429 then at +30 s 200, token 4 gets 400 BadDeviceToken at +40 s; token 5 stays pending.
    static func knownLog(_ store: AnyStore) async throws -> CampaignID {
        try await store.registerDevices(0..<6, user: { "u\($0 / 2)" })
        let campaign = try await store.createCampaign(bulk(.all()), now: t0)
        try await store.expandAll(now: t0)
        let jobs = try await store.claim(now: t0, limit: 10, leaseFor: .seconds(30), worker: nil)
        let byToken = Dictionary(uniqueKeysWithValues: jobs.map { ($0.token, $0) })
        _ = try await store.record((0..<3).map { .accepted(byToken[token($0)]!, apnsID: nil) }, by: nil, now: at(10))
        _ = try await store.record(
            [.retry(byToken[token(3)]!, at: at(25), httpStatus: 429, reason: .tooManyRequests)], by: nil, now: at(20))
        _ = try await store.record(
            [.badToken(byToken[token(4)]!, httpStatus: 400, reason: .badDeviceToken, apnsID: nil)], by: nil, now: at(40)
        )
        let again = try await store.claim(now: at(26), limit: 10, leaseFor: .seconds(30), worker: nil)
        #expect(again.compactMap(\.token) == [token(3)])
        _ = try await store.record([.accepted(again[0], apnsID: nil)], by: nil, now: at(30))
        return campaign
    }

    @Test(arguments: Engine.all) func filtersByUserReasonAndTime(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        _ = try await Self.knownLog(store)
        func tokens(_ filter: LogFilter) async throws -> [DeviceToken] {
            try await store.allLog(filter).compactMap(\.token)
        }

        #expect(try await tokens(LogFilter(user: "u1")) == [token(2), token(3)])
        #expect(try await tokens(LogFilter(user: "nobody")).isEmpty)
        #expect(try await tokens(LogFilter(reason: .badDeviceToken)) == [token(4)])
        #expect(try await tokens(LogFilter(user: "u2", reason: .badDeviceToken)) == [token(4)])
        #expect(try await tokens(LogFilter(since: at(20))) == [token(3), token(4)])
        #expect(try await tokens(LogFilter(until: at(20))) == [token(0), token(1), token(2), token(5)])
        #expect(try await tokens(LogFilter(since: at(10), until: at(35))) == [token(0), token(1), token(2), token(3)])
        #expect(try await tokens(LogFilter(user: "u0", since: at(10), until: at(11))) == [token(0), token(1)])
        #expect(try await tokens(LogFilter(status: .rejected, since: at(40))) == [token(4)])

        // Newest first, in pages (what `--limit N` reads before printing them oldest first).
        let newest = try await store.recentLog(LogFilter(since: at(10)), before: nil, limit: 2)
        #expect(newest.compactMap(\.token) == [token(4), token(3)])
        let next = try await store.recentLog(LogFilter(since: at(10)), before: newest.last?.id, limit: 2)
        #expect(next.compactMap(\.token) == [token(2), token(1)])
    }

    @Test(arguments: Engine.all) func changesComeInUpdateOrderAndPageWithinAMillisecond(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        _ = try await Self.knownLog(store)
        let changed = try await store.changedLog(LogFilter(), from: at(10), after: nil, limit: 1000)
        #expect(changed.compactMap(\.token) == [token(0), token(1), token(2), token(3), token(4)])
        #expect(changed.map(\.updatedAt) == [at(10), at(10), at(10), at(30), at(40)])
        // The three rows of +10 s, paged by id within that millisecond.
        let first = try await store.changedLog(LogFilter(), from: at(10), after: nil, limit: 2)
        let rest = try await store.changedLog(
            LogFilter(), from: first.last!.updatedAt, after: first.last!.id, limit: 10)
        #expect((first + rest).compactMap(\.token) == changed.compactMap(\.token))
        #expect(
            try await store.changedLog(LogFilter(user: "u1"), from: at(11), after: nil, limit: 1000).compactMap(\.token)
                == [token(3)])
        #expect(try await store.changedLog(LogFilter(), from: at(41), after: nil, limit: 1000).isEmpty)
        // A window in update order (`apnsd log --until …` alone): the untouched row first, bounded on both sides.
        #expect(
            try await store.changedLog(
                LogFilter(until: at(35)), from: Date(timeIntervalSince1970: 0), after: nil, limit: 1000
            ).compactMap(\.token)
                == [token(5), token(0), token(1), token(2), token(3)])
        #expect(
            try await store.changedLog(LogFilter(since: at(10), until: at(30)), from: at(10), after: nil, limit: 1000)
                .compactMap(\.token)
                == [token(0), token(1), token(2)])
        // Newest change first, backwards from a time (`--limit` with a window), paged within a millisecond.
        let last = try await store.lastChanged(LogFilter(until: at(40)), through: at(40), before: nil, limit: 3)
        #expect(last.compactMap(\.token) == [token(3), token(2), token(1)])
        let older = try await store.lastChanged(
            LogFilter(until: at(40)), through: last.last!.updatedAt, before: last.last!.id, limit: 10)
        #expect(older.compactMap(\.token) == [token(0), token(5)])
        #expect(
            try await store.lastChanged(LogFilter(since: at(20)), through: .distantFuture, before: nil, limit: 1000)
                .compactMap(\.token) == [token(4), token(3)])
    }

    @Test(arguments: Engine.all) func everyAnswerIsKeptAndOnlyRetriesCostARow(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        _ = try await Self.knownLog(store)
        let log = try await store.allLog()
        let id = { (n: Int) in log.first { $0.token == token(n) }!.id }
        let answers = try await store.attempts(of: log.map(\.id))
        #expect(answers[id(0)] == [DeliveryAttempt(attempt: 1, at: at(10), httpStatus: 200, reason: nil)])
        #expect(
            answers[id(3)] == [
                DeliveryAttempt(attempt: 1, at: at(20), httpStatus: 429, reason: .tooManyRequests),
                DeliveryAttempt(attempt: 2, at: at(30), httpStatus: 200, reason: nil),
            ])
        #expect(answers[id(4)] == [DeliveryAttempt(attempt: 1, at: at(40), httpStatus: 400, reason: .badDeviceToken)])
        #expect(answers[id(5)] == nil, "still waiting: no answer yet")
        // Only the retried answer took a row: a delivery's last answer is its own row.
        #expect(try await store.scalar("SELECT count(*) FROM delivery_attempts") == 1)
    }

    @Test(arguments: Engine.all) func aRequeueStartsTheHistoryAgainAndDeletingADeliveryDeletesIt(engine: Engine)
        async throws
    {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        try await store.registerDevices(0..<1)
        let campaign = try await store.createCampaign(bulk(.all()), now: t0)
        try await store.expandAll(now: t0)
        var job = try await store.claim(now: t0, limit: 1, leaseFor: .seconds(30), worker: nil)[0]
        _ = try await store.record(
            [.retry(job, at: at(1), httpStatus: 503, reason: .serviceUnavailable)], by: nil, now: at(0.5))
        job = try await store.claim(now: at(1), limit: 1, leaseFor: .seconds(30), worker: nil)[0]
        _ = try await store.record(
            [DeliveryResult(job, disposition: .failed, httpStatus: 503, reason: .serviceUnavailable)], by: nil,
            now: at(2))
        #expect(try await store.attempts(of: [job.id])[job.id]?.map(\.attempt) == [1, 2])
        #expect(try await store.requeue(campaign, status: .failed, now: at(3)) == 1)
        #expect(try await store.attempts(of: [job.id])[job.id] == nil)
        job = try await store.claim(now: at(3), limit: 1, leaseFor: .seconds(30), worker: nil)[0]
        _ = try await store.record(
            [.retry(job, at: at(4), httpStatus: 429, reason: .tooManyRequests)], by: nil, now: at(3.5))
        #expect(try await store.attempts(of: [job.id])[job.id]?.map(\.httpStatus) == [429])
        try await store.execute("DELETE FROM deliveries")
        #expect(try await store.scalar("SELECT count(*) FROM delivery_attempts") == 0)
    }
}
