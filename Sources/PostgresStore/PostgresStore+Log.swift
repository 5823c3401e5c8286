import APNs
import Foundation
import QueueModel
import QueueRules

extension PostgresStore {
    /// One page of the delivery log, in id order: rows with an id greater than `after` that match `filter`.
    /// Page with the last entry's `id` until a page comes back shorter than `limit`.
    public func log(_ filter: LogFilter = LogFilter(), after: DeliveryID? = nil, limit: Int = 1000) throws(StoreError)
        -> [LogEntry]
    {
        try log(Self.logQuery(filter, order: .oldestFirst, bound: after?.rawValue ?? 0, limit: limit))
    }

    /// One page of the delivery log newest first (`GET /v1/deliveries`): rows with an id below `before` that match
    /// `filter`. Ids never change, so paging with the last entry's id is stable while workers write.
    public func recentLog(_ filter: LogFilter = LogFilter(), before: DeliveryID? = nil, limit: Int = 100)
        throws(StoreError) -> [LogEntry]
    {
        try log(Self.logQuery(filter, order: .newestFirst, bound: before?.rawValue ?? Int64.max, limit: limit))
    }

    /// The rows changed at or after `from` that match `filter`, in (`updated_at`, id) order, skipping those of
    /// exactly `from` with an id up to `after` (`apnsd log --follow` pages with its last row), along
    /// `deliveries_by_update`.
    public func changedLog(_ filter: LogFilter = LogFilter(), from: Date, after: DeliveryID? = nil, limit: Int = 1000)
        throws(StoreError) -> [LogEntry]
    {
        try log(
            Self.logQuery(
                filter, order: .byUpdate, bound: after?.rawValue ?? 0, from: from.storeMilliseconds, limit: limit))
    }

    /// The rows that changed last before `through` (inclusive) that match `filter`, newest change first, skipping
    /// those of exactly `through` with an id from `before` up (paging with the last row).
    public func lastChanged(
        _ filter: LogFilter = LogFilter(), through: Date, before: DeliveryID? = nil, limit: Int = 1000
    ) throws(StoreError) -> [LogEntry] {
        try log(
            Self.logQuery(
                filter, order: .byUpdateNewestFirst, bound: before?.rawValue ?? Int64.max,
                from: through.storeMilliseconds, limit: limit))
    }

    /// Every answer each delivery got, oldest first: the retried ones kept in `delivery_attempts`, then the last
    /// one from the row itself once it is final. A delivery without any answer is left out.
    public func attempts(of deliveries: [DeliveryID]) throws(StoreError) -> [DeliveryID: [DeliveryAttempt]] {
        guard !deliveries.isEmpty else { return [:] }
        let ids = PGValue.ints(deliveries.map(\.rawValue))
        return try read { db in
            var history: [DeliveryID: [DeliveryAttempt]] = [:]
            let kept = try db.query(
                """
                SELECT delivery_id, attempt, at, http_status, reason FROM delivery_attempts
                WHERE delivery_id = ANY($1) ORDER BY delivery_id, attempt
                """, ids)
            for row in 0..<kept.count {
                history[DeliveryID(try kept.int64(row, 0)), default: []].append(try Self.attempt(kept, row))
            }
            let last = try db.query(
                """
                SELECT id, attempts, updated_at, http_status, reason FROM deliveries
                WHERE id = ANY($1) AND status <> 'pending' AND attempts > 0
                """, ids)
            for row in 0..<last.count {
                let id = DeliveryID(try last.int64(row, 0))
                let answer = try Self.attempt(last, row)
                // Not sent again since its last kept answer (expired, cancelled unsent): nothing more to show.
                guard answer.attempt > history[id]?.last?.attempt ?? 0 else { continue }
                history[id, default: []].append(answer)
            }
            return history
        }
    }

