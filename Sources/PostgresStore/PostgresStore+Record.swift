import APNs
import Foundation
import QueueModel
import QueueRules

extension PostgresStore {
    /// Writes a batch of outcomes in one transaction of a handful of statements, whatever its size:
    /// - each delivery gets its final status, or stays pending until `retry(at:)` (attempts + 1, lease cleared; the
    ///   answer is kept in `delivery_attempts` for `apnsd log --attempts`);
    /// - devices are deactivated for the campaign's topic: a 410 only when the device's last registration is
    ///   older than the 410 `timestamp`, BadDeviceToken and the like always;
    /// - campaign counters move (in this worker's shard of `campaign_counts`), and so do the per-minute outcome
    ///   counters; each deactivation and each delivery that ends `failed` writes its event.
    /// A campaign with nothing pending and its audience expanded completes, in a second short transaction after
    /// the commit (see `PGQueue.completeIfDone`).
    ///
    /// A result for an unknown or already-final delivery, or naming another campaign than its row's, changes
    /// nothing (a duplicate after a lease expired), except that a final outcome replaces `cancelled`: the request
    /// was in flight when the campaign was cancelled, and the log must say what APNs did with it. A retry by
    /// `worker` of a delivery that another worker now holds (it was taken over) changes nothing either.
    @discardableResult
    public func record(_ results: [DeliveryResult], by worker: WorkerID? = nil, now: Date = Date()) throws(StoreError)
        -> RecordReport
    {
        guard !results.isEmpty else { return RecordReport() }
        let nowMS = now.storeMilliseconds
        var wroteEvents = false
        var report = try write { db in
            let plan = RecordPlan(results, replaced: try Self.writeResults(db, results, worker: worker, now: nowMS))
            var report = plan.report
            try PGQueue.addCounts(db, plan.deltas, shard: PGQueue.shard(worker))
            try Self.countOutcomes(db, plan.outcomes, shard: PGQueue.shard(worker), now: nowMS)
            try Self.countCampaignOutcomes(db, plan.campaignOutcomes, shard: PGQueue.shard(worker), now: nowMS)
            (report.devicesDeactivated, wroteEvents) = try Self.writeEvents(db, plan, now: nowMS)
            // Moves every listener's change count: `apnsd log --follow` on another host reads the new outcomes, and
            // a retry made due wakes the workers (an idle worker's claim that finds nothing due costs one read).
            try Self.notifyWorkers(db, "outcomes")
            return report
        }
        if wroteEvents { eventsCommitted() }
        // The outcomes are committed: a failing completion check must not make them look unrecorded (the next
        // rescue pass completes what it missed).
        report.completedCampaigns =
            (try? completeAfterCommit(Array(Set(results.map(\.campaignID.rawValue))), now: nowMS)) ?? []
        return report
    }

    /// Writes each result over its row; returns the status each one replaced, nil for a result that changed
    /// nothing. A delivery named twice in a batch is written in rounds, in order, as if one result at a time.
    private static func writeResults(_ db: PGConnection, _ results: [DeliveryResult], worker: WorkerID?, now: Int64)
        throws -> [DeliveryStatus?]
    {
        var replaced = [DeliveryStatus?](repeating: nil, count: results.count)
        var remaining = Array(results.indices)
        while !remaining.isEmpty {
            var seen = Set<Int64>()
            var round: [Int] = []
            var later: [Int] = []
            for index in remaining {
                if seen.insert(results[index].deliveryID.rawValue).inserted {
                    round.append(index)
                } else {
                    later.append(index)
                }
            }
            remaining = later
            // Fast path: every row still pending is written without being read first.
            let written = try apply(db, round.map { (results[$0], DeliveryStatus.pending) }, worker: worker, now: now)
            var slow: [Int] = []
            for index in round {
                if written.contains(results[index].deliveryID.rawValue) {
                    replaced[index] = .pending
                } else {
                    slow.append(index)
                }
            }
            guard !slow.isEmpty else { continue }
            let rows = try readRows(db, slow.map { results[$0].deliveryID.rawValue })
            var again: [(index: Int, old: DeliveryStatus)] = []
            for index in slow {
                let result = results[index]
                guard let old = RecordPlan.replaceable(result, row: rows[result.deliveryID.rawValue], by: worker)
                else { continue }
                again.append((index, old))
            }
            let rewritten = try apply(db, again.map { (results[$0.index], $0.old) }, worker: worker, now: now)
            for (index, old) in again {
                guard rewritten.contains(results[index].deliveryID.rawValue) else {
                    throw StoreError.corruptValue("delivery \(results[index].deliveryID) changed while recording")
                }
                replaced[index] = old
            }
        }
        return replaced
    }

