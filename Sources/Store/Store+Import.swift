import APNs
import Foundation
import QueueModel
import QueueRules

extension Store {
    /// Devices per multi-row statement: one statement's fixed cost (statement journal, VDBE start and halt)
    /// shared by many rows, without a statement so long that preparing it shows.
    static let rowsPerStatement = 500

    /// Devices imported, over calls, before the WAL is checkpointed whole while the writer waits (`Checkpointer`):
    /// about 250 MB of WAL. More often costs the import its overlap with the disk; never lets the WAL grow for as
    /// long as the import goes on.
    static let importsPerCatchUp = 250_000

    /// User links moved from `device_users_pending` to `device_users` per transaction (`linkImportedUsers`): each
    /// transaction sweeps `device_users` once, so fewer is faster (10M links took 10.4 s in one and 20.4 s in ten
    /// of 1M), but the write lock is held meanwhile, and a worker or the API waits at most its busy timeout (5 s)
    /// for it. Ten transactions held it 1.6–2.4 s each.
    static let linksPerTransaction = 1_000_000

    /// Registers (or re-registers, as `register`) many devices, `commitEvery` per transaction; returns how many
    /// registrations were written. The CLI's `device import` calls it with big chunks of a file.
    ///
    /// Why it is fast: the registrations are written in (token, topic) order, so each transaction inserts a
    /// contiguous run of keys into the `UNIQUE (token, topic)` index instead of random keys all over it; rows
    /// go in `rowsPerStatement` at a time, bound in place from one buffer (`ImportRows`); a second connection
    /// checkpoints meanwhile (`Checkpointer`); and the user links of a transaction go into `device_users` in user
    /// order. A device repeated in `registrations` ends as if its lines were registered one after the other.
    ///
    /// With `linkUsersLater`, the user links wait in `device_users_pending` (written in the same transactions as
    /// their devices) until `linkImportedUsers()`: a file imported in many calls then links its users in user order,
    /// a sweep of `device_users` per million devices, instead of a random key per device at every commit.
    @discardableResult
    public func importDevices(
        _ registrations: [DeviceRegistration], now: Date = Date(),
        commitEvery: Int = 100_000, linkUsersLater: Bool = false
    ) throws(StoreError) -> Int {
        // Checked before anything is written: a bad registration fails the whole call and changes nothing.
        let registrations = try DeviceRegistration.checked(registrations)
        let plan = ImportOrder.of(registrations)
        let registeredAt = now.storeMilliseconds
        // The commits leave checkpoints to a thread of their own (see `Checkpointer`), and the connection its
        // usual automatic checkpoints once done.
        let checkpointer = plan.order.count > commitEvery ? try? Checkpointer(path: path) : nil
        if checkpointer != nil { try read { db in try db.execute("PRAGMA wal_autocheckpoint = 0") } }
        var finished = false
        defer {
            if !finished { checkpointer?.stop() }
            if checkpointer != nil { _ = try? read { db in try db.execute("PRAGMA wal_autocheckpoint = 1000") } }
        }
        var start = 0
        while start < plan.order.count {
            let end = min(start + max(1, commitEvery), plan.order.count)
            let rows = ImportRows(registrations, plan.order[start..<end], merged: plan.merged)
            try write { db in
                try Self.upsert(db, rows, registeredAt: registeredAt, links: linkUsersLater ? .pending : .now)
            }
            checkpointer?.request()
            start = end
        }
        importedSinceCatchUp += plan.order.count
        if importedSinceCatchUp >= Self.importsPerCatchUp {
            checkpointer?.finish()
            finished = true
            importedSinceCatchUp = 0
        }
        return registrations.count
    }

    /// Where `upsert` puts the user links of the devices it writes.
    enum UserLinks {
        /// Into `device_users`, in user order.
        case now
        /// Into `device_users_pending`, in device order, for `linkImportedUsers()`.
        case pending
    }

