import APNs
import Foundation
import QueueModel
import QueueRules

/// Broadcast channels (`channels`, SCHEMA.md): recorded after APNs created them, marked deleted after APNs deleted
/// them.
extension Store: ChannelStore {
    public func recordChannel(
        channelID: String, topic: String, environment: Environment, storage: ChannelStorage,
        credential: String, now: Date
    ) throws(StoreError) -> Channel {
        do { try ChannelManagement.validate(channelID: channelID) } catch { throw .invalidChannel("\(error)") }
        let nowMS = now.storeMilliseconds
        return try write { db in
            let existing =
                try db.cached("SELECT COUNT(*) FROM channels WHERE channel_id = ? AND environment = ?")
                .bind(channelID, environment.rawValue).scalarInt64() ?? 0
            guard existing == 0 else {
                throw StoreError.invalidChannel("channel \(channelID) (\(environment)) is already recorded")
            }
            try db.cached(
                """
                INSERT INTO channels (channel_id, topic, environment, storage, credential, created_at) VALUES (?, ?, ?, ?, ?, ?)
                """
            ).bind(channelID, topic, environment.rawValue, Int64(storage.messageStoragePolicy), credential, nowMS).run()
            return Channel(
                id: db.lastInsertRowID, channelID: channelID, topic: topic, environment: environment, storage: storage,
                credential: credential, createdAt: Milliseconds.date(nowMS))
        }
    }

    public func channels(topic: String?, includeDeleted: Bool) throws(StoreError) -> [Channel] {
        try read { db in
            let statement = try db.cached(
                """
                SELECT \(Self.channelColumns) FROM channels
                WHERE (?1 IS NULL OR topic = ?1) AND (?2 = 1 OR deleted_at IS NULL) ORDER BY id
                """
            ).bind(topic, Int64(includeDeleted ? 1 : 0))
            defer { statement.reset() }
            var found: [Channel] = []
            while try statement.step() { found.append(try Self.channel(statement)) }
            return found
        }
    }

    public func channel(_ reference: ChannelReference) throws(StoreError) -> Channel? {
        try read { db in
            if case .local(let id) = reference {
                let statement = try db.cached("SELECT \(Self.channelColumns) FROM channels WHERE id = ?").bind(id)
                defer { statement.reset() }
                if try statement.step() { return try Self.channel(statement) }
            }
            let statement = try db.cached(
                """
                SELECT \(Self.channelColumns) FROM channels WHERE channel_id = ?
                ORDER BY deleted_at IS NOT NULL, COALESCE(deleted_at, 0) DESC, id DESC LIMIT 1
                """
            ).bind(reference.description)
            defer { statement.reset() }
            return try statement.step() ? try Self.channel(statement) : nil
        }
    }

    public func markChannelDeleted(id: Int64, now: Date) throws(StoreError) -> Channel? {
        let nowMS = now.storeMilliseconds
        return try write { db in
            try db.cached("UPDATE channels SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL").bind(nowMS, id)
                .run()
            let statement = try db.cached("SELECT \(Self.channelColumns) FROM channels WHERE id = ?").bind(id)
            defer { statement.reset() }
            return try statement.step() ? try Self.channel(statement) : nil
        }
    }

    static let channelColumns = "id, channel_id, topic, environment, storage, credential, created_at, deleted_at"

    static func channel(_ statement: Statement) throws -> Channel {
        let policy = Int(statement.int64(4))
        guard let storage = ChannelStorage(messageStoragePolicy: policy) else {
            throw StoreError.corruptValue("message storage policy \(policy) of channel \(statement.int64(0))")
        }
        return Channel(
            id: statement.int64(0), channelID: statement.string(1), topic: statement.string(2),
            environment: try Decode.environment(statement.string(3)), storage: storage, credential: statement.string(5),
            createdAt: Milliseconds.date(statement.int64(6)),
            deletedAt: statement.optionalInt64(7).map(Milliseconds.date))
    }
}