    /// The rows of `ids` that were not written as pending (no longer pending, or held by another worker), read
    /// locked so that they stay as read until the commit.
    private static func readRows(_ db: PGConnection, _ ids: [Int64]) throws -> [Int64: RecordPlan.Row] {
        let found = try db.query(
            """
            SELECT id, campaign_id, status, leased_by FROM deliveries WHERE id = ANY($1) ORDER BY id FOR NO KEY UPDATE
            """, [.ints(ids)])
        var rows: [Int64: RecordPlan.Row] = [:]
        for row in 0..<found.count {
            rows[try found.int64(row, 0)] = RecordPlan.Row(
                campaign: try found.int64(row, 1), status: try Decode.deliveryStatus(found.string(row, 2)),
                holder: try found.optionalInt64(row, 3))
        }
        return rows
    }

    /// Deactivates the devices the plan's results still deactivate and writes the batch's events; returns how many
    /// devices were deactivated and whether any event was written.
    private static func writeEvents(_ db: PGConnection, _ plan: RecordPlan, now: Int64) throws -> (Int, Bool) {
        guard !plan.deactivations.isEmpty || !plan.failed.isEmpty else { return (0, false) }
        // Event ids follow commit order; the lock is taken before any device row, as every event writer does.
        try lockEventOrder(db)
        let deactivatedBy = try deactivateDevices(db, plan.deactivations, now: now)
        if !deactivatedBy.isEmpty { try db.query(deactivationEventsSQL, [.ints(deactivatedBy), .int(now)]) }
        if !plan.failed.isEmpty { try db.query(failureEventsSQL, [.ints(plan.failed), .int(now)]) }
        return (deactivatedBy.count, !deactivatedBy.isEmpty || !plan.failed.isEmpty)
    }

    /// Deactivates the device of each of `results`, in one statement; returns the ids of the deliveries whose
    /// answer did, in batch order. Per device, the first result (in batch order) whose rule deactivates it does, as
    /// one result at a time would: a later one finds the device inactive already.
    private static func deactivateDevices(_ db: PGConnection, _ results: [DeliveryResult], now: Int64) throws
        -> [Int64]
    {
        guard !results.isEmpty else { return [] }
        let deactivated = Set(
            try db.query(
                """
                UPDATE devices d SET active = false, deactivated_at = $1, reason = u.reason
                FROM (SELECT DISTINCT ON (u.token, u.topic) u.*
                      FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[]) WITH ORDINALITY AS u(token, topic, reason, before, n)
                      JOIN devices v ON v.token = u.token AND v.topic = u.topic AND v.active AND v.registered_at < u.before
                      ORDER BY u.token, u.topic, u.n) u
                WHERE d.token = u.token AND d.topic = u.topic AND d.active AND d.registered_at < u.before
                RETURNING u.n
                """,
                [
                    .int(now), .texts(results.map { $0.token?.hex ?? "" }), .texts(results.map(\.topic)),
                    .texts(results.map { $0.deactivation?.reason.rawValue ?? "" }),
                    // No 410 timestamp: always (every registration is older than the end of time).
                    .ints(results.map { $0.deactivation?.unregisteredAt ?? Int64.max }),
                ]
            )
            .eachRow { rows, row in try rows.int(row, 0) })
        return results.enumerated().filter { deactivated.contains($0.offset + 1) }.map {
            $0.element.deliveryID.rawValue
        }
    }

