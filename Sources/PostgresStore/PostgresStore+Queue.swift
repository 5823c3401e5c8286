import Foundation
import QueueModel
import QueueRules

/// SQL shared by the worker side of the queue (claim, record, expansion, cancel): sharded campaign counters and
/// the completion of campaigns. The lease rules are SQLite's (SCHEMA.md, "Workers and leases").
enum PGQueue {
    /// Worker shards of `campaign_counts` and `outcome_counts` (shard 0 is the producers' and expansion's).
    static let workerShards: Int64 = 16

    /// The counter shard a worker writes: `1 + id % 16`, 1 without a worker (tests, tools).
    static func shard(_ worker: WorkerID?) -> Int64 {
        guard let worker else { return 1 }
        return 1 + ((worker.rawValue % workerShards) + workerShards) % workerShards
    }

    /// SQL for the due time `value`, or `pausedUntilResumed` when the row's campaign is paused (the subquery runs
    /// once per statement, over the partial index of paused campaigns).
    static func dueUnlessPaused(_ value: String, campaign: String = "campaign_id") -> String {
        "CASE WHEN \(campaign) IN (SELECT id FROM campaigns WHERE paused) THEN \(Lease.pausedUntilResumed)::bigint ELSE \(value) END"
    }

    /// SQL for `due_at` when a lease ends unsent: kept (the delivery is still due since then), NULL when the row's
    /// campaign is paused (a paused campaign's deliveries are not due).
    static func keptUnlessPaused(_ row: String = "") -> String {
        "CASE WHEN \(row)campaign_id IN (SELECT id FROM campaigns WHERE paused) THEN NULL ELSE \(row)due_at END"
    }

    /// Adds counter deltas to `shard` of each campaign, in one statement; campaigns in id order, so that two
    /// transactions writing the same shard never wait on each other crosswise.
    static func addCounts(_ db: PGConnection, _ deltas: [Int64: CampaignCounters], shard: Int64) throws {
        let ids = deltas.keys.sorted()
        guard !ids.isEmpty else { return }
        func column(_ value: (CampaignCounters) -> Int) -> PGValue { .ints(ids.map { Int64(value(deltas[$0]!)) }) }
        try db.query(
            """
            INSERT INTO campaign_counts (campaign_id, shard, kind, total, pending, accepted, rejected, unregistered, failed, cancelled)
            SELECT u.id, $1, c.kind, u.total, u.pending, u.accepted, u.rejected, u.unregistered, u.failed, u.cancelled
            FROM unnest($2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[], $9::bigint[])
                 WITH ORDINALITY AS u(id, total, pending, accepted, rejected, unregistered, failed, cancelled, n)
            JOIN campaigns c ON c.id = u.id
            ORDER BY u.n
            ON CONFLICT (campaign_id, shard) DO UPDATE SET
                total = campaign_counts.total + excluded.total, pending = campaign_counts.pending + excluded.pending,
                accepted = campaign_counts.accepted + excluded.accepted, rejected = campaign_counts.rejected + excluded.rejected,
                unregistered = campaign_counts.unregistered + excluded.unregistered,
                failed = campaign_counts.failed + excluded.failed, cancelled = campaign_counts.cancelled + excluded.cancelled
            """,
            [
                .int(shard), .ints(ids), column(\.total), column(\.pending), column(\.accepted), column(\.rejected),
                column(\.unregistered), column(\.failed), column(\.cancelled),
            ])
    }

    /// Of `ids` (or of every unfinished campaign, when nil), those that look complete — expanded, nothing pending,
    /// not finished — in this statement's snapshot: a read without locks, so that a record that completes
    /// nothing takes no campaign lock.
    static func completionCandidates(_ db: PGConnection, _ ids: [Int64]?) throws -> [Int64] {
        if let ids, ids.isEmpty { return [] }
        return try db.query(
            """
            SELECT c.id FROM campaigns c
            WHERE ($1::bigint[] IS NULL OR c.id = ANY($1::bigint[])) AND c.status IN ('scheduled', 'running') AND c.expanded
              AND (SELECT COALESCE(SUM(k.pending), 0) FROM campaign_counts k WHERE k.campaign_id = c.id) = 0
            ORDER BY c.id
            """, [ids.map { PGValue.ints($0) } ?? .null]
        ).eachRow { rows, row in try rows.int64(row, 0) }
    }

