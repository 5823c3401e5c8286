import APNs
import Foundation
import QueueModel
import QueueRules

extension Store {
    static let deviceColumns = deviceColumnList("")

    /// The columns `device(from:)` reads, each after `prefix` (a table alias and a dot, or nothing).
    static func deviceColumnList(_ prefix: String) -> String {
        [
            "id", "token", "topic", "environment", "user_id", "active", "registered_at", "deactivated_at", "reason",
            "kind", "activity_type",
        ]
        .map { prefix + $0 }.joined(separator: ", ")
    }

    /// Registers a device, or re-registers it: refreshes `registeredAt`, reactivates it, updates its environment,
    /// kind and activity type and (when given) its user. Returns the device as stored. A registration that breaks
    /// a rule of `DeviceRegistration.checked()` fails with `StoreError.invalidDevice` and changes nothing. For tests
    /// and tools: producers call `registerDevice`.
    @discardableResult
    public func register(_ registration: DeviceRegistration, now: Date = Date()) throws(StoreError) -> Device {
        try registerDevice(registration, now: now).device
    }

    /// Registers as `register`, and says whether the device is new. A registration that `replaces` another
    /// token deactivates that token's active device for the same topic (`Replaced`, with its event) in the same
    /// transaction, and keeps its user when the registration gives none.
    @discardableResult
    public func registerDevice(_ registration: DeviceRegistration, now: Date = Date()) throws(StoreError)
        -> RegistrationResult
    {
        let nowMS = now.storeMilliseconds
        var wroteEvent = false
        defer { if wroteEvent { eventsWritten() } }
        let checked = try registration.checked()
        return try write { db in
            var registration = checked
            let isNew = try Self.fetchDevice(db, token: registration.token, topic: registration.topic) == nil
            var replaced: Device?
            if let old = registration.replaces, old != registration.token,
                let oldDevice = try Self.fetchDevice(db, token: old, topic: registration.topic), oldDevice.isActive
            {
                if registration.user == nil { registration.user = oldDevice.user }
                wroteEvent = try Self.deactivate(
                    db, token: old.hex, topic: registration.topic, reason: .replaced, at: nowMS)
                replaced = try Self.fetchDevice(db, token: old, topic: registration.topic)
            }
            try Self.upsert(db, ImportRows([registration], [0]), registeredAt: nowMS)
            guard let device = try Self.fetchDevice(db, token: registration.token, topic: registration.topic) else {
                throw StoreError.corruptValue("device vanished after registration")
            }
            return RegistrationResult(device: device, isNew: isNew, replaced: replaced)
        }
    }

    /// Deactivates the device of `token` for `topic` (for its only topic when nil; `StoreError.ambiguousDevice`
    /// when it has several) with `reason`, writing its event. Returns the device as stored after, nil when
    /// unknown; a device already inactive is returned unchanged (no event).
    @discardableResult
    public func deactivateDevice(token: DeviceToken, topic: String?, reason: Reason, now: Date = Date())
        throws(StoreError) -> Device?
    {
        var wroteEvent = false
        defer { if wroteEvent { eventsWritten() } }
        return try write { db in
            let chosen: String
            if let topic {
                chosen = topic
            } else {
                let statement = try db.cached("SELECT topic FROM devices WHERE token = ? ORDER BY topic").bind(
                    token.hex)
                defer { statement.reset() }
                var topics: [String] = []
                while try statement.step() { topics.append(statement.string(0)) }
                guard topics.count <= 1 else { throw StoreError.ambiguousDevice(token: token.hex, topics: topics) }
                guard let only = topics.first else { return nil }
                chosen = only
            }
            wroteEvent = try Self.deactivate(
                db, token: token.hex, topic: chosen, reason: reason, at: now.storeMilliseconds)
            return try Self.fetchDevice(db, token: token, topic: chosen)
        }
    }

