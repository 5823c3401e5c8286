import APNs
import Foundation
import QueueModel
import Testing

@testable import Store

@Suite struct DeviceTests {
    @Test(arguments: Engine.all) func reRegistrationRefreshesTimeAndReactivates(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        let first = try await store.register(
            DeviceRegistration(token: token(1), topic: topic, user: "alice"), now: at(0))
        #expect(first.isActive)
        #expect(first.registeredAt == at(0))
        #expect(first.user == "alice")

        // BadDeviceToken deactivates it…
        let campaign = try await store.enqueueSingle(single(token(1)), now: at(1))
        let jobs = try await store.claim(now: at(1), limit: 10, leaseFor: .seconds(30), worker: nil)
        #expect(jobs.map(\.campaignID) == [campaign])
        _ = try await store.record([.badToken(jobs[0], reason: .badDeviceToken)], by: nil, now: at(2))
        let dead = try #require(try await store.device(token: token(1), topic: topic))
        #expect(!dead.isActive)
        #expect(dead.reason == .badDeviceToken)
        #expect(dead.deactivatedAt == at(2))

        // …and registering it again brings it back, with a new registration time, keeping its user.
        let again = try await store.register(
            DeviceRegistration(token: token(1), topic: topic, environment: .development), now: at(10))
        #expect(again.id == first.id)
        #expect(again.isActive)
        #expect(again.registeredAt == at(10))
        #expect(again.deactivatedAt == nil)
        #expect(again.reason == nil)
        #expect(again.environment == .development)
        #expect(again.user == "alice")
        #expect(try await store.deviceCount(active: nil) == 1)
    }

    @Test(arguments: Engine.all) func sameTokenForTwoTopicsIsTwoDevices(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        _ = try await store.register(DeviceRegistration(token: token(1), topic: topic), now: t0)
        _ = try await store.register(DeviceRegistration(token: token(1), topic: otherTopic), now: t0)
        #expect(try await store.deviceCount(active: nil) == 2)
    }

    @Test(arguments: Engine.all) func importsAHundredThousandDevicesInOneCall(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        let registrations = (0..<100_000).map {
            DeviceRegistration(token: token($0), topic: topic, user: "u\($0 % 1000)")
        }
        #expect(try await store.importDevices(registrations, now: t0, commitEvery: 100_000) == 100_000)
        #expect(try await store.deviceCount(active: nil) == 100_000)
        // Importing some again updates them instead of adding rows.
        _ = try await store.importDevices(Array(registrations[0..<10]), now: at(5), commitEvery: 100_000)
        #expect(try await store.deviceCount(active: nil) == 100_000)
        #expect(try await store.device(token: token(3), topic: topic)?.registeredAt == at(5))
        #expect(try await store.device(token: token(30), topic: topic)?.registeredAt == t0)
    }

    @Test(arguments: Engine.all) func listsDevicesInPagesWithActiveFilter(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        try await store.registerDevices(0..<25)
        try await store.execute(
            "UPDATE devices SET active = false, deactivated_at = 0, reason = 'Unregistered' WHERE id % 5 = 0")

        var all: [Device] = []
        for try await device in store.allDevices(pageSize: 7) { all.append(device) }
        #expect(all.count == 25)
        #expect(Set(all.map(\.token)).count == 25)
        #expect(all.map(\.id) == all.map(\.id).sorted())

        let inactive = try await store.devices(active: false, after: nil, limit: 100)
        #expect(inactive.count == 5)
        #expect(inactive.allSatisfy { !$0.isActive && $0.reason == .unregistered })
        var active: [Device] = []
        for try await device in store.allDevices(active: true, pageSize: 4) { active.append(device) }
        #expect(active.count == 20)
        #expect(try await store.deviceCount(active: true) == 20)

        let page = try await store.devices(active: nil, after: all[9].id, limit: 3)
        #expect(page.map(\.id) == Array(all[10..<13]).map(\.id))
    }
}
