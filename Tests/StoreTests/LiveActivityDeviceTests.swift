import APNs
import Foundation
import QueueModel
import TestSupport
import Testing

@testable import PostgresStore
@testable import Store

/// Device kinds (device, activity, pushToStart) with their activity types, and campaign audiences by activity type.
@Suite struct LiveActivityDeviceTests {
    private func activity(
        _ n: Int, type: String = "DeliveryAttributes", kind: DeviceKind = .activity, user: String? = nil,
        topic: String = topic, environment: Environment = .production
    ) -> DeviceRegistration {
        DeviceRegistration(
            token: token(n, prefix: 0xac), topic: topic, environment: environment, user: user, kind: kind,
            activityType: type)
    }

    private func liveActivity(_ audience: Audience, topic: String = topic) -> CampaignSpec {
        CampaignSpec(
            kind: .bulk, audience: audience,
            content: try! NotificationContent(
                bundleID: topic, pushType: .liveactivity,
                payload: try! Payload(
                    json: #"{"aps":{"timestamp":1700000000,"event":"update","content-state":{"eta":5}}}"#)))
    }

    /// The tokens of the campaign's deliveries, after expanding everything due.
    private func expandedTokens(_ store: AnyStore, _ id: CampaignID) async throws -> Set<DeviceToken> {
        try await store.expandAll(now: at(10), pageSize: 2)
        return Set(try await store.allLog(LogFilter(campaign: id)).compactMap(\.token))
    }

    @Test(arguments: Engine.all) func kindsAndActivityTypesAreStoredAndRead(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        let plain = try await store.register(DeviceRegistration(token: token(1), topic: topic), now: t0)
        #expect(plain.kind == .device && plain.activityType == nil)
        let update = try await store.register(activity(1, user: "alice"), now: t0)
        #expect(
            update.kind == .activity && update.activityType == "DeliveryAttributes" && update.topic == topic
                && update.user == "alice")
        let start = try await store.register(activity(2, type: "RideAttributes", kind: .pushToStart), now: t0)
        #expect(start.kind == .pushToStart && start.activityType == "RideAttributes")
        // Given with the Live Activity topic, a Live Activity token is stored under the bundle id.
        let suffixed = try await store.register(activity(3, topic: topic + ".push-type.liveactivity"), now: t0)
        #expect(suffixed.topic == topic)
        #expect(try await store.device(token: token(3, prefix: 0xac), topic: topic)?.kind == .activity)

        #expect(
            try await store.devices(active: nil, user: nil, kind: .activity, after: nil, limit: 100).compactMap(\.token)
                == [token(1, prefix: 0xac), token(3, prefix: 0xac)])
        #expect(
            try await store.devices(active: nil, user: nil, kind: .pushToStart, after: nil, limit: 100).compactMap(
                \.token) == [token(2, prefix: 0xac)])
        #expect(
            try await store.devices(active: nil, user: nil, kind: .device, after: nil, limit: 100).compactMap(\.token)
                == [token(1)])
        #expect(try await store.devices(active: nil, user: "alice", kind: .activity, after: nil, limit: 100).count == 1)
        #expect(try await store.devices(active: nil, user: "alice", kind: .device, after: nil, limit: 100).isEmpty)

