import APNs
import Foundation
import QueueModel
import QueueRules

extension PostgresStore {
    static let deviceColumns =
        "id, token, topic, environment, user_id, active, registered_at, deactivated_at, reason, kind, activity_type"

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
        let checked = try registration.checked()
        let result = try write { db in
            var registration = checked
            var replaced: Device?
            if let old = registration.replaces, old != registration.token,
                let oldDevice = try Self.fetchDevice(db, token: old, topic: registration.topic), oldDevice.isActive
            {
                if registration.user == nil { registration.user = oldDevice.user }
                wroteEvent = try Self.deactivate(
                    db, token: old.hex, topic: registration.topic, reason: .replaced, at: nowMS)
                replaced = try Self.fetchDevice(db, token: old, topic: registration.topic)
            }
            // `xmax = 0`: the row version was inserted by this statement, not updated (the device is new).
            let rows = try db.query(
                """
                INSERT INTO devices (token, topic, environment, user_id, active, registered_at, kind, activity_type)
                VALUES ($1, $2, $3, $4, true, $5, $6, $7)
                ON CONFLICT (token, topic) DO UPDATE SET
                    environment    = excluded.environment,
                    kind           = excluded.kind,
                    activity_type  = excluded.activity_type,
                    user_id        = COALESCE(excluded.user_id, devices.user_id),
                    active         = true,
                    registered_at  = excluded.registered_at,
                    deactivated_at = NULL,
                    reason         = NULL
                RETURNING \(Self.deviceColumns), (xmax = 0)
                """, registration.token.hex, registration.topic, registration.environment.rawValue, registration.user,
                nowMS,
                registration.kind.rawValue, registration.activityType)
            return RegistrationResult(device: try Self.device(rows, 0), isNew: try rows.bool(0, 11), replaced: replaced)
        }
        if wroteEvent { eventsCommitted() }
        return result
    }

    /// Deactivates the device of `token` for `topic` (for its only topic when nil; `StoreError.ambiguousDevice`
    /// when it has several) with `reason`, writing its event. Returns the device as stored after, nil when
    /// unknown; a device already inactive is returned unchanged (no event).
    @discardableResult
    public func deactivateDevice(token: DeviceToken, topic: String?, reason: Reason, now: Date = Date())
        throws(StoreError) -> Device?
    {
        var wroteEvent = false
        let device = try write { db -> Device? in
            let chosen: String
            if let topic {
                chosen = topic
            } else {
                let rows = try db.query("SELECT topic FROM devices WHERE token = $1 ORDER BY topic", token.hex)
                let topics = try rows.map { row in try rows.string(row, 0) }
                guard topics.count <= 1 else { throw StoreError.ambiguousDevice(token: token.hex, topics: topics) }
                guard let only = topics.first else { return nil }
                chosen = only
            }
            wroteEvent = try Self.deactivate(
                db, token: token.hex, topic: chosen, reason: reason, at: now.storeMilliseconds)
            return try Self.fetchDevice(db, token: token, topic: chosen)
        }
        if wroteEvent { eventsCommitted() }
        return device
    }

    /// Deactivates every active device of `user` with `reason`, writing their events (in device order); returns
    /// how many.
    @discardableResult
    public func deactivateDevices(user: String, reason: Reason, now: Date = Date()) throws(StoreError) -> Int {
        let count = try write { db in
            try Self.lockEventOrder(db)
            return try db.query(
                """
                WITH deactivated AS (
                    UPDATE devices SET active = false, deactivated_at = $3, reason = $2
                    WHERE user_id = $1 AND active
                    RETURNING id, token, topic, environment, user_id
                )
                INSERT INTO events (type, token, topic, environment, user_id, reason, at)
                SELECT 'device.deactivated', token, topic, environment, user_id, $2, $3 FROM deactivated ORDER BY id
                """, user, reason.rawValue, now.storeMilliseconds
            ).changes
        }
        if count > 0 { eventsCommitted() }
        return count
    }

    /// Registers (or re-registers, as `register`) many devices, `commitEvery` per transaction; returns how many
    /// registrations were written. Each transaction upserts its devices in (token, topic) order, so that it
    /// inserts a contiguous run of keys into the unique index, with a few statements over arrays (`unnest`). A
    /// device repeated in `registrations` ends as if its lines were registered one after the other.
    /// `linkUsersLater` changes nothing here: a user's devices are found through an index on `devices.user_id`.
    @discardableResult
    public func importDevices(
        _ registrations: [DeviceRegistration], now: Date = Date(),
        commitEvery: Int = 100_000, linkUsersLater: Bool = false
    ) throws(StoreError) -> Int {
        // Checked before anything is written: a bad registration fails the whole call and changes nothing.
        let registrations = try DeviceRegistration.checked(registrations)
        let plan = ImportOrder.of(registrations)
        let registeredAt = now.storeMilliseconds
        var start = 0
        while start < plan.order.count {
            let end = min(start + max(1, commitEvery), plan.order.count)
            try write { db in
                var chunk = start
                while chunk < end {
                    let chunkEnd = min(chunk + Self.importRowsPerStatement, end)
                    try Self.upsert(
                        db, plan.order[chunk..<chunkEnd].map { plan.merged[$0] ?? registrations[$0] },
                        registeredAt: registeredAt)
                    chunk = chunkEnd
                }
            }
            start = end
        }
        // Statistics at once for a registry that grew a lot (autovacuum's come later): the planner then picks
        // the right index for audiences right after an import. A failure (a role that may not) changes nothing.
        if plan.order.count >= Self.analyzeAfter { _ = try? read { db in try db.execute("ANALYZE devices") } }
        return registrations.count
    }

    /// Nothing waits: the user is on the device row.
    public func linkImportedUsers() throws(StoreError) -> Int { 0 }

    /// The device registered with `token` for `topic`, if any.
    public func device(token: DeviceToken, topic: String) throws(StoreError) -> Device? {
        try read { db in try Self.fetchDevice(db, token: token, topic: topic) }
    }

    /// Every registration of `token` (one per topic), by topic.
    public func devices(token: DeviceToken) throws(StoreError) -> [Device] {
        try read { db in
            let rows = try db.query(
                "SELECT \(Self.deviceColumns) FROM devices WHERE token = $1 ORDER BY topic", token.hex)
            return try rows.map { row in try Self.device(rows, row) }
        }
    }

    /// One page of the registry, in id order: devices with an id greater than `after`; `active`, `user` and `kind` filter
    /// (a user's devices through the index `devices_by_user`, so a user with few devices costs a few rows however
    /// big the registry). Page with the last device's `id` until a page comes back shorter than `limit`.
    public func devices(
        active: Bool? = nil, user: String? = nil, kind: DeviceKind? = nil, after: Int64? = nil,
        limit: Int = 1000
    ) throws(StoreError) -> [Device] {
        // The kind is one of three fixed words, written into the statement.
        let filter =
            (active.map { $0 ? " AND active" : " AND NOT active" } ?? "")
            + (kind.map { " AND kind = '\($0.rawValue)'" } ?? "")
        return try read { db in
            let rows: PGResult
            if let user {
                rows = try db.query(
                    """
                    SELECT \(Self.deviceColumns) FROM devices WHERE user_id = $1 AND id > $2\(filter) ORDER BY id LIMIT $3
                    """, user, after ?? 0, Int64(max(0, limit)))
            } else {
                rows = try db.query(
                    """
                    SELECT \(Self.deviceColumns) FROM devices WHERE id > $1\(filter) ORDER BY id LIMIT $2
                    """, after ?? 0, Int64(max(0, limit)))
            }
            return try rows.map { row in try Self.device(rows, row) }
        }
    }

    /// How many devices are registered (optionally only active or inactive ones).
    public func deviceCount(active: Bool? = nil) throws(StoreError) -> Int {
        let filter = active.map { $0 ? " WHERE active" : " WHERE NOT active" } ?? ""
        return try read { db in Int(try db.query("SELECT COUNT(*) FROM devices\(filter)").scalarInt64() ?? 0) }
    }

    // MARK: - Internals

    /// Registrations per upsert statement: big enough that round trips do not show, small enough that one
    /// statement's parameters stay a few MB.
    private static let importRowsPerStatement = 20_000

    /// Registrations from which an import refreshes the registry's statistics.
    private static let analyzeAfter = 10_000

    /// Upserts `registrations` (no device twice) in one statement. Users travel as a text array beside a flag
    /// array (an array parameter here carries no NULL); an absent activity type as '' (never a valid type).
    private static func upsert(_ db: PGConnection, _ registrations: [DeviceRegistration], registeredAt: Int64) throws {
        guard !registrations.isEmpty else { return }
        try db.query(
            """
            INSERT INTO devices (token, topic, environment, user_id, active, registered_at, kind, activity_type)
            SELECT token, topic, environment, CASE WHEN has_user = 1 THEN user_id END, true, $6, kind, NULLIF(activity_type, '')
            FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $7::text[], $8::text[])
                AS r(token, topic, environment, user_id, has_user, kind, activity_type)
            ON CONFLICT (token, topic) DO UPDATE SET
                environment    = excluded.environment,
                kind           = excluded.kind,
                activity_type  = excluded.activity_type,
                user_id        = COALESCE(excluded.user_id, devices.user_id),
                active         = true,
                registered_at  = excluded.registered_at,
                deactivated_at = NULL,
                reason         = NULL
            """,
            [
                .texts(registrations.map(\.token.hex)), .texts(registrations.map(\.topic)),
                .texts(registrations.map(\.environment.rawValue)), .texts(registrations.map { $0.user ?? "" }),
                .ints(registrations.map { $0.user == nil ? 0 : 1 }), .int(registeredAt),
                .texts(registrations.map(\.kind.rawValue)), .texts(registrations.map { $0.activityType ?? "" }),
            ])
    }

    static func fetchDevice(_ db: PGConnection, token: DeviceToken, topic: String) throws -> Device? {
        let rows = try db.query(
            "SELECT \(deviceColumns) FROM devices WHERE token = $1 AND topic = $2", token.hex, topic)
        return rows.count > 0 ? try device(rows, 0) : nil
    }

    /// The device in `row` of `rows`, selected with `deviceColumns`.
    static func device(_ rows: PGResult, _ row: Int) throws -> Device {
        Device(
            id: try rows.int64(row, 0), token: try Decode.token(rows.string(row, 1)), topic: try rows.string(row, 2),
            environment: try Decode.environment(rows.string(row, 3)), user: try rows.optionalString(row, 4),
            isActive: try rows.bool(row, 5), registeredAt: Milliseconds.date(try rows.int64(row, 6)),
            deactivatedAt: try rows.optionalInt64(row, 7).map(Milliseconds.date),
            reason: try rows.optionalString(row, 8).map { Reason(rawValue: $0) },
            kind: try Decode.deviceKind(rows.string(row, 9)), activityType: try rows.optionalString(row, 10))
    }

    /// Deactivates the active device (`token`, `topic`) with `reason`, writing its `device.deactivated` event from
    /// the row it changes; returns whether it was active.
    static func deactivate(_ db: PGConnection, token: String, topic: String, reason: Reason, at: Int64) throws -> Bool {
        try lockEventOrder(db)
        return try db.query(
            """
            WITH deactivated AS (
                UPDATE devices SET active = false, deactivated_at = $4, reason = $3
                WHERE token = $1 AND topic = $2 AND active
                RETURNING token, topic, environment, user_id
            )
            INSERT INTO events (type, token, topic, environment, user_id, reason, at)
            SELECT 'device.deactivated', token, topic, environment, user_id, $3, $4 FROM deactivated
            """, token, topic, reason.rawValue, at
        ).changes > 0
    }

    /// Event ids must increase in commit order (the webhook's cursor relies on it): every transaction that inserts
    /// events takes this lock first, and holds it until it commits.
    static func lockEventOrder(_ db: PGConnection) throws {
        try db.query("SELECT pg_advisory_xact_lock($1)", PGLocks.eventOrder)
    }

    /// Tells this process's waiters that events were committed (after the commit).
    func eventsCommitted() { eventCommits.notify() }
}
