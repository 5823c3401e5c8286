import APNs
import Foundation
import QueueModel

extension Store {
    /// One page of the delivery log, in id order: rows with an id greater than `after` that match `filter`.
    /// Page with the last entry's `id` until a page comes back shorter than `limit`.
    public func log(_ filter: LogFilter = LogFilter(), after: DeliveryID? = nil, limit: Int = 1000) throws(StoreError) -> [LogEntry] {
        try log(Self.logQuery(filter, newestFirst: false), filter, bound: after?.rawValue ?? 0, limit: limit)
    }

    /// One page of the delivery log newest first (the HTTP API's `GET /v1/deliveries`): rows with an id below
    /// `before` that match `filter`. Ids never change, so paging with the last entry's id is stable while the
    /// worker writes.
    public func recentLog(_ filter: LogFilter = LogFilter(), before: DeliveryID? = nil, limit: Int = 100) throws(StoreError) -> [LogEntry] {
        try log(Self.logQuery(filter, newestFirst: true), filter, bound: before?.rawValue ?? Int64.max, limit: limit)
    }

    private func log(_ sql: String, _ filter: LogFilter, bound: Int64, limit: Int) throws(StoreError) -> [LogEntry] {
        try read { db in
            let statement = try db.cached(sql)
            try statement.bind(bound)
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
                entries.append(LogEntry(
                    id: DeliveryID(statement.int64(0)), campaignID: CampaignID(statement.int64(1)),
                    token: try Decode.token(statement.string(2)), environment: try Decode.environment(statement.string(3)),
                    status: status, httpStatus: statement.optionalInt64(5).map { Int($0) },
                    reason: statement.optionalString(6).map { Reason(rawValue: $0) }, apnsID: statement.optionalString(7),
                    attempts: statement.int(8),
                    nextAttemptAt: status == .pending ? Milliseconds.date(statement.int64(9)) : nil,
                    createdAt: Milliseconds.date(statement.int64(10)), updatedAt: Milliseconds.date(statement.int64(11))))
            }
            return entries
        }
    }

    /// The SELECT for `filter`: parameters ?1 the id bound (after, or before when `newestFirst`), ?2 token,
    /// ?3 campaign, ?4 status, ?5 limit, ?6 user, ?7 reason, ?8 since, ?9 until.
    static func logQuery(_ filter: LogFilter, newestFirst: Bool = false) -> String {
        // Index choice, most selective first: token (deliveries_by_device through the registry, or
        // deliveries_by_unregistered_token), then campaign, then a problem status (deliveries_problems, whose
        // WHERE terms are repeated so that SQLite may use it; the index's condition avoids IN (…), which would
        // cost an ephemeral table on every status change). A unary `+` keeps SQLite off a less selective index.
        var sql = """
            SELECT id, campaign_id, token, environment, status, http_status, reason, apns_id, attempts,
                   next_attempt_at, created_at, updated_at
            FROM deliveries WHERE id \(newestFirst ? "<" : ">") ?1
            """
        if filter.token != nil {
            sql += " AND (device_id IN (SELECT id FROM devices WHERE token = ?2) OR (device_id IS NULL AND token = ?2))"
        }
        if filter.user != nil {
            sql += filter.token == nil
                ? " AND device_id IN (SELECT device_id FROM device_users WHERE user_id = ?6)"
                : " AND +device_id IN (SELECT device_id FROM device_users WHERE user_id = ?6)"
        }
        if filter.campaign != nil {
            sql += filter.token == nil && filter.user == nil ? " AND campaign_id = ?3" : " AND +campaign_id = ?3"
        }
        if let status = filter.status {
            if filter.token == nil && filter.campaign == nil && filter.user == nil && Self.problemStatuses.contains(status) {
                sql += " AND status = ?4 AND status <> 'pending' AND status <> 'accepted'"
            } else {
                sql += " AND +status = ?4"
            }
        }
        if filter.reason != nil { sql += " AND reason = ?7" }
        if filter.since != nil { sql += " AND updated_at >= ?8" }
        if filter.until != nil { sql += " AND updated_at < ?9" }
        sql += newestFirst ? " ORDER BY id DESC LIMIT ?5" : " ORDER BY id LIMIT ?5"
        return sql
    }

    /// The statuses in the partial index `deliveries_problems`.
    static let problemStatuses: Set<DeliveryStatus> = [.rejected, .unregistered, .failed, .cancelled]
}
