import APNs
import Foundation
import QueueModel
import Store

/// The HTTP API's enqueues. No deferred batches on PostgreSQL: a batch's notifications are written at once, the
/// common case (single sends to one token, due now) as a few statements over arrays whatever the batch's size.
extension PostgresStore {
    /// Enqueues several producers' requests in one transaction. Each request is all or nothing on its own: every
    /// fault of a request (an invalid spec, a key used with another request) is found before anything is written,
    /// so it fails alone without a savepoint. A key used with the same request replays what that request created
    /// (earlier, or earlier in this group) and enqueues nothing. A failure of the database itself throws and
    /// nothing is written.
    ///
    /// A few statements serve the whole group: the keys are locked, looked up and remembered in one statement
    /// each, and consecutive requests of single sends to one token due now are written together
    /// (`insertSingleSends`); other requests cost a few statements per spec.
    public func enqueue(_ requests: [EnqueueRequest], now: Date = Date()) throws(StoreError) -> [Result<Enqueued, StoreError>] {
        let nowMS = now.storeMilliseconds
        return try write { db in
            let keys = requests.compactMap(\.idempotency)
            var known: [String: (hash: String, result: Enqueued)] = [:]
            if !keys.isEmpty {
                try Self.lockKeys(db, keys)
                try db.query("DELETE FROM idempotency_keys WHERE created_at < $1", nowMS - Self.keyLifetime)
                known = try Self.remembered(db, keys, now: nowMS)
            }
            // Which requests write: not a replay of a remembered key, nor of a key an earlier request of the group
            // writes (filled in below), nor invalid.
            var results = [Result<Enqueued, StoreError>?](repeating: nil, count: requests.count)
            var writerOfKey: [String: Int] = [:]
            var writers: [Int] = []
            for (index, request) in requests.enumerated() {
                if let key = request.idempotency {
                    if let earlier = known[Self.name(key)] {
                        results[index] = earlier.hash == key.requestHash
                            ? .success(earlier.result) : .failure(.idempotencyConflict(key: key.key))
                        continue
                    }
                    if writerOfKey[Self.name(key)] != nil { continue }
                }
                if let invalid = Self.fault(request.specs) {
                    results[index] = .failure(invalid)
                    continue
                }
                if let key = request.idempotency { writerOfKey[Self.name(key)] = index }
                writers.append(index)
            }
            let written = try Self.write(db, requests, writers, now: nowMS)
            for (index, result) in written { results[index] = .success(result) }
            try Self.remember(db, writers.compactMap { index in requests[index].idempotency.map { ($0, written[index]!) } }, now: nowMS)
            // Replays of a key first used in this group.
            for index in results.indices where results[index] == nil {
                guard let key = requests[index].idempotency, let writer = writerOfKey[Self.name(key)],
                      let first = written[writer], let firstKey = requests[writer].idempotency else { continue }
                results[index] = firstKey.requestHash == key.requestHash
                    ? .success(Enqueued(ids: first.ids, deliveries: first.deliveries, isReplay: true))
                    : .failure(.idempotencyConflict(key: key.key))
            }
            if !writers.isEmpty { try Self.notifyWorkers(db) }
            return try results.map { result in
                guard let result else { throw StoreError.corruptValue("an enqueue request without a result") }
                return result
            }
        }
    }

    /// What the key's first request created, if the key is remembered with `key.requestHash`;
    /// `StoreError.idempotencyConflict` when it is remembered with another request.
    public func idempotentResult(_ key: IdempotencyKey, now: Date = Date()) throws(StoreError) -> Enqueued? {
        try read { db in try Self.remembered(db, key, now: now.storeMilliseconds) }
    }

