import APNs
import Foundation
import QueueModel
import QueueRules

extension Store {
    /// Expands due campaigns (`scheduledAt <= now`, sealed, not cancelled) into delivery rows, one page of at most
    /// `pageSize` audience entries per transaction, for at most `maxPages` pages. The page's rows and the
    /// campaign's cursor are written in the same transaction, so a crash loses nothing and duplicates nothing:
    /// the next call continues after the cursor. Memory is bounded by one page.
    ///
    /// The worker calls it between claims while `moreRemaining` is true, so sending never waits for a
    /// million-device expansion.
    public func expandDueCampaigns(now: Date = Date(), pageSize: Int = 5000, maxPages: Int = 1) throws(StoreError)
        -> ExpansionReport
    {
        let nowMS = now.storeMilliseconds
        var report = ExpansionReport()
        while report.pages < max(1, maxPages) {
            // Deferred batches first: they hold single sends, which go ahead of bulk work.
            if try read({ db in try Self.hasDeferredBatches(db) }) {
                let written = try expandDeferredBatch(limit: max(1, min(pageSize, Self.deferredPageLimit)))
                report.pages += 1
                report.deliveriesInserted += written.deliveries
                continue
            }
            guard let id = try read({ db in try Self.nextCampaignToExpand(db, now: nowMS) }) else { return report }
            let page = try write { db in try Self.expandPage(db, id, pageSize: max(1, pageSize), now: nowMS) }
            report.pages += 1
            report.deliveriesInserted += page.inserted
            if page.started { report.startedCampaigns.append(id) }
            if page.finished { report.expandedCampaigns.append(id) }
        }
        report.moreRemaining = try read { db in
            try Self.hasDeferredBatches(db) || Self.nextCampaignToExpand(db, now: nowMS) != nil
        }
        return report
    }

    /// Expands every page of a campaign inside the caller's transaction (single sends, at creation); returns the
    /// delivery rows inserted.
    func expandCompletely(_ db: Connection, _ id: CampaignID, now: Int64) throws -> Int {
        var inserted = 0
        while true {
            let page = try Self.expandPage(db, id, pageSize: 10_000, now: now)
            inserted += page.inserted
            if page.finished { return inserted }
        }
    }

    private static func nextCampaignToExpand(_ db: Connection, now: Int64) throws -> CampaignID? {
        try db.cached(
            """
            SELECT id FROM campaigns
            WHERE expanded = 0 AND status IN ('scheduled', 'running') AND scheduled_at <= ? AND paused = 0
            ORDER BY scheduled_at, id LIMIT 1
            """
        ).bind(now).scalarInt64().map { CampaignID($0) }
    }

    /// Inserts the delivery rows of the campaign's next page, moves its cursor and updates its counters.
    /// `started`: a bulk campaign's first page (it was scheduled and runs from now on).
    private static func expandPage(_ db: Connection, _ id: CampaignID, pageSize: Int, now: Int64)
        throws -> (inserted: Int, finished: Bool, started: Bool)
    {
        let state = try db.cached(
            """
            SELECT kind, audience, topic, audience_environment, expansion_cursor, scheduled_at, expanded, status,
                   audience_activity_type, audience_activity_kind
            FROM campaigns WHERE id = ?
            """
        ).bind(id.rawValue)
        guard try state.step() else {
            state.reset()
            throw StoreError.unknownCampaign(id)
        }
        let kind = try Decode.campaignKind(state.string(0))
        let audience = try Decode.audienceKind(state.string(1))
        let topic = state.string(2)
        let environment = state.optionalString(3)
        let cursor = state.int64(4)
        let scheduledAt = state.int64(5)
        let alreadyExpanded = state.int64(6) != 0
        let started = kind == .bulk && state.string(7) == CampaignStatus.scheduled.rawValue
        let activity = try Decode.activitySelector(type: state.optionalString(8), kind: state.optionalString(9))
        state.reset()
        if alreadyExpanded { return (0, true, false) }

        let lastDelivery = try db.cached("SELECT COALESCE(MAX(id), 0) FROM deliveries").scalarInt64() ?? 0
        let bounds: Statement
        if audience == .all {
            bounds = try db.cached(allPageBounds(activity: activity != nil)).bind(topic, environment, cursor, pageSize)
            if let activity {
                try bounds.bindAt(5, activity.kind.rawValue)
                try bounds.bindAt(6, activity.type)
            }
        } else {
            bounds = try db.cached(
                """
                SELECT MAX(seq), COUNT(*) FROM (
                    SELECT seq FROM campaign_audience WHERE campaign_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3)
                """
            ).bind(id.rawValue, cursor, pageSize)
        }
        _ = try bounds.step()
        let upper = bounds.optionalInt64(0)
        let count = bounds.int(1)
        bounds.reset()

        var inserted = 0
        var cancelled = 0
        if let upper {
            // For tokens, ?6 is the environment of unregistered tokens (production unless given); otherwise a filter.
            let environmentParameter =
                audience == .tokens
                ? Recipient.unregisteredEnvironment(try environment.map(Decode.environment)).rawValue : environment
            let insert = try db.cached(insertSQL(audience, activity: activity != nil))
                .bind(id.rawValue, kind.priorityClass, scheduledAt, now, topic, environmentParameter, cursor, upper)
            if let activity {
                try insert.bindAt(9, activity.kind.rawValue)
                try insert.bindAt(10, activity.type)
            }
            try insert.run()
            inserted = db.changes
            if audience == .tokens {
                cancelled = Int(
                    try db.cached("SELECT COUNT(*) FROM deliveries WHERE id > ? AND +status = 'cancelled'")
                        .bind(lastDelivery).scalarInt64() ?? 0)
            }
            if audience != .all {
                try db.cached("DELETE FROM campaign_audience WHERE campaign_id = ? AND seq <= ?").bind(
                    id.rawValue, upper
                ).run()
            }
        }
        let finished = count < pageSize
        try db.cached(
            """
            UPDATE campaigns SET
                expansion_cursor = COALESCE(?2, expansion_cursor), expanded = ?3,
                total = total + ?4, pending = pending + ?4 - ?5, cancelled = cancelled + ?5,
                status = CASE status WHEN 'scheduled' THEN 'running' ELSE status END,
                started_at = COALESCE(started_at, ?6)
            WHERE id = ?1
            """
        ).bind(id.rawValue, upper, finished, inserted, cancelled, now).run()
        if finished { _ = try completeIfDone(db, [id.rawValue], now: now) }
        return (inserted, finished, started)
    }

