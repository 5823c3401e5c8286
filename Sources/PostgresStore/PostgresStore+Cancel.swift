import Foundation
import QueueModel
import QueueRules

/// Cancelling a campaign while workers send it, in two steps, as on SQLite: `requestCancel` records a request
/// (and notifies every worker, on every host), each live worker stops sending the campaign and acknowledges, then
/// `finishCancel` turns the pending deliveries `cancelled`. A cancel left half done is finished by the next rescue.
extension PostgresStore {
    /// Step 1: records that `id` is to be cancelled. nil when the campaign already completed or was cancelled.
    public func requestCancel(_ id: CampaignID, now: Date = Date()) throws(StoreError) -> CancelRequest? {
        try write { db in
            try db.query("SELECT pg_advisory_xact_lock($1)", PGLocks.cancelOrder)
            let status = try db.query("SELECT status FROM campaigns WHERE id = $1", id.rawValue)
            guard status.count == 1 else { throw StoreError.unknownCampaign(id) }
            guard try !Decode.campaignStatus(status.string(0, 0)).isFinished else { return nil }
            let seq = try db.query(
                """
                INSERT INTO cancel_requests (campaign_id, requested_at) VALUES ($1, $2) RETURNING seq
                """, id.rawValue, now.storeMilliseconds
            ).scalarInt64()
            guard let seq else { throw StoreError.corruptValue("cancel request insert returned no seq") }
            try Self.notifyWorkers(db, "cancel")
            return CancelRequest(seq: seq, campaign: id)
        }
    }

    /// Live workers (heartbeat within `staleAfter` of `now`) that have not acknowledged `request` yet.
    public func workersYetToAcknowledge(_ request: CancelRequest, now: Date = Date(), staleAfter: Duration)
        throws(StoreError) -> [WorkerID]
    {
        try read { db in
            try db.query(
                "SELECT id FROM workers WHERE cancel_seen < $1 AND heartbeat_at >= $2 ORDER BY id",
                request.seq, Takeover(staleAfter: staleAfter).staleBefore(now: now.storeMilliseconds)
            )
            .eachRow { rows, row in WorkerID(try rows.int64(row, 0)) }
        }
    }

    /// Step 2: the campaign's pending deliveries (those on the wire included: their answer replaces
    /// `cancelled` when it is recorded) become `cancelled` with reason `CampaignCancelled`, the rest of its
    /// audience is never expanded, and it is marked `cancelled`. `request` nil: without step 1 (no worker
    /// runs, or a test). A campaign already finished is returned unchanged.
    public func finishCancel(
        _ id: CampaignID, request: CancelRequest?, unacknowledged: Int = 0,
        now: Date = Date()
    ) throws(StoreError) -> CancelReport {
        try write { db in
            try Self.finishCancel(db, id, seq: request?.seq, now: now.storeMilliseconds, unacknowledged: unacknowledged)
        }
    }

    /// Cancels a campaign at once, without waiting for workers (`finishCancel` without a request).
    @discardableResult
    public func cancelCampaign(_ id: CampaignID, now: Date = Date()) throws(StoreError) -> Campaign {
        try finishCancel(id, request: nil, now: now).campaign
    }

    /// Cancel requests after `seq`, oldest first (a worker polls with the last one it saw).
    public func cancelRequests(after seq: Int64) throws(StoreError) -> [CancelRequest] {
        try read { db in
            try Self.cancelRequests(
                db.query("SELECT seq, campaign_id FROM cancel_requests WHERE seq > $1 ORDER BY seq", seq))
        }
    }

    /// Cancel requests not finished yet (a starting worker must not send their campaigns either).
    public func openCancelRequests() throws(StoreError) -> [CancelRequest] {
        try read { db in
            try Self.cancelRequests(
                db.query("SELECT seq, campaign_id FROM cancel_requests WHERE done_at IS NULL ORDER BY seq"))
        }
    }