    /// Deactivates every active device of `user` with `reason`, writing their events; returns how many.
    @discardableResult
    public func deactivateDevices(user: String, reason: Reason, now: Date = Date()) throws(StoreError) -> Int {
        let count = try write { db in
            let nowMS = now.storeMilliseconds
            try db.cached(
                """
                INSERT INTO events (type, token, topic, environment, user_id, reason, at)
                SELECT 'device.deactivated', d.token, d.topic, d.environment, d.user_id, ?2, ?3
                FROM device_users u JOIN devices d ON d.id = u.device_id
                WHERE u.user_id = ?1 AND d.active = 1 ORDER BY d.id
                """
            ).bind(user, reason.rawValue, nowMS).run()
            guard db.changes > 0 else { return 0 }
            try db.cached(
                """
                UPDATE devices SET active = 0, deactivated_at = ?3, reason = ?2
                WHERE id IN (SELECT device_id FROM device_users WHERE user_id = ?1) AND active = 1
                """
            ).bind(user, reason.rawValue, nowMS).run()
            return db.changes
        }
        if count > 0 { eventsWritten() }
        return count
    }

    /// The device registered with `token` for `topic`, if any.
    public func device(token: DeviceToken, topic: String) throws(StoreError) -> Device? {
        try read { db in try Self.fetchDevice(db, token: token, topic: topic) }
    }

    /// Every registration of `token` (one per topic), by topic.
    public func devices(token: DeviceToken) throws(StoreError) -> [Device] {
        try read { db in
            let statement = try db.cached("SELECT \(Self.deviceColumns) FROM devices WHERE token = ? ORDER BY topic")
                .bind(token.hex)
            defer { statement.reset() }
            var devices: [Device] = []
            while try statement.step() { devices.append(try Self.device(from: statement)) }
            return devices
        }
    }

    /// One page of the registry, in id order: devices with an id greater than `after`; `active`, `user` and `kind`
    /// filter (a user's devices are read through `device_users`, so a user with few devices costs a few rows however
    /// big the registry). Page with the last device's `id` until a page comes back shorter than `limit`.
    public func devices(
        active: Bool? = nil, user: String? = nil, kind: DeviceKind? = nil, after: Int64? = nil,
        limit: Int = 1000
    ) throws(StoreError) -> [Device] {
        // The kind is one of three fixed words: written into the statement, which stays one cached statement per kind.
        let filter =
            (active.map { $0 ? " AND d.active = 1" : " AND d.active = 0" } ?? "")
            + (kind.map { " AND d.kind = '\($0.rawValue)'" } ?? "")
        return try read { db in
            let statement: Statement
            if let user {
                statement = try db.cached(
                    """
                    SELECT \(Self.deviceColumnList("d.")) FROM device_users u JOIN devices d ON d.id = u.device_id
                    WHERE u.user_id = ? AND u.device_id > ?\(filter) ORDER BY u.device_id LIMIT ?
                    """
                ).bind(user, after ?? 0, limit)
            } else {
                statement = try db.cached(
                    """
                    SELECT \(Self.deviceColumnList("d.")) FROM devices d WHERE d.id > ?\(filter) ORDER BY d.id LIMIT ?
                    """
                ).bind(after ?? 0, limit)
            }
            defer { statement.reset() }
            var devices: [Device] = []
            while try statement.step() { devices.append(try Self.device(from: statement)) }
            return devices
        }
    }

    /// How many devices are registered (optionally only active or inactive ones).
    public func deviceCount(active: Bool? = nil) throws(StoreError) -> Int {
        let filter = active.map { $0 ? " WHERE active = 1" : " WHERE active = 0" } ?? ""
        return try read { db in Int(try db.cached("SELECT COUNT(*) FROM devices\(filter)").scalarInt64() ?? 0) }
    }

    static func fetchDevice(_ db: Connection, token: DeviceToken, topic: String) throws -> Device? {
        let statement = try db.cached("SELECT \(deviceColumns) FROM devices WHERE token = ? AND topic = ?")
            .bind(token.hex, topic)
        defer { statement.reset() }
        return try statement.step() ? try device(from: statement) : nil
    }

    static func device(from row: Statement) throws -> Device {
        Device(
            id: row.int64(0), token: try Decode.token(row.string(1)), topic: row.string(2),
            environment: try Decode.environment(row.string(3)), user: row.optionalString(4),
            isActive: row.int64(5) != 0, registeredAt: Milliseconds.date(row.int64(6)),
            deactivatedAt: row.optionalInt64(7).map(Milliseconds.date),
            reason: row.optionalString(8).map { Reason(rawValue: $0) },
            kind: try Decode.deviceKind(row.string(9)), activityType: row.optionalString(10))
    }
}
