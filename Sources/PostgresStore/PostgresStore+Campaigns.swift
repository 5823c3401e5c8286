import APNs
import Foundation
import QueueModel
import QueueRules

extension PostgresStore {
    /// Creates a campaign and returns its id (tests and tools: producers go through `enqueue`). A `.single` campaign has its delivery rows inserted now, in the same
    /// transaction (claimed before any bulk work); a `.bulk` one stores its audience (`campaign_audience`) and is
    /// expanded by the workers once `scheduledAt` has come.
    @discardableResult
    public func createCampaign(_ spec: CampaignSpec, now: Date = Date()) throws(StoreError) -> CampaignID {
        assert(spec.isValid, "\(spec.refusal!)")
        return try write { db in
            let id = try Self.insertCampaign(db, spec, now: now.storeMilliseconds).id
            try Self.notifyWorkers(db)
            return id
        }
    }

    /// A single send: `spec` with kind `.single`, to tokens or users. Returns the campaign id. For tests and tools.
    @discardableResult
    public func enqueueSingle(_ spec: CampaignSpec, now: Date = Date()) throws(StoreError) -> CampaignID {
        var spec = spec
        spec.kind = .single
        return try createCampaign(spec, now: now)
    }

    /// Starts a bulk campaign whose tokens arrive in chunks: a `draft`, never expanded nor sent, until
    /// `sealCampaign`. `spec.audience` must be `.tokens` (its tokens, if any, are the first chunk).
    public func beginCampaign(_ spec: CampaignSpec, now: Date = Date()) throws(StoreError) -> CampaignID {
        assert(spec.isValid, "\(spec.refusal!)")
        guard spec.kind != .single, case .tokens(let tokens, _) = spec.audience else {
            throw .invalidCampaign("only a bulk campaign to tokens can be built in chunks")
        }
        return try write { db in
            let id = try Self.insertCampaignRow(db, spec, status: .draft, now: now.storeMilliseconds)
            try Self.stage(db, id, tokens.map(\.hex))
            return id
        }
    }

    /// Appends a chunk of tokens to a draft campaign (one transaction, one statement per chunk).
    public func appendTokens(_ tokens: [DeviceToken], to id: CampaignID) throws(StoreError) {
        try write { db in
            try Self.requireDraft(db, id)
            try Self.stage(db, id, tokens.map(\.hex))
        }
    }

    /// Ends a draft: the campaign becomes `scheduled` and is expanded and sent from its `scheduledAt` on.
    @discardableResult
    public func sealCampaign(_ id: CampaignID) throws(StoreError) -> Campaign {
        try write { db in
            try Self.requireDraft(db, id)
            try db.query("UPDATE campaigns SET status = 'scheduled' WHERE id = $1", id.rawValue)
            try Self.notifyWorkers(db)
            return try Self.fetchCampaign(db, id)
        }
    }

    /// The campaign with this id (its counters summed over `campaign_counts`); `StoreError.unknownCampaign` when
    /// there is none.
    public func campaign(_ id: CampaignID) throws(StoreError) -> Campaign {
        try read { db in try Self.fetchCampaign(db, id) }
    }

    /// Campaigns, newest first: those with an id below `before` (for paging), optionally of one kind or status.
    public func campaigns(
        kind: CampaignKind? = nil, status: CampaignStatus? = nil, before: CampaignID? = nil,
        limit: Int = 100
    ) throws(StoreError) -> [Campaign] {
        var sql = "SELECT \(Self.campaignColumns) FROM campaign_view WHERE id < $1"
        var parameters: [PGValue] = [.int(before?.rawValue ?? Int64.max)]
        if let kind {
            parameters.append(.text(kind.stored))
            sql += " AND kind = $\(parameters.count) AND verify = \(kind == .verify)"
        }
        if let status {
            parameters.append(.text(status.rawValue))
            sql += " AND status = $\(parameters.count)"
        }
        parameters.append(.int(Int64(max(0, limit))))
        sql += " ORDER BY id DESC LIMIT $\(parameters.count)"
        return try read { db in
            let rows = try db.query(sql, parameters)
            return try rows.map { row in try Self.campaign(rows, row) }
        }
    }

    // MARK: - Shared with the other files of the store

    /// The columns `campaign(_:_:)` reads, from `campaign_view` (the counters summed over the shards).
    static let campaignColumns = """
        id, kind, status, audience, audience_environment, audience_size, topic, push_type, priority, expiration, \
        collapse_id, payload, scheduled_at, created_at, started_at, finished_at, expanded, \
        total, pending, accepted, rejected, unregistered, failed, cancelled, apns_id, paused, verify, \
        audience_activity_type, audience_activity_kind, channel_id
        """