    /// Links every user link waiting in `device_users_pending` (`importDevices(linkUsersLater: true)`, or an
    /// import stopped before its end), in user order, `linksPerTransaction` devices at a time, in device order;
    /// returns how many were waiting.
    @discardableResult
    public func linkImportedUsers() throws(StoreError) -> Int {
        try linkImportedUsers(perTransaction: Self.linksPerTransaction)
    }

    /// `linkImportedUsers()`, `perTransaction` links per transaction (small in tests).
    func linkImportedUsers(perTransaction: Int) throws(StoreError) -> Int {
        // SQLite sorts the links in runs of about the page cache's size, each on a thread of its own, written to a
        // temporary file: in memory, 10M links took 600 MB. 8 MiB runs on two threads sorted 1M links in 0.9 s at
        // 37 MB, against 1.2 s at the same memory with 16 MiB and none. Neither setting may change inside a
        // transaction.
        try guarded {
            let db = try db()
            try db.execute("PRAGMA threads = 2")
            defer { try? db.execute("PRAGMA threads = 0") }
            return try db.withTemporaryFiles { try moveWaitingLinks(perTransaction: perTransaction) }
        }
    }

    /// Moves the waiting links to `device_users`, `perTransaction` devices per transaction; returns how many.
    private func moveWaitingLinks(perTransaction: Int) throws(StoreError) -> Int {
        var linked = 0
        var after = Int64.min
        while true {
            let links = try write { db -> Int in
                let range = try db.cached(
                    """
                    SELECT MAX(device_id) FROM (
                        SELECT device_id FROM device_users_pending WHERE device_id > ?1 ORDER BY device_id LIMIT ?2)
                    """)
                guard let last = try range.bind(after, max(1, perTransaction)).scalarInt64() else { return 0 }
                try db.withPageCache(kib: 8 << 10) {
                    try db.cached(
                        """
                        INSERT OR IGNORE INTO device_users (user_id, device_id)
                        SELECT user_id, device_id FROM device_users_pending WHERE device_id > ?1 AND device_id <= ?2
                        ORDER BY user_id, device_id
                        """
                    ).bind(after, last).run()
                }
                try db.cached("DELETE FROM device_users_pending WHERE device_id > ?1 AND device_id <= ?2")
                    .bind(after, last).run()
                after = last
                return db.changes
            }
            guard links > 0 else { return linked }
            linked += links
        }
    }

    /// Upserts `rows` (no device twice, in token order) and links each device given a user to that user.
    static func upsert(_ db: Connection, _ rows: ImportRows, registeredAt: Int64, links target: UserLinks = .now) throws
    {
        guard let first = rows.rows.first, let last = rows.rows.last else { return }
        var links: [(user: String, device: Int64)] = []
        try rows.bytes.withUnsafeBufferPointer { text in
            try inGroups(rows.rows, db: db, full: fullUpsertSQL, sql: upsertSQL) { statement, group in
                try statement.bindAt(1, registeredAt)
                var parameter: Int32 = 2
                for row in group {
                    try statement.bindText(parameter, text, row.token)
                    try statement.bindText(parameter + 1, text, row.topic)
                    try statement.bindText(parameter + 2, text, row.environment)
                    if let user = row.user {
                        try statement.bindText(parameter + 3, text, user)
                    } else {
                        try statement.bindAt(parameter + 3, String?.none)
                    }
                    try statement.bindText(parameter + 4, text, row.kind)
                    if let type = row.activityType {
                        try statement.bindText(parameter + 5, text, type)
                    } else {
                        try statement.bindAt(parameter + 5, String?.none)
                    }
                    parameter += 6
                }
                try statement.run()
            }
            guard rows.rows.contains(where: { $0.user != nil }) else { return }
            // The ids, read back over the rows' token range in index order (cheaper than `RETURNING`, which
            // fills a temporary table per statement). Devices in the range that this call did not touch have
            // another registration time; any device linked to its current user is linked right anyway.
            // Links that wait go from the scan straight into `device_users_pending`, in device order.
            let range = try db.cached(target == .pending ? keepLinksSQL : linkScanSQL)
            try range.bindText(1, text, first.token)
            try range.bindText(2, text, last.token)
            try range.bindAt(3, registeredAt)
            defer { range.reset() }
            while try range.step() { links.append((range.string(1), range.int64(0))) }
        }
        guard !links.isEmpty else { return }
        let order = ByteOrder.indices(
            count: links.count, prefix: { ByteOrder.Prefix(links[$0].user) },
            precedes: { a, b in
                links[a].user != links[b].user
                    ? ByteOrder.precedes(links[a].user, links[b].user) : links[a].device < links[b].device
            })
        try inGroups(order[...], db: db, full: fullLinkSQL, sql: linkSQL) { statement, group in
            var parameter: Int32 = 1
            for link in group.lazy.map({ links[$0] }) {
                try statement.bindAt(parameter, link.user)
                try statement.bindAt(parameter + 1, link.device)
                parameter += 2
            }
            try statement.run()
        }
    }