    /// `worker` stopped sending the campaigns of `acknowledged` (with how many of its requests of each were
    /// already on the wire) and has seen every request up to `seq`.
    public func acknowledgeCancels(
        _ acknowledged: [(request: CancelRequest, inFlight: Int)], upTo seq: Int64,
        by worker: WorkerID
    ) throws(StoreError) {
        try write { db in
            if !acknowledged.isEmpty {
                try db.query(
                    """
                    INSERT INTO cancel_acks (seq, worker_id, in_flight)
                    SELECT u.seq, $1, u.in_flight FROM unnest($2::bigint[], $3::bigint[]) AS u(seq, in_flight)
                    ON CONFLICT (seq, worker_id) DO UPDATE SET in_flight = excluded.in_flight
                    """,
                    [
                        .int(worker.rawValue), .ints(acknowledged.map(\.request.seq)),
                        .ints(acknowledged.map { Int64($0.inFlight) }),
                    ])
            }
            try db.query(
                "UPDATE workers SET cancel_seen = GREATEST(cancel_seen, $2) WHERE id = $1", worker.rawValue, seq)
        }
    }

    static func finishCancel(_ db: PGConnection, _ id: CampaignID, seq: Int64?, now: Int64, unacknowledged: Int = 0)
        throws -> CancelReport
    {
        // The campaign row is locked first: an expansion page or a completion of it waits, or is waited for.
        let status = try db.query("SELECT status FROM campaigns WHERE id = $1 FOR NO KEY UPDATE", id.rawValue)
        guard status.count == 1 else { throw StoreError.unknownCampaign(id) }
        var inFlight = 0
        if let seq {
            inFlight =
                try db.query("SELECT COALESCE(SUM(in_flight), 0)::bigint FROM cancel_acks WHERE seq = $1", seq)
                .scalarInt64().map(Int.init) ?? 0
            try db.query("DELETE FROM cancel_acks WHERE seq = $1", seq)
        }
        try db.query(
            "UPDATE cancel_requests SET done_at = $2 WHERE campaign_id = $1 AND done_at IS NULL", id.rawValue, now)
        guard try !Decode.campaignStatus(status.string(0, 0)).isFinished else {
            return CancelReport(
                campaign: try fetchCampaign(db, id), cancelled: 0, inFlight: 0, unacknowledged: unacknowledged,
                wasFinished: true)
        }
        let rows = try db.query(
            """
            UPDATE deliveries SET \(CampaignCancel.stoppedSQL), updated_at = $2
            WHERE campaign_id = $1 AND status = 'pending'
            """, id.rawValue, now
        ).changes
        // The audience counted and not expanded yet ends cancelled too (`ExpansionCounts`).
        let unexpanded =
            try db.query("SELECT COALESCE(unexpanded, 0)::bigint FROM campaigns WHERE id = $1", id.rawValue)
            .scalarInt64() ?? 0
        let cancelled = rows + Int(unexpanded)
        try db.query(
            """
            UPDATE campaigns SET status = 'cancelled', finished_at = $2, expanded = true, unexpanded = 0 WHERE id = $1
            """, id.rawValue, now)
        if cancelled > 0 {
            try PGQueue.addCounts(
                db, [id.rawValue: CampaignCounters(pending: -cancelled, cancelled: cancelled)], shard: 0)
        }
        try PGQueue.foldShards(db, [id.rawValue])
        try db.query("DELETE FROM campaign_audience WHERE campaign_id = $1", id.rawValue)
        return CancelReport(
            campaign: try fetchCampaign(db, id), cancelled: cancelled, inFlight: min(inFlight, cancelled),
            unacknowledged: unacknowledged, wasFinished: false)
    }

    private static func cancelRequests(_ rows: PGResult) throws -> [CancelRequest] {
        try rows.map { row in CancelRequest(seq: try rows.int64(row, 0), campaign: CampaignID(try rows.int64(row, 1))) }
    }
}