    /// Ends a draft as `sealCampaign` does and remembers `key` for it in the same transaction. When the key was
    /// remembered meanwhile (a concurrent run of the same command), the draft is deleted and the first run's
    /// result returned instead.
    public func sealCampaign(_ id: CampaignID, remembering key: IdempotencyKey, now: Date = Date()) throws(StoreError) -> Enqueued {
        let nowMS = now.storeMilliseconds
        return try write { db in
            try Self.lockKeys(db, [key])
            if let earlier = try Self.remembered(db, key, now: nowMS) {
                try db.query("DELETE FROM campaigns WHERE id = $1 AND status = 'draft'", id.rawValue)
                return earlier
            }
            let sealed = try db.query("UPDATE campaigns SET status = 'scheduled' WHERE id = $1 AND status = 'draft'", id.rawValue)
            guard sealed.changes == 1 else { throw StoreError.notADraft(id, try Self.fetchCampaign(db, id).status) }
            let result = Enqueued(ids: [id], deliveries: [0], isReplay: false)
            try Self.remember(db, [(key, result)], now: nowMS)
            try Self.notifyWorkers(db)
            return result
        }
    }

    // MARK: - Internals

    /// `IdempotencyKey.lifetime` in milliseconds.
    private static let keyLifetime: Int64 = {
        let components = IdempotencyKey.lifetime.components
        return components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }()

    /// Serializes the transactions that use the same keys until they commit, so that of two concurrent requests
    /// with one key, the second sees what the first remembered (and replays it) instead of enqueueing again.
    /// Two-key advisory locks (a key space apart from the event lock's), taken in one order against deadlocks.
    private static func lockKeys(_ db: PGConnection, _ keys: [IdempotencyKey]) throws {
        let unique = Set(keys.map { $0.scope + "\n" + $0.key })
        try db.query("""
            SELECT pg_advisory_xact_lock(7085479, h) FROM (
                SELECT DISTINCT hashtext(k) AS h FROM unnest($1::text[]) AS k ORDER BY 1) locks
            """, [.texts(unique.sorted())])
    }

    /// The first spec's fault that refuses the request, if any.
    private static func fault(_ specs: [CampaignSpec]) -> StoreError? {
        for spec in specs {
            do { try spec.validate() } catch { return error }
        }
        return nil
    }

    /// A key's name in a group: its scope and key.
    private static func name(_ key: IdempotencyKey) -> String { key.scope + "\n" + key.key }

    /// Writes the requests at `indices` (in order); returns what each created. Consecutive requests made only of
    /// single sends to one token due now go in as one `insertSingleSends`, which keeps the ids in request order.
    private static func write(_ db: PGConnection, _ requests: [EnqueueRequest], _ indices: [Int], now: Int64) throws -> [Int: Enqueued] {
        var written: [Int: Enqueued] = [:]
        var run: [Int] = []
        func flush() throws {
            guard !run.isEmpty else { return }
            let ids = try insertSingleSends(db, ArraySlice(run.flatMap { requests[$0].specs }), now: now)
            var next = 0
            for index in run {
                let count = requests[index].specs.count
                written[index] = Enqueued(ids: Array(ids[next..<next + count]), deliveries: Array(repeating: 1, count: count),
                                          isReplay: false)
                next += count
            }
            run.removeAll()
        }
        for index in indices {
            if requests[index].specs.allSatisfy({ isQuickSingle($0, now: now) }) {
                run.append(index)
                continue
            }
            try flush()
            written[index] = try write(db, requests[index].specs, now: now)
        }
        try flush()
        return written
    }

    /// Writes one request's specs, in order: runs of quick single sends together, other specs one by one.
    private static func write(_ db: PGConnection, _ specs: [CampaignSpec], now: Int64) throws -> Enqueued {
        var ids: [CampaignID] = []
        var deliveries: [Int] = []
        var index = specs.startIndex
        while index < specs.endIndex {
            var end = index
            while end < specs.endIndex, isQuickSingle(specs[end], now: now) { end += 1 }
            if end > index {
                ids += try insertSingleSends(db, specs[index..<end], now: now)
                deliveries += repeatElement(1, count: end - index)
                index = end
                continue
            }
            let inserted = try insertCampaign(db, specs[index], now: now)
            ids.append(inserted.id)
            deliveries.append(inserted.deliveries)
            index += 1
        }
        return Enqueued(ids: ids, deliveries: deliveries, isReplay: false)
    }

