import APNs
import Foundation
import QueueModel
import QueueRules

extension Store {
    /// One page of the delivery log, in id order: rows with an id greater than `after` that match `filter`.
    /// Page with the last entry's `id` until a page comes back shorter than `limit`.
    public func log(_ filter: LogFilter = LogFilter(), after: DeliveryID? = nil, limit: Int = 1000) throws(StoreError)
        -> [LogEntry]
    {
        try log(Self.logQuery(filter, order: .oldestFirst), filter, bound: after?.rawValue ?? 0, limit: limit)
    }

    /// One page of the delivery log newest first (the HTTP API's `GET /v1/deliveries`): rows with an id below
    /// `before` that match `filter`. Ids never change, so paging with the last entry's id is stable while the
    /// worker writes.
    public func recentLog(_ filter: LogFilter = LogFilter(), before: DeliveryID? = nil, limit: Int = 100)
        throws(StoreError) -> [LogEntry]
    {
        try log(Self.logQuery(filter, order: .newestFirst), filter, bound: before?.rawValue ?? Int64.max, limit: limit)
    }

    /// The rows changed at or after `from` that match `filter`, in (`updated_at`, id) order, skipping those of
    /// exactly `from` with an id up to `after`: `apnsd log --follow` pages with its last row. Through the index
    /// `deliveries_by_update`, so a poll costs the rows changed since, not the log's size.
    public func changedLog(_ filter: LogFilter = LogFilter(), from: Date, after: DeliveryID? = nil, limit: Int = 1000)
        throws(StoreError) -> [LogEntry]
    {
        try log(
            Self.logQuery(filter, order: .byUpdate), filter, bound: after?.rawValue ?? 0, from: from.storeMilliseconds,
            limit: limit)
    }

    /// The rows that changed last before `through` (inclusive) that match `filter`, newest change first: in
    /// (`updated_at`, id) descending order, skipping those of exactly `through` with an id from `before` up
    /// (paging with the last row). `apnsd log --since/--until --limit N`: N rows read backwards along
    /// `deliveries_by_update`, however old the window.
    public func lastChanged(
        _ filter: LogFilter = LogFilter(), through: Date, before: DeliveryID? = nil, limit: Int = 1000
    ) throws(StoreError) -> [LogEntry] {
        try log(
            Self.logQuery(filter, order: .byUpdateNewestFirst), filter, bound: before?.rawValue ?? Int64.max,
            from: through.storeMilliseconds, limit: limit)
    }

    /// Every answer each delivery got, oldest first: the retried ones kept in `delivery_attempts`, then the last
    /// one from the row itself once it is final (a final row's answer is not stored twice). A delivery without
    /// any answer (still waiting, or cancelled unsent) is left out.
    public func attempts(of deliveries: [DeliveryID]) throws(StoreError) -> [DeliveryID: [DeliveryAttempt]] {
        guard !deliveries.isEmpty else { return [:] }
        let ids = Self.jsonArray(deliveries.map(\.rawValue))
        return try read { db in
            var history: [DeliveryID: [DeliveryAttempt]] = [:]
            let kept = try db.cached(
                """
                SELECT delivery_id, attempt, at, http_status, reason FROM delivery_attempts
                WHERE delivery_id IN (SELECT value FROM json_each(?1)) ORDER BY delivery_id, attempt
                """
            ).bind(ids)
            defer { kept.reset() }
            while try kept.step() {
                history[DeliveryID(kept.int64(0)), default: []].append(
                    DeliveryAttempt(
                        attempt: kept.int(1), at: Milliseconds.date(kept.int64(2)),
                        httpStatus: kept.optionalInt64(3).map { Int($0) },
                        reason: kept.optionalString(4).map { Reason(rawValue: $0) }))
            }
            let last = try db.cached(
                """
                SELECT id, attempts, updated_at, http_status, reason FROM deliveries
                WHERE id IN (SELECT value FROM json_each(?1)) AND status <> 'pending' AND attempts > 0
                """
            ).bind(ids)
            defer { last.reset() }
            while try last.step() {
                let id = DeliveryID(last.int64(0))
                let attempt = last.int(1)
                // Not sent again since its last kept answer (expired, cancelled unsent): nothing more to show.
                guard attempt > history[id]?.last?.attempt ?? 0 else { continue }
                history[id, default: []].append(
                    DeliveryAttempt(
                        attempt: attempt, at: Milliseconds.date(last.int64(2)),
                        httpStatus: last.optionalInt64(3).map { Int($0) },
                        reason: last.optionalString(4).map { Reason(rawValue: $0) }))
            }
            return history
        }
    }

    private func log(_ sql: String, _ filter: LogFilter, bound: Int64, from: Int64? = nil, limit: Int)
        throws(StoreError) -> [LogEntry]
    {
        try read { db in
            let statement = try db.cached(sql)
            try statement.bind(bound)
            if let from { try statement.bindAt(10, from) }
            if let token = filter.token { try statement.bindAt(2, token.hex) }
            if let campaign = filter.campaign { try statement.bindAt(3, campaign.rawValue) }
            if let status = filter.status { try statement.bindAt(4, status.rawValue) }
            try statement.bindAt(5, limit)
            if let user = filter.user { try statement.bindAt(6, user) }
            if let reason = filter.reason { try statement.bindAt(7, reason.rawValue) }
            if let since = filter.since { try statement.bindAt(8, since.storeMilliseconds) }
            if let until = filter.until { try statement.bindAt(9, until.storeMilliseconds) }
            defer { statement.reset() }
            var entries: [LogEntry] = []
            while try statement.step() {
                let status = try Decode.deliveryStatus(statement.string(4))
                entries.append(
                    LogEntry(
                        id: DeliveryID(statement.int64(0)), campaignID: CampaignID(statement.int64(1)),
                        target: try Decode.target(token: statement.string(2), channel: statement.optionalInt64(12)),
                        environment: try Decode.environment(statement.string(3)),
                        status: status, httpStatus: statement.optionalInt64(5).map { Int($0) },
                        reason: statement.optionalString(6).map { Reason(rawValue: $0) },
                        apnsID: statement.optionalString(7),
                        attempts: statement.int(8),
                        nextAttemptAt: status == .pending ? Milliseconds.date(statement.int64(9)) : nil,
                        createdAt: Milliseconds.date(statement.int64(10)),
                        updatedAt: Milliseconds.date(statement.int64(11))))
            }
            return entries
        }
    }