    /// The campaign `id` as read now; `StoreError.unknownCampaign` when there is none.
    static func fetchCampaign(_ db: PGConnection, _ id: CampaignID) throws -> Campaign {
        let rows = try db.query("SELECT \(campaignColumns) FROM campaign_view WHERE id = $1", id.rawValue)
        guard rows.count > 0 else { throw StoreError.unknownCampaign(id) }
        return try campaign(rows, 0)
    }

    /// The campaign in `row` of `rows`, selected with `campaignColumns`.
    static func campaign(_ rows: PGResult, _ row: Int) throws -> Campaign {
        Campaign(
            id: CampaignID(try rows.int64(row, 0)),
            kind: try CampaignKind.stored(rows.string(row, 1), verify: rows.bool(row, 26)),
            status: try Decode.campaignStatus(rows.string(row, 2)),
            audience: AudienceSummary(
                kind: try Decode.audienceKind(rows.string(row, 3)),
                environment: try rows.optionalString(row, 4).map(Decode.environment),
                size: try rows.int(row, 5),
                activity: try Decode.activitySelector(
                    type: rows.optionalString(row, 27),
                    kind: rows.optionalString(row, 28)),
                channel: try rows.optionalInt64(row, 29)),
            content: try Decode.content(
                bundleID: rows.string(row, 6), pushType: rows.string(row, 7), priority: rows.int(row, 8),
                expiration: rows.optionalInt64(row, 9), collapseID: rows.optionalString(row, 10),
                apnsID: rows.optionalString(row, 24), payload: rows.data(row, 11)),
            scheduledAt: Milliseconds.date(try rows.int64(row, 12)),
            createdAt: Milliseconds.date(try rows.int64(row, 13)),
            startedAt: try rows.optionalInt64(row, 14).map(Milliseconds.date),
            finishedAt: try rows.optionalInt64(row, 15).map(Milliseconds.date),
            isExpanded: try rows.bool(row, 16),
            counters: CampaignCounters(
                total: try rows.int(row, 17), pending: try rows.int(row, 18), accepted: try rows.int(row, 19),
                rejected: try rows.int(row, 20), unregistered: try rows.int(row, 21),
                failed: try rows.int(row, 22), cancelled: try rows.int(row, 23)),
            isPaused: try rows.bool(row, 25))
    }

    /// Inserts a campaign with its audience (a single send with its deliveries) inside the caller's transaction;
    /// returns its id and the delivery rows created now (a bulk campaign's come with its expansion: 0).
    static func insertCampaign(_ db: PGConnection, _ spec: CampaignSpec, now: Int64) throws -> (
        id: CampaignID, deliveries: Int
    ) {
        assert(spec.isValid, "\(spec.refusal!)")
        if case .channel(let channel) = spec.audience {
            return (
                try insertBroadcast(db, spec, channel: try broadcastChannel(db, spec, channel, now: now), now: now), 1
            )
        }
        if spec.kind == .single {
            let inserted = try insertSingles(db, [spec], now: now)[0]
            return (inserted.id, inserted.deliveries)
        }
        let id = try insertCampaignRow(db, spec, status: .scheduled, now: now)
        switch spec.audience {
        case .tokens(let tokens, _): try stage(db, id, tokens.map(\.hex))
        case .users(let users, _), .activities(_, _, let users?, _): try stage(db, id, users)
        case .all, .activities(_, _, nil, _), .channel: break
        }
        return (id, 0)
    }

    /// The channel a broadcast goes to, checked as SQLite checks it: `invalidCampaign` when it is unknown, deleted
    /// or of another app, when it stores no message and the content has an expiration, or for a time to come.
    static func broadcastChannel(_ db: PGConnection, _ spec: CampaignSpec, _ number: Int64, now: Int64) throws
        -> Channel
    {
        if let refusal = BroadcastTime.refusal(scheduledAt: spec.scheduledAt, now: now) { throw refusal }
        let rows = try db.query("SELECT \(channelColumns) FROM channels WHERE id = $1", number)
        guard rows.count > 0 else { throw StoreError.invalidCampaign("no channel \(number) (apnsd channel list)") }
        let channel = try Self.channel(rows, 0)
        if let refusal = channel.broadcastRefusal(for: spec.content) { throw StoreError.invalidCampaign(refusal) }
        return channel
    }

