import APNs
import Foundation
import QueueModel
import QueueRules

/// Single sends, written whole at creation as on SQLite (`expandCompletely`): each campaign already expanded, with
/// its delivery rows and its counters, in two statements however many single sends and recipients a batch holds.
extension PostgresStore {
    /// Inserts `specs` (single sends, validated: to tokens or users) inside the caller's transaction; returns each
    /// one's campaign id and delivery rows, in the order of `specs` (the ids increase in that order).
    ///
    /// What expansion gives each recipient: a registered token goes to its device's environment, `cancelled` with
    /// `DeviceInactive` when the device is inactive; an unregistered token to the given environment (default
    /// production); a user's active devices of the topic (of the environment given, if any). A recipient given
    /// twice is sent once. A campaign with nothing pending is completed at once; the others run from now, their
    /// deliveries due at the scheduled time.
    static func insertSingles(_ db: PGConnection, _ specs: ArraySlice<CampaignSpec>, now: Int64) throws -> [(
        id: CampaignID, deliveries: Int
    )] {
        guard !specs.isEmpty else { return [] }
        let drawn = try db.query(
            """
            SELECT nextval(pg_get_serial_sequence('campaigns', 'id')) FROM generate_series(1, $1::bigint)
            """, Int64(specs.count))
        let ids = try drawn.map { row in try drawn.int64(row, 0) }.sorted()
        guard ids.count == specs.count else {
            throw StoreError.corruptValue("single sends: \(ids.count) ids for \(specs.count)")
        }
        var audiences: [String] = []
        var topics: [String] = []
        var pushTypes: [String] = []
        var priorities: [Int64] = []
        var expirations: [Int64] = []
        var collapseIDs: [String] = []
        var apnsIDs: [String] = []
        var environments: [String] = []
        var payloadStarts: [Int64] = []
        var payloadLengths: [Int64] = []
        var payloads: [UInt8] = []
        var due: [Int64] = []
        var sizes: [Int64] = []
        var recipientSpecs: [Int64] = []
        var recipients: [String] = []
        for (id, spec) in zip(ids, specs) {
            let values: [String]
            switch spec.audience {
            case .tokens(let tokens, _): values = tokens.map(\.hex)
            case .users(let users, _): values = users
            case .all, .activities, .channel:
                throw StoreError.invalidCampaign("a single send goes to tokens or users, not to all devices")
            }
            let content = spec.content
            audiences.append(spec.audience.kind.rawValue)
            topics.append(content.bundleID)
            pushTypes.append(content.pushType.rawValue)
            priorities.append(Int64(content.priority.rawValue))
            // Absent values as impossible ones (an expiration is never negative, these texts never empty): an
            // array parameter here carries no NULL.
            expirations.append(content.expiration?.secondsSince1970 ?? -1)
            collapseIDs.append(content.collapseID?.value ?? "")
            apnsIDs.append(content.apnsID?.uuidString ?? "")
            environments.append(spec.audience.environment?.rawValue ?? "")
            payloadStarts.append(Int64(payloads.count))
            payloadLengths.append(Int64(content.payload.bytes.count))
            payloads += content.payload.bytes
            // SQLite writes a single send to one token due now as sent at once (due now, scheduled now).
            let scheduled = spec.scheduledAt?.storeMilliseconds ?? now
            due.append(values.count == 1 && spec.audience.kind == .tokens && scheduled <= now ? now : scheduled)
            sizes.append(Int64(values.count))
            recipientSpecs += repeatElement(id, count: values.count)
            recipients += values
        }
        let tally = try db.query(
            insertSinglesSQL,
            [
                .ints(ids), .texts(audiences), .texts(topics), .texts(pushTypes), .ints(priorities), .ints(expirations),
                .texts(collapseIDs), .texts(apnsIDs), .texts(environments), .ints(payloadStarts), .ints(payloadLengths),
                .ints(due), .ints(sizes), .ints(recipientSpecs), .texts(recipients), .bytes(payloads), .int(now),
            ])
        var deliveries: [Int64: Int] = [:]
        for row in 0..<tally.count { deliveries[try tally.int64(row, 0)] = try tally.int(row, 1) }
        return ids.map { (CampaignID($0), deliveries[$0] ?? 0) }
    }

