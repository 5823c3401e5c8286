import APNs
import Foundation
import QueueModel
import QueueRules

/// The HTTP API's enqueues. No deferred batches on PostgreSQL: a batch's notifications are written at once, its
/// single sends as a few statements over arrays whatever the batch's size (`insertSingles`).
extension PostgresStore {
    /// Enqueues several producers' requests in one transaction. Each request is all or nothing on its own: every
    /// fault of a request (an invalid spec, a key used with another request) is found before anything is written,
    /// so it fails alone without a savepoint. A key used with the same request replays what that request created
    /// (earlier, or earlier in this group) and enqueues nothing. A failure of the database itself throws and
    /// nothing is written.
    ///
    /// A few statements serve the whole group: the keys are locked, looked up and remembered in one statement
    /// each, and consecutive requests of single sends are written together (`insertSingles`); other requests
    /// cost a few statements per spec.
    public func enqueue(_ requests: [EnqueueRequest], now: Date = Date()) throws(StoreError) -> [Result<
        Enqueued, StoreError
    >] {
        let nowMS = now.storeMilliseconds
        // Specs made again from a request's body are made once here: the statements below read them several times.
        let requests = requests.map { request in
            request.specs.areSingleSendsDueNow == true
                ? EnqueueRequest(specs: request.specs.values, idempotency: request.idempotency) : request
        }
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
                        results[index] =
                            earlier.hash == key.requestHash
                            ? .success(earlier.result) : .failure(.idempotencyConflict(key: key.key))
                        continue
                    }
                    if writerOfKey[Self.name(key)] != nil { continue }
                }
                if let invalid = try Self.fault(db, request.specs.values, now: nowMS) {
                    results[index] = .failure(invalid)
                    continue
                }
                if let key = request.idempotency { writerOfKey[Self.name(key)] = index }
                writers.append(index)
            }
            let written = try Self.write(db, requests, writers, now: nowMS)
            for (index, result) in written { results[index] = .success(result) }
            try Self.remember(
                db, writers.compactMap { index in requests[index].idempotency.map { ($0, written[index]!) } },
                now: nowMS)
            // Replays of a key first used in this group.
            for index in results.indices where results[index] == nil {
                guard let key = requests[index].idempotency, let writer = writerOfKey[Self.name(key)],
                    let first = written[writer], let firstKey = requests[writer].idempotency
                else { continue }
                results[index] =
                    firstKey.requestHash == key.requestHash
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
    public func sealCampaign(_ id: CampaignID, remembering key: IdempotencyKey, now: Date = Date()) throws(StoreError)
        -> Enqueued
    {
        let nowMS = now.storeMilliseconds
        return try write { db in
            try Self.lockKeys(db, [key])
            if let earlier = try Self.remembered(db, key, now: nowMS) {
                try db.query("DELETE FROM campaigns WHERE id = $1 AND status = 'draft'", id.rawValue)
                return earlier
            }
            let sealed = try db.query(
                "UPDATE campaigns SET status = 'scheduled' WHERE id = $1 AND status = 'draft'", id.rawValue)
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
        let unique = Set(keys.map(name))
        try db.query(
            """
            SELECT pg_advisory_xact_lock(\(PGLocks.idempotency), h) FROM (
                SELECT DISTINCT hashtext(k) AS h FROM unnest($1::text[]) AS k ORDER BY 1) locks
            """, [.texts(unique.sorted())])
    }

    /// The first spec's fault that refuses the request, if any (a broadcast's channel is read to check it).
    private static func fault(_ db: PGConnection, _ specs: [CampaignSpec], now: Int64) throws -> StoreError? {
        for spec in specs {
            do {
                assert(spec.isValid, "\(spec.refusal!)")
                if case .channel(let number) = spec.audience { _ = try broadcastChannel(db, spec, number, now: now) }
            } catch let error as StoreError where error.isRequestFault {
                return error
            }
        }
        return nil
    }

    /// A single send `insertSingles` writes with others (to tokens or users; a broadcast is written alone).
    private static func isBatchedSingle(_ spec: CampaignSpec) -> Bool {
        spec.kind == .single && spec.audience.channel == nil
    }

    /// A key's name in a group (and its advisory lock's): its scope's stored id and the key.
    private static func name(_ key: IdempotencyKey) -> String { "\(key.scope.storedKeyID)\n" + key.key }

    /// Writes the requests at `indices` (in order); returns what each created. Consecutive requests made only of
    /// single sends go in together (`insertSingles`), which keeps the ids in request order.
    private static func write(_ db: PGConnection, _ requests: [EnqueueRequest], _ indices: [Int], now: Int64) throws
        -> [Int: Enqueued]
    {
        var written: [Int: Enqueued] = [:]
        var run: [Int] = []
        func flush() throws {
            guard !run.isEmpty else { return }
            let inserted = try insertSingles(db, ArraySlice(run.flatMap { requests[$0].specs.values }), now: now)
            var next = 0
            for index in run {
                let part = inserted[next..<next + requests[index].specs.count]
                written[index] = Enqueued(ids: part.map(\.id), deliveries: part.map(\.deliveries), isReplay: false)
                next += part.count
            }
            run.removeAll()
        }
        for index in indices {
            if requests[index].specs.allSatisfy(isBatchedSingle) {
                run.append(index)
                continue
            }
            try flush()
            written[index] = try write(db, requests[index].specs.values, now: now)
        }
        try flush()
        return written
    }

    /// Writes one request's specs, in order: runs of single sends together, other specs one by one.
    private static func write(_ db: PGConnection, _ specs: [CampaignSpec], now: Int64) throws -> Enqueued {
        var ids: [CampaignID] = []
        var deliveries: [Int] = []
        var index = specs.startIndex
        while index < specs.endIndex {
            var end = index
            while end < specs.endIndex, isBatchedSingle(specs[end]) { end += 1 }
            if end > index {
                let inserted = try insertSingles(db, specs[index..<end], now: now)
                ids += inserted.map(\.id)
                deliveries += inserted.map(\.deliveries)
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
    private static func remembered(_ db: PGConnection, _ keys: [IdempotencyKey], now: Int64) throws -> [String: (
        hash: String, result: Enqueued
    )] {
        let rows = try db.query(
            """
            SELECT api_key_id, key, request_hash, campaign_ids, deliveries FROM idempotency_keys
            WHERE (api_key_id, key) IN (SELECT * FROM unnest($1::bigint[], $2::text[])) AND created_at >= $3
            """, [.ints(keys.map(\.scope.storedKeyID)), .texts(keys.map(\.key)), .int(now - keyLifetime)])
        var found: [String: (hash: String, result: Enqueued)] = [:]
        for row in 0..<rows.count {
            let key = IdempotencyKey(
                scope: IdempotencyScope(storedKeyID: try rows.int64(row, 0)), key: try rows.string(row, 1),
                requestHash: try rows.string(row, 2))
            found[name(key)] = (
                key.requestHash, try replay(campaignIDs: rows.string(row, 3), deliveries: rows.string(row, 4))
            )
        }
        return found
    }

    /// Remembers each key with its result, in one statement.
    private static func remember(_ db: PGConnection, _ entries: [(key: IdempotencyKey, result: Enqueued)], now: Int64)
        throws
    {
        guard !entries.isEmpty else { return }
        try db.query(
            """
            INSERT INTO idempotency_keys (api_key_id, key, request_hash, campaign_ids, deliveries, created_at)
            SELECT api_key_id, key, request_hash, campaign_ids, deliveries, $6
            FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[])
                AS r(api_key_id, key, request_hash, campaign_ids, deliveries)
            ON CONFLICT (api_key_id, key) DO UPDATE SET request_hash = excluded.request_hash,
                campaign_ids = excluded.campaign_ids, deliveries = excluded.deliveries, created_at = excluded.created_at
            """,
            [
                .ints(entries.map(\.key.scope.storedKeyID)), .texts(entries.map(\.key.key)),
                .texts(entries.map(\.key.requestHash)),
                .texts(entries.map { $0.result.ids.map { String($0.rawValue) }.joined(separator: ",") }),
                .texts(entries.map { $0.result.deliveries.map(String.init).joined(separator: ",") }), .int(now),
            ])
    }

    /// A remembered result as stored (comma-separated), replayed.
    private static func replay(campaignIDs: String, deliveries: String) -> Enqueued {
        Enqueued(
            ids: campaignIDs.split(separator: ",").compactMap { Int64($0) }.map { CampaignID($0) },
            deliveries: deliveries.split(separator: ",").compactMap { Int($0) }, isReplay: true)
    }

    /// The remembered result of `key` (a replay), nil when the key is not remembered or has expired;
    /// `StoreError.idempotencyConflict` when it is remembered with another request.
    private static func remembered(_ db: PGConnection, _ key: IdempotencyKey, now: Int64) throws -> Enqueued? {
        guard let earlier = try remembered(db, [key], now: now)[name(key)] else { return nil }
        guard earlier.hash == key.requestHash else { throw StoreError.idempotencyConflict(key: key.key) }
        return earlier.result
    }
}
