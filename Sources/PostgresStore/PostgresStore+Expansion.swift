import APNs
import Foundation
import QueueModel
import QueueRules

extension PostgresStore {
    /// Expands due campaigns (`scheduledAt <= now`, sealed, not cancelled, not paused) into delivery rows, one page
    /// of at most `pageSize` audience entries per transaction, for at most `maxPages` pages. The page's rows and
    /// the campaign's cursor are written in the same transaction, so a crash loses nothing and duplicates nothing:
    /// the next call continues after the cursor. Memory is bounded by one page.
    ///
    /// One worker at a time expands a campaign: the page's transaction picks it `FOR NO KEY UPDATE SKIP LOCKED`,
    /// so other workers expand other campaigns meanwhile, or none. (Row locks on campaigns are all `NO KEY`: they
    /// must not block the key-share locks that inserting its counters and deliveries take.)
    public func expandDueCampaigns(now: Date = Date(), pageSize: Int = 5000, maxPages: Int = 1) throws(StoreError)
        -> ExpansionReport
    {
        let nowMS = now.storeMilliseconds
        var report = ExpansionReport()
        while report.pages < max(1, maxPages) {
            // A read first: when there is nothing to expand (the usual case), no write transaction, no `commits`.
            guard try read({ db in try db.query(Self.campaignToExpandSQL, nowMS).count > 0 }) else { return report }
            let expanded = try write { db -> (id: CampaignID, page: Page)? in
                guard let raw = try db.query(Self.nextCampaignToExpandSQL, nowMS).scalarInt64() else { return nil }
                let id = CampaignID(raw)
                let page = try Self.expandPage(db, id, pageSize: max(1, pageSize), now: nowMS)
                if page.inserted > 0 { try Self.notifyWorkers(db) }
                return (id, page)
            }
            guard let (id, page) = expanded else { return report }
            report.pages += 1
            report.deliveriesInserted += page.inserted
            if page.started { report.startedCampaigns.append(id) }
            if page.finished {
                report.expandedCampaigns.append(id)
                // After the commit, as for a record: workers recording its last rows meanwhile are counted. (A
                // failing check is made up for by the next rescue pass.)
                _ = try? completeAfterCommit([id.rawValue], now: nowMS)
            }
        }
        report.moreRemaining = try read { db in try db.query(Self.campaignToExpandSQL, nowMS).count > 0 }
        return report
    }

    /// One page as `expandDueCampaigns` expands it, then a claim of up to `limit` due deliveries for `worker`
    /// (the report's `jobs`). The page's rows are inserted unleased and the claim leases them (`FOR NO KEY UPDATE
    /// SKIP LOCKED`), so workers on many hosts share a page as they share any due rows.
    public func expandDueCampaigns(
        now: Date = Date(), pageSize: Int = 5000, leasing limit: Int, leaseFor lease: Duration, worker: WorkerID?
    ) throws(StoreError) -> ExpansionReport {
        var report = try expandDueCampaigns(now: now, pageSize: pageSize, maxPages: 1)
        report.jobs = try claim(now: now, limit: limit, leaseFor: lease, worker: worker)
        return report
    }

    /// Whether a campaign is to be expanded at $1 (by this worker or another), without locking it.
    private static let campaignToExpandSQL = """
        SELECT 1 FROM campaigns
        WHERE NOT expanded AND status IN ('scheduled', 'running') AND scheduled_at <= $1 AND NOT paused LIMIT 1
        """

    /// The next campaign to expand at $1, locked for this transaction; another worker's is skipped.
    private static let nextCampaignToExpandSQL = """
        SELECT id FROM campaigns
        WHERE NOT expanded AND status IN ('scheduled', 'running') AND scheduled_at <= $1 AND NOT paused
        ORDER BY scheduled_at, id LIMIT 1 FOR NO KEY UPDATE SKIP LOCKED
        """

    /// What one page did. `started`: a bulk campaign's first page (it was scheduled and runs from now on).
    struct Page {
        var inserted = 0
        var finished = false
        var started = false
    }