    /// Outcomes since `since` from the per-minute counters summed over their shards (whole minutes: the first one
    /// may start up to a minute earlier), or — for one campaign — from its deliveries written since then;
    /// deactivations from the events by time; the queue from the gauges.
    public func stats(since: Date, campaign: CampaignID? = nil, now: Date = Date()) throws(StoreError) -> OutcomeStats {
        let queue = try gauges(now: now)
        let selected = try campaign.map { id throws(StoreError) in try self.campaign(id) }
        return try readPlannedForValues { db in
            var outcomes: [String: [String: Int]] = [:]
            var requests = 0
            let from = since.storeMilliseconds
            let rows: PGResult
            if let campaign {
                rows = try db.query(
                    """
                    SELECT status, COALESCE(reason, 'none'), COUNT(*), SUM(attempts)::bigint FROM deliveries
                    WHERE campaign_id = $1 AND updated_at >= $2 AND status <> 'pending' GROUP BY 1, 2
                    """, campaign.rawValue, from)
            } else {
                rows = try db.query(
                    """
                    SELECT status, reason, SUM(count)::bigint, SUM(requests)::bigint FROM outcome_counts
                    WHERE minute >= $1 GROUP BY 1, 2
                    """, from / 60_000)
            }
            for row in 0..<rows.count {
                outcomes[try rows.string(row, 0), default: [:]][try rows.string(row, 1)] = try rows.int(row, 2)
                requests += try rows.int(row, 3)
            }
            let events =
                campaign == nil
                ? try db.query(
                    """
                    SELECT COALESCE(reason, 'none'), COUNT(*) FROM events
                    WHERE at >= $1 AND type = 'device.deactivated' GROUP BY 1
                    """, from)
                : try db.query(
                    """
                    SELECT COALESCE(reason, 'none'), COUNT(*) FROM events
                    WHERE at >= $1 AND type = 'device.deactivated' AND campaign_id = $2 GROUP BY 1
                    """, from, campaign?.rawValue ?? 0)
            var deactivations: [String: Int] = [:]
            for row in 0..<events.count { deactivations[try events.string(row, 0)] = try events.int(row, 1) }
            let accepted = outcomes["accepted"]?.values.reduce(0, +) ?? 0
            return OutcomeStats(
                since: since, until: now, outcomes: outcomes, requests: requests, accepted: accepted,
                deactivations: deactivations, queue: queue, campaign: selected)
        }
    }

    /// Outcomes and requests per `step` since `since`, of everything or of one bulk campaign, from the per-minute
    /// counters (every shard).
    public func outcomeSeries(since: Date, step: Int, campaign: CampaignID?, now: Date) throws(StoreError)
        -> OutcomeSeries
    {
        if let campaign { _ = try self.campaign(campaign) }
        let window = OutcomeSeries.Window(since: since, step: step, now: now)
        return try read { db in
            let rows =
                if let campaign {
                    try db.query(
                        """
                        SELECT minute, status, reason, SUM(count)::bigint, SUM(requests)::bigint
                        FROM campaign_outcome_counts
                        WHERE campaign_id = $1 AND minute >= $2 AND minute <= $3 GROUP BY 1, 2, 3
                        """, campaign.rawValue, window.firstMinute, window.lastMinute)
                } else {
                    try db.query(
                        """
                        SELECT minute, status, reason, SUM(count)::bigint, SUM(requests)::bigint FROM outcome_counts
                        WHERE minute >= $1 AND minute <= $2 GROUP BY 1, 2, 3
                        """, window.firstMinute, window.lastMinute)
                }
            var counts: [OutcomeSeries.MinuteCount] = []
            for row in 0..<rows.count {
                counts.append(
                    OutcomeSeries.MinuteCount(
                        minute: try rows.int64(row, 0), status: try rows.string(row, 1),
                        reason: try rows.string(row, 2), count: try rows.int(row, 3), requests: try rows.int(row, 4)))
            }
            return OutcomeSeries(window, campaign: campaign, counts: counts)
        }
    }

    private static func attempt(_ rows: PGResult, _ row: Int) throws -> DeliveryAttempt {
        DeliveryAttempt(
            attempt: try rows.int(row, 1), at: Milliseconds.date(try rows.int64(row, 2)),
            httpStatus: try rows.optionalInt64(row, 3).map { Int($0) },
            reason: try rows.optionalString(row, 4).map { Reason(rawValue: $0) })
    }

    /// Runs `body` in a read-only transaction whose statements are planned for their parameters' values each time.
    /// A log query's text is run again and again with other values (paging, the API, `--follow`): after five runs
    /// PostgreSQL may switch to one generic plan, which for a campaign filter reads the primary key in id order
    /// (a campaign's rows are contiguous, so a new campaign's would be found only after the whole table). Planning
    /// costs far less than that risk on reads made for people; it costs two more round trips.
    func readPlannedForValues<T>(_ body: (PGConnection) throws -> T) throws(StoreError) -> T {
        try read { db in try db.transaction("BEGIN READ ONLY; SET LOCAL plan_cache_mode = force_custom_plan", body) }
    }

