import APNs
import Foundation
import QueueModel
import QueueRules

extension Store {
    /// Creates a campaign and returns its id. For tests and tools: producers go through `enqueue` (not part of
    /// `ProducerStore`).
    ///
    /// - A `.single` campaign (a single send) has its delivery rows inserted now, in the same transaction; they
    ///   are claimed before any bulk work.
    /// - A `.bulk` campaign stores its audience (tokens or user ids in `campaign_audience`; nothing for `.all`)
    ///   and is expanded into delivery rows by the worker, page by page, once `scheduledAt` has come.
    ///
    /// For a tokens file too big for memory, use `beginCampaign`, `appendTokens` and `sealCampaign` instead.
    @discardableResult
    public func createCampaign(_ spec: CampaignSpec, now: Date = Date()) throws(StoreError) -> CampaignID {
        try write { db in try insertCampaign(db, spec, now: now).id }
    }

    /// Inserts a campaign with its audience (and a single send's deliveries) inside the caller's transaction;
    /// returns its id and the delivery rows created now (a bulk campaign's come with its expansion: 0). `id` nil:
    /// the next id; a deferred batch's notifications take the ids reserved for them.
    func insertCampaign(_ db: Connection, _ spec: CampaignSpec, now: Date, id: CampaignID? = nil) throws -> (
        id: CampaignID, deliveries: Int
    ) {
        assert(spec.isValid, "\(spec.refusal!)")
        if case .channel(let channel) = spec.audience {
            if let refusal = BroadcastTime.refusal(scheduledAt: spec.scheduledAt, now: now.storeMilliseconds) {
                throw refusal
            }
            return (try insertBroadcast(db, spec, channel: channel, now: now.storeMilliseconds, id: id), 1)
        }
        if spec.kind == .single, case .tokens(let tokens, let environment) = spec.audience, tokens.count == 1,
            (spec.scheduledAt ?? now) <= now
        {
            return (
                try insertSingleSend(
                    db, spec, to: tokens[0], environment: environment, now: now.storeMilliseconds, id: id), 1
            )
        }
        let id = try insertCampaign(db, spec, status: initialStatus(spec, now: now), now: now, id: id)
        try stageAudience(db, id, spec.audience)
        guard spec.kind == .single else { return (id, 0) }
        return (id, try expandCompletely(db, id, now: now.storeMilliseconds))
    }

    /// A single send: `spec` with kind `.single`, to tokens or users. Returns the campaign id. For tests and tools.
    @discardableResult
    public func enqueueSingle(_ spec: CampaignSpec, now: Date = Date()) throws(StoreError) -> CampaignID {
        var spec = spec
        spec.kind = .single
        return try createCampaign(spec, now: now)
    }

    /// Starts a bulk campaign whose tokens arrive in chunks (`campaign create --tokens FILE`): the campaign is a
    /// `draft`, never expanded nor sent, until `sealCampaign`. `spec.audience` must be `.tokens` (its tokens, if
    /// any, are the first chunk).
    public func beginCampaign(_ spec: CampaignSpec, now: Date = Date()) throws(StoreError) -> CampaignID {
        assert(spec.isValid, "\(spec.refusal!)")
        guard spec.kind != .single, case .tokens = spec.audience else {
            throw .invalidCampaign("only a bulk campaign to tokens can be built in chunks")
        }
        return try write { db in
            let id = try insertCampaign(db, spec, status: .draft, now: now)
            try stageAudience(db, id, spec.audience)
            return id
        }
    }

    /// Appends a chunk of tokens to a draft campaign (one transaction per chunk).
    public func appendTokens(_ tokens: [DeviceToken], to id: CampaignID) throws(StoreError) {
        try write { db in
            try requireDraft(db, id)
            try stage(db, id, tokens.lazy.map(\.hex), count: tokens.count)
        }
    }

    /// Ends a draft: the campaign becomes `scheduled` and is expanded and sent from its `scheduledAt` on.
    @discardableResult
    public func sealCampaign(_ id: CampaignID) throws(StoreError) -> Campaign {
        try write { db in
            try requireDraft(db, id)
            try db.cached("UPDATE campaigns SET status = 'scheduled' WHERE id = ?").bind(id.rawValue).run()
            return try Self.fetchCampaign(db, id)
        }
    }

