import APNs
import Foundation
import QueueModel
import TestSupport
import Testing

@testable import Store

/// Grouped enqueues (the HTTP API's transactions), idempotency keys, the newest-first log and apns-id.
@Suite struct EnqueueTests {
    private func key(_ key: String, _ hash: String, scope: IdempotencyScope = .apiKey(id: 1)) -> IdempotencyKey {
        IdempotencyKey(scope: scope, key: key, requestHash: hash)
    }

    @Test(arguments: Engine.all) func eachRequestOfAGroupStandsAlone(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        // A broadcast to a channel the store does not have: refused by the store, which alone knows it.
        let noChannel = BroadcastStoreTests.broadcast(9999)
        let results = try await store.enqueue(
            [
                EnqueueRequest(specs: [single(token(1))]),
                EnqueueRequest(specs: [single(token(2)), noChannel]),
                EnqueueRequest(specs: [single(token(3)), single(token(4))]),
            ], now: t0)
        #expect(try results[0].get().deliveries == [1])
        guard case .failure(.invalidCampaign) = results[1] else {
            Issue.record("\(results[1])")
            return
        }
        #expect(try results[2].get().ids.count == 2)
        // The failed request left nothing behind, not even its valid first spec.
        #expect(Set(try await store.allLog().map(\.token)) == [token(1), token(3), token(4)])
    }

    @Test(arguments: Engine.all) func aKeyReplaysWithTheSameRequestAndRefusesAnother(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        let first = try await store.enqueue(
            [EnqueueRequest(specs: [single(token(1))], idempotency: key("k", "h1"))], now: t0)[0].get()
        #expect(!first.isReplay)
        // The same key twice in one group: the second replays the first.
        let group = try await store.enqueue(
            [
                EnqueueRequest(specs: [single(token(1))], idempotency: key("k", "h1")),
                EnqueueRequest(specs: [single(token(2))], idempotency: key("k", "h2")),
                EnqueueRequest(specs: [single(token(2))], idempotency: key("k", "h2", scope: .apiKey(id: 2))),
            ], now: at(10))
        let replay = try group[0].get()
        #expect(replay.isReplay && replay.ids == first.ids && replay.deliveries == [1])
        guard case .failure(.idempotencyConflict(key: "k")) = group[1] else {
            Issue.record("\(group[1])")
            return
        }
        #expect(try !group[2].get().isReplay, "another scope is another key")
        #expect(try await store.allLog().count == 2)
        // After 24 hours the key is forgotten.
        let later = try await store.enqueue(
            [EnqueueRequest(specs: [single(token(5))], idempotency: key("k", "h9"))],
            now: at(24 * 3600 + 1))[0].get()
        #expect(!later.isReplay)
        #expect(try await store.idempotentResult(key("k", "h9"), now: at(24 * 3600 + 2))?.ids == later.ids)
    }

    /// Specs made again as they are read (a large API batch's) are written as the same notifications as the same
    /// specs held as values, on each engine, and replay under a key as those do.
    @Test(arguments: Engine.all) func specsMadeAgainAreWrittenAsValuesAre(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        let specs = (0..<40).map { n in
            n % 3 == 0 ? CampaignSpec.single(to: token(n), content: single(token(n)).content) : single(token(n))
        }
        let made = CampaignSpecs(singleSendsDueNow: specs.count) { specs[$0] }
        #expect(Array(made) == specs && made.values == specs && made.areSingleSendsDueNow == true)
        let first = try await store.enqueue(
            [EnqueueRequest(specs: made, idempotency: key("big", "h"))], now: t0)[0].get()
        let second = try await store.enqueue([EnqueueRequest(specs: specs)], now: t0)[0].get()
        #expect(first.deliveries == second.deliveries && first.ids.count == 40)
        for index in [0, 17, 39] {
            let (a, b) = (try await store.campaign(first.ids[index]), try await store.campaign(second.ids[index]))
            #expect(a.content == b.content && a.audience == b.audience && a.kind == b.kind)
        }
        let replay = try await store.enqueue(
            [EnqueueRequest(specs: made, idempotency: key("big", "h"))], now: at(1))[0].get()
        #expect(replay.isReplay && replay.ids == first.ids)
        try await store.expandAll(now: at(2))
        #expect(try await store.allLog().count == 80)
    }

    @Test(arguments: Engine.all) func sealingUnderAKeyDropsADuplicateDraft(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        let spec = bulk(.tokens([]))
        let a = try await store.beginCampaign(spec, now: t0)
        let b = try await store.beginCampaign(spec, now: t0)
        try await store.appendTokens([token(1)], to: a)
        try await store.appendTokens([token(1)], to: b)
        let sealedA = try await store.sealCampaign(a, remembering: key("cron", "h", scope: .commandLine), now: t0)
        let sealedB = try await store.sealCampaign(b, remembering: key("cron", "h", scope: .commandLine), now: t0)
        #expect(sealedA.ids == [a] && sealedB.ids == [a] && sealedB.isReplay)
        #expect(try await store.campaigns(kind: .bulk, status: nil, before: nil, limit: 10).map(\.id) == [a])
    }

