import APNs
import Foundation

extension Store {
    /// One page of the delivery log, in id order: rows with an id greater than `after` that match `filter`.
    /// Page with the last entry's `id` until a page comes back shorter than `limit`.
    public func log(_ filter: LogFilter = LogFilter(), after: DeliveryID? = nil, limit: Int = 1000) throws(StoreError) -> [LogEntry] {
        // Index choice, most selective first: token, then campaign, then status. A unary `+` keeps SQLite from
        // using the index of a less selective term.
        var sql = """
            SELECT id, campaign_id, token, environment, status, http_status, reason, apns_id, attempts,
                   next_attempt_at, created_at, updated_at
            FROM deliveries WHERE id > ?1
            """
        if filter.token != nil { sql += " AND token = ?2" }
        if filter.campaign != nil { sql += filter.token == nil ? " AND campaign_id = ?3" : " AND +campaign_id = ?3" }
        if filter.status != nil {
            sql += filter.token == nil && filter.campaign == nil ? " AND status = ?4" : " AND +status = ?4"
        }
        sql += " ORDER BY id LIMIT ?5"
        return try read { db in
            let statement = try db.cached(sql)
            try statement.bind(after?.rawValue ?? 0)
            if let token = filter.token { try statement.bindAt(2, token.hex) }
            if let campaign = filter.campaign { try statement.bindAt(3, campaign.rawValue) }
            if let status = filter.status { try statement.bindAt(4, status.rawValue) }
            try statement.bindAt(5, limit)
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

    /// The whole log matching `filter`, fetched page by page as the sequence is iterated.
    public nonisolated func logEntries(_ filter: LogFilter = LogFilter(), pageSize: Int = 1000) -> PagedSequence<LogEntry> {
        PagedSequence(pageSize: pageSize, cursor: { $0.id.rawValue }) { after, limit in
            try await self.log(filter, after: after.map { DeliveryID($0) }, limit: limit)
        }
    }
}