    /// Inserts the delivery rows of the campaign's next page, moves its cursor and updates its counters (shard 0).
    static func expandPage(_ db: PGConnection, _ id: CampaignID, pageSize: Int, now: Int64) throws -> Page {
        let state = try db.query(
            """
            SELECT kind, audience, topic, audience_environment, expansion_cursor, scheduled_at, expanded, status,
                   audience_activity_type, audience_activity_kind, unexpanded
            FROM campaigns WHERE id = $1 FOR NO KEY UPDATE
            """, id.rawValue)
        guard state.count == 1 else { throw StoreError.unknownCampaign(id) }
        let kind = try Decode.campaignKind(state.string(0, 0))
        let audience = try Decode.audienceKind(state.string(0, 1))
        let topic = try state.string(0, 2)
        let environment = try state.optionalString(0, 3)
        let cursor = try state.int64(0, 4)
        let scheduledAt = try state.int64(0, 5)
        if try state.bool(0, 6) { return Page(finished: true) }
        let status = try state.string(0, 7)
        let started = kind == .bulk && status == CampaignStatus.scheduled.rawValue
        let activity = try Decode.activitySelector(type: state.optionalString(0, 8), kind: state.optionalString(0, 9))
        // An activity audience's kind and type follow the page's other parameters.
        let activityParameters: [PGValue] = activity.map { [.text($0.kind.rawValue), .text($0.type)] } ?? []
        let unexpanded = try state.optionalInt64(0, 10).map(Int.init)
        // A bulk campaign's audience is counted before its first page (a single send is expanded whole at once).
        let counted =
            ExpansionCounts.countsFirst(kind: kind, unexpanded: unexpanded, cursor: cursor)
            ? try countAudience(
                db, id, audience, topic: topic, environment: environment, cursor: cursor, activity: activity) : nil

        let bounds: PGResult
        if audience == .all {
            bounds = try db.query(
                allPageBounds(activity: activity != nil),
                [.text(topic), environment.map { .text($0) } ?? .null, .int(cursor), .int(Int64(pageSize))]
                    + activityParameters)
        } else {
            bounds = try db.query(
                """
                SELECT MAX(seq), COUNT(*) FROM (
                    SELECT seq FROM campaign_audience WHERE campaign_id = $1 AND seq > $2 ORDER BY seq LIMIT $3) page
                """, id.rawValue, cursor, pageSize)
        }
        let upper = try bounds.optionalInt64(0, 0)
        let count = try bounds.int(0, 1)

        var inserted = 0
        var cancelled = 0
        if let upper {
            // For tokens, $6 is the environment of unregistered tokens (production unless given); otherwise a filter.
            let environmentParameter =
                audience == .tokens
                ? Recipient.unregisteredEnvironment(try environment.map(Decode.environment)).rawValue : environment
            let counts = try db.query(
                insertSQL(audience, activity: activity != nil),
                [
                    .int(id.rawValue), .int(Int64(kind.priorityClass)), .int(scheduledAt), .int(now), .text(topic),
                    environmentParameter.map { .text($0) } ?? .null, .int(cursor), .int(upper),
                ] + activityParameters)
            inserted = try counts.int(0, 0)
            cancelled = try counts.int(0, 1)
            if audience != .all {
                try db.query("DELETE FROM campaign_audience WHERE campaign_id = $1 AND seq <= $2", id.rawValue, upper)
            }
        }
        let finished = count < pageSize
        let counts = ExpansionCounts(
            unexpanded: unexpanded, counted: counted, inserted: inserted, cancelled: cancelled, finished: finished)
        try db.query(
            """
            UPDATE campaigns SET expansion_cursor = COALESCE($2::bigint, expansion_cursor), expanded = $3,
                status = CASE status WHEN 'scheduled' THEN 'running' ELSE status END, started_at = COALESCE(started_at, $4),
                unexpanded = $5::bigint
            WHERE id = $1
            """, id.rawValue, upper, finished, now, counts.unexpanded.map(Int64.init))
        if counts.total != 0 || counts.pending != 0 || counts.cancelled != 0 {
            try PGQueue.addCounts(
                db,
                [
                    id.rawValue: CampaignCounters(
                        total: counts.total, pending: counts.pending, cancelled: counts.cancelled)
                ],
                shard: 0)
        }
        return Page(inserted: inserted, finished: finished, started: started)
    }

