/// A table `apnsd migrate` copies: its name, the columns both engines share, and the key it is read in order of
/// (pages of rows after the last key read).
public struct CopyTable: Sendable, Hashable {
    public let name: String
    public let columns: [String]
    /// The key columns, a prefix of `columns`.
    public let key: [String]

    public init(_ name: String, key: [String], columns: [String]) {
        self.name = name
        self.key = key
        self.columns = key + columns.filter { !key.contains($0) }
    }

    /// Everything `apnsd migrate` copies, parents before children. Not copied: `workers` and `cancel_acks` (the
    /// source's workers are stopped), counters kept by triggers (`gauge_counts`, rebuilt by the target), SQLite's
    /// `device_users` and `device_users_pending` (PostgreSQL reads `devices.user_id`) and `deferred_batches` (written
    /// out before copying).
    public static let all: [CopyTable] = [
        CopyTable(
            "channels", key: ["id"],
            columns: [
                "channel_id", "topic", "environment", "storage", "credential", "created_at",
                "deleted_at",
            ]),
        CopyTable(
            "devices", key: ["id"],
            columns: [
                "token", "topic", "environment", "user_id", "active", "registered_at",
                "deactivated_at", "reason", "kind", "activity_type",
            ]),
        CopyTable(
            "campaigns", key: ["id"],
            columns: [
                "kind", "status", "topic", "push_type", "priority", "expiration", "collapse_id", "apns_id", "payload",
                "audience",
                "audience_environment", "audience_size", "expanded", "expansion_cursor", "scheduled_at", "created_at",
                "started_at", "finished_at", "paused", "verify", "audience_activity_type", "audience_activity_kind",
                "channel_id", "total", "pending", "accepted", "rejected", "unregistered", "failed", "cancelled",
            ]),
        CopyTable("campaign_audience", key: ["campaign_id", "seq"], columns: ["value"]),
        CopyTable(
            "deliveries", key: ["id"],
            columns: [
                "campaign_id", "device_id", "token", "environment", "priority_class", "status", "attempts",
                "next_attempt_at",
                "http_status", "reason", "apns_id", "created_at", "updated_at", "channel_id", "due_at",
            ]),
        CopyTable("delivery_attempts", key: ["delivery_id", "attempt"], columns: ["at", "http_status", "reason"]),
        CopyTable("cancel_requests", key: ["seq"], columns: ["campaign_id", "requested_at", "done_at"]),
        CopyTable("api_keys", key: ["id"], columns: ["name", "secret_hash", "scopes", "created_at", "last_used_at"]),
        CopyTable(
            "idempotency_keys", key: ["api_key_id", "key"],
            columns: ["request_hash", "campaign_ids", "deliveries", "created_at"]),
        CopyTable(
            "events", key: ["id"],
            columns: [
                "type", "token", "topic", "environment", "user_id", "reason", "campaign_id",
                "delivery_id", "at",
            ]),
        CopyTable("webhook_cursor", key: ["id"], columns: ["event_id", "updated_at"]),
        CopyTable(
            "webhook_failure", key: ["id"],
            columns: [
                "first_event_id", "last_event_id", "events", "attempts", "first_failure_at", "last_error",
                "updated_at",
            ]),
        CopyTable(
            "webhook_parked", key: ["id"],
            columns: [
                "first_event_id", "last_event_id", "events", "attempts", "first_failure_at", "parked_at",
                "last_error",
            ]),
        CopyTable("outcome_counts", key: ["minute", "status", "reason"], columns: ["count", "requests"]),
        CopyTable(
            "campaign_outcome_counts", key: ["campaign_id", "minute", "status", "reason"],
            columns: ["count", "requests"]),
    ]
}
