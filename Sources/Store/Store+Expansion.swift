import APNs
import Foundation
import QueueModel
import QueueRules

extension Store {
    /// Expands due campaigns (`scheduledAt <= now`, sealed, not cancelled) into delivery rows, one page of at most
    /// `pageSize` audience entries per transaction, for at most `maxPages` pages. The page's rows and the
    /// campaign's cursor are written in the same transaction, so a crash loses nothing and duplicates nothing:
    /// the next call continues after the cursor. Memory is bounded by one page.
    public func expandDueCampaigns(now: Date = Date(), pageSize: Int = 5000, maxPages: Int = 1) throws(StoreError)
        -> ExpansionReport
    {
        try expand(now: now.storeMilliseconds, pageSize: pageSize, maxPages: maxPages, leasing: nil)
    }

    /// Expands one page of at most `limit` audience entries (of `pageSize` at most) and leases its deliveries to
    /// `worker` as they are inserted, exactly as a claim would lease them, returning them as `jobs`. The worker
    /// calls it between claims while `moreRemaining` is true, so sending never waits for a million-device
    /// expansion; a campaign's delivery is written twice (inserted leased, then answered) instead of three times
    /// (inserted, claimed, answered). A deferred batch is expanded as by `expandDueCampaigns`: the claim that
    /// follows takes its single sends first.
    public func expandDueCampaigns(
        now: Date = Date(), pageSize: Int = 5000, leasing limit: Int, leaseFor lease: Duration, worker: WorkerID?
    ) throws(StoreError) -> ExpansionReport {
        guard limit > 0 else { return ExpansionReport() }
        let nowMS = now.storeMilliseconds
        return try expand(
            now: nowMS, pageSize: min(pageSize, limit), maxPages: 1,
            leasing: LeasedInsert(lease: Lease(now: nowMS, duration: lease, worker: worker), worker: worker?.rawValue))
    }

    /// The lease a page's deliveries get as they are inserted, and the worker that holds it.
    struct LeasedInsert {
        var lease: Lease
        var worker: Int64?
    }

