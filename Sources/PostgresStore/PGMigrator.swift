import Foundation

/// Applies `PGSchema.migrations` in order, each in its own transaction, under an advisory lock so that two
/// processes starting at once do not both apply one.
enum PGMigrator {
    struct Status {
        var applied: [String]
        /// Migrations of this build not applied yet.
        var missing: [String]
        /// Applied migrations this build does not know (a newer apnsd migrated the database).
        var unknown: [String]
    }

    static func status(_ db: PGConnection) throws -> Status {
        let exists = try db.query("SELECT to_regclass('schema_migrations') IS NOT NULL")
        let applied: [String]
        if try exists.bool(0, 0) {
            let rows = try db.query("SELECT id FROM schema_migrations ORDER BY id")
            applied = try rows.map { try rows.string($0, 0) }
        } else {
            applied = []
        }
        let known = PGSchema.migrations.map(\.id)
        return Status(
            applied: applied, missing: known.filter { !applied.contains($0) },
            unknown: applied.filter { !known.contains($0) })
    }

    static func migrate(_ db: PGConnection) throws {
        try db.execute("SELECT pg_advisory_lock(\(PGLocks.migration))")
        defer { try? db.execute("SELECT pg_advisory_unlock(\(PGLocks.migration))") }
        try db.execute("CREATE TABLE IF NOT EXISTS schema_migrations (id text PRIMARY KEY, applied_at bigint NOT NULL)")
        let applied = Set(try status(db).applied)
        for migration in PGSchema.migrations where !applied.contains(migration.id) {
            try db.transaction { db in
                try db.execute(migration.sql)
                try db.query(
                    "INSERT INTO schema_migrations (id, applied_at) VALUES ($1, $2)",
                    PGValue.text(migration.id), PGValue.int(Int64(Date().timeIntervalSince1970 * 1000)))
            }
        }
    }
}