    private func log(_ query: (sql: String, parameters: [PGValue])) throws(StoreError) -> [LogEntry] {
        try readPlannedForValues { db in
            let rows = try db.query(query.sql, query.parameters)
            return try rows.map { row in
                let status = try Decode.deliveryStatus(rows.string(row, 4))
                return LogEntry(
                    id: DeliveryID(try rows.int64(row, 0)), campaignID: CampaignID(try rows.int64(row, 1)),
                    target: try Decode.target(token: rows.string(row, 2), channel: rows.optionalInt64(row, 12)),
                    environment: try Decode.environment(rows.string(row, 3)),
                    status: status, httpStatus: try rows.optionalInt64(row, 5).map { Int($0) },
                    reason: try rows.optionalString(row, 6).map { Reason(rawValue: $0) },
                    apnsID: try rows.optionalString(row, 7),
                    attempts: try rows.int(row, 8),
                    nextAttemptAt: status == .pending ? Milliseconds.date(try rows.int64(row, 9)) : nil,
                    createdAt: Milliseconds.date(try rows.int64(row, 10)),
                    updatedAt: Milliseconds.date(try rows.int64(row, 11)))
            }
        }
    }

    /// How a log query orders its rows.
    enum LogOrder {
        /// Id order (`apnsd log`), after the id bound.
        case oldestFirst
        /// Newest id first (`GET /v1/deliveries`, `apnsd log --limit`), below the id bound.
        case newestFirst
        /// (`updated_at`, id) order from a time, after the id bound within that millisecond (`--follow`).
        case byUpdate
        /// (`updated_at`, id) descending from a time, below the id bound within that millisecond.
        case byUpdateNewestFirst
    }

    /// The SELECT for `filter` and its parameters, numbered in the order the filter's terms appear. PostgreSQL's
    /// planner picks the index from its statistics; the terms are written so that each can use its own: a token's
    /// or a user's devices as an array (`= ANY(ARRAY(…))`, evaluated once), which a bitmap scan of
    /// `deliveries_by_device` takes, OR-ed with the token's unregistered rows (`deliveries_by_unregistered_token`).
    static func logQuery(
        _ filter: LogFilter, order: LogOrder, bound: Int64 = 0, from: Int64 = 0,
        limit: Int = 1000
    ) -> (sql: String, parameters: [PGValue]) {
        var parameters: [PGValue] = []
        func parameter(_ value: PGValue) -> String {
            parameters.append(value)
            return "$\(parameters.count)"
        }
        var sql = """
            SELECT id, campaign_id, token, environment, status, http_status, reason, apns_id, attempts,
                   next_attempt_at, created_at, updated_at, channel_id
            FROM deliveries WHERE
            """
        let id = parameter(.int(bound))
        switch order {
        case .oldestFirst: sql += " id > \(id)"
        case .newestFirst: sql += " id < \(id)"
        case .byUpdate:
            let time = parameter(.int(from))
            sql += " updated_at >= \(time) AND (updated_at > \(time) OR id > \(id))"
        case .byUpdateNewestFirst:
            let time = parameter(.int(from))
            sql += " updated_at <= \(time) AND (updated_at < \(time) OR id < \(id))"
        }
        if let token = filter.token {
            let hex = parameter(.text(token.hex))
            sql += """
                 AND (device_id = ANY(ARRAY(SELECT id FROM devices WHERE token = \(hex)))
                      OR (device_id IS NULL AND token = \(hex)))
                """
        }
        if let user = filter.user {
            sql += " AND device_id = ANY(ARRAY(SELECT id FROM devices WHERE user_id = \(parameter(.text(user)))))"
        }
        if let campaign = filter.campaign { sql += " AND campaign_id = \(parameter(.int(campaign.rawValue)))" }
        if let status = filter.status {
            sql += " AND status = \(parameter(.text(status.rawValue)))"
            // Spelled out so that a generic plan (a prepared statement run often) may still prove the predicate
            // of the partial index deliveries_problems.
            if problemStatuses.contains(status) { sql += " AND status <> 'pending' AND status <> 'accepted'" }
        }
        if let reason = filter.reason { sql += " AND reason = \(parameter(.text(reason.rawValue)))" }
        if let since = filter.since { sql += " AND updated_at >= \(parameter(.int(since.storeMilliseconds)))" }
        if let until = filter.until { sql += " AND updated_at < \(parameter(.int(until.storeMilliseconds)))" }
        switch order {
        case .oldestFirst: sql += " ORDER BY id"
        case .newestFirst: sql += " ORDER BY id DESC"
        case .byUpdate: sql += " ORDER BY updated_at, id"
        case .byUpdateNewestFirst: sql += " ORDER BY updated_at DESC, id DESC"
        }
        sql += " LIMIT \(parameter(.int(Int64(max(0, limit)))))"
        return (sql, parameters)
    }

    /// The statuses in the partial index `deliveries_problems`.
    static let problemStatuses: Set<DeliveryStatus> = [.rejected, .unregistered, .failed, .cancelled]
}