    /// The campaign with this id; `StoreError.unknownCampaign` when there is none.
    public func campaign(_ id: CampaignID) throws(StoreError) -> Campaign {
        try read { db in try Self.fetchCampaign(db, id) }
    }

    /// Campaigns, newest first: those with an id below `before` (for paging), optionally of one kind or status.
    public func campaigns(
        kind: CampaignKind? = nil, status: CampaignStatus? = nil, before: CampaignID? = nil,
        limit: Int = 100
    ) throws(StoreError) -> [Campaign] {
        var sql = "SELECT \(Self.campaignColumns) FROM campaigns WHERE id < ?1"
        if let kind { sql += " AND kind = ?2 AND verify = \(kind == .verify ? 1 : 0)" }
        if status != nil { sql += " AND status = ?3" }
        sql += " ORDER BY id DESC LIMIT ?4"
        return try read { db in
            let statement = try db.cached(sql)
            try statement.bind(before?.rawValue ?? Int64.max)
            if let kind { try statement.bindAt(2, kind.stored) }
            if let status { try statement.bindAt(3, status.rawValue) }
            try statement.bindAt(4, limit)
            defer { statement.reset() }
            var campaigns: [Campaign] = []
            while try statement.step() { campaigns.append(try Self.campaign(from: statement)) }
            return campaigns
        }
    }

    // MARK: - Internals

    /// A single send to one token due now, the API's common case, written as its two rows at once: the campaign
    /// already expanded and its delivery, with what expansion would have given them (the registered device's
    /// environment; `cancelled`, `DeviceInactive` for an inactive one; `environment`, default production, for an
    /// unregistered token). Five statements fewer than staging and expanding, and nothing that grows with a batch.
    private func insertSingleSend(
        _ db: Connection, _ spec: CampaignSpec, to token: DeviceToken, environment: Environment?,
        now: Int64, id: CampaignID?
    ) throws -> CampaignID {
        let lookup = try db.cached("SELECT id, environment, active FROM devices WHERE token = ? AND topic = ?")
            .bind(token.hex, spec.content.bundleID)
        var device: Int64?
        var registered: Recipient.Registered?
        if try lookup.step() {
            device = lookup.int64(0)
            registered = Recipient.Registered(
                environment: try Decode.environment(lookup.string(1)), active: lookup.int64(2) != 0)
        }
        lookup.reset()
        let recipient = Recipient(registered: registered, given: environment)
        let inactive = recipient.status != .pending
        let content = spec.content
        try db.cached(
            """
            INSERT INTO campaigns (kind, status, topic, push_type, priority, expiration, collapse_id, payload, apns_id,
                audience, audience_environment, audience_size, expanded, expansion_cursor, scheduled_at, created_at,
                started_at, finished_at, total, pending, cancelled, id)
            VALUES ('single', ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'tokens', ?9, 1, 1, 1, ?10, ?10, ?10, ?11, 1, ?12, ?13, ?14)
            """
        ).bind(
            inactive ? CampaignStatus.completed.rawValue : CampaignStatus.running.rawValue, content.bundleID,
            content.pushType.rawValue, content.priority.rawValue, content.expiration?.secondsSince1970,
            content.collapseID?.value, content.payload.bytes, content.apnsID?.uuidString, environment?.rawValue,
            now, inactive ? now : nil, inactive ? 0 : 1, inactive ? 1 : 0, id?.rawValue
        ).run()
        let id = CampaignID(db.lastInsertRowID)
        try db.cached(
            """
            INSERT INTO deliveries (campaign_id, device_id, token, environment, priority_class, status, reason,
                next_attempt_at, created_at, updated_at)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8, ?8)
            """
        ).bind(
            id.rawValue, device, token.hex, recipient.environment.rawValue, CampaignKind.single.priorityClass,
            recipient.status.rawValue, recipient.reason?.rawValue, now
        ).run()
        return id
    }