    /// Writes `results` over rows in the status each names, in one statement (a retry's answer kept in
    /// `delivery_attempts` by the same statement); returns the ids of the rows written. A retry by `worker` does
    /// not write a row another worker holds.
    private static func apply(
        _ db: PGConnection, _ batch: [(result: DeliveryResult, old: DeliveryStatus)], worker: WorkerID?,
        now: Int64
    ) throws -> Set<Int64> {
        guard !batch.isEmpty else { return [] }
        let results = batch.map(\.result)
        let written = try db.query(
            applySQL,
            [
                .ints(results.map(\.deliveryID.rawValue)), .ints(results.map(\.campaignID.rawValue)),
                .texts(batch.map(\.old.rawValue)), .texts(results.map(\.disposition.status.rawValue)),
                .ints(results.map { if case .retry(let date) = $0.disposition { date.storeMilliseconds } else { 0 } }),
                .ints(results.map { $0.countsAsAttempt ? 1 : 0 }), .ints(results.map { Int64($0.httpStatus ?? -1) }),
                .texts(results.map { $0.reason?.rawValue ?? "" }), .texts(results.map { $0.apnsID ?? "" }),
                .int(now), worker.map { .int($0.rawValue) } ?? .null, .ints(results.map { $0.held ? 1 : 0 }),
            ])
        return Set(try written.map { row in try written.int64(row, 0) })
    }

    /// $1 ids, $2 campaigns, $3 the status each row must still have, $4 the new status ('pending': a retry, due at
    /// $5), $6 attempts to add, $7 HTTP status (-1: none), $8 reason ('': none), $9 apns-id ('': keep), $10 now,
    /// $11 the recording worker (NULL: none), $12 1 for a retry held unsent (it keeps `due_at`). Sentinels stand for
    /// NULL: array parameters carry no NULLs.
    private static let applySQL = """
        WITH u AS (
            SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::bigint[],
                                 $8::text[], $9::text[], $12::bigint[])
                AS u(id, campaign, old, status, retry_at, attempt, http, reason, apns, held)),
        written AS (
            UPDATE deliveries d SET status = u.status,
                next_attempt_at = CASE WHEN u.status <> 'pending' THEN d.next_attempt_at
                                       ELSE \(PGQueue.dueUnlessPaused("u.retry_at", campaign: "d.campaign_id")) END,
                due_at = CASE WHEN u.status <> 'pending' THEN d.due_at WHEN u.held = 1 THEN \(PGQueue.keptUnlessPaused("d."))
                              ELSE NULL END,
                leased_until = NULL, leased_by = NULL, attempts = d.attempts + u.attempt,
                http_status = NULLIF(u.http, -1), reason = NULLIF(u.reason, ''), apns_id = COALESCE(NULLIF(u.apns, ''), d.apns_id),
                updated_at = $10
            FROM u
            WHERE d.id = u.id AND d.id = ANY($1::bigint[]) AND d.campaign_id = u.campaign AND d.status = u.old
              AND (u.status <> 'pending' OR $11::bigint IS NULL OR d.leased_by IS NULL OR d.leased_by = $11::bigint)
            RETURNING d.id, d.attempts, d.http_status, d.reason, u.status, u.attempt),
        kept AS (
            INSERT INTO delivery_attempts (delivery_id, attempt, at, http_status, reason)
            SELECT id, attempts, $10, http_status, reason FROM written WHERE status = 'pending' AND attempt = 1
            ON CONFLICT (delivery_id, attempt) DO UPDATE SET at = excluded.at, http_status = excluded.http_status,
                reason = excluded.reason)
        SELECT id FROM written
        """

