import APNs
import Foundation
import QueueModel

extension Store {
    static let deviceColumns =
        "id, token, topic, environment, user_id, active, registered_at, deactivated_at, reason"

    /// Registers a device, or re-registers it: refreshes `registeredAt`, reactivates it, updates its environment
    /// and (when given) its user. Returns the device as stored.
    @discardableResult
    public func register(_ registration: DeviceRegistration, now: Date = Date()) throws(StoreError) -> Device {
        try write { db in
            try Self.upsert(db, ImportRows([registration], [0]), registeredAt: now.storeMilliseconds)
            guard let device = try Self.fetchDevice(db, token: registration.token, topic: registration.topic) else {
                throw StoreError.corruptValue("device vanished after registration")
            }
            return device
        }
    }

    /// The device registered with `token` for `topic`, if any.
    public func device(token: DeviceToken, topic: String) throws(StoreError) -> Device? {
        try read { db in try Self.fetchDevice(db, token: token, topic: topic) }
    }

    /// One page of the registry, in id order: devices with an id greater than `after`; `active` filters.
    /// Page with the last device's `id` until a page comes back shorter than `limit`.
    public func devices(active: Bool? = nil, after: Int64? = nil, limit: Int = 1000) throws(StoreError) -> [Device] {
        let filter = active.map { $0 ? " AND active = 1" : " AND active = 0" } ?? ""
        return try read { db in
            let statement = try db.cached("""
                SELECT \(Self.deviceColumns) FROM devices WHERE id > ?\(filter) ORDER BY id LIMIT ?
                """).bind(after ?? 0, limit)
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
        Device(id: row.int64(0), token: try Decode.token(row.string(1)), topic: row.string(2),
               environment: try Decode.environment(row.string(3)), user: row.optionalString(4),
               isActive: row.int64(5) != 0, registeredAt: Milliseconds.date(row.int64(6)),
               deactivatedAt: row.optionalInt64(7).map(Milliseconds.date), reason: row.optionalString(8).map { Reason(rawValue: $0) })
    }
}
