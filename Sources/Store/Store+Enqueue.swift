import APNs
import Foundation
import QueueModel
import QueueRules

extension Store {
    /// Enqueues several producers' requests in one transaction (the HTTP API groups concurrent enqueues so that
    /// one commit, the costly part, serves many). Each request is all or nothing on its own (a savepoint): one
    /// that is invalid, or whose idempotency key was used with another request, fails alone. A key used with the
    /// same request replays what that request created and enqueues nothing. A failure of the database itself
    /// throws and nothing is written.
    public func enqueue(_ requests: [EnqueueRequest], now: Date = Date()) throws(StoreError) -> [Result<
        Enqueued, StoreError
    >] {
        // One request needs no savepoint: the transaction is its own all-or-nothing. (A savepoint around a
        // 10,000-notification batch made SQLite walk its growing statement journal at every statement.)
        if requests.count == 1 {
            do {
                return [
                    .success(
                        try write { db in
                            try forgetExpiredKeys(db, requests, now: now)
                            return try enqueueOne(db, requests[0], now: now)
                        })
                ]
            } catch  where error.isRequestFault {
                return [.failure(error)]
            }
        }
        return try write { db in
            try forgetExpiredKeys(db, requests, now: now)
            var results: [Result<Enqueued, StoreError>] = []
            results.reserveCapacity(requests.count)
            for request in requests {
                try db.execute("SAVEPOINT enqueue")
                do {
                    let result = try enqueueOne(db, request, now: now)
                    try db.execute("RELEASE enqueue")
                    results.append(.success(result))
                } catch let error as StoreError where error.isRequestFault {
                    try db.execute("ROLLBACK TO enqueue")
                    try db.execute("RELEASE enqueue")
                    results.append(.failure(error))
                }
            }
            return results
        }
    }

    /// Deletes keys past their lifetime when any request carries one (an index range, cheap when there are none).
    private func forgetExpiredKeys(_ db: Connection, _ requests: [EnqueueRequest], now: Date) throws {
        guard requests.contains(where: { $0.idempotency != nil }) else { return }
        try db.cached("DELETE FROM idempotency_keys WHERE created_at < ?")
            .bind(now.storeMilliseconds - Milliseconds.from(IdempotencyKey.lifetime)).run()
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
        try write { db in
            if let earlier = try Self.remembered(db, key, now: now.storeMilliseconds) {
                try db.cached("DELETE FROM campaign_audience WHERE campaign_id = ?").bind(id.rawValue).run()
                try db.cached("DELETE FROM campaigns WHERE id = ? AND status = 'draft'").bind(id.rawValue).run()
                return earlier
            }
            try db.cached("UPDATE campaigns SET status = 'scheduled' WHERE id = ? AND status = 'draft'").bind(
                id.rawValue
            ).run()
            guard db.changes == 1 else { throw StoreError.notADraft(id, try Self.fetchCampaign(db, id).status) }
            let result = Enqueued(ids: [id], deliveries: [0], isReplay: false)
            try Self.remember(db, key, result, now: now.storeMilliseconds)
            return result
        }
    }

    private func enqueueOne(_ db: Connection, _ request: EnqueueRequest, now: Date) throws -> Enqueued {
        if let key = request.idempotency, let earlier = try Self.remembered(db, key, now: now.storeMilliseconds) {
            return earlier
        }
        let result: Enqueued
        if Self.defers(request.specs, now: now) {
            result = try insertDeferredBatch(db, request.specs, now: now)
        } else {
            var ids: [CampaignID] = []
            var deliveries: [Int] = []
            for spec in request.specs {
                let inserted = try insertCampaign(db, spec, now: now)
                ids.append(inserted.id)
                deliveries.append(inserted.deliveries)
            }
            result = Enqueued(ids: ids, deliveries: deliveries, isReplay: false)
        }
        if let key = request.idempotency { try Self.remember(db, key, result, now: now.storeMilliseconds) }
        return result
    }

    /// The remembered result of `key` (a replay), nil when the key is not remembered or has expired.
    private static func remembered(_ db: Connection, _ key: IdempotencyKey, now: Int64) throws -> Enqueued? {
        let statement = try db.cached(
            """
            SELECT request_hash, campaign_ids, deliveries FROM idempotency_keys
            WHERE api_key_id = ?1 AND key = ?2 AND created_at >= ?3
            """
        ).bind(key.scope.storedKeyID, key.key, now - Milliseconds.from(IdempotencyKey.lifetime))
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        guard statement.string(0) == key.requestHash else { throw StoreError.idempotencyConflict(key: key.key) }
        let ids = statement.string(1).split(separator: ",").compactMap { Int64($0) }.map { CampaignID($0) }
        let deliveries = statement.string(2).split(separator: ",").compactMap { Int($0) }
        return Enqueued(ids: ids, deliveries: deliveries, isReplay: true)
    }

    private static func remember(_ db: Connection, _ key: IdempotencyKey, _ result: Enqueued, now: Int64) throws {
        try db.cached(
            """
            INSERT OR REPLACE INTO idempotency_keys (api_key_id, key, request_hash, campaign_ids, deliveries, created_at)
            VALUES (?, ?, ?, ?, ?, ?)
            """
        ).bind(
            key.scope.storedKeyID, key.key, key.requestHash,
            result.ids.map { String($0.rawValue) }.joined(separator: ","),
            result.deliveries.map(String.init).joined(separator: ","), now
        ).run()
    }
}
