import APNs
import Foundation
import QueueModel
import Testing

@testable import Store

/// Broadcasts on each engine: one delivery naming its channel, claimed as a channel target in the channel's
/// environment, recorded and logged as such; refused at enqueue (alone in a group, nothing written) when the channel
/// is unknown, deleted, of another app, or stores no message while the content has an expiration.
@Suite struct BroadcastStoreTests {
    static let scores = "com.example.scores"
    static let stored = "c3RvcmVkIGNoYW5uZWw="
    static let unstored = "bm8gc3RvcmFnZQ=="

    static func broadcast(_ channel: Int64, topic: String = scores, expiration: Int64? = nil) -> CampaignSpec {
        CampaignSpec(
            kind: .single, audience: .channel(channel),
            content: NotificationContent(
                trusted: topic, pushType: .liveactivity, priority: .conservePower,
                expiration: expiration.map { try! Expiration(secondsSince1970: $0) }, collapseID: nil,
                payload: Payload(
                    trusted: Array(#"{"aps":{"event":"update","timestamp":1700000000,"content-state":{}}}"#.utf8))))
    }

    @Test(arguments: Engine.all) func aBroadcastIsOneDeliveryToItsChannel(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        let latest = try await store.recordChannel(
            channelID: Self.stored, topic: Self.scores, environment: .development,
            storage: .latest, credential: "default", now: t0)
        let later = Int64(t0.timeIntervalSince1970) + 3600
        let done = try await store.enqueue(
            [EnqueueRequest(specs: [Self.broadcast(latest.id, expiration: later)])], now: at(1))[0].get()
        #expect(done.deliveries == [1])
        let campaign = try await store.campaign(done.ids[0])
        #expect(campaign.kind == .single && campaign.status == .running && campaign.audience.channel == latest.id)
        #expect(campaign.counters == CampaignCounters(total: 1, pending: 1))

        let jobs = try await store.claim(now: at(2), limit: 10, leaseFor: .seconds(60), worker: nil)
        #expect(jobs.count == 1)
        #expect(
            jobs.first?.target == .channel(id: latest.id, channelID: Self.stored)
                && jobs.first?.environment == .development)
        #expect(jobs.first?.token == nil && jobs.first?.content.expiration?.secondsSince1970 == later)
        let report = try await store.record(
            [.accepted(jobs[0], apnsID: "5b0d1e9e-6f0a-4a7e-8d6e-1f2a3b4c5d6e")], by: nil, now: at(3))
        #expect(report.applied == 1 && report.devicesDeactivated == 0)
        let log = try await store.allLog(LogFilter(campaign: done.ids[0]))
        #expect(
            log.map(\.target) == [.channel(id: latest.id, channelID: Self.stored)] && log.first?.status == .accepted)
        #expect(log.first?.channel == latest.id && log.first?.token == nil)
        #expect(try await store.campaign(done.ids[0]).status == .completed)
    }

    @Test(arguments: Engine.all) func refusedBroadcastsFailAloneAndWriteNothing(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        let unstored = try await store.recordChannel(
            channelID: Self.unstored, topic: Self.scores, environment: .production,
            storage: .none, credential: "default", now: t0)
        let gone = try await store.recordChannel(
            channelID: Self.stored, topic: Self.scores, environment: .production,
            storage: .latest, credential: "default", now: t0)
        _ = try await store.markChannelDeleted(id: gone.id, now: at(1))
        let refused: [(CampaignSpec, String)] = [
            (Self.broadcast(unstored.id, expiration: 1_900_000_000), "must be 0"),
            (Self.broadcast(gone.id), "was deleted"),
            (Self.broadcast(9999), "no channel 9999"),
            (Self.broadcast(unstored.id, topic: "com.example.other"), "belongs to com.example.scores"),
        ]
        // With one valid broadcast among them: it alone is written.
        let results = try await store.enqueue(
            refused.map { EnqueueRequest(specs: [$0.0]) } + [
                EnqueueRequest(specs: [Self.broadcast(unstored.id, expiration: 0)])
            ],
            now: at(2))
        for (result, (_, says)) in zip(results, refused) {
            guard case .failure(.invalidCampaign(let why)) = result else {
                Issue.record("\(says): \(result)")
                continue
            }
            #expect(why.contains(says), "\(why)")
        }
        let written = try results[4].get()
        #expect(written.deliveries == [1])
        #expect(try await store.scalar("SELECT COUNT(*) FROM deliveries") == 1)
        #expect(try await store.campaigns(kind: nil, status: nil, before: nil, limit: 10).map(\.id) == written.ids)
        // One request on its own takes the same checks.
        await #expect(throws: StoreError.self) {
            try await store.enqueue([EnqueueRequest(specs: [refused[0].0])], now: at(3))[0].get()
        }
        // A broadcast is sent now or not at all.
        var scheduled = Self.broadcast(unstored.id)
        scheduled.scheduledAt = at(3600)
        guard
            case .failure(.invalidCampaign(let why)) = try await store.enqueue(
                [EnqueueRequest(specs: [scheduled])], now: at(3))[0]
        else {
            Issue.record("a scheduled broadcast was accepted")
            return
        }
        #expect(why.contains("sent now"))
        #expect(try await store.scalar("SELECT COUNT(*) FROM deliveries") == 1)
    }
}