    /// The remembered keys among `keys`, by `name`: the request hash each came with and its result (a replay).
    private static func remembered(_ db: PGConnection, _ keys: [IdempotencyKey], now: Int64) throws -> [String: (hash: String, result: Enqueued)] {
        let rows = try db.query("""
            SELECT scope, key, request_hash, campaign_ids, deliveries FROM idempotency_keys
            WHERE (scope, key) IN (SELECT * FROM unnest($1::text[], $2::text[])) AND created_at >= $3
            """, [.texts(keys.map(\.scope)), .texts(keys.map(\.key)), .int(now - keyLifetime)])
        var found: [String: (hash: String, result: Enqueued)] = [:]
        for row in 0..<rows.count {
            let key = IdempotencyKey(scope: try rows.string(row, 0), key: try rows.string(row, 1), requestHash: try rows.string(row, 2))
            found[name(key)] = (key.requestHash, try replay(campaignIDs: rows.string(row, 3), deliveries: rows.string(row, 4)))
        }
        return found
    }

    /// Remembers each key with its result, in one statement.
    private static func remember(_ db: PGConnection, _ entries: [(key: IdempotencyKey, result: Enqueued)], now: Int64) throws {
        guard !entries.isEmpty else { return }
        try db.query("""
            INSERT INTO idempotency_keys (scope, key, request_hash, campaign_ids, deliveries, created_at)
            SELECT scope, key, request_hash, campaign_ids, deliveries, $6
            FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[])
                AS r(scope, key, request_hash, campaign_ids, deliveries)
            ON CONFLICT (scope, key) DO UPDATE SET request_hash = excluded.request_hash,
                campaign_ids = excluded.campaign_ids, deliveries = excluded.deliveries, created_at = excluded.created_at
            """, [.texts(entries.map(\.key.scope)), .texts(entries.map(\.key.key)), .texts(entries.map(\.key.requestHash)),
                  .texts(entries.map { $0.result.ids.map { String($0.rawValue) }.joined(separator: ",") }),
                  .texts(entries.map { $0.result.deliveries.map(String.init).joined(separator: ",") }), .int(now)])
    }

    /// A remembered result as stored (comma-separated), replayed.
    private static func replay(campaignIDs: String, deliveries: String) -> Enqueued {
        Enqueued(ids: campaignIDs.split(separator: ",").compactMap { Int64($0) }.map { CampaignID($0) },
                 deliveries: deliveries.split(separator: ",").compactMap { Int($0) }, isReplay: true)
    }

    /// The remembered result of `key` (a replay), nil when the key is not remembered or has expired;
    /// `StoreError.idempotencyConflict` when it is remembered with another request.
    private static func remembered(_ db: PGConnection, _ key: IdempotencyKey, now: Int64) throws -> Enqueued? {
        guard let earlier = try remembered(db, [key], now: now)[name(key)] else { return nil }
        guard earlier.hash == key.requestHash else { throw StoreError.idempotencyConflict(key: key.key) }
        return earlier.result
    }

    /// Whether `spec` is a single send to one token due now: written as its two rows at once (`insertSingleSends`).
    static func isQuickSingle(_ spec: CampaignSpec, now: Int64) -> Bool {
        guard spec.kind == .single, case .tokens(let tokens, _) = spec.audience, tokens.count == 1 else { return false }
        return (spec.scheduledAt?.storeMilliseconds ?? now) <= now
    }