    /// Adds a written batch's outcomes to this minute's counters of the worker's shard, in one statement.
    private static func countOutcomes(
        _ db: PGConnection, _ outcomes: [OutcomeKey: OutcomeCount], shard: Int64, now: Int64
    ) throws {
        guard !outcomes.isEmpty else { return }
        let keys = outcomes.keys.sorted()
        try db.query(
            """
            INSERT INTO outcome_counts (minute, status, reason, shard, count, requests)
            SELECT $1, u.status, u.reason, $2, u.count, u.requests
            FROM unnest($3::text[], $4::text[], $5::bigint[], $6::bigint[]) WITH ORDINALITY AS u(status, reason, count, requests, n)
            ORDER BY u.n
            ON CONFLICT (minute, status, reason, shard) DO UPDATE SET
                count = outcome_counts.count + excluded.count, requests = outcome_counts.requests + excluded.requests
            """,
            [
                .int(now / 60_000), .int(shard), .texts(keys.map(\.status)), .texts(keys.map(\.reason)),
                .ints(keys.map { Int64(outcomes[$0]!.count) }), .ints(keys.map { Int64(outcomes[$0]!.requests) }),
            ])
    }

    /// Adds a written batch's outcomes to this minute's counters of each bulk campaign, in the worker's shard.
    private static func countCampaignOutcomes(
        _ db: PGConnection, _ outcomes: [CampaignOutcomeKey: OutcomeCount], shard: Int64, now: Int64
    ) throws {
        guard !outcomes.isEmpty else { return }
        let keys = outcomes.keys.sorted()
        try db.query(
            """
            INSERT INTO campaign_outcome_counts (campaign_id, minute, status, reason, shard, count, requests)
            SELECT u.campaign_id, $1, u.status, u.reason, $2, u.count, u.requests
            FROM unnest($3::bigint[], $4::text[], $5::text[], $6::bigint[], $7::bigint[])
                WITH ORDINALITY AS u(campaign_id, status, reason, count, requests, n)
            JOIN campaigns c ON c.id = u.campaign_id AND c.kind = 'bulk'
            ORDER BY u.n
            ON CONFLICT (campaign_id, minute, status, reason, shard) DO UPDATE SET
                count = campaign_outcome_counts.count + excluded.count,
                requests = campaign_outcome_counts.requests + excluded.requests
            """,
            [
                .int(now / 60_000), .int(shard), .ints(keys.map(\.campaign)), .texts(keys.map(\.outcome.status)),
                .texts(keys.map(\.outcome.reason)), .ints(keys.map { Int64(outcomes[$0]!.count) }),
                .ints(keys.map { Int64(outcomes[$0]!.requests) }),
            ])
    }

    /// One `device.deactivated` event per delivery of $1 (in that order) whose answer just deactivated its device.
    static let deactivationEventsSQL = """
        INSERT INTO events (type, token, topic, environment, user_id, reason, campaign_id, delivery_id, at)
        SELECT 'device.deactivated', d.token, d.topic, d.environment, d.user_id, d.reason, x.campaign_id, x.id, $2
        FROM unnest($1::bigint[]) WITH ORDINALITY AS j(id, n)
        JOIN deliveries x ON x.id = j.id
        JOIN campaigns c ON c.id = x.campaign_id
        JOIN devices d ON d.token = x.token AND d.topic = c.topic
        ORDER BY j.n
        """

    /// One `delivery.failed` event per delivery of $1, in that order.
    static let failureEventsSQL = """
        INSERT INTO events (type, token, topic, environment, user_id, reason, campaign_id, delivery_id, at)
        SELECT 'delivery.failed', x.token, c.topic, x.environment, d.user_id, x.reason, x.campaign_id, x.id, $2
        FROM unnest($1::bigint[]) WITH ORDINALITY AS j(id, n)
        JOIN deliveries x ON x.id = j.id
        JOIN campaigns c ON c.id = x.campaign_id
        LEFT JOIN devices d ON d.id = x.device_id
        ORDER BY j.n
        """
}