    /// See `insertSingles`: one row per spec ($1…$13), one per recipient ($14 its spec's id, $15 token hex or user
    /// id), the payloads as one byte string ($16) sliced by start and length, $17 now. The data-modifying CTEs
    /// all read the recipients chosen once (`kept`: the first of each device, or of each unregistered token).
    /// `(d.topic = s.topic) IS TRUE`: not a condition an index can take, so that a user's devices are found
    /// through `devices_by_user` even before the registry has statistics (through the topic's index, a send to
    /// a few users read every device of the topic).
    /// Returns each campaign's delivery rows.
    private static let insertSinglesSQL = """
        WITH spec AS (
            SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::text[],
                                 $8::text[], $9::text[], $10::bigint[], $11::bigint[], $12::bigint[], $13::bigint[])
                AS s(id, audience, topic, push_type, priority, expiration, collapse_id, apns_id, environment,
                     payload_start, payload_length, due, size)
        ),
        recipient AS (
            SELECT * FROM unnest($14::bigint[], $15::text[]) WITH ORDINALITY AS r(spec, value, seq)
        ),
        target AS (
            SELECT s.id, r.seq, d.id AS device_id, r.value AS token,
                   COALESCE(d.environment, NULLIF(s.environment, ''), '\(Recipient.unregisteredEnvironment(nil).rawValue)') AS environment,
                   COALESCE(NOT d.active, false) AS inactive
            FROM recipient r JOIN spec s ON s.id = r.spec
            LEFT JOIN devices d ON d.token = r.value AND d.topic = s.topic
            WHERE s.audience = 'tokens'
            UNION ALL
            SELECT s.id, r.seq, d.id, d.token, d.environment, false
            FROM recipient r JOIN spec s ON s.id = r.spec
            JOIN devices d ON d.user_id = r.value AND (d.topic = s.topic) IS TRUE AND d.active AND d.kind = 'device'
                          AND (s.environment = '' OR d.environment = s.environment)
            WHERE s.audience = 'users'
        ),
        kept AS MATERIALIZED (
            SELECT id, seq, device_id, token, environment, inactive FROM (
                SELECT t.*, row_number() OVER (PARTITION BY t.id, COALESCE('d' || t.device_id, 't' || t.token)
                                               ORDER BY t.seq, t.device_id) AS n
                FROM target t) numbered
            WHERE n = 1
        ),
        tally AS MATERIALIZED (
            SELECT s.id, COUNT(k.id) AS total, COUNT(k.id) FILTER (WHERE k.inactive) AS cancelled
            FROM spec s LEFT JOIN kept k ON k.id = s.id GROUP BY s.id
        ),
        made AS (
            INSERT INTO campaigns (id, kind, status, topic, push_type, priority, expiration, collapse_id, payload, apns_id,
                audience, audience_environment, audience_size, expanded, expansion_cursor, scheduled_at, created_at,
                started_at, finished_at)
            SELECT s.id, 'single', CASE WHEN t.total = t.cancelled THEN 'completed' ELSE 'running' END, s.topic,
                   s.push_type, s.priority, NULLIF(s.expiration, -1), NULLIF(s.collapse_id, ''),
                   substring($16::bytea FROM (s.payload_start + 1)::int FOR s.payload_length::int), NULLIF(s.apns_id, ''),
                   s.audience, NULLIF(s.environment, ''), s.size, true, s.size, s.due, $17, $17,
                   CASE WHEN t.total = t.cancelled THEN $17 END
            FROM spec s JOIN tally t ON t.id = s.id
            ORDER BY s.id
        ),
        counted AS (
            INSERT INTO campaign_counts (campaign_id, shard, kind, total, pending, cancelled)
            SELECT id, 0, 'single', total, total - cancelled, cancelled FROM tally WHERE total > 0
        ),
        delivered AS (
            INSERT INTO deliveries (campaign_id, device_id, token, environment, priority_class, status, reason,
                next_attempt_at, created_at, updated_at)
            SELECT k.id, k.device_id, k.token, k.environment, 0, \(Recipient.statusSQL(inactive: "k.inactive")),
                   \(Recipient.reasonSQL(inactive: "k.inactive")), s.due, $17, $17
            FROM kept k JOIN spec s ON s.id = k.id
            ORDER BY k.id, k.seq, k.device_id
        )
        SELECT id, total FROM tally
        """
}