    /// The devices with a user registered at ?3 whose token is in ?1...?2.
    static let linkScanSQL = """
        SELECT id, user_id FROM devices
        WHERE token >= ?1 AND token <= ?2 AND registered_at = ?3 AND user_id IS NOT NULL
        """

    /// Keeps the links of `linkScanSQL`'s devices for `linkImportedUsers()`; a device's later link replaces its
    /// earlier.
    static let keepLinksSQL = "INSERT OR REPLACE INTO device_users_pending (device_id, user_id) " + linkScanSQL

    /// Registers or re-registers `rows` devices; ?1 is the registration time, then (token, topic, environment,
    /// user, kind, activity type) per device.
    private static func upsertSQL(rows: Int) -> String {
        let values = (0..<rows).map { row in
            let first = 2 + 6 * row
            return "(?\(first), ?\(first + 1), ?\(first + 2), ?\(first + 3), ?\(first + 4), ?\(first + 5), 1, ?1)"
        }
        return """
            INSERT INTO devices (token, topic, environment, user_id, kind, activity_type, active, registered_at)
            VALUES \(values.joined(separator: ", "))
            ON CONFLICT (token, topic) DO UPDATE SET
                environment    = excluded.environment,
                kind           = excluded.kind,
                activity_type  = excluded.activity_type,
                user_id        = COALESCE(excluded.user_id, devices.user_id),
                active         = 1,
                registered_at  = excluded.registered_at,
                deactivated_at = NULL,
                reason         = NULL
            """
    }

    /// Links `rows` (user, device) pairs in `device_users`; links that exist are kept.
    private static func linkSQL(rows: Int) -> String {
        let values = (0..<rows).map { "(?\(1 + 2 * $0), ?\(2 + 2 * $0))" }
        return "INSERT OR IGNORE INTO device_users (user_id, device_id) VALUES \(values.joined(separator: ", "))"
    }

    private static let fullUpsertSQL = upsertSQL(rows: rowsPerStatement)
    private static let fullLinkSQL = linkSQL(rows: rowsPerStatement)

    /// Calls `body` with a statement for each group of up to `rowsPerStatement` elements: full groups share one
    /// cached statement (`full`); the last, shorter group gets a statement of its length (`sql(count)`).
    private static func inGroups<Elements: RandomAccessCollection>(
        _ elements: Elements, db: Connection, full: String, sql: (Int) -> String,
        _ body: (Statement, Elements.SubSequence) throws -> Void
    ) throws where Elements.Index == Int {
        guard !elements.isEmpty else { return }
        let size = rowsPerStatement
        let fullStatement = elements.count >= size ? try db.cached(full) : nil
        var start = elements.startIndex
        while start < elements.endIndex {
            let end = min(start + size, elements.endIndex)
            let count = end - start
            // One-row statements (single registrations) are cached too; other lengths are rare leftovers.
            let statement: Statement
            if count == size, let fullStatement {
                statement = fullStatement
            } else {
                statement = try count == 1 ? db.cached(sql(1)) : db.prepare(sql(count))
            }
            statement.reset()
            defer { statement.reset() }
            try body(statement, elements[start..<end])
            start = end
        }
    }
}
