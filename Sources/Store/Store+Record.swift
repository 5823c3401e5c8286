import APNs
import Foundation
import QueueModel
import QueueRules

extension Store {
    /// Writes a batch of outcomes in one transaction:
    /// - each delivery gets its final status, or stays pending until `retry(at:)` (attempts + 1, lease cleared; the
    ///   answer is kept in `delivery_attempts` for `apnsd log --attempts`);
    /// - devices are deactivated for the campaign's topic: a 410 only when the device's last registration is
    ///   older than the 410 `timestamp`, BadDeviceToken and the like always;
    /// - campaign counters move, and a campaign with nothing pending and its audience expanded completes;
    /// - each deactivation and each delivery that ends `failed` writes its event, all of a batch in two statements.
    ///
    /// Each result carries what this needs (campaign, token, topic), so nothing is remembered between `claim`
    /// and `record`: a pending row is updated without being read first, and only a row that is no longer pending
    /// (or held by another worker) is read, to decide (`RecordPlan.replaceable`).
    ///
    /// A result for an unknown or already-final delivery, or naming another campaign than its row's, changes
    /// nothing (a duplicate after a lease expired), except that a final outcome replaces `cancelled`: the request
    /// was in flight when the campaign was cancelled, and the log must say what APNs did with it. A retry by
    /// `worker` of a delivery that another worker now holds (it was taken over) changes nothing either: the holder
    /// decides.
    @discardableResult
    public func record(_ results: [DeliveryResult], by worker: WorkerID? = nil, now: Date = Date()) throws(StoreError)
        -> RecordReport
    {
        guard !results.isEmpty else { return RecordReport() }
        let nowMS = now.storeMilliseconds
        var wroteEvents = false
        defer { if wroteEvents { eventsWritten() } }
        return try write { db in
            let plan = RecordPlan(results, replaced: try Self.writeResults(db, results, by: worker, now: nowMS))
            var report = plan.report
            let deactivatedBy = try Self.deactivateDevices(db, plan.deactivations, now: nowMS)
            report.devicesDeactivated = deactivatedBy.count
            if !deactivatedBy.isEmpty {
                try db.cached(Self.deactivationEventsSQL).bind(Self.jsonArray(deactivatedBy), nowMS).run()
            }
            if !plan.failed.isEmpty {
                try db.cached(Self.failureEventsSQL).bind(Self.jsonArray(plan.failed), nowMS).run()
            }
            wroteEvents = !deactivatedBy.isEmpty || !plan.failed.isEmpty
            try Self.countOutcomes(db, plan.outcomes, now: nowMS)
            try Self.countCampaignOutcomes(db, plan.campaignOutcomes, now: nowMS)
            try Self.addCounters(db, plan.deltas)
            report.completedCampaigns = try Self.completeIfDone(db, plan.campaigns, now: nowMS)
            return report
        }
    }

