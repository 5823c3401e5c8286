import APNs
import Foundation
import QueueModel
import QueueRules

/// Retention (`apnsd prune`): deletes by id ranges, so each step reads at most `limit` consecutive ids of the
/// primary key and its transaction stays short whatever the table's size. Campaigns and their counters are never
/// touched (as on SQLite): a campaign keeps its totals after its rows are gone.
extension PostgresStore {
    public func pruneDeliveries(before: Date, after: Int64, limit: Int, dryRun: Bool) throws(StoreError) -> PruneStep {
        let cutoff = before.storeMilliseconds
        let step = { (db: PGConnection) throws -> PruneStep in
            guard let (start, end) = try Self.range(db, "deliveries", after: after, limit: limit) else {
                return PruneStep(removed: 0, next: nil)
            }
            // Ids grow with creation time, so the first range created wholly after the cutoff ends the walk (a row
            // changed before the cutoff was created before it): a daily prune reads only the old end of the table.
            let oldest = try db.query("SELECT MIN(created_at) FROM deliveries WHERE id >= $1 AND id < $2", start, end)
                .scalarInt64()
            guard let oldest, oldest < cutoff else { return PruneStep(removed: 0, next: nil) }
            // Pending rows (waiting, leased, in flight, retrying) are never touched, whatever their age.
            let condition = "id >= $1 AND id < $2 AND status <> 'pending' AND updated_at < $3"
            if dryRun {
                let count = try db.query("SELECT COUNT(*) FROM deliveries WHERE \(condition)", start, end, cutoff)
                    .scalarInt64()
                return PruneStep(removed: Int(count ?? 0), next: end - 1)
            }
            // delivery_attempts go with their rows (ON DELETE CASCADE).
            let removed = try db.query("DELETE FROM deliveries WHERE \(condition)", start, end, cutoff).changes
            return PruneStep(removed: removed, next: end - 1)
        }
        return dryRun ? try read(step) : try write(step)
    }

    public func pruneDevices(
        deactivatedBefore: Date, registeredBefore: Date, after: Int64, limit: Int,
        dryRun: Bool
    ) throws(StoreError) -> PruneStep {
        let deactivated = deactivatedBefore.storeMilliseconds
        let registered = registeredBefore.storeMilliseconds
        let step = { (db: PGConnection) throws -> PruneStep in
            guard let (start, end) = try Self.range(db, "devices", after: after, limit: limit) else {
                return PruneStep(removed: 0, next: nil)
            }
            // An inactive device counts from its deactivation (its reason stays visible that long), an active one
            // from its last registration (`device add`, import, the API's PUT).
            let condition = """
                id >= $1 AND id < $2
                AND CASE WHEN active THEN registered_at < $4 ELSE COALESCE(deactivated_at, registered_at) < $3 END
                """
            if dryRun {
                let count = try db.query(
                    "SELECT COUNT(*), COUNT(*) FILTER (WHERE NOT active) FROM devices WHERE \(condition)",
                    start, end, deactivated, registered)
                return PruneStep(removed: try count.int(0, 0), inactive: try count.int(0, 1), next: end - 1)
            }
            // Statement triggers keep gauge_counts right; user audiences read devices.user_id, so nothing else links.
            let delete = try db.query(
                "DELETE FROM devices WHERE \(condition) RETURNING id, active",
                start, end, deactivated, registered)
            var removed: [Int64] = []
            var inactive = 0
            for row in 0..<delete.count {
                removed.append(try delete.int64(row, 0))
                if try !delete.bool(row, 1) { inactive += 1 }
            }
            if !removed.isEmpty {
                // Finished deliveries of a removed device are kept as deliveries to its token (found by `log --token`
                // through deliveries_by_unregistered_token). A campaign that also has a row for the bare token keeps
                // this one under the old id (SQLite's UPDATE OR IGNORE): NOT EXISTS and DISTINCT ON leave out the
                // rows that would collide in deliveries_by_unregistered_token. Pending ones keep the id: the claim
                // cancels them (DeviceInactive), as for any device that is gone.
                try db.query(
                    """
                    UPDATE deliveries SET device_id = NULL WHERE id IN (
                        SELECT DISTINCT ON (x.token, x.campaign_id) x.id FROM deliveries x
                        WHERE x.device_id = ANY($1) AND x.status <> 'pending'
                          AND NOT EXISTS (SELECT 1 FROM deliveries u
                                          WHERE u.device_id IS NULL AND u.token = x.token AND u.campaign_id = x.campaign_id)
                        ORDER BY x.token, x.campaign_id, x.id)
                    """, PGValue.ints(removed))
            }
            return PruneStep(removed: removed.count, inactive: inactive, next: end - 1)
        }
        return dryRun ? try read(step) : try write(step)
    }

    /// PostgreSQL keeps no free-page list to give back by hand: autovacuum marks dead rows' space reusable and
    /// the server manages its files. Reported as not incremental with 0 free pages (so `prune` reclaims nothing),
    /// with the server's block size and the database's size in blocks.
    public func freeSpace() throws(StoreError) -> FreeSpace {
        try read { db in
            let rows = try db.query(
                """
                SELECT current_setting('block_size')::bigint, pg_database_size(current_database())::bigint
                """)
            let pageSize = try rows.int64(0, 0)
            return FreeSpace(
                incremental: false, freePages: 0, pageSize: Int(pageSize),
                pageCount: pageSize > 0 ? Int(try rows.int64(0, 1) / pageSize) : 0)
        }
    }

    /// Nothing to do on PostgreSQL (autovacuum reclaims space): returns 0.
    public func reclaimFreePages(upTo pages: Int) throws(StoreError) -> Int {
        0
    }

    /// Nothing to do on PostgreSQL: there is no file mode to convert (autovacuum reclaims space).
    public func enableIncrementalVacuum() throws(StoreError) {}

    /// Refused: a PostgreSQL database is backed up with pg_dump or the server's own backups. Writes nothing.
    public func backup(to path: String) throws(StoreError) -> Int64 {
        throw .backupFailed(
            path, "a PostgreSQL database is backed up with pg_dump (or the server's own backups), not by apnsd")
    }

    /// The ids of the next step: from the first row above `after` up to `limit` ids on, never including the
    /// table's newest row (the protocol's promise, kept as on SQLite although an identity column never gives an
    /// id twice). nil when no row is left to look at.
    private static func range(_ db: PGConnection, _ table: String, after: Int64, limit: Int) throws -> (Int64, Int64)? {
        let bounds = try db.query(
            "SELECT (SELECT MAX(id) FROM \(table)), (SELECT MIN(id) FROM \(table) WHERE id > $1)", after)
        guard let last = try bounds.optionalInt64(0, 0), let start = try bounds.optionalInt64(0, 1), start < last else {
            return nil
        }
        return (start, min(start + Int64(max(1, limit)), last))
    }
}