    /// The last device id and the number of devices of the next page of an `.all` audience: ?1 topic,
    /// ?2 environment or NULL, ?3 cursor (exclusive), ?4 page size; for an activity audience, ?5 kind and
    /// ?6 activity type (served by `devices_by_activity`).
    static func allPageBounds(activity: Bool) -> String {
        """
        SELECT MAX(id), COUNT(*) FROM (
            SELECT id FROM devices
            WHERE topic = ?1 AND active = 1 AND (?2 IS NULL OR environment = ?2) AND id > ?3
              AND \(activity ? "kind = ?5 AND activity_type = ?6" : "kind = 'device'")
            ORDER BY id LIMIT ?4)
        """
    }

    /// The condition on a device row (`d`) of `.all` and `.users` audiences: kind `device` only; for an activity
    /// audience, Live Activity tokens of kind ?9 and activity type ?10.
    static func kindCondition(_ d: String, activity: Bool) -> String {
        activity ? "\(d)kind = ?9 AND \(d)activity_type = ?10" : "\(d)kind = 'device'"
    }

    /// The INSERT … SELECT of one page. Parameters: ?1 campaign, ?2 priority class, ?3 next_attempt_at (the
    /// scheduled time), ?4 now, ?5 topic, ?6 environment (filter; for tokens: the one for unregistered tokens),
    /// ?7 cursor (exclusive), ?8 upper bound (inclusive); for an activity audience (`activity`), ?9 kind and ?10
    /// activity type. Tokens are sent as given, whatever their kind.
    static func insertSQL(_ audience: AudienceKind, activity: Bool) -> String {
        let columns = """
            INSERT OR IGNORE INTO deliveries (campaign_id, device_id, token, environment, priority_class, status,
                reason, next_attempt_at, created_at, updated_at)
            """
        switch audience {
        case .all:
            return columns + """
                SELECT ?1, id, token, environment, ?2, 'pending', NULL, ?3, ?4, ?4 FROM devices
                WHERE topic = ?5 AND active = 1 AND (?6 IS NULL OR environment = ?6) AND id > ?7 AND id <= ?8
                  AND \(kindCondition("", activity: activity))
                ORDER BY id
                """
        case .users:
            return columns + """
                SELECT ?1, d.id, d.token, d.environment, ?2, 'pending', NULL, ?3, ?4, ?4
                FROM campaign_audience a
                JOIN device_users u ON u.user_id = a.value
                JOIN devices d ON d.id = u.device_id AND d.user_id = u.user_id AND d.topic = ?5 AND d.active = 1
                                  AND (?6 IS NULL OR d.environment = ?6) AND \(kindCondition("d.", activity: activity))
                WHERE a.campaign_id = ?1 AND a.seq > ?7 AND a.seq <= ?8
                ORDER BY a.seq, u.device_id
                """
        case .tokens:
            return columns + """
                SELECT ?1, d.id, a.value, COALESCE(d.environment, ?6), ?2,
                       \(Recipient.statusSQL(inactive: "d.active = 0")), \(Recipient.reasonSQL(inactive: "d.active = 0")),
                       ?3, ?4, ?4
                FROM campaign_audience a
                LEFT JOIN devices d ON d.token = a.value AND d.topic = ?5
                WHERE a.campaign_id = ?1 AND a.seq > ?7 AND a.seq <= ?8
                ORDER BY a.seq
                """
        }
    }
}
