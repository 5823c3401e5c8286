import APNs
import Foundation
import QueueModel

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
    /// (or held by another worker) is read, to decide.
    ///
    /// A result for an unknown or already-final delivery, or naming another campaign than its row's, changes nothing (a duplicate after a lease expired),
    /// except that a final outcome replaces `cancelled`: the request was in flight when the campaign was
    /// cancelled, and the log must say what APNs did with it. A retry by `worker` of a delivery that another
    /// worker now holds (it was taken over) changes nothing either: the holder decides.
    @discardableResult
    public func record(_ results: [DeliveryResult], by worker: WorkerID? = nil, now: Date = Date()) throws(StoreError)
        -> RecordReport
    {
        guard !results.isEmpty else { return RecordReport() }
        let nowMS = now.storeMilliseconds
        var wroteEvents = false
        defer { if wroteEvents { eventsWritten() } }
        return try write { db in
            let lookup = try db.cached("SELECT status, leased_by FROM deliveries WHERE id = ? AND campaign_id = ?")
            // Both updates name the status they expect (?8), so that a pending row is written without being read
            // first: if it is no longer pending, nothing changes and the slow path decides. Each also names the
            // result's campaign, so a result that does not belong to its row moves no counters.
            let retry = try db.cached(
                """
                UPDATE deliveries SET next_attempt_at = \(Self.dueUnlessPaused("?2")), leased_until = NULL, leased_by = NULL, attempts = attempts + ?3,
                    http_status = ?4, reason = ?5, apns_id = COALESCE(?6, apns_id), updated_at = ?7
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
            let deactivate = try db.cached(
                """
                UPDATE devices SET active = 0, deactivated_at = ?3, reason = ?4
                WHERE token = ?1 AND topic = ?2 AND active = 1
                  AND (?5 IS NULL OR registered_at < ?5)
                """)
            /// Writes `result` over a row whose status is `old`; false when the row was not in that status.
            func apply(_ result: DeliveryResult, over old: DeliveryStatus) throws -> Bool {
                let attempts = result.countsAsAttempt ? 1 : 0
                let reason = result.reason?.rawValue
                switch result.disposition {
                case .retry(let date):
                    try retry.bind(
                        result.deliveryID.rawValue, date.storeMilliseconds, attempts, result.httpStatus,
                        reason, result.apnsID, nowMS, old.rawValue, worker?.rawValue, result.campaignID.rawValue
                    ).run()
                    guard db.changes > 0 else { return false }
                    if result.countsAsAttempt { try keepAttempt.bind(result.deliveryID.rawValue).run() }
                    return true
                case let disposition:
                    try finish.bind(
                        result.deliveryID.rawValue, disposition.status.rawValue, attempts, result.httpStatus,
                        reason, result.apnsID, nowMS, old.rawValue, result.campaignID.rawValue
                    ).run()
                }
                return db.changes > 0
            }

            var report = RecordReport()
            var deltas: [Int64: CampaignCounters] = [:]
            var deactivatedBy: [Int64] = []
            var failed: [Int64] = []
            var outcomes: [OutcomeKey: (count: Int, requests: Int)] = [:]
            for result in results {
                let id = result.deliveryID.rawValue
                var old = DeliveryStatus.pending
                if try !apply(result, over: .pending) {
                    // No longer pending, unknown, or held by another worker: read the row and decide.
                    try lookup.bind(id, result.campaignID.rawValue)
                    guard try lookup.step() else {
                        lookup.reset()
                        report.ignored += 1
                        continue
                    }
                    old = try Decode.deliveryStatus(lookup.string(0))
                    let holder = lookup.optionalInt64(1)
                    lookup.reset()
                    if case .retry = result.disposition, let worker, let holder, holder != worker.rawValue {
                        report.ignored += 1
                        continue
                    }
                    switch (old, result.disposition) {
                    case (.pending, _), (.cancelled, .accepted), (.cancelled, .rejected), (.cancelled, .unregistered),
                        (.cancelled, .failed):
                        guard try apply(result, over: old) else {
                            throw StoreError.corruptValue("delivery \(id) changed while recording")
                        }
                    default:
                        report.ignored += 1
                        continue
                    }
                }
                let campaign = result.campaignID.rawValue
                let new = result.disposition.status
                if new != old {
                    deltas[campaign, default: CampaignCounters()][old] -= 1
                    deltas[campaign, default: CampaignCounters()][new] += 1
                }
                report.applied += 1
                outcomes[Self.outcomeKey(result), default: (0, 0)].count += 1
                if result.countsAsAttempt { outcomes[Self.outcomeKey(result), default: (0, 0)].requests += 1 }
                if new == .failed { failed.append(id) }
                if let deactivation = result.deactivation, let token = result.token {
                    try deactivate.bind(
                        token.hex, result.topic, nowMS, deactivation.reason.rawValue,
                        deactivation.unregisteredAt
                    ).run()
                    if db.changes > 0 {
                        report.devicesDeactivated += db.changes
                        deactivatedBy.append(id)
                    }
                }
            }
            if !deactivatedBy.isEmpty {
                try db.cached(Self.deactivationEventsSQL).bind(Self.jsonArray(deactivatedBy), nowMS).run()
            }
            if !failed.isEmpty {
                try db.cached(Self.failureEventsSQL).bind(Self.jsonArray(failed), nowMS).run()
            }
            wroteEvents = !deactivatedBy.isEmpty || !failed.isEmpty
            try Self.countOutcomes(db, outcomes, now: nowMS)
            let counters = try db.cached(
                """
                UPDATE campaigns SET pending = pending + ?2, accepted = accepted + ?3, rejected = rejected + ?4,
                    unregistered = unregistered + ?5, failed = failed + ?6, cancelled = cancelled + ?7
                WHERE id = ?1
                """)
            for (campaign, delta) in deltas {
                try counters.bind(
                    campaign, delta.pending, delta.accepted, delta.rejected, delta.unregistered,
                    delta.failed, delta.cancelled
                ).run()
            }
            report.completedCampaigns = try Self.completeIfDone(db, deltas.keys.sorted(), now: nowMS)
            return report
        }
    }
}