    /// A broadcast: its campaign, already expanded, and its one delivery to the channel (`token` the id APNs gave
    /// it, in the channel's environment), refused when the channel is unknown, deleted or of another app, or stores
    /// no message while the content has an expiration.
    private func insertBroadcast(
        _ db: Connection, _ spec: CampaignSpec, channel number: Int64, now: Int64,
        id: CampaignID?
    ) throws -> CampaignID {
        let lookup = try db.cached("SELECT \(Self.channelColumns) FROM channels WHERE id = ?").bind(number)
        let channel = try lookup.step() ? try Self.channel(lookup) : nil
        lookup.reset()
        guard let channel else { throw StoreError.invalidCampaign("no channel \(number) (apnsd channel list)") }
        if let refusal = channel.broadcastRefusal(for: spec.content) { throw StoreError.invalidCampaign(refusal) }
        let content = spec.content
        try db.cached(
            """
            INSERT INTO campaigns (kind, status, topic, push_type, priority, expiration, collapse_id, payload, apns_id,
                audience, audience_environment, audience_size, expanded, expansion_cursor, scheduled_at, created_at,
                started_at, total, pending, id, channel_id)
            VALUES ('single', 'running', ?1, ?2, ?3, ?4, ?5, ?6, ?7, 'tokens', ?8, 1, 1, 1, ?9, ?9, ?9, 1, 1, ?10, ?11)
            """
        ).bind(
            content.bundleID, content.pushType.rawValue, content.priority.rawValue,
            content.expiration?.secondsSince1970,
            content.collapseID?.value, content.payload.bytes, content.apnsID?.uuidString, channel.environment.rawValue,
            now, id?.rawValue, channel.id
        ).run()
        let id = CampaignID(db.lastInsertRowID)
        try db.cached(
            """
            INSERT INTO deliveries (campaign_id, device_id, token, environment, priority_class, status, next_attempt_at,
                created_at, updated_at, channel_id)
            VALUES (?1, NULL, ?2, ?3, ?4, 'pending', ?5, ?5, ?5, ?6)
            """
        ).bind(
            id.rawValue, channel.channelID, channel.environment.rawValue, CampaignKind.single.priorityClass, now,
            channel.id
        ).run()
        return id
    }

    private func initialStatus(_ spec: CampaignSpec, now: Date) -> CampaignStatus {
        spec.kind == .single && (spec.scheduledAt ?? now) <= now ? .running : .scheduled
    }

    private func insertCampaign(
        _ db: Connection, _ spec: CampaignSpec, status: CampaignStatus, now: Date,
        id: CampaignID? = nil
    ) throws -> CampaignID {
        let nowMS = now.storeMilliseconds
        try db.cached(
            """
            INSERT INTO campaigns (kind, status, topic, push_type, priority, expiration, collapse_id, payload,
                audience, audience_environment, scheduled_at, created_at, started_at, apns_id, id, verify,
                audience_activity_type, audience_activity_kind)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)
            """
        ).bind(
            spec.kind.stored, status.rawValue, spec.content.bundleID, spec.content.pushType.rawValue,
            spec.content.priority.rawValue, spec.content.expiration?.secondsSince1970, spec.content.collapseID?.value,
            spec.content.payload.bytes, spec.audience.kind.rawValue, spec.audience.environment?.rawValue,
            (spec.scheduledAt ?? now).storeMilliseconds, nowMS, status == .running ? nowMS : nil,
            spec.content.apnsID?.uuidString, id?.rawValue, spec.kind == .verify,
            spec.audience.activity?.type, spec.audience.activity?.kind.rawValue
        )
        .run()
        return CampaignID(db.lastInsertRowID)
    }

    /// An audience of this many tokens or users or more is staged through a small page cache (`withPageCache`):
    /// its rows (about 80 bytes each) would otherwise sit in the cache until COMMIT, up to the cache's whole size.
    static let largeAudience = 100_000

    private func stageAudience(_ db: Connection, _ id: CampaignID, _ audience: Audience) throws {
        switch audience {
        case .tokens(let tokens, _): try stage(db, id, tokens.lazy.map(\.hex), count: tokens.count)
        case .users(let users, _), .activities(_, _, let users?, _): try stage(db, id, users, count: users.count)
        case .all, .activities(_, _, nil, _), .channel: break
        }
    }