    /// Writes each result over its row, in batch order (a delivery named twice is written twice, as if one result
    /// at a time); returns the status each one replaced, nil for a result that changed nothing.
    private static func writeResults(_ db: Connection, _ results: [DeliveryResult], by worker: WorkerID?, now: Int64)
        throws -> [DeliveryStatus?]
    {
        let lookup = try db.cached("SELECT campaign_id, status, leased_by FROM deliveries WHERE id = ?")
        // Both updates name the status they expect (?8), so that a pending row is written without being read
        // first: if it is no longer pending, nothing changes and the slow path decides. Each also names the
        // result's campaign, so a result that does not belong to its row moves no counters. A retry keeps `due_at`
        // only when the delivery was held unsent (?11): a retry after an answer is due at its new time.
        let retry = try db.cached(
            """
            UPDATE deliveries SET next_attempt_at = \(Self.dueUnlessPaused("?2")), leased_until = NULL, leased_by = NULL, attempts = attempts + ?3,
                http_status = ?4, reason = ?5, apns_id = COALESCE(?6, apns_id), updated_at = ?7,
                due_at = IIF(?11, \(Self.keptUnlessPaused), NULL)
            WHERE id = ?1 AND status = ?8 AND (?9 IS NULL OR leased_by IS NULL OR leased_by = ?9) AND campaign_id = ?10
            """)
        let finish = try db.cached(
            """
            UPDATE deliveries SET status = ?2, leased_until = NULL, leased_by = NULL, attempts = attempts + ?3,
                http_status = ?4, reason = ?5, apns_id = COALESCE(?6, apns_id), updated_at = ?7
            WHERE id = ?1 AND status = ?8 AND campaign_id = ?9
            """)
        // A retried answer is kept in `delivery_attempts` (the last answer stays on the row itself, so a
        // first-time 200 writes nothing more). Read back from the row just written: it is in the page cache.
        let keepAttempt = try db.cached(
            """
            INSERT OR REPLACE INTO delivery_attempts (delivery_id, attempt, at, http_status, reason)
            SELECT id, attempts, updated_at, http_status, reason FROM deliveries WHERE id = ?1
            """)
        /// Writes `result` over a row whose status is `old`; false when the row was not in that status.
        func apply(_ result: DeliveryResult, over old: DeliveryStatus) throws -> Bool {
            let attempts = result.countsAsAttempt ? 1 : 0
            let reason = result.reason?.rawValue
            switch result.disposition {
            case .retry(let date):
                try retry.bind(
                    result.deliveryID.rawValue, date.storeMilliseconds, attempts, result.httpStatus,
                    reason, result.apnsID, now, old.rawValue, worker?.rawValue, result.campaignID.rawValue,
                    result.held ? 1 : 0
                ).run()
                guard db.changes > 0 else { return false }
                if result.countsAsAttempt { try keepAttempt.bind(result.deliveryID.rawValue).run() }
                return true
            case let disposition:
                try finish.bind(
                    result.deliveryID.rawValue, disposition.status.rawValue, attempts, result.httpStatus,
                    reason, result.apnsID, now, old.rawValue, result.campaignID.rawValue
                ).run()
            }
            return db.changes > 0
        }

        var replaced: [DeliveryStatus?] = []
        replaced.reserveCapacity(results.count)
        for result in results {
            if try apply(result, over: .pending) {
                replaced.append(.pending)
                continue
            }
            // No longer pending, unknown, or held by another worker: read the row and decide.
            try lookup.bind(result.deliveryID.rawValue)
            let row =
                try lookup.step()
                ? RecordPlan.Row(
                    campaign: lookup.int64(0), status: try Decode.deliveryStatus(lookup.string(1)),
                    holder: lookup.optionalInt64(2)) : nil
            lookup.reset()
            guard let old = RecordPlan.replaceable(result, row: row, by: worker) else {
                replaced.append(nil)
                continue
            }
            guard try apply(result, over: old) else {
                throw StoreError.corruptValue("delivery \(result.deliveryID) changed while recording")
            }
            replaced.append(old)
        }
        return replaced
    }

    /// Deactivates the device of each of `results` (in order) that its rule still deactivates; returns the ids
    /// of the deliveries whose answer did, for their events.
    private static func deactivateDevices(_ db: Connection, _ results: [DeliveryResult], now: Int64) throws -> [Int64] {
        guard !results.isEmpty else { return [] }
        let deactivate = try db.cached(
            """
            UPDATE devices SET active = 0, deactivated_at = ?3, reason = ?4
            WHERE token = ?1 AND topic = ?2 AND active = 1
              AND (?5 IS NULL OR registered_at < ?5)
            """)
        var deactivatedBy: [Int64] = []
        for result in results {
            guard let deactivation = result.deactivation, let token = result.token else { continue }
            try deactivate.bind(
                token.hex, result.topic, now, deactivation.reason.rawValue, deactivation.unregisteredAt
            ).run()
            if db.changes > 0 { deactivatedBy.append(result.deliveryID.rawValue) }
        }
        return deactivatedBy
    }

    /// Moves each campaign's counters by its delta.
    static func addCounters(_ db: Connection, _ deltas: [Int64: CampaignCounters]) throws {
        guard !deltas.isEmpty else { return }
        let counters = try db.cached(
            """
            UPDATE campaigns SET pending = pending + ?2, accepted = accepted + ?3, rejected = rejected + ?4,
                unregistered = unregistered + ?5, failed = failed + ?6, cancelled = cancelled + ?7
            WHERE id = ?1
            """)
        for (campaign, delta) in deltas {
            try counters.bind(
                campaign, delta.pending, delta.accepted, delta.rejected, delta.unregistered, delta.failed,
                delta.cancelled
            ).run()
        }
    }
}