    private func expand(now nowMS: Int64, pageSize: Int, maxPages: Int, leasing: LeasedInsert?) throws(StoreError)
        -> ExpansionReport
    {
        var report = ExpansionReport()
        while report.pages < max(1, maxPages) {
            // Deferred batches first: they hold single sends, which go ahead of bulk work.
            if try read({ db in try Self.hasDeferredBatches(db) }) {
                let written = try expandDeferredBatch(limit: max(1, min(pageSize, Self.deferredPageLimit)))
                report.pages += 1
                report.deliveriesInserted += written.deliveries
                continue
            }
            // A first page's count reads the whole audience: outside the write lock (the page takes it only when
            // the campaign is still uncounted; what changes meanwhile is made up by the last page).
            let next = try read { db in
                try Self.nextCampaignToExpand(db, now: nowMS).map { id in (id, try Self.countBeforeFirstPage(db, id)) }
            }
            guard let (id, counted) = next else { return report }
            let page = try write { db in
                try Self.expandPage(db, id, pageSize: max(1, pageSize), now: nowMS, leasing: leasing, counted: counted)
            }
            report.pages += 1
            report.deliveriesInserted += page.inserted
            report.jobs += page.jobs
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
            let page = try Self.expandPage(db, id, pageSize: 10_000, now: now, leasing: nil, counted: nil)
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

    /// Inserts the delivery rows of the campaign's next page (leased as they are, with `leasing`: returned as
    /// `jobs`), moves its cursor and updates its counters (`ExpansionCounts`; `counted`: the audience counted for a
    /// first page). `started`: a bulk campaign's first page (it was scheduled and runs from now on).
    private static func expandPage(
        _ db: Connection, _ id: CampaignID, pageSize: Int, now: Int64, leasing: LeasedInsert?, counted: Int?
    ) throws -> (inserted: Int, finished: Bool, started: Bool, jobs: [DeliveryJob]) {
        guard let campaign = try ExpansionState.read(db, id) else { throw StoreError.unknownCampaign(id) }
        if campaign.expanded { return (0, true, false, []) }
        let (kind, audience, activity, cursor) = (campaign.kind, campaign.audience, campaign.activity, campaign.cursor)
        let (topic, environment) = (campaign.topic, campaign.environment)
        let started = kind == .bulk && campaign.status == .scheduled
        // The count applies to a campaign not counted yet (another worker's first page may have come first).
        let counted = campaign.countsFirst ? counted : nil

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
        var jobs: [DeliveryJob] = []
        if let upper {
            // For tokens, ?6 is the environment of unregistered tokens (production unless given); otherwise a filter.
            let environmentParameter =
                audience == .tokens
                ? Recipient.unregisteredEnvironment(try environment.map(Decode.environment)).rawValue : environment
            let insert = try db.cached(insertSQL(audience, activity: activity != nil, leased: leasing != nil))
                .bind(
                    id.rawValue, kind.priorityClass, campaign.scheduledAt, now, topic, environmentParameter, cursor,
                    upper)
            if let activity {
                try insert.bindAt(9, activity.kind.rawValue)
                try insert.bindAt(10, activity.type)
            }
            if let leasing {
                try insert.bindAt(11, leasing.worker)
                try insert.bindAt(12, leasing.lease.until)
                try insert.bindAt(13, leasing.lease.dueAgain)
            }
            try insert.run()
            inserted = db.changes
            if let leasing, inserted > 0 {
                jobs = try leasedJobs(db, id, insertedAfter: lastDelivery, leasedUntil: leasing.lease.until)
            }
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
        let counts = ExpansionCounts(
            unexpanded: campaign.unexpanded, counted: counted, inserted: inserted, cancelled: cancelled,
            finished: finished)
        try db.cached(
            """
            UPDATE campaigns SET
                expansion_cursor = COALESCE(?2, expansion_cursor), expanded = ?3,
                total = total + ?4, pending = pending + ?5, cancelled = cancelled + ?6, unexpanded = ?8,
                status = CASE status WHEN 'scheduled' THEN 'running' ELSE status END,
                started_at = COALESCE(started_at, ?7)
            WHERE id = ?1
            """
        ).bind(id.rawValue, upper, finished, counts.total, counts.pending, counts.cancelled, now, counts.unexpanded)
            .run()
        if finished { _ = try completeIfDone(db, [id.rawValue], now: now) }
        return (inserted, finished, started, jobs)
    }

    /// How many deliveries a bulk campaign's audience makes, when its first page is next (`ExpansionCounts`): active
    /// devices of the topic (and environment) for `.all`, the given users' devices for `.users`, the distinct tokens
    /// for `.tokens`. nil when the campaign was counted or began expanding before counts were kept, or is a single
    /// send.
    private static func countBeforeFirstPage(_ db: Connection, _ id: CampaignID) throws -> Int? {
        guard let campaign = try ExpansionState.read(db, id), !campaign.expanded, campaign.countsFirst else {
            return nil
        }
        let activity = campaign.activity
        let statement = try db.cached(countSQL(campaign.audience, activity: activity != nil))
            .bind(id.rawValue, campaign.topic, campaign.environment, Int64(0))
        if let activity {
            try statement.bindAt(9, activity.kind.rawValue)
            try statement.bindAt(10, activity.type)
        }
        return Int(try statement.scalarInt64() ?? 0)
    }

    /// The count of `countBeforeFirstPage`: ?1 campaign, ?2 topic, ?3 environment filter or NULL, ?4 cursor (exclusive); for an
    /// activity audience, ?9 kind and ?10 activity type.
    static func countSQL(_ audience: AudienceKind, activity: Bool) -> String {
        switch audience {
        case .all:
            return """
                SELECT COUNT(*) FROM devices
                WHERE topic = ?2 AND active = 1 AND (?3 IS NULL OR environment = ?3) AND id > ?4
                  AND \(kindCondition("", activity: activity))
                """
        case .users:
            return """
                SELECT COUNT(DISTINCT d.id) FROM campaign_audience a
                JOIN device_users u ON u.user_id = a.value
                JOIN devices d ON d.id = u.device_id AND d.user_id = u.user_id AND d.topic = ?2 AND d.active = 1
                                  AND (?3 IS NULL OR d.environment = ?3) AND \(kindCondition("d.", activity: activity))
                WHERE a.campaign_id = ?1 AND a.seq > ?4
                """
        case .tokens:
            return "SELECT COUNT(DISTINCT value) FROM campaign_audience WHERE campaign_id = ?1 AND seq > ?4"
        }
    }

    /// The pending deliveries after the delivery ?1, with their registration times, in id order.
    static let leasedJobsQuery = """
        SELECT d.id, d.token, d.environment, dv.registered_at, d.created_at, d.due_at
        FROM deliveries d LEFT JOIN devices dv ON dv.id = d.device_id
        WHERE d.id > ?1 AND d.status = 'pending' ORDER BY d.id
        """

    /// The pending deliveries of campaign `id` inserted after the delivery `last` (this transaction's page, leased
    /// as inserted), as the worker's jobs. Their devices are active: the page was selected from active devices.
    private static func leasedJobs(_ db: Connection, _ id: CampaignID, insertedAfter last: Int64, leasedUntil: Int64)
        throws -> [DeliveryJob]
    {
        let select = try db.cached(leasedJobsQuery).bind(last)
        defer { select.reset() }
        let parameters = try sendingParameters(db, id.rawValue)
        var jobs: [DeliveryJob] = []
        while try select.step() {
            let row = ClaimedRow(
                id: select.int64(0), campaign: id.rawValue, token: select.string(1), environment: select.string(2),
                attempts: 0, deviceInactive: false, registeredAt: select.optionalInt64(3),
                createdAt: select.int64(4), previousDelay: nil, dueAt: select.optionalInt64(5))
            jobs.append(try row.job(parameters, leasedUntil: leasedUntil))
        }
        return jobs
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
    /// activity type; `leased`: ?11 worker, ?12 `leased_until` and ?13 `next_attempt_at` of a pending row leased as
    /// a claim leases it (its due time kept in `due_at`). Tokens are sent as given, whatever their kind.
    static func insertSQL(_ audience: AudienceKind, activity: Bool, leased: Bool = false) -> String {
        // A pending row's lease columns; a token of an inactive device is inserted cancelled, and not leased.
        let leaseColumns = leased ? ", leased_by, leased_until, due_at" : ""
        func leaseValues(pendingUnless inactive: String?) -> String {
            guard leased else { return "?3" }
            guard let inactive else { return "?13, ?11, ?12, ?3" }
            return [("?13", "?3"), ("?11", "NULL"), ("?12", "NULL"), ("?3", "NULL")]
                .map { pending, other in "CASE WHEN \(inactive) THEN \(other) ELSE \(pending) END" }
                .joined(separator: ", ")
        }
        let columns = """
            INSERT OR IGNORE INTO deliveries (campaign_id, device_id, token, environment, priority_class, status,
                reason, created_at, updated_at, next_attempt_at\(leaseColumns))
            """
        switch audience {
        case .all:
            return columns + """
                SELECT ?1, id, token, environment, ?2, 'pending', NULL, ?4, ?4, \(leaseValues(pendingUnless: nil))
                FROM devices
                WHERE topic = ?5 AND active = 1 AND (?6 IS NULL OR environment = ?6) AND id > ?7 AND id <= ?8
                  AND \(kindCondition("", activity: activity))
                ORDER BY id
                """
        case .users:
            return columns + """
                SELECT ?1, d.id, d.token, d.environment, ?2, 'pending', NULL, ?4, ?4, \(leaseValues(pendingUnless: nil))
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
                       ?4, ?4, \(leaseValues(pendingUnless: "d.active = 0"))
                FROM campaign_audience a
                LEFT JOIN devices d ON d.token = a.value AND d.topic = ?5
                WHERE a.campaign_id = ?1 AND a.seq > ?7 AND a.seq <= ?8
                ORDER BY a.seq
                """
        }
    }

    /// What expanding a campaign reads of it: its audience, where its expansion stands, and its counters' state.
    private struct ExpansionState {
        var kind: CampaignKind
        var audience: AudienceKind
        var topic: String
        var environment: String?
        var activity: ActivitySelector?
        var cursor: Int64
        var scheduledAt: Int64
        var expanded: Bool
        var status: CampaignStatus?
        var unexpanded: Int?

        /// Whether the audience is to be counted before the next page (`ExpansionCounts.countsFirst`).
        var countsFirst: Bool { ExpansionCounts.countsFirst(kind: kind, unexpanded: unexpanded, cursor: cursor) }

        /// The campaign `id`, nil when there is none.
        static func read(_ db: Connection, _ id: CampaignID) throws -> ExpansionState? {
            let row = try db.cached(
                """
                SELECT kind, audience, topic, audience_environment, expansion_cursor, scheduled_at, expanded, status,
                       audience_activity_type, audience_activity_kind, unexpanded
                FROM campaigns WHERE id = ?
                """
            ).bind(id.rawValue)
            defer { row.reset() }
            guard try row.step() else { return nil }
            return ExpansionState(
                kind: try Decode.campaignKind(row.string(0)), audience: try Decode.audienceKind(row.string(1)),
                topic: row.string(2), environment: row.optionalString(3),
                activity: try Decode.activitySelector(type: row.optionalString(8), kind: row.optionalString(9)),
                cursor: row.int64(4), scheduledAt: row.int64(5), expanded: row.int64(6) != 0,
                status: CampaignStatus(rawValue: row.string(7)), unexpanded: row.optionalInt64(10).map(Int.init))
        }
    }
}
