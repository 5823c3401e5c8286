import APNs
import Foundation
import QueueModel
import QueueRules

/// A large API batch is accepted as one row (`deferred_batches`) instead of a campaign row and a delivery row per
/// notification: the enqueue then costs one statement whatever its size, and the worker writes the notifications
/// as campaigns page by page, ahead of bulk expansion (`expandDueCampaigns`). Until then a notification reads as
/// a `scheduled` single send without deliveries, and cancelling it writes its batch's notifications up to it first.
extension Store {
    /// Requests with at least this many notifications, all single sends due now, are stored as a deferred batch.
    public static let deferredBatchMinimum = 17

    /// The most notifications written per transaction when expanding: each costs a campaign row and a delivery
    /// row (~10 µs), and the transaction holds the write lock that API enqueues wait for.
    static let deferredPageLimit = 1000

    /// Whether `specs` go in as a deferred batch.
    static func defers(_ specs: CampaignSpecs, now: Date) -> Bool {
        specs.count >= deferredBatchMinimum
            && (specs.areSingleSendsDueNow
                ?? specs.allSatisfy {
                    $0.kind == .single && $0.audience.channel == nil && ($0.scheduledAt ?? now) <= now
                })
    }

    /// Stores `specs` inside the caller's transaction: the last as its campaign now (so that every later campaign
    /// id comes after the batch's range), the others as `deferred_batches` rows holding the ids before it (one row
    /// unless their records pass `rowItems` bytes).
    /// Returns the ids in order, and the delivery rows each has or will have when its recipients are tokens
    /// (0 for users: known once written).
    func insertDeferredBatch(_ db: Connection, _ specs: CampaignSpecs, now: Date) throws -> Enqueued {
        let first = (try db.cached("SELECT COALESCE(MAX(id), 0) FROM campaigns").scalarInt64() ?? 0) + 1
        let count = specs.count - 1
        let last = try insertCampaign(db, specs[count], now: now, id: CampaignID(first + Int64(count)))
        var deliveries = try Self.insertItems(db, first: first, specs[..<count], now: now)
        deliveries.append(last.deliveries)
        return Enqueued(ids: (0...count).map { CampaignID(first + Int64($0)) }, deliveries: deliveries, isReplay: false)
    }

    /// The most bytes of records a `deferred_batches` row takes: a larger request is several rows in sequence
    /// (ids, `created_at`), written in the same transaction. SQLite holds a row's blob twice while inserting it (the
    /// bound value and the row's record built from it) and rewrites it whole at every cursor move, so a request near
    /// the API's 64 MiB body limit as one row would cost its size twice more in memory, and its expansion a 64 MiB
    /// rewrite per page.
    static let rowItems = 1 << 20
    /// Requests whose payloads and recipients come to this many bytes or more are written through a page cache of
    /// `largeItemsCacheKiB`: their pages would otherwise sit in the cache until COMMIT, up to the cache's whole size.
    static let largeItems = 8 << 20
    static let largeItemsCacheKiB = 4 << 10

    /// The `deferred_batches` rows of `specs`, the first taking campaign id `first`: each row's records are encoded
    /// and inserted (bound without a copy) before the next row's are encoded, each spec read once (specs made again
    /// from a request's body are made one at a time). Returns the delivery rows each will have when its recipients
    /// are tokens (0 for users: known once written).
    private static func insertItems(_ db: Connection, first: Int64, _ specs: Slice<CampaignSpecs>, now: Date)
        throws -> [Int]
    {
        var deliveries: [Int] = []
        deliveries.reserveCapacity(specs.count)
        let insert = try db.cached(
            "INSERT INTO deferred_batches (first_id, count, items, created_at) VALUES (?, ?, ?, ?)")
        func write() throws {
            defer { try? insert.bindAt(3, SQLNull()) }
            var items: [UInt8] = []
            items.reserveCapacity(rowItems + rowItems / 4)
            var record: [UInt8] = []
            var rowStart = specs.startIndex
            for index in specs.indices {
                let spec = specs[index]
                assert(spec.isValid, "a deferred batch holds a spec Intake would refuse")
                DeferredBatch.append(spec, to: &items, scratch: &record)
                if case .tokens(let tokens, _) = spec.audience {
                    deliveries.append(Set(tokens).count)
                } else {
                    deliveries.append(0)
                }
                guard items.count >= rowItems || index == specs.endIndex - 1 else { continue }
                let count = index + 1 - rowStart
                _ = try insert.bind(first + Int64(rowStart - specs.startIndex), count, SQLNull(), now.storeMilliseconds)
                try items.withUnsafeBytes { bytes in
                    try insert.bindBlob(3, bytes)
                    try insert.run()
                }
                items.removeAll(keepingCapacity: true)
                rowStart = index + 1
            }
        }
        // Specs made again are a large body's (`CampaignSpecs`); others are measured by their payloads and tokens.
        let large =
            specs.base.areSingleSendsDueNow == true
            || specs.reduce(0) { size, spec in
                guard case .tokens(let tokens, _) = spec.audience else {
                    return size + spec.content.payload.bytes.count
                }
                return size + spec.content.payload.bytes.count + tokens.count * 64
            } >= largeItems
        if large { try db.withPageCache(kib: largeItemsCacheKiB, write) } else { try write() }
        return deliveries
    }

