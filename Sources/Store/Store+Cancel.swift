import Foundation
import QueueModel
import QueueRules

/// Cancelling a campaign while workers send it, in two steps, so that nothing of it leaves after the cancel
/// commits except requests already written to a socket:
/// 1. `requestCancel` records a request; each live worker sees it (within its cancel poll), stops sending
///    the campaign, withdraws what waits unsent on its connections, and acknowledges with how many of its
///    requests were already on the wire;
/// 2. `finishCancel` (once every live worker acknowledged) turns the pending deliveries `cancelled`.
/// A cancel left half done (the command was killed) is finished by the next worker rescue.
extension Store {
    /// Step 1: records that `id` is to be cancelled. nil when the campaign already completed or was cancelled.
    public func requestCancel(_ id: CampaignID, now: Date = Date()) throws(StoreError) -> CancelRequest? {
        try write { db in
            try materializeDeferred(db, id)
            let campaign = try Self.fetchCampaign(db, id)
            guard !campaign.status.isFinished else { return nil }
            try db.cached("INSERT INTO cancel_requests (campaign_id, requested_at) VALUES (?, ?)")
                .bind(id.rawValue, now.storeMilliseconds).run()
            return CancelRequest(seq: db.lastInsertRowID, campaign: id)
        }
    }

    /// Live workers (heartbeat within `staleAfter` of `now`) that have not acknowledged `request` yet.
    public func workersYetToAcknowledge(_ request: CancelRequest, now: Date = Date(), staleAfter: Duration)
        throws(StoreError) -> [WorkerID]
    {
        try read { db in
            let statement = try db.cached(
                "SELECT id FROM workers WHERE cancel_seen < ?1 AND heartbeat_at >= ?2 ORDER BY id"
            )
            .bind(request.seq, Takeover(staleAfter: staleAfter).staleBefore(now: now.storeMilliseconds))
            defer { statement.reset() }
            var workers: [WorkerID] = []
            while try statement.step() { workers.append(WorkerID(statement.int64(0))) }
            return workers
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
            try materializeDeferred(db, id)
            return try Self.finishCancel(
                db, id, seq: request?.seq, now: now.storeMilliseconds, unacknowledged: unacknowledged)
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
            try Self.cancelRequests(db, "SELECT seq, campaign_id FROM cancel_requests WHERE seq > ? ORDER BY seq", seq)
        }
    }

    /// Cancel requests not finished yet (a starting worker must not send their campaigns either).
    public func openCancelRequests() throws(StoreError) -> [CancelRequest] {
        try read { db in
            try Self.cancelRequests(
                db, "SELECT seq, campaign_id FROM cancel_requests WHERE done_at IS NULL AND seq > ? ORDER BY seq", 0)
        }
    }

    /// `worker` stopped sending the campaigns of `acknowledged` (with how many of its requests of each were
    /// already on the wire) and has seen every request up to `seq`.
    public func acknowledgeCancels(
        _ acknowledged: [(request: CancelRequest, inFlight: Int)], upTo seq: Int64,
        by worker: WorkerID
    ) throws(StoreError) {
        try write { db in
            let ack = try db.cached("INSERT OR REPLACE INTO cancel_acks (seq, worker_id, in_flight) VALUES (?, ?, ?)")
            for (request, inFlight) in acknowledged { try ack.bind(request.seq, worker.rawValue, inFlight).run() }
            try db.cached("UPDATE workers SET cancel_seen = MAX(cancel_seen, ?2) WHERE id = ?1").bind(
                worker.rawValue, seq
            ).run()
        }
    }

    static func finishCancel(_ db: Connection, _ id: CampaignID, seq: Int64?, now: Int64, unacknowledged: Int = 0)
        throws -> CancelReport
    {
        let campaign = try fetchCampaign(db, id)
        var inFlight = 0
        if let seq {
            inFlight =
                try db.cached("SELECT COALESCE(SUM(in_flight), 0) FROM cancel_acks WHERE seq = ?").bind(seq)
                .scalarInt64().map(Int.init) ?? 0
            try db.cached("DELETE FROM cancel_acks WHERE seq = ?").bind(seq).run()
        }
        try db.cached("UPDATE cancel_requests SET done_at = ?2 WHERE campaign_id = ?1 AND done_at IS NULL").bind(
            id.rawValue, now
        ).run()
        guard !campaign.status.isFinished else {
            return CancelReport(
                campaign: campaign, cancelled: 0, inFlight: 0, unacknowledged: unacknowledged, wasFinished: true)
        }
        try db.cached(
            """
            UPDATE deliveries SET \(CampaignCancel.stoppedSQL), updated_at = ?2
            WHERE campaign_id = ?1 AND +status = 'pending'
            """
        ).bind(id.rawValue, now).run()
        let rows = db.changes
        // The audience counted and not expanded yet ends cancelled too (`ExpansionCounts`).
        let unexpanded =
            try db.cached("SELECT COALESCE(unexpanded, 0) FROM campaigns WHERE id = ?").bind(id.rawValue)
            .scalarInt64() ?? 0
        let cancelled = rows + Int(unexpanded)
        try db.cached(
            """
            UPDATE campaigns SET status = 'cancelled', finished_at = ?2, expanded = 1, unexpanded = 0,
                pending = pending - ?3, cancelled = cancelled + ?3
            WHERE id = ?1
            """
        ).bind(id.rawValue, now, cancelled).run()
        try db.cached("DELETE FROM campaign_audience WHERE campaign_id = ?").bind(id.rawValue).run()
        return CancelReport(
            campaign: try fetchCampaign(db, id), cancelled: cancelled, inFlight: min(inFlight, cancelled),
            unacknowledged: unacknowledged, wasFinished: false)
    }

    private static func cancelRequests(_ db: Connection, _ sql: String, _ seq: Int64) throws -> [CancelRequest] {
        let statement = try db.cached(sql).bind(seq)
        defer { statement.reset() }
        var requests: [CancelRequest] = []
        while try statement.step() {
            requests.append(CancelRequest(seq: statement.int64(0), campaign: CampaignID(statement.int64(1))))
        }
        return requests
    }
}
