import Foundation
import QueueModel
import QueueRules

extension Store {
    /// Adds a written batch's outcomes to this minute's counters (in the batch's transaction).
    static func countOutcomes(_ db: Connection, _ outcomes: [OutcomeKey: OutcomeCount], now: Int64)
        throws
    {
        guard !outcomes.isEmpty else { return }
        let upsert = try db.cached(
            """
            INSERT INTO outcome_counts (minute, status, reason, count, requests) VALUES (?1, ?2, ?3, ?4, ?5)
            ON CONFLICT (minute, status, reason) DO UPDATE SET count = count + excluded.count, requests = requests + excluded.requests
            """)
        for (key, value) in outcomes {
            try upsert.bind(now / 60_000, key.status, key.reason, value.count, value.requests).run()
        }
    }

    /// Adds a written batch's outcomes to this minute's counters of each bulk campaign (in the batch's transaction).
    static func countCampaignOutcomes(_ db: Connection, _ outcomes: [CampaignOutcomeKey: OutcomeCount], now: Int64)
        throws
    {
        guard !outcomes.isEmpty else { return }
        let upsert = try db.cached(
            """
            INSERT INTO campaign_outcome_counts (campaign_id, minute, status, reason, count, requests)
            SELECT ?1, ?2, ?3, ?4, ?5, ?6 FROM campaigns WHERE id = ?1 AND kind = 'bulk'
            ON CONFLICT (campaign_id, minute, status, reason) DO UPDATE SET count = count + excluded.count, requests = requests + excluded.requests
            """)
        for (key, value) in outcomes {
            try upsert.bind(
                key.campaign, now / 60_000, key.outcome.status, key.outcome.reason, value.count, value.requests
            ).run()
        }
    }

    /// Outcomes and requests per `step` since `since`, of everything or of one bulk campaign, from the per-minute
    /// counters.
    public func outcomeSeries(since: Date, step: Int, campaign: CampaignID?, now: Date) throws(StoreError)
        -> OutcomeSeries
    {
        if let campaign { _ = try self.campaign(campaign) }
        return try read { db in
            let window = OutcomeSeries.Window(since: since, step: step, now: now)
            let rows: Statement
            if let campaign {
                rows = try db.cached(
                    """
                    SELECT minute, status, reason, count, requests FROM campaign_outcome_counts
                    WHERE campaign_id = ?1 AND minute >= ?2 AND minute <= ?3
                    """
                ).bind(campaign.rawValue, window.firstMinute, window.lastMinute)
            } else {
                rows = try db.cached(
                    """
                    SELECT minute, status, reason, count, requests FROM outcome_counts
                    WHERE minute >= ?1 AND minute <= ?2
                    """
                ).bind(window.firstMinute, window.lastMinute)
            }
            defer { rows.reset() }
            var counts: [OutcomeSeries.MinuteCount] = []
            while try rows.step() {
                counts.append(
                    OutcomeSeries.MinuteCount(
                        minute: rows.int64(0), status: rows.string(1), reason: rows.string(2), count: rows.int(3),
                        requests: rows.int(4)))
            }
            return OutcomeSeries(window, campaign: campaign, counts: counts)
        }
    }

    /// Outcomes since `since` from the per-minute counters (whole minutes: the first one may start up to a minute
    /// earlier), or — for one campaign — from its deliveries written since then; deactivations from the events by
    /// time; the queue from the gauges.
    public func stats(since: Date, campaign: CampaignID? = nil, now: Date = Date()) throws(StoreError) -> OutcomeStats {
        let queue = try gauges(now: now)
        let selected = try campaign.map { id throws(StoreError) in try self.campaign(id) }
        return try read { db in
            var outcomes: [String: [String: Int]] = [:]
            var requests = 0
            let from = since.storeMilliseconds
            let rows: Statement
            if let campaign {
                // A short window reads the rows changed in it (deliveries_by_update), a long one the campaign's rows
                // (deliveries_by_campaign): whichever holds fewer for the usual case (SQLite has no statistics here).
                let recent = now.timeIntervalSince(since) <= 86_400
                rows = try db.cached(
                    """
                    SELECT status, COALESCE(reason, 'none'), COUNT(*), SUM(attempts) FROM deliveries
                    WHERE \(recent ? "+campaign_id" : "campaign_id") = ?1 AND updated_at >= ?2 AND status <> 'pending' GROUP BY 1, 2
                    """
                ).bind(campaign.rawValue, from)
            } else {
                rows = try db.cached(
                    """
                    SELECT status, reason, SUM(count), SUM(requests) FROM outcome_counts WHERE minute >= ?1 GROUP BY 1, 2
                    """
                ).bind(from / 60_000)
            }
            defer { rows.reset() }
            while try rows.step() {
                outcomes[rows.string(0), default: [:]][rows.string(1)] = rows.int(2)
                requests += rows.int(3)
            }
            var deactivations: [String: Int] = [:]
            let events = try db.cached(
                """
                SELECT COALESCE(reason, 'none'), COUNT(*) FROM events
                WHERE at >= ?1 AND type = 'device.deactivated' AND (?2 IS NULL OR campaign_id = ?2) GROUP BY 1
                """
            ).bind(from, campaign?.rawValue)
            defer { events.reset() }
            while try events.step() { deactivations[events.string(0)] = events.int(1) }
            let accepted = outcomes["accepted"]?.values.reduce(0, +) ?? 0
            return OutcomeStats(
                since: since, until: now, outcomes: outcomes, requests: requests, accepted: accepted,
                deactivations: deactivations, queue: queue, campaign: selected)
        }
    }
}
