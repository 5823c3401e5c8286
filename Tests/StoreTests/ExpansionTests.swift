import APNs
import Foundation
import QueueModel
import Testing

@testable import Store

@Suite struct ExpansionTests {
    /// 12,345 devices of the topic (every 7th inactive, every 3rd in development), plus 500 of another topic.
    private func seed(_ store: AnyStore) async throws -> (all: Set<DeviceToken>, development: Set<DeviceToken>) {
        try await store.registerDevices(0..<6000, now: t0)
        try await store.registerDevices(100_000..<100_500, topic: otherTopic, now: t0)
        try await store.registerDevices(6000..<12_345, now: t0)
        try await store.execute("UPDATE devices SET environment = 'development' WHERE id % 3 = 0")
        try await store.execute(
            "UPDATE devices SET active = false, deactivated_at = 0, reason = 'Unregistered' WHERE id % 7 = 0")
        var all = Set<DeviceToken>()
        var development = Set<DeviceToken>()
        for try await device in store.allDevices(active: true, pageSize: 5000) where device.topic == topic {
            all.insert(device.token)
            if device.environment == .development { development.insert(device.token) }
        }
        return (all, development)
    }

    @Test(arguments: Engine.all) func allAudienceIsExpandedInResumablePages(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        var store = try await database.open()
        let expected = try await seed(store)
        // Device ids: 1…6000 and 6501…12845 for the topic (6001…6500 are the other topic's); every 7th id is inactive.
        let ids: [Int] = Array(1...6000) + Array(6501...12_845)
        #expect(expected.all.count == ids.filter { $0 % 7 != 0 }.count)
        let id = try await store.createCampaign(bulk(.all()), now: t0)

        // One page, then "crash": close and reopen the file.
        let first = try await store.expandDueCampaigns(now: at(1), pageSize: 1000, maxPages: 1)
        #expect(first.pages == 1)
        #expect(first.deliveriesInserted == 1000)
        #expect(first.moreRemaining)
        #expect(try await store.campaign(id).status == .running)
        await store.close()
        store = try await database.open()

        var pages = 1
        while true {
            let report = try await store.expandDueCampaigns(now: at(2), pageSize: 1000, maxPages: 3)
            pages += report.pages
            #expect(report.deliveriesInserted <= 3000)
            if !report.moreRemaining { break }
        }
        #expect(pages == expected.all.count / 1000 + 1)
        let entries = try await store.allLog(LogFilter(campaign: id))
        #expect(entries.count == expected.all.count)
        #expect(Set(entries.map(\.token)) == expected.all)
        #expect(entries.allSatisfy { $0.status == .pending && $0.attempts == 0 })
        let campaign = try await store.campaign(id)
        #expect(campaign.isExpanded)
        #expect(campaign.counters.total == expected.all.count)
        #expect(campaign.counters.pending == expected.all.count)
        // Expanding again adds nothing.
        let again = try await store.expandDueCampaigns(now: at(3), pageSize: 1000, maxPages: 10)
        #expect(again.pages == 0)
        #expect(try await store.scalar("SELECT COUNT(*) FROM deliveries") == Int64(expected.all.count))
    }

    @Test(arguments: Engine.all) func environmentFilterAndEnvironmentOfEachDelivery(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        let expected = try await seed(store)
        let id = try await store.createCampaign(bulk(.all(environment: .development)), now: t0)
        try await store.expandAll(now: t0, pageSize: 777)
        let entries = try await store.allLog(LogFilter(campaign: id))
        #expect(Set(entries.map(\.token)) == expected.development)
        #expect(entries.allSatisfy { $0.environment == .development })
        #expect(try await store.campaign(id).counters.total == expected.development.count)
    }

    @Test(arguments: Engine.all) func usersAudienceTakesTheirActiveDevicesOfTheTopic(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        try await store.registerDevices(0..<40, user: { "user\($0 % 10)" })  // 4 devices per user
        try await store.registerDevices(0..<40, topic: otherTopic, user: { "user\($0 % 10)" })
        try await store.execute(
            "UPDATE devices SET active = false WHERE token = '\(token(1).hex)' AND topic = '\(topic)'")
        let id = try await store.createCampaign(bulk(.users(["user1", "user2", "user1", "nobody"])), now: t0)
        try await store.expandAll(now: t0, pageSize: 2)
        let entries = try await store.allLog(LogFilter(campaign: id))
        let expected = Set([11, 21, 31, 2, 12, 22, 32].map { token($0) })
        #expect(Set(entries.map(\.token)) == expected)
        #expect(entries.count == expected.count)
        let campaign = try await store.campaign(id)
        #expect(campaign.counters.total == 7)
        #expect(campaign.audience == AudienceSummary(kind: .users, environment: nil, size: 4))
        #expect(try await store.scalar("SELECT COUNT(*) FROM campaign_audience") == 0)
    }