    /// How a log query orders its rows.
    enum LogOrder {
        /// Id order (`apnsd log`), after the id ?1.
        case oldestFirst
        /// Newest id first (`GET /v1/deliveries`, `apnsd log --limit`), below the id ?1.
        case newestFirst
        /// (`updated_at`, id) order from the time ?10, after the id ?1 within that millisecond (`--follow`).
        case byUpdate
        /// (`updated_at`, id) descending from the time ?10, below the id ?1 within that millisecond.
        case byUpdateNewestFirst
    }

    /// The SELECT for `filter`: parameters ?1 the id bound, ?2 token, ?3 campaign, ?4 status, ?5 limit, ?6 user,
    /// ?7 reason, ?8 since, ?9 until, ?10 the time `byUpdate` starts from.
    static func logQuery(_ filter: LogFilter, newestFirst: Bool = false) -> String {
        logQuery(filter, order: newestFirst ? .newestFirst : .oldestFirst)
    }

    static func logQuery(_ filter: LogFilter, order: LogOrder) -> String {
        // Index choice, most selective first: token (deliveries_by_device through the registry, or
        // deliveries_by_unregistered_token), then user (device_users), then campaign, then a problem status
        // (deliveries_problems, whose WHERE terms are repeated so that SQLite may use it; the index's condition
        // avoids IN (…), which would cost an ephemeral table on every status change), then reason
        // (deliveries_by_reason), then a closed time window (deliveries_by_update). A unary `+` keeps SQLite off
        // a less selective index.
        // `byUpdate` reads a range of deliveries_by_update (the rows changed since a poll, or a time window): a
        // campaign, a status or a reason must not send it through their own, usually far larger, index ranges.
        let byUpdate = order == .byUpdate || order == .byUpdateNewestFirst
        let narrowed = filter.token != nil || filter.user != nil || filter.campaign != nil || byUpdate
        let problemIndex = filter.status.map { !narrowed && Self.problemStatuses.contains($0) } ?? false
        let reasonIndex = filter.reason != nil && !narrowed && !problemIndex
        // In id order, only a window closed on both sides goes through deliveries_by_update (its rows are then
        // sorted by id, once per page): an open one is read in id order, which pages in one pass over the table
        // (and newest first, `--since` finds its rows at once). `byUpdate` always reads that index, in its order.
        let windowIndex = filter.since != nil && filter.until != nil && !narrowed && !problemIndex && !reasonIndex
        // Named, because SQLite would rather walk the whole table in id order than sort the window's rows.
        var sql = """
            SELECT id, campaign_id, token, environment, status, http_status, reason, apns_id, attempts,
                   next_attempt_at, created_at, updated_at, channel_id
            FROM deliveries\(windowIndex ? " INDEXED BY deliveries_by_update" : "") WHERE
            """
        switch order {
        case .oldestFirst: sql += " id > ?1"
        case .newestFirst: sql += " id < ?1"
        case .byUpdate: sql += " updated_at >= ?10 AND (updated_at > ?10 OR +id > ?1)"
        case .byUpdateNewestFirst: sql += " updated_at <= ?10 AND (updated_at < ?10 OR +id < ?1)"
        }
        if filter.token != nil {
            sql += " AND (device_id IN (SELECT id FROM devices WHERE token = ?2) OR (device_id IS NULL AND token = ?2))"
        }
        if filter.user != nil {
            sql +=
                filter.token == nil
                ? " AND device_id IN (SELECT device_id FROM device_users WHERE user_id = ?6)"
                : " AND +device_id IN (SELECT device_id FROM device_users WHERE user_id = ?6)"
        }
        if filter.campaign != nil {
            sql +=
                filter.token == nil && filter.user == nil && !byUpdate
                ? " AND campaign_id = ?3" : " AND +campaign_id = ?3"
        }
        if filter.status != nil {
            sql +=
                problemIndex ? " AND status = ?4 AND status <> 'pending' AND status <> 'accepted'" : " AND +status = ?4"
        }
        if filter.reason != nil { sql += reasonIndex ? " AND reason = ?7 AND reason IS NOT NULL" : " AND +reason = ?7" }
        // The window's column is bare only when its index is the one to use, and in `byUpdate`, whose index scan it bounds.
        let window = windowIndex || byUpdate ? "updated_at" : "+updated_at"
        if filter.since != nil { sql += " AND \(window) >= ?8" }
        if filter.until != nil { sql += " AND \(window) < ?9" }
        switch order {
        case .oldestFirst: sql += " ORDER BY id LIMIT ?5"
        case .newestFirst: sql += " ORDER BY id DESC LIMIT ?5"
        case .byUpdate: sql += " ORDER BY updated_at, id LIMIT ?5"
        case .byUpdateNewestFirst: sql += " ORDER BY updated_at DESC, id DESC LIMIT ?5"
        }
        return sql
    }

    /// The statuses in the partial index `deliveries_problems`.
    static let problemStatuses: Set<DeliveryStatus> = [.rejected, .unregistered, .failed, .cancelled]
}
