import Foundation
import QueueModel
import QueueRules

extension Store: GaugeStore {
    /// Four counters of `gauge_counts` (kept by migration 0007's triggers) and, per class, the first key of
    /// `deliveries_due` (a MIN the index answers in O(log n); leased rows sort last as never due).
    public func gauges(now: Date) throws(StoreError) -> QueueGauges {
        try read { db in
            var counts: [String: Int] = [:]
            let select = try db.cached("SELECT name, value FROM gauge_counts")
            defer { select.reset() }
            while try select.step() { counts[select.string(0)] = select.int(1) }
            let at = now.storeMilliseconds
            var oldest: Int64?
            for priorityClass in [0, 1] {
                let due = try db.cached(
                    """
                    SELECT MIN(next_attempt_at) FROM deliveries WHERE status = 'pending' AND priority_class = ?1
                    """
                ).bind(Int64(priorityClass)).scalarInt64()
                if let due, due <= at { oldest = min(oldest ?? due, due) }
            }
            if let waiting = try db.cached("SELECT MIN(created_at) FROM deferred_batches").scalarInt64() {
                oldest = min(oldest ?? waiting, waiting)
            }
            return QueueGauges(
                pendingSingle: counts["pending.single", default: 0], pendingBulk: counts["pending.bulk", default: 0],
                oldestDueAge: oldest.map { Double(at - $0) / 1000 } ?? 0,
                activeDevices: counts["devices.active", default: 0],
                inactiveDevices: counts["devices.inactive", default: 0])
        }
    }
}