    /// Appends `values` (token hex or user ids, `count` of them) to the campaign's staged audience, numbering them on.
    private func stage(_ db: Connection, _ id: CampaignID, _ values: some Sequence<String>, count: Int) throws {
        func stageAll() throws {
            var seq =
                try db.cached("SELECT audience_size FROM campaigns WHERE id = ?").bind(id.rawValue).scalarInt64() ?? 0
            let insert = try db.cached("INSERT INTO campaign_audience (campaign_id, seq, value) VALUES (?, ?, ?)")
            for value in values {
                seq += 1
                try insert.bind(id.rawValue, seq, value).run()
            }
            try db.cached("UPDATE campaigns SET audience_size = ?2 WHERE id = ?1").bind(id.rawValue, seq).run()
        }
        if count >= Self.largeAudience {
            try db.withPageCache(kib: Self.largeItemsCacheKiB, stageAll)
        } else {
            try stageAll()
        }
    }

    private func requireDraft(_ db: Connection, _ id: CampaignID) throws {
        let statement = try db.cached("SELECT status FROM campaigns WHERE id = ?").bind(id.rawValue)
        defer { statement.reset() }
        guard try statement.step() else { throw StoreError.unknownCampaign(id) }
        let status = try Decode.campaignStatus(statement.string(0))
        guard status == .draft else { throw StoreError.notADraft(id, status) }
    }

    static let campaignColumns = """
        id, kind, status, audience, audience_environment, audience_size, topic, push_type, priority, expiration, \
        collapse_id, payload, scheduled_at, created_at, started_at, finished_at, expanded, \
        total, pending, accepted, rejected, unregistered, failed, cancelled, apns_id, paused, verify, \
        audience_activity_type, audience_activity_kind, channel_id
        """

    static func fetchCampaign(_ db: Connection, _ id: CampaignID) throws -> Campaign {
        let statement = try db.cached("SELECT \(campaignColumns) FROM campaigns WHERE id = ?").bind(id.rawValue)
        defer { statement.reset() }
        guard try statement.step() else {
            statement.reset()
            if let deferred = try deferredCampaign(db, id) { return deferred }
            throw StoreError.unknownCampaign(id)
        }
        return try campaign(from: statement)
    }

    static func campaign(from row: Statement) throws -> Campaign {
        Campaign(
            id: CampaignID(row.int64(0)), kind: try CampaignKind.stored(row.string(1), verify: row.int64(26) != 0),
            status: try Decode.campaignStatus(row.string(2)),
            audience: AudienceSummary(
                kind: try Decode.audienceKind(row.string(3)),
                environment: try row.optionalString(4).map(Decode.environment),
                size: row.int(5),
                activity: try Decode.activitySelector(type: row.optionalString(27), kind: row.optionalString(28)),
                channel: row.optionalInt64(29)),
            content: try Decode.content(
                bundleID: row.string(6), pushType: row.string(7), priority: row.int(8),
                expiration: row.optionalInt64(9), collapseID: row.optionalString(10),
                apnsID: row.optionalString(24), payload: row.blob(11)),
            scheduledAt: Milliseconds.date(row.int64(12)), createdAt: Milliseconds.date(row.int64(13)),
            startedAt: row.optionalInt64(14).map(Milliseconds.date),
            finishedAt: row.optionalInt64(15).map(Milliseconds.date),
            isExpanded: row.int64(16) != 0,
            counters: CampaignCounters(
                total: row.int(17), pending: row.int(18), accepted: row.int(19), rejected: row.int(20),
                unregistered: row.int(21), failed: row.int(22), cancelled: row.int(23)),
            isPaused: row.int64(25) != 0)
    }

    /// Marks the campaigns completed whose audience is fully expanded and which have nothing pending.
    /// Returns those that completed.
    static func completeIfDone(_ db: Connection, _ ids: some Sequence<Int64>, now: Int64) throws -> [CampaignID] {
        let update = try db.cached(
            """
            UPDATE campaigns SET status = 'completed', finished_at = ?2, started_at = COALESCE(started_at, ?2)
            WHERE id = ?1 AND status IN ('scheduled', 'running') AND expanded = 1 AND pending = 0
            """)
        var completed: [CampaignID] = []
        for id in ids {
            try update.bind(id, now).run()
            if db.changes > 0 { completed.append(CampaignID(id)) }
        }
        return completed
    }
}
