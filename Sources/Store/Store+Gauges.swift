import Foundation
import QueueModel
import QueueRules

extension Store: GaugeStore {
    /// Four counters of `gauge_counts` (kept by migration 0007's triggers) and, per class, the first key of
    /// `deliveries_due` (rows waiting, not leased: parked rows sort last as never due) and of `deliveries_due_at`
    /// (rows a worker holds or held, by when they became due): MINs the indexes answer in O(log n). Deferred batches
    /// are single sends due since they were written. The webhook's backlog: the ids after its cursor, two key reads.
    public func gauges(now: Date) throws(StoreError) -> QueueGauges {
        try read { db in
            var counts: [String: Int] = [:]
            let select = try db.cached("SELECT name, value FROM gauge_counts")
            defer { select.reset() }
            while try select.step() { counts[select.string(0)] = select.int(1) }
            let at = now.storeMilliseconds
            var oldest: [Int64?] = [nil, nil]
            for priorityClass in [0, 1] {
                for sql in [
                    """
                    SELECT MIN(next_attempt_at) FROM deliveries WHERE status = 'pending' AND leased_by IS NULL AND priority_class = ?1
                    """,
                    """
                    SELECT MIN(due_at) FROM deliveries WHERE status = 'pending' AND priority_class = ?1 AND due_at IS NOT NULL
                    """,
                ] {
                    let due = try db.cached(sql).bind(Int64(priorityClass)).scalarInt64()
                    if let due, due <= at { oldest[priorityClass] = min(oldest[priorityClass] ?? due, due) }
                }
            }
            if let waiting = try db.cached("SELECT MIN(created_at) FROM deferred_batches").scalarInt64() {
                oldest[0] = min(oldest[0] ?? waiting, waiting)
            }
            let backlog = try db.cached(
                """
                SELECT (SELECT MAX(id) FROM events) - MIN(id) + 1 FROM events
                WHERE id > COALESCE((SELECT event_id FROM webhook_cursor WHERE id = 1), 0)
                """
            ).scalarInt64()
            let age = { (due: Int64?) in due.map { Double(at - $0) / 1000 } ?? 0 }
            return QueueGauges(
                pendingSingle: counts["pending.single", default: 0], pendingBulk: counts["pending.bulk", default: 0],
                oldestDueAgeSingle: age(oldest[0]), oldestDueAgeBulk: age(oldest[1]),
                activeDevices: counts["devices.active", default: 0],
                inactiveDevices: counts["devices.inactive", default: 0], webhookBacklog: Int(backlog ?? 0))
        }
    }
}
