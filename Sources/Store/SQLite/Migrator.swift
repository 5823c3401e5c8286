import QueueRules

/// Applies an ordered list of schema migrations, each once, each in its own transaction, recording its id in
/// `schema_migrations`. A shipped migration is never edited: change the schema by appending a new one.
struct Migrator {
    struct Migration {
        let id: String
        let sql: String
    }

    let migrations: [Migration]

    /// What `migrate` found and did.
    struct Result: Equatable {
        var applied: [String] = []
        /// Ids recorded in the file that this build does not know: the file was migrated by a newer version.
        var unknown: [String] = []
    }

    /// Brings the database up to date. Safe against another process migrating at the same time: each
    /// migration re-checks, inside its write transaction, whether it was applied meanwhile.
    func migrate(_ db: Connection) throws -> Result {
        try db.execute(
            """
            CREATE TABLE IF NOT EXISTS schema_migrations (
                id         TEXT    PRIMARY KEY NOT NULL,
                applied_at INTEGER NOT NULL
            )
            """)
        var result = Result()
        let known = Set(migrations.map(\.id))
        result.unknown = try appliedIDs(db).filter { !known.contains($0) }.sorted()
        guard result.unknown.isEmpty else { return result }
        for migration in migrations {
            let applied: Bool = try db.write {
                let check = try db.cached("SELECT 1 FROM schema_migrations WHERE id = ?")
                let already = try check.bind(migration.id).scalarInt64() != nil
                if already { return false }
                try db.execute(migration.sql)
                try db.cached("INSERT INTO schema_migrations (id, applied_at) VALUES (?, ?)")
                    .bind(migration.id, Milliseconds.now).run()
                return true
            }
            if applied { result.applied.append(migration.id) }
        }
        return result
    }

    /// What a read-only connection finds: migrations this build would apply, and ids it does not know.
    struct Status: Equatable {
        var missing: [String] = []
        var unknown: [String] = []
    }

    /// Compares the file's migrations with this build's, writing nothing (a read-only connection cannot
    /// migrate; the caller refuses a file that is not exactly up to date).
    func status(_ db: Connection) throws -> Status {
        let table = try db.prepare(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
        let applied = try table.scalarInt64() == 1 ? try appliedIDs(db) : []
        let known = Set(migrations.map(\.id))
        let recorded = Set(applied)
        return Status(
            missing: migrations.map(\.id).filter { !recorded.contains($0) },
            unknown: applied.filter { !known.contains($0) }.sorted())
    }

    private func appliedIDs(_ db: Connection) throws -> [String] {
        let statement = try db.prepare("SELECT id FROM schema_migrations")
        var ids: [String] = []
        while try statement.step() { ids.append(statement.string(0)) }
        return ids
    }
}