    /// Completes the campaigns of `ids` that are expanded and have nothing pending, and folds their counter shards
    /// into shard 0; returns those that completed.
    ///
    /// Each campaign row is locked first and the sum read by a later statement (a fresh snapshot under READ
    /// COMMITTED): a writer that moved its counters and committed before the lock was granted is counted. Run
    /// after the commit that moved the counters — every writer checking after its own commit, the last one to
    /// commit sees everyone's rows — except for a campaign created in the same transaction (nobody else sees it).
    static func completeIfDone(_ db: PGConnection, _ ids: [Int64], now: Int64) throws -> [CampaignID] {
        guard !ids.isEmpty else { return [] }
        let locked = try db.query(
            """
            SELECT id FROM campaigns WHERE id = ANY($1) AND status IN ('scheduled', 'running') AND expanded ORDER BY id FOR NO KEY UPDATE
            """, [.ints(ids.sorted())]
        ).eachRow { rows, row in try rows.int64(row, 0) }
        guard !locked.isEmpty else { return [] }
        let completed = try db.query(
            """
            UPDATE campaigns c SET status = 'completed', finished_at = $2, started_at = COALESCE(c.started_at, $2)
            WHERE c.id = ANY($1) AND c.status IN ('scheduled', 'running') AND c.expanded
              AND (SELECT COALESCE(SUM(k.pending), 0) FROM campaign_counts k WHERE k.campaign_id = c.id) = 0
            RETURNING c.id
            """, [.ints(locked), .int(now)]
        ).eachRow { rows, row in try rows.int64(row, 0) }.sorted()
        try foldShards(db, completed)
        return completed.map { CampaignID($0) }
    }

    /// Moves the counters of finished campaigns from the worker shards into shard 0, so that the partial index
    /// `campaign_counts_pending` holds live campaigns only.
    static func foldShards(_ db: PGConnection, _ ids: [Int64]) throws {
        guard !ids.isEmpty else { return }
        try db.query(
            """
            WITH gone AS (DELETE FROM campaign_counts WHERE campaign_id = ANY($1) AND shard <> 0 RETURNING *)
            INSERT INTO campaign_counts (campaign_id, shard, kind, total, pending, accepted, rejected, unregistered, failed, cancelled)
            SELECT campaign_id, 0, MIN(kind), SUM(total)::bigint, SUM(pending)::bigint, SUM(accepted)::bigint,
                   SUM(rejected)::bigint, SUM(unregistered)::bigint, SUM(failed)::bigint, SUM(cancelled)::bigint
            FROM gone GROUP BY campaign_id ORDER BY campaign_id
            ON CONFLICT (campaign_id, shard) DO UPDATE SET
                total = campaign_counts.total + excluded.total, pending = campaign_counts.pending + excluded.pending,
                accepted = campaign_counts.accepted + excluded.accepted, rejected = campaign_counts.rejected + excluded.rejected,
                unregistered = campaign_counts.unregistered + excluded.unregistered,
                failed = campaign_counts.failed + excluded.failed, cancelled = campaign_counts.cancelled + excluded.cancelled
            """, [.ints(ids.sorted())])
    }
}

extension PostgresStore {
    /// Completes those of `ids` that are done, after the transaction that moved their counters committed (see
    /// `PGQueue.completeIfDone`): a read first, and a short write only for campaigns that look complete. nil:
    /// every unfinished campaign.
    func completeAfterCommit(_ ids: [Int64]?, now: Int64) throws(StoreError) -> [CampaignID] {
        let candidates = try read { db in try PGQueue.completionCandidates(db, ids) }
        guard !candidates.isEmpty else { return [] }
        return try write { db in try PGQueue.completeIfDone(db, candidates, now: now) }
    }
}

extension PGResult {
    /// Each row, read by `body` from this result.
    func eachRow<T>(_ body: (PGResult, Int) throws -> T) rethrows -> [T] {
        try map { row in try body(self, row) }
    }
}
