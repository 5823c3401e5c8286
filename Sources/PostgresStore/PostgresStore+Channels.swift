import APNs
import Foundation
import QueueModel
import QueueRules

/// Broadcast channels (`channels`): recorded after APNs created them, marked deleted after APNs deleted them.
extension PostgresStore: ChannelStore {
    public func recordChannel(
        channelID: String, topic: String, environment: Environment, storage: ChannelStorage,
        credential: String, now: Date
    ) throws(StoreError) -> Channel {
        do { try ChannelManagement.validate(channelID: channelID) } catch { throw .invalidChannel("\(error)") }
        let nowMS = now.storeMilliseconds
        return try write { db in
            // ON CONFLICT on (channel_id, environment): a second record of one channel is refused, not an engine failure.
            let rows = try db.query(
                """
                INSERT INTO channels (channel_id, topic, environment, storage, credential, created_at) VALUES ($1, $2, $3, $4, $5, $6)
                ON CONFLICT (channel_id, environment) DO NOTHING RETURNING id
                """, channelID, topic, environment.rawValue, Int64(storage.messageStoragePolicy), credential, nowMS)
            guard rows.count == 1 else {
                throw StoreError.invalidChannel("channel \(channelID) (\(environment)) is already recorded")
            }
            return Channel(
                id: try rows.int64(0, 0), channelID: channelID, topic: topic, environment: environment,
                storage: storage,
                credential: credential, createdAt: Milliseconds.date(nowMS))
        }
    }

    public func channels(topic: String?, includeDeleted: Bool) throws(StoreError) -> [Channel] {
        try read { db in
            let rows = try db.query(
                """
                SELECT \(Self.channelColumns) FROM channels
                WHERE ($1::text IS NULL OR topic = $1) AND ($2 OR deleted_at IS NULL) ORDER BY id
                """, topic, includeDeleted)
            return try (0..<rows.count).map { row in try Self.channel(rows, row) }
        }
    }

    public func channel(_ reference: ChannelReference) throws(StoreError) -> Channel? {
        try read { db in
            if case .local(let id) = reference {
                let rows = try db.query("SELECT \(Self.channelColumns) FROM channels WHERE id = $1", id)
                if rows.count > 0 { return try Self.channel(rows, 0) }
            }
            let rows = try db.query(
                """
                SELECT \(Self.channelColumns) FROM channels WHERE channel_id = $1
                ORDER BY deleted_at IS NOT NULL, COALESCE(deleted_at, 0) DESC, id DESC LIMIT 1
                """, reference.description)
            return rows.count > 0 ? try Self.channel(rows, 0) : nil
        }
    }

    public func markChannelDeleted(id: Int64, now: Date) throws(StoreError) -> Channel? {
        let nowMS = now.storeMilliseconds
        return try write { db in
            _ = try db.query("UPDATE channels SET deleted_at = $2 WHERE id = $1 AND deleted_at IS NULL", id, nowMS)
            let rows = try db.query("SELECT \(Self.channelColumns) FROM channels WHERE id = $1", id)
            return rows.count > 0 ? try Self.channel(rows, 0) : nil
        }
    }

    static let channelColumns = "id, channel_id, topic, environment, storage, credential, created_at, deleted_at"

    static func channel(_ rows: PGResult, _ row: Int) throws -> Channel {
        let policy = Int(try rows.int64(row, 4))
        guard let storage = ChannelStorage(messageStoragePolicy: policy) else {
            throw StoreError.corruptValue("message storage policy \(policy) of channel \(try rows.int64(row, 0))")
        }
        return Channel(
            id: try rows.int64(row, 0), channelID: try rows.string(row, 1), topic: try rows.string(row, 2),
            environment: try Decode.environment(try rows.string(row, 3)), storage: storage,
            credential: try rows.string(row, 5), createdAt: Milliseconds.date(try rows.int64(row, 6)),
            deletedAt: try rows.optionalInt64(row, 7).map(Milliseconds.date))
    }
}