        // Re-registering the same (token, topic) with another kind updates it: one row, the new kind and type.
        let again = try await store.registerDevice(activity(1, type: "ScoreAttributes", kind: .pushToStart), now: at(1))
        #expect(!again.isNew)
        #expect(
            again.device.kind == .pushToStart && again.device.activityType == "ScoreAttributes"
                && again.device.user == "alice")
        let back = try await store.register(DeviceRegistration(token: token(1, prefix: 0xac), topic: topic), now: at(2))
        #expect(back.kind == .device && back.activityType == nil)
        #expect(try await store.deviceCount(active: nil) == 4)
    }

    @Test(arguments: Engine.all) func badKindRulesAreRefusedAndChangeNothing(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        let missing = DeviceRegistration(token: token(1), topic: topic, kind: .activity)
        await #expect(
            throws: StoreError.invalidDevice("kind activity needs an activity type (the ActivityAttributes type name)")
        ) {
            _ = try await store.register(missing, now: t0)
        }
        let forbidden = DeviceRegistration(
            token: token(2), topic: topic, kind: .device, activityType: "DeliveryAttributes")
        await #expect(throws: StoreError.self) { _ = try await store.register(forbidden, now: t0) }
        await #expect(throws: StoreError.self) { _ = try await store.register(activity(3, type: "9Lives"), now: t0) }
        await #expect(throws: StoreError.self) {
            _ = try await store.register(activity(4, type: "Delivery Attributes"), now: t0)
        }
        await #expect(throws: StoreError.self) { _ = try await store.register(activity(5, type: ""), now: t0) }
        // One bad line refuses the whole import, before anything is written.
        await #expect(throws: StoreError.self) {
            _ = try await store.importDevices(
                [DeviceRegistration(token: token(6), topic: topic), missing], now: t0, commitEvery: 1)
        }
        #expect(try await store.deviceCount(active: nil) == 0)
    }

    @Test(arguments: Engine.all) func importStoresKindsAndTheLastRegistrationOfATokenWins(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        _ = try await store.importDevices(
            [
                DeviceRegistration(token: token(1), topic: topic),
                activity(1, user: "u1"),
                activity(2, kind: .pushToStart),
                activity(1, type: "ScoreAttributes", user: "u1"),
            ], now: t0, commitEvery: 2)
        let devices = try await store.devices(active: nil, user: nil, kind: nil, after: nil, limit: 100)
        #expect(devices.map(\.kind) == [.device, .activity, .pushToStart])
        #expect(devices.map(\.activityType) == [nil, "ScoreAttributes", "DeliveryAttributes"])
    }

    @Test(arguments: Engine.all) func activityAudiencesReachTheirTypeAndKindOnly(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        try await store.registerDevices(0..<4, user: { "u\($0 % 2)" })  // kind device, users u0 and u1
        for n in 0..<6 {
            _ = try await store.register(
                activity(n, user: "u\(n % 2)", environment: n == 5 ? .development : .production), now: t0)
        }
        _ = try await store.register(activity(10, type: "RideAttributes", user: "u0"), now: t0)
        _ = try await store.register(activity(11, kind: .pushToStart, user: "u0"), now: t0)
        _ = try await store.register(activity(12, kind: .pushToStart, user: "u1"), now: t0)
        _ = try await store.register(activity(13, topic: otherTopic), now: t0)
        _ = try await store.deactivateDevice(token: token(4, prefix: 0xac), topic: topic, reason: .removed, now: t0)
        let updates = Set([0, 1, 2, 3, 5].map { token($0, prefix: 0xac) })

        let all = try await store.createCampaign(liveActivity(.activities(type: "DeliveryAttributes")), now: t0)
        #expect(try await expandedTokens(store, all) == updates)
        #expect(
            try await store.campaign(all).audience
                == AudienceSummary(
                    kind: .all, environment: nil, size: 0,
                    activity: ActivitySelector(type: "DeliveryAttributes")))
        let ofUser = try await store.createCampaign(
            liveActivity(.activities(type: "DeliveryAttributes", users: ["u1"])), now: t0)
        #expect(try await expandedTokens(store, ofUser) == Set([1, 3, 5].map { token($0, prefix: 0xac) }))
        let production = try await store.createCampaign(
            liveActivity(.activities(type: "DeliveryAttributes", users: ["u1"], environment: .production)), now: t0)
        #expect(try await expandedTokens(store, production) == Set([1, 3].map { token($0, prefix: 0xac) }))
        let starts = try await store.createCampaign(
            liveActivity(.activities(type: "DeliveryAttributes", kind: .pushToStart)), now: t0)
        #expect(try await expandedTokens(store, starts) == Set([11, 12].map { token($0, prefix: 0xac) }))
        #expect(
            try await store.campaign(starts).audience.activity
                == ActivitySelector(type: "DeliveryAttributes", kind: .pushToStart))
        let startsOfUser = try await store.createCampaign(
            liveActivity(.activities(type: "DeliveryAttributes", kind: .pushToStart, users: ["u0", "nobody"])), now: t0)
        #expect(try await expandedTokens(store, startsOfUser) == [token(11, prefix: 0xac)])
        #expect(try await store.campaign(startsOfUser).audience.size == 2)
        // A Live Activity topic given to the campaign is kept as the bundle id, and reaches the same tokens.
        let suffixed = try await store.createCampaign(
            liveActivity(.activities(type: "RideAttributes"), topic: topic + ".push-type.liveactivity"), now: t0)
        #expect(try await store.campaign(suffixed).content.bundleID == topic)
        #expect(try await store.campaign(suffixed).content.topic == topic + ".push-type.liveactivity")
        #expect(try await expandedTokens(store, suffixed) == [token(10, prefix: 0xac)])
    }

    @Test(arguments: Engine.all) func allAndUsersAudiencesNeverReachLiveActivityTokens(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        try await store.registerDevices(0..<3, user: { _ in "u0" })
        _ = try await store.register(activity(0, user: "u0"), now: t0)
        _ = try await store.register(activity(1, kind: .pushToStart, user: "u0"), now: t0)
        let devices = Set((0..<3).map { token($0) })
        let all = try await store.createCampaign(bulk(.all()), now: t0)
        #expect(try await expandedTokens(store, all) == devices)
        let users = try await store.createCampaign(bulk(.users(["u0"])), now: t0)
        #expect(try await expandedTokens(store, users) == devices)
        // A single send to a user: the same rule.
        let single = try await store.enqueueSingle(
            CampaignSpec(
                kind: .single, audience: .users(["u0"]),
                content: try NotificationContent(bundleID: topic, payload: payload())), now: t0)
        #expect(Set(try await store.allLog(LogFilter(campaign: single)).compactMap(\.token)) == devices)
        // Tokens named one by one are sent as given, whatever their kind (an update to one activity).
        let named = try await store.createCampaign(liveActivity(.tokens([token(0, prefix: 0xac)])), now: t0)
        try await store.expandAll(now: at(10))
        let entries = try await store.allLog(LogFilter(campaign: named))
        #expect(entries.compactMap(\.token) == [token(0, prefix: 0xac)])
    }

    /// An update token that gets 410 is deactivated like any other device.
    @Test(arguments: Engine.all) func anActivityTokenAnswered410IsDeactivated(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        _ = try await store.register(activity(0), now: t0)
        _ = try await store.register(activity(1), now: t0)
        let id = try await store.createCampaign(liveActivity(.activities(type: "DeliveryAttributes")), now: t0)
        try await store.expandAll(now: t0)
        let jobs = try await store.claim(now: at(1), limit: 10, leaseFor: .seconds(60), worker: nil).sorted {
            $0.token! < $1.token!
        }
        #expect(jobs.count == 2)
        #expect(jobs.allSatisfy { $0.content.topic == topic + ".push-type.liveactivity" })
        let report = try await store.record(
            [.unregistered(jobs[0], reason: .unregistered, timestamp: nil), .accepted(jobs[1], apnsID: nil)],
            by: nil, now: at(2))
        #expect(report.devicesDeactivated == 1)
        #expect(try await store.device(token: token(0, prefix: 0xac), topic: topic)?.isActive == false)
        #expect(try await store.device(token: token(1, prefix: 0xac), topic: topic)?.isActive == true)
        #expect(try await store.campaign(id).counters == CampaignCounters(total: 2, accepted: 1, unregistered: 1))
        // The next update to the type skips it.
        let next = try await store.createCampaign(liveActivity(.activities(type: "DeliveryAttributes")), now: at(3))
        #expect(try await expandedTokens(store, next) == [token(1, prefix: 0xac)])
    }

    /// A file at the previous schema version (0013) with devices and a campaign: opening it migrates, and its devices
    /// are of kind device, its campaign of no activity audience, and both keep working.
    @Test func aSQLiteDatabaseOfThePreviousVersionMigratesAndKeepsItsDevices() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let previous = Array(Schema.migrator.migrations.prefix { $0.id != "0014-live-activity-tokens" })
        #expect(Schema.migrator.migrations[previous.count].id == "0014-live-activity-tokens")
        do {
            let db = try Connection(path: folder.databasePath)
            _ = try Migrator(migrations: previous).migrate(db)
            try db.execute(
                """
                INSERT INTO devices (token, topic, environment, user_id, registered_at) VALUES
                    ('\(token(1).hex)', '\(topic)', 'production', 'alice', 0),
                    ('\(token(2).hex)', '\(topic)', 'development', NULL, 0);
                INSERT INTO device_users (user_id, device_id) VALUES ('alice', 1);
                """)
        }
        let store = try await Store.open(at: folder.databasePath)
        let devices = try await store.devices(active: nil, after: nil, limit: 10)
        #expect(devices.compactMap(\.token) == [token(1), token(2)])
        #expect(devices.allSatisfy { $0.kind == .device && $0.activityType == nil })
        #expect(try await store.scalar("SELECT COUNT(*) FROM sqlite_master WHERE name = 'devices_by_activity'") == 1)
        // The old rows take the new rules: a Live Activity kind needs its type.
        await #expect(throws: StoreError.self) {
            try await store.execute("UPDATE devices SET kind = 'activity' WHERE id = 1")
        }
        _ = try await store.register(activity(1), now: t0)
        let id = try await store.createCampaign(bulk(.users(["alice"])), now: t0)
        #expect(try await expandedTokens(store, id) == [token(1)])
    }

    /// The same on PostgreSQL: a database at migration 0001 takes 0002, and `campaign_view` shows the new columns.
    @Test(.enabled(if: PostgresCluster.enabled))
    func aPostgreSQLDatabaseOfThePreviousVersionMigratesAndKeepsItsDevices() async throws {
        let url = try PostgresCluster.shared.createDatabase()
        do {
            let db = try PGConnection(conninfo: url)
            try db.execute("CREATE TABLE schema_migrations (id text PRIMARY KEY, applied_at bigint NOT NULL)")
            try db.execute(PGSchema.migrations[0].sql)
            try db.execute("INSERT INTO schema_migrations (id, applied_at) VALUES ('\(PGSchema.migrations[0].id)', 0)")
            try db.execute(
                """
                INSERT INTO devices (token, topic, environment, user_id, registered_at) VALUES
                    ('\(token(1).hex)', '\(topic)', 'production', 'alice', 0),
                    ('\(token(2).hex)', '\(topic)', 'development', NULL, 0)
                """)
        }
        let store = try await PostgresStore.open(url: url)
        #expect(try await store.scalar("SELECT COUNT(*) FROM schema_migrations") == Int64(PGSchema.migrations.count))
        let devices = try await store.devices(active: nil, after: nil, limit: 10)
        #expect(devices.compactMap(\.token) == [token(1), token(2)])
        #expect(devices.allSatisfy { $0.kind == .device && $0.activityType == nil })
        await #expect(throws: StoreError.self) {
            try await store.execute("UPDATE devices SET kind = 'activity' WHERE id = 1")
        }
        _ = try await store.register(activity(1, user: "alice"), now: t0)
        let id = try await store.createCampaign(
            liveActivity(.activities(type: "DeliveryAttributes", users: ["alice"])), now: t0)
        #expect(try await store.campaign(id).audience.activity == ActivitySelector(type: "DeliveryAttributes"))
        #expect(try await expandedTokens(store, id) == [token(1, prefix: 0xac)])
    }
}
