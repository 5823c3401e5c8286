import APNs
import Foundation
import QueueModel
import Testing

@testable import Store

@Suite struct DeviceLifecycleTests {
    @Test(arguments: Engine.all) func registerSaysNewThenRefreshed(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        let first = try await store.registerDevice(DeviceRegistration(token: token(1), topic: topic), now: at(0))
        #expect(first.isNew && first.replaced == nil)
        let second = try await store.registerDevice(DeviceRegistration(token: token(1), topic: topic), now: at(1))
        #expect(!second.isNew && second.device.id == first.device.id && second.device.registeredAt == at(1))
        #expect(
            try await store.registerDevice(DeviceRegistration(token: token(1), topic: otherTopic), now: at(2)).isNew)
        #expect(try await store.events(after: nil, limit: 500).isEmpty)
    }

    @Test(arguments: Engine.all) func replacingDeactivatesTheOldTokenOfTheSameTopicAndKeepsItsUser(engine: Engine)
        async throws
    {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        _ = try await store.register(DeviceRegistration(token: token(1), topic: topic, user: "alice"), now: at(0))
        _ = try await store.register(DeviceRegistration(token: token(1), topic: otherTopic), now: at(0))
        let result = try await store.registerDevice(
            DeviceRegistration(token: token(2), topic: topic, replaces: token(1)), now: at(5))
        #expect(result.isNew)
        #expect(result.device.user == "alice" && result.device.isActive)
        let old = try #require(result.replaced)
        #expect(old.token == token(1) && !old.isActive && old.reason == .replaced && old.deactivatedAt == at(5))
        #expect(try await store.device(token: token(1), topic: otherTopic)?.isActive == true)
        let events = try await store.events(after: nil, limit: 500)
        #expect(events.map(\.type) == [.deviceDeactivated])
        #expect(events.first?.token == token(1) && events.first?.reason == .replaced && events.first?.user == "alice")
        #expect(events.first?.at == at(5) && events.first?.topic == topic)
        // Replacing an unknown or already inactive token changes nothing but the registration.
        let again = try await store.registerDevice(
            DeviceRegistration(token: token(3), topic: topic, replaces: token(1)), now: at(6))
        #expect(again.replaced == nil && again.device.user == nil)
        #expect(try await store.events(after: nil, limit: 500).count == 1)
    }

    @Test(arguments: Engine.all) func theNewestEventsComeOldestFirst(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        #expect(try await store.latestEvents(limit: 10).isEmpty)
        for n in 1...4 {
            _ = try await store.register(DeviceRegistration(token: token(n), topic: topic), now: at(0))
            _ = try await store.deactivateDevice(token: token(n), topic: topic, reason: .removed, now: at(Double(n)))
        }
        let all = try await store.events(after: nil, limit: 500)
        #expect(all.count == 4)
        #expect(try await store.latestEvents(limit: 2).map(\.id) == all.suffix(2).map(\.id))
        #expect(try await store.latestEvents(limit: 2).map(\.token) == [token(3), token(4)])
        #expect(try await store.latestEvents(limit: 10).map(\.id) == all.map(\.id))
    }

    @Test(arguments: Engine.all) func deactivatingByTokenNeedsTheTopicOnlyWhenAmbiguous(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        _ = try await store.register(DeviceRegistration(token: token(1), topic: topic), now: at(0))
        _ = try await store.register(DeviceRegistration(token: token(2), topic: topic), now: at(0))
        _ = try await store.register(DeviceRegistration(token: token(2), topic: otherTopic), now: at(0))

        #expect(try await store.deactivateDevice(token: token(9), topic: nil, reason: .removed, now: at(1)) == nil)
        #expect(
            try await store.deactivateDevice(token: token(1), topic: otherTopic, reason: .removed, now: at(1)) == nil)
        let removed = try #require(
            try await store.deactivateDevice(token: token(1), topic: nil, reason: .removed, now: at(1)))
        #expect(!removed.isActive && removed.reason == .removed && removed.deactivatedAt == at(1))
        await #expect(throws: StoreError.ambiguousDevice(token: token(2).hex, topics: [topic, otherTopic])) {
            _ = try await store.deactivateDevice(token: token(2), topic: nil, reason: .removed, now: at(2))
        }
        #expect(try await store.device(token: token(2), topic: topic)?.isActive == true)
        let named = try await store.deactivateDevice(token: token(2), topic: otherTopic, reason: .removed, now: at(3))
        #expect(named?.isActive == false && named?.topic == otherTopic)
        // Again: returned unchanged, no second event.
        let twice = try await store.deactivateDevice(token: token(1), topic: topic, reason: .removed, now: at(4))
        #expect(twice?.deactivatedAt == at(1))
        let events = try await store.events(after: nil, limit: 500)
        #expect(events.map(\.token) == [token(1), token(2)])
        #expect(events.map(\.topic) == [topic, otherTopic])
        #expect(events.allSatisfy { $0.reason == .removed && $0.type == .deviceDeactivated })
    }

    @Test(arguments: Engine.all) func deactivatingAUsersDevicesTouchesOnlyTheirActiveOnes(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        try await store.registerDevices(0..<10, user: { $0 < 4 ? "alice" : "bob" })
        _ = try await store.deactivateDevice(token: token(0), topic: topic, reason: .removed, now: at(1))
        #expect(try await store.deactivateDevices(user: "alice", reason: .removed, now: at(2)) == 3)
        #expect(try await store.deactivateDevices(user: "alice", reason: .removed, now: at(3)) == 0)
        #expect(try await store.deactivateDevices(user: "nobody", reason: .removed, now: at(3)) == 0)
        #expect(try await store.devices(active: true, user: "alice", after: nil, limit: 1000).isEmpty)
        #expect(try await store.devices(active: true, user: "bob", after: nil, limit: 1000).count == 6)
        let events = try await store.events(after: nil, limit: 500)
        #expect(events.map(\.token) == (0..<4).map { token($0) })
        #expect(events.dropFirst().allSatisfy { $0.user == "alice" && $0.at == at(2) })
    }

    @Test(arguments: Engine.all) func devicesByUserPageInIdOrderAndFilterActive(engine: Engine) async throws {
        let database = try TestDatabase(engine)
        defer { database.remove() }
        let store = try await database.open()
        try await store.registerDevices(0..<20, user: { $0 % 2 == 0 ? "even" : "odd" })
        _ = try await store.deactivateDevice(token: token(4), topic: topic, reason: .removed, now: at(1))
        let firstPage = try await store.devices(active: nil, user: "even", after: nil, limit: 4)
        #expect(firstPage.map(\.token) == [0, 2, 4, 6].map { token($0) })
        let rest = try await store.devices(active: nil, user: "even", after: firstPage.last?.id, limit: 100)
        #expect(rest.map(\.token) == [8, 10, 12, 14, 16, 18].map { token($0) })
        #expect(try await store.devices(active: true, user: "even", after: nil, limit: 100).count == 9)
        #expect(try await store.devices(active: false, user: "even", after: nil, limit: 100).map(\.token) == [token(4)])
        #expect(try await store.devices(active: nil, user: "nobody", after: nil, limit: 1000).isEmpty)
        #expect(try await store.devices(active: false, after: nil, limit: 1000).map(\.token) == [token(4)])
    }
}