    @Test(arguments: Engine.all) func tokensCampaignBuiltInChunksIsNotSentBeforeItIsSealed(engine: Engine) async throws
    {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        _ = try await store.register(
            DeviceRegistration(token: token(1), topic: topic, environment: .development), now: t0)
        _ = try await store.register(DeviceRegistration(token: token(2), topic: topic), now: t0)
        try await store.execute("UPDATE devices SET active = false WHERE token = '\(token(2).hex)'")

        let id = try await store.beginCampaign(bulk(.tokens([token(1), token(2)], environment: .production)), now: t0)
        try await store.appendTokens((3..<2000).map { token($0) }, to: id)
        try await store.appendTokens([token(3), token(1)] + (2000..<2500).map { token($0) }, to: id)
        #expect(try await store.campaign(id).status == .draft)
        #expect(try await store.expandDueCampaigns(now: at(10), pageSize: 1000, maxPages: 10).pages == 0)
        #expect(try await store.claim(now: at(10), limit: 10, leaseFor: .seconds(30), worker: nil).isEmpty)

        let sealed = try await store.sealCampaign(id)
        #expect(sealed.status == .scheduled)
        #expect(sealed.audience.size == 2501)  // 2 + 1997 + 2 + 500 given
        await #expect(throws: StoreError.notADraft(id, .scheduled)) {
            try await store.appendTokens([token(9)], to: id)
        }
        try await store.expandAll(now: at(11), pageSize: 1000)
        let entries = try await store.allLog(LogFilter(campaign: id))
        #expect(entries.count == 2499)  // tokens 1…2499 once each: the repeated 1 and 3 are ignored
        let registered = try #require(entries.first { $0.token == token(1) })
        #expect(registered.environment == .development)  // a registered token keeps its environment
        #expect(entries.first { $0.token == token(5) }?.environment == .production)
        let inactive = try #require(entries.first { $0.token == token(2) })
        #expect(inactive.status == .cancelled)
        #expect(inactive.reason == Reason(rawValue: "DeviceInactive"))
        let counters = try await store.campaign(id).counters
        #expect(counters == CampaignCounters(total: 2499, pending: 2498, cancelled: 1))
        // Unregistered tokens are sent, but not added to the registry.
        #expect(try await store.deviceCount(active: nil) == 2)
    }

    @Test(arguments: Engine.all) func scheduledCampaignIsNeitherExpandedNorClaimedBeforeItsTime(engine: Engine)
        async throws
    {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        try await store.registerDevices(0..<10)
        let id = try await store.createCampaign(bulk(.all(), at: at(3600)), now: t0)
        #expect(try await store.expandDueCampaigns(now: at(3599), pageSize: 100, maxPages: 1).pages == 0)
        #expect(try await store.claim(now: at(3599), limit: 100, leaseFor: .seconds(30), worker: nil).isEmpty)
        #expect(try await store.nextDueDate() == at(3600))
        #expect(try await store.campaign(id).status == .scheduled)

        let report = try await store.expandDueCampaigns(now: at(3600), pageSize: 100, maxPages: 1)
        #expect(report.deliveriesInserted == 10)
        #expect(report.expandedCampaigns == [id])
        #expect(try await store.claim(now: at(3600), limit: 100, leaseFor: .seconds(30), worker: nil).count == 10)
    }

    @Test(arguments: Engine.all) func emptyAudienceCompletesAtOnce(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        let id = try await store.createCampaign(bulk(.all()), now: t0)
        try await store.expandAll(now: at(1))
        let campaign = try await store.campaign(id)
        #expect(campaign.status == .completed)
        #expect(campaign.finishedAt == at(1))
        #expect(try await store.nextDueDate() == nil)
    }
}