    /// Single sends to one token each, due now, written with two statements however many: ids drawn from the
    /// campaigns' sequence in order, then one statement of data-modifying CTEs inserting each campaign already
    /// expanded, its counters and its delivery, with what expansion would give them (the registered device's
    /// environment; `cancelled`, `DeviceInactive` and the campaign completed for an inactive one; the given
    /// environment, default production, for an unregistered token). Returns the ids in the order of `specs`.
    static func insertSingleSends(_ db: PGConnection, _ specs: ArraySlice<CampaignSpec>, now: Int64) throws -> [CampaignID] {
        let drawn = try db.query("""
            SELECT nextval(pg_get_serial_sequence('campaigns', 'id')) FROM generate_series(1, $1::bigint)
            """, Int64(specs.count))
        let ids = try drawn.map { row in try drawn.int64(row, 0) }.sorted()
        var tokens: [String] = [], topics: [String] = [], pushTypes: [String] = [], priorities: [Int64] = []
        var expirations: [Int64] = [], collapseIDs: [String] = [], apnsIDs: [String] = [], environments: [String] = []
        var payloadStarts: [Int64] = [], payloadLengths: [Int64] = [], payloads: [UInt8] = []
        for spec in specs {
            guard case .tokens(let recipients, let environment) = spec.audience, let token = recipients.first else { continue }
            let content = spec.content
            tokens.append(token.hex)
            topics.append(content.bundleID)
            pushTypes.append(content.pushType.rawValue)
            priorities.append(Int64(content.priority.rawValue))
            // Absent values as impossible ones (an expiration is never negative, the texts never empty): a
            // PostgreSQL array parameter here carries no NULL.
            expirations.append(content.expiration?.secondsSince1970 ?? -1)
            collapseIDs.append(content.collapseID?.value ?? "")
            apnsIDs.append(content.apnsID?.uuidString ?? "")
            environments.append(environment?.rawValue ?? "")
            payloadStarts.append(Int64(payloads.count))
            payloadLengths.append(Int64(content.payload.bytes.count))
            payloads += content.payload.bytes
        }
        guard ids.count == tokens.count else { throw StoreError.corruptValue("single sends: \(ids.count) ids for \(tokens.count) specs") }
        try db.query(insertSingleSendsSQL, [
            .ints(ids), .texts(tokens), .texts(topics), .texts(pushTypes), .ints(priorities), .ints(expirations),
            .texts(collapseIDs), .texts(apnsIDs), .texts(environments), .ints(payloadStarts), .ints(payloadLengths),
            .bytes(payloads), .int(now),
        ])
        return ids.map { CampaignID($0) }
    }

    /// See `insertSingleSends`. The payloads are one byte string ($12), each sliced by its start and length.
    private static let insertSingleSendsSQL = """
        WITH input AS (
            SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[],
                                 $7::text[], $8::text[], $9::text[], $10::bigint[], $11::bigint[])
                AS i(id, token, topic, push_type, priority, expiration, collapse_id, apns_id, environment,
                     payload_start, payload_length)
        ),
        looked AS MATERIALIZED (
            SELECT i.*, d.id AS device_id, COALESCE(d.environment, NULLIF(i.environment, ''), 'production') AS delivery_environment,
                   COALESCE(NOT d.active, false) AS inactive
            FROM input i LEFT JOIN devices d ON d.token = i.token AND d.topic = i.topic
        ),
        made AS (
            INSERT INTO campaigns (id, kind, status, topic, push_type, priority, expiration, collapse_id, payload, apns_id,
                audience, audience_environment, audience_size, expanded, expansion_cursor, scheduled_at, created_at,
                started_at, finished_at)
            SELECT id, 'single', CASE WHEN inactive THEN 'completed' ELSE 'running' END, topic, push_type, priority,
                   NULLIF(expiration, -1), NULLIF(collapse_id, ''),
                   substring($12::bytea FROM (payload_start + 1)::int FOR payload_length::int), NULLIF(apns_id, ''),
                   'tokens', NULLIF(environment, ''), 1, true, 1, $13, $13, $13, CASE WHEN inactive THEN $13 END
            FROM looked ORDER BY id
        ),
        counted AS (
            INSERT INTO campaign_counts (campaign_id, shard, kind, total, pending, cancelled)
            SELECT id, 0, 'single', 1, CASE WHEN inactive THEN 0 ELSE 1 END, CASE WHEN inactive THEN 1 ELSE 0 END
            FROM looked
        )
        INSERT INTO deliveries (campaign_id, device_id, token, environment, priority_class, status, reason,
            next_attempt_at, created_at, updated_at)
        SELECT id, device_id, token, delivery_environment, 0, CASE WHEN inactive THEN 'cancelled' ELSE 'pending' END,
               CASE WHEN inactive THEN 'DeviceInactive' END, $13, $13, $13
        FROM looked ORDER BY id
        """
}