    /// Writes up to `limit` notifications of the oldest deferred batch as campaigns, in one transaction.
    /// Returns how many notifications and delivery rows were written (0, 0: no batch waits).
    public func expandDeferredBatch(limit: Int) throws(StoreError) -> (notifications: Int, deliveries: Int) {
        try write { db in
            guard
                let first = try db.cached("SELECT first_id FROM deferred_batches ORDER BY first_id LIMIT 1")
                    .scalarInt64()
            else { return (0, 0) }
            return try expandDeferred(db, batch: first, upTo: Int64.max, limit: max(1, limit))
        }
    }

    /// Whether a deferred batch waits to be written as campaigns.
    static func hasDeferredBatches(_ db: Connection) throws -> Bool {
        try db.cached("SELECT EXISTS (SELECT 1 FROM deferred_batches)").scalarInt64() == 1
    }

    /// Writes the notifications of `id`'s deferred batch up to `id` as campaigns (nothing when `id` is not
    /// deferred), so that a change to it finds its rows.
    func materializeDeferred(_ db: Connection, _ id: CampaignID) throws {
        guard let batch = try Self.deferredBatch(db, containing: id) else { return }
        _ = try expandDeferred(db, batch: batch.first, upTo: id.rawValue, limit: Int.max)
    }

    /// A notification still in its deferred batch, as the single send it will be: `scheduled`, nothing expanded.
    static func deferredCampaign(_ db: Connection, _ id: CampaignID) throws -> Campaign? {
        guard let batch = try deferredBatch(db, containing: id) else { return nil }
        var reader = DeferredBatch.Reader(batch.items, offset: batch.offset)
        for _ in 0..<(id.rawValue - batch.first - batch.cursor) { try reader.skip() }
        let spec = try reader.next()
        let recipients: Int
        switch spec.audience {
        case .tokens(let tokens, _): recipients = tokens.count
        case .users(let users, _), .activities(_, _, let users?, _): recipients = users.count
        case .all, .activities(_, _, nil, _): recipients = 0
        case .channel: recipients = 1
        }
        let created = Milliseconds.date(batch.createdAt)
        return Campaign(
            id: id, kind: .single, status: .scheduled,
            audience: AudienceSummary(
                kind: spec.audience.kind, environment: spec.audience.environment, size: recipients,
                activity: spec.audience.activity),
            content: spec.content, scheduledAt: created, createdAt: created, startedAt: nil, finishedAt: nil,
            isExpanded: false, counters: CampaignCounters())
    }

    // MARK: - Internals

    private struct StoredBatch {
        let first: Int64
        let count: Int64
        let cursor: Int64
        let offset: Int
        let items: [UInt8]
        let createdAt: Int64
    }

    /// The deferred batch whose notifications not yet written include `id`.
    private static func deferredBatch(_ db: Connection, containing id: CampaignID) throws -> StoredBatch? {
        let statement = try db.cached(
            """
            SELECT first_id, count, cursor, offset, items, created_at FROM deferred_batches
            WHERE first_id <= ? ORDER BY first_id DESC LIMIT 1
            """
        ).bind(id.rawValue)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        let batch = StoredBatch(
            first: statement.int64(0), count: statement.int64(1), cursor: statement.int64(2),
            offset: statement.int(3), items: statement.blob(4), createdAt: statement.int64(5))
        guard id.rawValue >= batch.first + batch.cursor, id.rawValue < batch.first + batch.count else { return nil }
        return batch
    }

    /// Writes the next notifications of batch `first` as campaigns, at most `limit` and none past id `upTo`; moves
    /// its cursor, or deletes it once every notification is written.
    private func expandDeferred(_ db: Connection, batch first: Int64, upTo: Int64, limit: Int) throws -> (
        notifications: Int, deliveries: Int
    ) {
        let statement = try db.cached(
            "SELECT count, cursor, offset, items, created_at FROM deferred_batches WHERE first_id = ?"
        ).bind(first)
        guard try statement.step() else {
            statement.reset()
            return (0, 0)
        }
        let (count, cursor, offset, items, created) = (
            statement.int64(0), statement.int64(1), statement.int(2),
            statement.blob(3), statement.int64(4)
        )
        statement.reset()
        let now = Milliseconds.date(created)
        var reader = DeferredBatch.Reader(items, offset: offset)
        var next = cursor
        var deliveries = 0
        while next < count, first + next <= upTo, next - cursor < limit {
            deliveries += try insertCampaign(db, try reader.next(), now: now, id: CampaignID(first + next)).deliveries
            next += 1
        }
        if next == count {
            try db.cached("DELETE FROM deferred_batches WHERE first_id = ?").bind(first).run()
        } else {
            try db.cached("UPDATE deferred_batches SET cursor = ?2, offset = ?3 WHERE first_id = ?1").bind(
                first, next, reader.offset
            ).run()
        }
        return (Int(next - cursor), deliveries)
    }
}