    @Test(arguments: Engine.all) func recentLogPagesNewestFirstWithFilters(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        _ = try await store.register(
            DeviceRegistration(token: token(1), topic: topic, environment: .production, user: "alice"), now: t0)
        for n in 0..<5 { _ = try await store.enqueueSingle(single(token(n)), now: at(Double(n))) }
        var seen: [DeliveryID] = []
        var before: DeliveryID?
        while true {
            let page = try await store.recentLog(LogFilter(), before: before, limit: 2)
            seen += page.map(\.id)
            guard page.count == 2, let last = page.last else { break }
            before = last.id
        }
        #expect(seen == seen.sorted(by: >) && seen.count == 5)
        #expect(try await store.recentLog(LogFilter(user: "alice"), before: nil, limit: 10).map(\.token) == [token(1)])
        #expect(
            try await store.recentLog(LogFilter(since: at(3)), before: nil, limit: 10).map(\.token) == [
                token(4), token(3),
            ])
        #expect(try await store.recentLog(LogFilter(until: at(1)), before: nil, limit: 10).map(\.token) == [token(0)])
        #expect(try await store.recentLog(LogFilter(reason: .unregistered), before: nil, limit: 10).isEmpty)
    }

    @Test(arguments: Engine.all) func aChosenApnsIDIsSentWithEveryDelivery(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        let id = try NotificationID("123e4567-e89b-12d3-a456-426614174000")
        let content = try NotificationContent(bundleID: topic, apnsID: id, payload: payload())
        let campaign = try await store.enqueueSingle(
            CampaignSpec(kind: .single, audience: .tokens([token(1)]), content: content), now: t0)
        let jobs = try await store.claim(now: t0, limit: 10, leaseFor: .seconds(30), worker: nil)
        #expect(jobs.map(\.content.apnsID) == [id])
        #expect(jobs[0].content.headers.contains { $0.name == "apns-id" && $0.value == id.uuidString })
        #expect(try await store.campaign(campaign).content.apnsID == id)
    }

    /// What single sends write (PostgreSQL writes them whole with a few statements per batch; SQLite one by one, or
    /// as a deferred batch written later) reads the same on both engines, ids aside.
    @Test(.enabled(if: PostgresCluster.enabled)) func singleSendsAreWrittenAlikeOnBothEngines() async throws {
        let sqlite = try await singleSendsWritten(on: .sqlite)
        let postgres = try await singleSendsWritten(on: .postgres)
        #expect(sqlite.count == postgres.count && sqlite.count > 100)
        for (a, b) in zip(sqlite, postgres) where a != b { Issue.record("SQLite: \(a)\nPostgreSQL: \(b)") }
    }

    /// Every kind of single send, alone and in batches, and what each campaign and its log rows read (without ids).
    private func singleSendsWritten(on engine: Engine) async throws -> [String] {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        try await store.registerDevices(0..<10, environment: .development, user: { "u\($0 % 3)" })
        _ = try await store.deactivateDevice(token: token(2), topic: topic, reason: .removed, now: t0)
        let content = single(token(0)).content
        let specs: [CampaignSpec] = [
            single(token(50), environment: .development), single(token(1)), single(token(2)),
            CampaignSpec(kind: .single, audience: .tokens([token(3)]), content: content, scheduledAt: at(100)),
            CampaignSpec(kind: .single, audience: .tokens([token(2)]), content: content, scheduledAt: at(100)),
            CampaignSpec(kind: .single, audience: .tokens([token(3)]), content: content, scheduledAt: at(-5)),
            CampaignSpec(
                kind: .single, audience: .tokens([token(1), token(2), token(1), token(60)], environment: .production),
                content: content),
            CampaignSpec(kind: .single, audience: .users(["u0", "u1", "u0", "nobody"]), content: content),
            CampaignSpec(kind: .single, audience: .users(["u2"], environment: .production), content: content),
            CampaignSpec(kind: .single, audience: .users(["u2"]), content: content, scheduledAt: at(50)),
            CampaignSpec(kind: .single, audience: .tokens([]), content: content),
            bulk(.tokens([token(1), token(2)])),
        ]
        var lines: [String] = []
        var ids: [CampaignID] = []
        for spec in specs { ids.append(try await store.createCampaign(spec, now: at(1))) }
        let batch = try await store.enqueue(
            [EnqueueRequest(specs: Array(specs.prefix(11)) + Array(repeating: single(token(4)), count: 20))],
            now: at(2))
        lines.append("deliveries \(try batch[0].get().deliveries)")
        ids += try batch[0].get().ids
        // All single sends due now: SQLite defers them (and counts 0 deliveries for users until they are written).
        let deferred = try await store.enqueue(
            [
                EnqueueRequest(
                    specs: (0..<40).map { n in
                        n % 2 == 0
                            ? CampaignSpec(kind: .single, audience: .users(["u\(n % 4)", "u1"]), content: content)
                            : single(token(n % 12))
                    })
            ], now: at(2))
        ids += try deferred[0].get().ids
        try await store.expandAll(now: at(3))
        for id in ids {
            var campaign = try await store.campaign(id)
            campaign.id = CampaignID(0)
            lines.append("\(campaign)")
            for var entry in try await store.allLog(LogFilter(campaign: id)) {
                (entry.id, entry.campaignID) = (DeliveryID(0), CampaignID(0))
                lines.append("  \(entry)")
            }
        }
        return lines
    }
}
