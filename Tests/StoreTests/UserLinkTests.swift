import APNs
import Foundation
import QueueModel
import QueueRules
import Testing

@testable import Store

/// `device_users`: every device with a user has exactly the link of its current user, however it got there.
@Suite struct UserLinkTests {
    /// The (user, token) links: on SQLite those in `device_users`, checked against `devices.user_id`; PostgreSQL
    /// has no such table (its user audiences read `devices.user_id` through an index), so there they are the
    /// devices' users.
    private func links(_ store: AnyStore, _ engine: Engine) async throws -> Set<String> {
        var result: Set<String> = []
        for device in try await store.devices(active: nil, user: nil, after: nil, limit: 10_000)
        where device.user != nil {
            result.insert("\(device.user!):\(device.token.hex.suffix(4))")
        }
        guard engine == .sqlite else { return result }
        #expect(
            try await store.scalar(
                """
                SELECT COUNT(*) FROM device_users u LEFT JOIN devices d ON d.id = u.device_id
                WHERE d.user_id IS NOT u.user_id
                """) == 0, "a link disagrees with devices.user_id")
        #expect(
            try await store.scalar(
                """
                SELECT COUNT(*) FROM devices d WHERE user_id IS NOT NULL
                AND NOT EXISTS (SELECT 1 FROM device_users u WHERE u.device_id = d.id AND u.user_id = d.user_id)
                """) == 0, "a device with a user has no link")
        let count = try await store.scalar("SELECT COUNT(*) FROM device_users") ?? 0
        #expect(Int(count) == result.count)
        return result
    }

    @Test(arguments: Engine.all) func registeringWithAnotherUserMovesTheLink(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        _ = try await store.register(DeviceRegistration(token: token(1), topic: topic, user: "alice"), now: t0)
        _ = try await store.register(DeviceRegistration(token: token(1), topic: topic), now: at(1))  // keeps alice
        #expect(try await links(store, engine) == ["alice:0001"])
        _ = try await store.register(DeviceRegistration(token: token(1), topic: topic, user: "bob"), now: at(2))
        #expect(try await links(store, engine) == ["bob:0001"])

        let id = try await store.createCampaign(bulk(.users(["alice", "bob"])), now: at(3))
        try await store.expandAll(now: at(3))
        #expect(try await store.allLog(LogFilter(campaign: id)).map(\.token) == [token(1)])
    }

    @Test(arguments: Engine.all) func importAppliesRepeatedLinesInOrder(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        _ = try await store.register(DeviceRegistration(token: token(3), topic: topic, user: "carol"), now: t0)
        _ = try await store.importDevices(
            [
                DeviceRegistration(token: token(1), topic: topic, environment: .production, user: "alice"),
                DeviceRegistration(token: token(2), topic: topic, user: "bob"),
                DeviceRegistration(token: token(1), topic: otherTopic, user: "zoe"),
                DeviceRegistration(token: token(1), topic: topic, environment: .development),  // keeps alice
                DeviceRegistration(token: token(2), topic: topic, user: "dave"),  // bob, then dave
                DeviceRegistration(token: token(3), topic: topic, user: "erin"),  // was carol
                DeviceRegistration(token: token(3), topic: topic),
            ], now: at(1), commitEvery: 100_000)
        #expect(try await store.deviceCount(active: nil) == 4)
        let first = try #require(try await store.device(token: token(1), topic: topic))
        #expect(first.user == "alice")
        #expect(first.environment == .development)
        #expect(first.registeredAt == at(1))
        #expect(try await store.device(token: token(1), topic: otherTopic)?.user == "zoe")
        #expect(try await links(store, engine) == ["alice:0001", "zoe:0001", "dave:0002", "erin:0003"])
    }

    @Test(arguments: Engine.all) func importInManyTransactionsLinksEveryDevice(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        // More than one multi-row statement per transaction, a short last statement, and users out of token order.
        let registrations = (0..<2_345).map {
            DeviceRegistration(token: token($0), topic: topic, user: "u\(($0 * 7919) % 1000)")
        }
        #expect(try await store.importDevices(registrations, now: t0, commitEvery: 1_100) == 2_345)
        #expect(try await links(store, engine).count == 2_345)
        // The same devices again, half of them with another user: the links follow.
        let again = registrations.enumerated().map { index, registration in
            var changed = registration
            if index % 2 == 0 { changed.user = "v\(index % 10)" }
            return changed
        }
        _ = try await store.importDevices(again.reversed(), now: at(1), commitEvery: 700)
        let after = try await links(store, engine)
        #expect(after.count == 2_345)
        #expect(after.filter { $0.hasPrefix("v") }.count == 1_173)
        #expect(try await store.deviceCount(active: nil) == 2_345)
        #expect(
            try await store.scalar("SELECT COUNT(*) FROM devices WHERE registered_at <> \(at(1).storeMilliseconds)")
                == 0)
    }

    @Test(arguments: Engine.all) func anImportThatLinksLaterLinksEveryDeviceAtItsEnd(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        _ = try await store.register(DeviceRegistration(token: token(3), topic: topic, user: "carol"), now: t0)
        let registrations = (0..<1_234).map {
            DeviceRegistration(token: token($0), topic: topic, user: "u\(($0 * 7919) % 100)")
        }
        // Two calls, as `device import` makes one per chunk of its file.
        #expect(
            try await store.importDevices(
                Array(registrations[..<600]), now: at(1), commitEvery: 250, linkUsersLater: true) == 600)
        #expect(
            try await store.importDevices(
                Array(registrations[600...]), now: at(2), commitEvery: 250, linkUsersLater: true) == 634)
        if engine == .sqlite {
            #expect(try await store.scalar("SELECT COUNT(*) FROM device_users_pending") == 1_234)
            // Only carol's link, which the import replaced with token 3's new user, was there before.
            #expect(try await store.scalar("SELECT COUNT(*) FROM device_users") == 0)
        }
        #expect(try await store.linkImportedUsers() == (engine == .sqlite ? 1_234 : 0))
        let linked = try await links(store, engine)
        #expect(linked.count == 1_234)
        #expect(linked.contains("u\((3 * 7919) % 100):0003"))
        #expect(try await store.linkImportedUsers() == 0)

        let id = try await store.createCampaign(bulk(.users(["u0"])), now: at(3))
        try await store.expandAll(now: at(3))
        #expect(try await store.allLog(LogFilter(campaign: id)).count == 13)
    }

    @Test func aLinkWaitingForTheImportsEndFollowsItsDeviceMeanwhile() async throws {
        let database = try TestDatabase(.sqlite)
        defer { database.remove() }
        let store = try await database.open()
        _ = try await store.importDevices(
            (1...3).map { DeviceRegistration(token: token($0), topic: topic, user: "alice") }, now: t0,
            commitEvery: 100, linkUsersLater: true)
        // Before the import links its users, device 1 moves to bob and device 2 is deleted (prune does, for one).
        _ = try await store.register(DeviceRegistration(token: token(1), topic: topic, user: "bob"), now: at(1))
        try await store.execute("DELETE FROM devices WHERE token = '\(token(2).hex)'")
        #expect(try await store.scalar("SELECT COUNT(*) FROM device_users_pending") == 1)
        #expect(try await store.linkImportedUsers() == 1)
        #expect(try await links(store, .sqlite) == ["bob:0001", "alice:0003"])
    }

    @Test func waitingLinksAreLinkedInTransactionsOfAFewDevices() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await Store.open(at: folder.databasePath)
        let registrations = (0..<1_234).map {
            DeviceRegistration(token: token($0), topic: topic, user: "u\(($0 * 7919) % 100)")
        }
        _ = try await store.importDevices(registrations, now: t0, commitEvery: 500, linkUsersLater: true)
        #expect(try await store.linkImportedUsers(perTransaction: 100) == 1_234)
        #expect(try await links(store, .sqlite).count == 1_234)
        #expect(try await store.scalar("SELECT COUNT(*) FROM device_users_pending") == 0)
    }

    @Test func migrationLinksTheUsersOfAnExistingRegistry() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // A file as the first release left it: migration 0001 only, devices with users.
        do {
            let db = try Connection(path: folder.databasePath)
            _ = try Migrator(migrations: [Schema.migrator.migrations[0]]).migrate(db)
            try db.execute(
                """
                INSERT INTO devices (token, topic, environment, user_id, registered_at) VALUES
                    ('\(token(1).hex)', '\(topic)', 'production', 'alice', 0),
                    ('\(token(2).hex)', '\(topic)', 'production', NULL, 0),
                    ('\(token(3).hex)', '\(topic)', 'development', 'alice', 0);
                """)
        }
        let store = try await Store.open(at: folder.databasePath)
        #expect(try await links(store, .sqlite) == ["alice:0001", "alice:0003"])
        #expect(try await store.scalar("SELECT COUNT(*) FROM sqlite_master WHERE name = 'devices_by_user'") == 0)
    }
}
