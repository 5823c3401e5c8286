import APNs
import Foundation
import QueueModel
import Testing

@testable import Store

/// Broadcast channels on each engine: recorded with a local number, found by it or by the APNs id, listed by topic,
/// marked deleted and kept.
@Suite struct ChannelStoreTests {
    static let first = "dGhlIGZpcnN0IGNoYW5uZWw="
    static let second = "c2Vjb25kL2NoYW5uZWwrMQ=="

    func opened(_ engine: Engine) async throws -> (AnyStore, TestDatabase) {
        let database = try TestDatabase(engine)
        return (try await database.open(), database)
    }

    @Test(arguments: Engine.all) func recordFindListAndMarkDeleted(engine: Engine) async throws {
        let (store, database) = try await opened(engine)
        defer { database.remove() }
        let one = try await store.recordChannel(
            channelID: Self.first, topic: "com.example.scores", environment: .production,
            storage: .latest, credential: "default", now: at(0))
        #expect(
            one
                == Channel(
                    id: one.id, channelID: Self.first, topic: "com.example.scores", environment: .production,
                    storage: .latest, credential: "default", createdAt: at(0)))
        let two = try await store.recordChannel(
            channelID: Self.second, topic: "com.example.rides", environment: .development,
            storage: .none, credential: "teamB", now: at(1))
        #expect(two.id > one.id)
        #expect(try await store.channels(topic: nil, includeDeleted: false) == [one, two])
        #expect(try await store.channels(topic: "com.example.rides", includeDeleted: false) == [two])
        #expect(try await store.channels(topic: "com.example.none", includeDeleted: false) == [])

        #expect(try await store.channel(.local(one.id)) == one)
        #expect(try await store.channel(.apns(Self.second)) == two)
        #expect(try await store.channel(ChannelReference(Self.second)) == two)
        #expect(try await store.channel(.local(9999)) == nil)
        #expect(try await store.channel(.apns("bm8gc3VjaA==")) == nil)
        #expect(try await store.scalar("SELECT storage FROM channels WHERE id = \(two.id)") == 0, "none is policy 0")
        #expect(try await store.scalar("SELECT storage FROM channels WHERE id = \(one.id)") == 1, "latest is policy 1")

        let deleted = try #require(try await store.markChannelDeleted(id: one.id, now: at(5)))
        #expect(deleted.deletedAt == at(5) && deleted.isDeleted)
        #expect(
            try await store.markChannelDeleted(id: one.id, now: at(9))?.deletedAt == at(5),
            "the first deletion time stays")
        #expect(try await store.markChannelDeleted(id: 9999, now: at(9)) == nil)
        #expect(try await store.channels(topic: nil, includeDeleted: false) == [two], "a deleted channel is left out")
        #expect(
            try await store.channels(topic: nil, includeDeleted: true).map(\.id) == [one.id, two.id],
            "but its row is kept")
        #expect(try await store.channel(.apns(Self.first))?.deletedAt == at(5))
    }

    /// An all-digit APNs id (valid base64) is found though it reads as a local number.
    @Test(arguments: Engine.all) func anAllDigitChannelIDIsFoundByItsText(engine: Engine) async throws {
        let (store, database) = try await opened(engine)
        defer { database.remove() }
        let channel = try await store.recordChannel(
            channelID: "12345678", topic: "com.example.app", environment: .production,
            storage: .latest, credential: "default", now: at(0))
        #expect(ChannelReference("12345678") == .local(12_345_678))
        #expect(try await store.channel(ChannelReference("12345678")) == channel)
    }

    @Test(arguments: Engine.all) func aSecondRecordOfOneChannelOrABadIDIsRefusedAndWritesNothing(engine: Engine)
        async throws
    {
        let (store, database) = try await opened(engine)
        defer { database.remove() }
        _ = try await store.recordChannel(
            channelID: Self.first, topic: "com.example.app", environment: .production,
            storage: .latest, credential: "default", now: at(0))
        await #expect(throws: StoreError.invalidChannel("channel \(Self.first) (production) is already recorded")) {
            try await store.recordChannel(
                channelID: Self.first, topic: "com.example.app", environment: .production,
                storage: .none, credential: "default", now: at(1))
        }
        // The same id in the other environment is another channel.
        _ = try await store.recordChannel(
            channelID: Self.first, topic: "com.example.app", environment: .development,
            storage: .none, credential: "default", now: at(1))
        await #expect(throws: StoreError.self) {
            try await store.recordChannel(
                channelID: "not base64!", topic: "com.example.app", environment: .production,
                storage: .none, credential: "default", now: at(1))
        }
        #expect(try await store.scalar("SELECT COUNT(*) FROM channels") == 2)
    }
}