    /// How many deliveries the campaign's audience makes from `cursor` on (`ExpansionCounts`): active devices of
    /// the topic (and environment) for `.all`, the given users' devices for `.users`, the distinct tokens for `.tokens`.
    static func countAudience(
        _ db: PGConnection, _ id: CampaignID, _ audience: AudienceKind, topic: String, environment: String?,
        cursor: Int64, activity: ActivitySelector?
    ) throws -> Int {
        let filter: [PGValue] = [.text(topic), environment.map { .text($0) } ?? .null]
        let kinds: [PGValue] = activity.map { [.text($0.kind.rawValue), .text($0.type)] } ?? []
        func kind(_ d: String, from first: Int) -> String {
            activity == nil ? "\(d)kind = 'device'" : "\(d)kind = $\(first) AND \(d)activity_type = $\(first + 1)"
        }
        let count: PGResult
        switch audience {
        case .all:
            count = try db.query(
                """
                SELECT COUNT(*) FROM devices
                WHERE topic = $1 AND active AND ($2::text IS NULL OR environment = $2::text) AND id > $3
                  AND \(kind("", from: 4))
                """, filter + [.int(cursor)] + kinds)
        case .users:
            count = try db.query(
                """
                SELECT COUNT(DISTINCT d.id) FROM campaign_audience a
                JOIN devices d ON d.user_id = a.value AND d.topic = $1 AND d.active
                                  AND ($2::text IS NULL OR d.environment = $2::text) AND \(kind("d.", from: 5))
                WHERE a.campaign_id = $3 AND a.seq > $4
                """, filter + [.int(id.rawValue), .int(cursor)] + kinds)
        case .tokens:
            count = try db.query(
                "SELECT COUNT(DISTINCT value) FROM campaign_audience WHERE campaign_id = $1 AND seq > $2",
                id.rawValue, cursor)
        }
        return try count.int(0, 0)
    }

    /// The last device id and the number of devices of the next page of an `.all` audience: $1 topic,
    /// $2 environment or NULL, $3 cursor (exclusive), $4 page size; for an activity audience, $5 kind and $6
    /// activity type (served by `devices_by_activity`).
    static func allPageBounds(activity: Bool) -> String {
        """
        SELECT MAX(id), COUNT(*) FROM (
            SELECT id FROM devices
            WHERE topic = $1 AND active AND ($2::text IS NULL OR environment = $2::text) AND id > $3
              AND \(activity ? "kind = $5 AND activity_type = $6" : "kind = 'device'")
            ORDER BY id LIMIT $4) page
        """
    }

    /// The condition on a device row (`d`) of `.all` and `.users` audiences: kind `device` only; for an activity
    /// audience, Live Activity tokens of kind $9 and activity type $10.
    static func kindCondition(_ d: String, activity: Bool) -> String {
        activity ? "\(d)kind = $9 AND \(d)activity_type = $10" : "\(d)kind = 'device'"
    }

    /// The INSERT … SELECT of one page, returning how many rows it inserted and how many of them are cancelled.
    /// Parameters: $1 campaign, $2 priority class, $3 next_attempt_at (the scheduled time), $4 now, $5 topic,
    /// $6 environment (filter; for tokens: the one for unregistered tokens), $7 cursor (exclusive), $8 upper bound
    /// (inclusive); for an activity audience (`activity`), $9 kind and $10 activity type. A row already there (a
    /// token given twice) is skipped. Tokens are sent as given, whatever their kind.
    static func insertSQL(_ audience: AudienceKind, activity: Bool) -> String {
        let select: String
        switch audience {
        case .all:
            select = """
                SELECT $1, id, token, environment, $2, 'pending', NULL, $3, $4, $4 FROM devices
                WHERE topic = $5 AND active AND ($6::text IS NULL OR environment = $6::text) AND id > $7 AND id <= $8
                  AND \(kindCondition("", activity: activity))
                ORDER BY id
                """
        case .users:
            select = """
                SELECT $1, d.id, d.token, d.environment, $2, 'pending', NULL, $3, $4, $4
                FROM campaign_audience a
                JOIN devices d ON d.user_id = a.value AND d.topic = $5 AND d.active AND ($6::text IS NULL OR d.environment = $6::text)
                                  AND \(kindCondition("d.", activity: activity))
                WHERE a.campaign_id = $1 AND a.seq > $7 AND a.seq <= $8
                ORDER BY a.seq, d.id
                """
        case .tokens:
            select = """
                SELECT $1, d.id, a.value, COALESCE(d.environment, $6::text), $2,
                       \(Recipient.statusSQL(inactive: "d.active IS FALSE")),
                       \(Recipient.reasonSQL(inactive: "d.active IS FALSE")),
                       $3, $4, $4
                FROM campaign_audience a
                LEFT JOIN devices d ON d.token = a.value AND d.topic = $5
                WHERE a.campaign_id = $1 AND a.seq > $7 AND a.seq <= $8
                ORDER BY a.seq
                """
        }
        return """
            WITH inserted AS (
                INSERT INTO deliveries (campaign_id, device_id, token, environment, priority_class, status, reason,
                    next_attempt_at, created_at, updated_at)
                \(select)
                ON CONFLICT DO NOTHING
                RETURNING status)
            SELECT COUNT(*), COUNT(*) FILTER (WHERE status = 'cancelled') FROM inserted
            """
    }
}