    /// A broadcast: its campaign, already expanded and counted, and its one delivery to `channel`.
    private static func insertBroadcast(_ db: PGConnection, _ spec: CampaignSpec, channel: Channel, now: Int64) throws
        -> CampaignID
    {
        let content = spec.content
        let rows = try db.query(
            """
            WITH made AS (
                INSERT INTO campaigns (kind, status, topic, push_type, priority, expiration, collapse_id, payload, apns_id,
                    audience, audience_environment, audience_size, expanded, expansion_cursor, scheduled_at, created_at,
                    started_at, channel_id)
                VALUES ('single', 'running', $1, $2, $3, $4, $5, $6, $7, 'tokens', $8, 1, true, 1, $9, $9, $9, $10)
                RETURNING id
            ),
            counted AS (
                INSERT INTO campaign_counts (campaign_id, shard, kind, total, pending, cancelled)
                SELECT id, 0, 'single', 1, 1, 0 FROM made
            ),
            delivered AS (
                INSERT INTO deliveries (campaign_id, device_id, token, environment, priority_class, status, next_attempt_at,
                    created_at, updated_at, channel_id)
                SELECT id, NULL, $11, $8, 0, 'pending', $9, $9, $9, $10 FROM made
            )
            SELECT id FROM made
            """, content.bundleID, content.pushType.rawValue, content.priority.rawValue,
            content.expiration?.secondsSince1970,
            content.collapseID?.value, PGValue.bytes(content.payload.bytes), content.apnsID?.uuidString,
            channel.environment.rawValue, now, channel.id, channel.channelID)
        guard let id = try rows.scalarInt64() else { throw StoreError.corruptValue("broadcast insert returned no id") }
        return CampaignID(id)
    }

    // MARK: - Internals

    /// Inserts the campaign's row (no audience, no counters) and returns its id.
    static func insertCampaignRow(_ db: PGConnection, _ spec: CampaignSpec, status: CampaignStatus, now: Int64) throws
        -> CampaignID
    {
        let content = spec.content
        let rows = try db.query(
            """
            INSERT INTO campaigns (kind, status, topic, push_type, priority, expiration, collapse_id, payload,
                audience, audience_environment, scheduled_at, created_at, started_at, apns_id, verify,
                audience_activity_type, audience_activity_kind)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
            RETURNING id
            """, spec.kind.stored, status.rawValue, content.bundleID, content.pushType.rawValue,
            content.priority.rawValue,
            content.expiration?.secondsSince1970, content.collapseID?.value, PGValue.bytes(content.payload.bytes),
            spec.audience.kind.rawValue, spec.audience.environment?.rawValue,
            spec.scheduledAt?.storeMilliseconds ?? now, now,
            status == .running ? now : nil, content.apnsID?.uuidString, spec.kind == .verify,
            spec.audience.activity?.type, spec.audience.activity?.kind.rawValue)
        guard let id = try rows.scalarInt64() else { throw StoreError.corruptValue("campaign insert returned no id") }
        return CampaignID(id)
    }

    /// Values staged per statement: a tokens file of millions goes in as statements of a few MB each.
    private static let stagedPerStatement = 50_000

    /// Appends `values` (token hex or user ids) to the campaign's staged audience, numbering them on, one
    /// statement per `stagedPerStatement` (its sub-statements see one snapshot: the insert numbers from the size
    /// before the update).
    static func stage(_ db: PGConnection, _ id: CampaignID, _ values: [String]) throws {
        var start = values.startIndex
        while start < values.endIndex {
            let end = min(start + stagedPerStatement, values.endIndex)
            try stage(db, id, chunk: Array(values[start..<end]))
            start = end
        }
    }

    private static func stage(_ db: PGConnection, _ id: CampaignID, chunk values: [String]) throws {
        try db.query(
            """
            WITH staged AS (
                INSERT INTO campaign_audience (campaign_id, seq, value)
                SELECT $1, c.audience_size + a.n, a.value
                FROM campaigns c, unnest($2::text[]) WITH ORDINALITY AS a(value, n)
                WHERE c.id = $1
            )
            UPDATE campaigns SET audience_size = audience_size + cardinality($2::text[]) WHERE id = $1
            """, [.int(id.rawValue), .texts(values)])
    }

    /// Locks the draft `id` (concurrent appends number its tokens one after the other);
    /// `unknownCampaign` or `notADraft` otherwise.
    private static func requireDraft(_ db: PGConnection, _ id: CampaignID) throws {
        let rows = try db.query("SELECT status FROM campaigns WHERE id = $1 FOR NO KEY UPDATE", id.rawValue)
        guard rows.count > 0 else { throw StoreError.unknownCampaign(id) }
        let status = try Decode.campaignStatus(rows.string(0, 0))
        guard status == .draft else { throw StoreError.notADraft(id, status) }
    }
}
