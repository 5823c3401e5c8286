import Dispatcher
import Foundation
import Intake
import PostgresStore
import QueueModel
import Store

/// `apnsd migrate --from PATH.sqlite --to postgres://…`: copies a SQLite database into PostgreSQL — devices,
/// campaigns, deliveries and their history — for a team moving to several workers on several hosts.
enum MigrateCommand {
    static let help = """
        OVERVIEW: Copy a SQLite database into PostgreSQL: devices, campaigns (with their counters and pending work),
        deliveries and their retried attempts, events, API keys, idempotency keys, stats.

        USAGE: apnsd migrate --from PATH --to URL [--replace] [--json]

        Stop every worker and 'apnsd serve' on the SQLite database first (refused while one heartbeats). The target's
        schema is created when missing. API batches the SQLite store still holds compactly are written out first.
        Leases are not copied: what was in flight is pending again. Afterwards, point 'database' (APNSD_DATABASE) at
        the URL and start the workers there; the SQLite file is left as it was, apart from those batches.

        OPTIONS:
          --from PATH              The SQLite database.
          --to URL                 postgres://… or postgresql://… (libpq: sslmode, PGPASSFILE and PG* apply).
          --replace                Empty the target first; without it a target that holds rows is refused.
          --json                   One JSON object: rows copied per table.

        EXAMPLE:
          apnsd migrate --from /var/lib/apnsd/apnsd.sqlite --to 'postgres://apnsd@db.internal/apnsd?sslmode=verify-full'
        """

    /// Rows read from SQLite and written to PostgreSQL per transaction.
    static let page = 5_000

    static func run(_ words: [String]) async throws(CLIError) {
        let arguments = try Arguments(words, valued: ["from", "to"], flagNames: ["replace", "json"])
        _ = try arguments.positionals(exactly: [])
        guard let from = try arguments.value("from") else { throw .usage("--from is required") }
        guard let to = try arguments.value("to") else { throw .usage("--to is required") }
        guard !PostgresStore.isURL(from) else { throw .usage("--from takes the SQLite database's path, not a URL") }
        guard PostgresStore.isURL(to) else { throw .usage("--to takes a postgres:// or postgresql:// URL") }
        let source: Store
        do {
            source = try await Store.open(at: from, options: Store.Options(createIfMissing: false))
        } catch {
            if case .databaseMissing = error { throw .failure("no database at \(from)") }
            throw .store(error)
        }
        let target: PostgresStore
        do { target = try await PostgresStore.open(url: to) } catch { throw .store(error) }
        let copied: [(table: String, rows: Int)]
        do {
            copied = try await migrate(
                from: source, to: target, naming: (from, PostgresStore.redacted(to)), replace: arguments.flag("replace")
            )
            await source.close()
            await target.close()
        } catch {
            await source.close()
            await target.close()
            throw .store(error)
        }
        if arguments.flag("json") {
            let line = JSONLine(["from": .string(from), "to": .string(PostgresStore.redacted(to))])
                .adding(copied.map { ($0.table, JSONValue.int($0.rows)) })
            Output.line(line.description)
        } else {
            for (table, rows) in copied {
                Output.line("\(table.padding(toLength: 18, withPad: " ", startingAt: 0)) \(rows) rows")
            }
            Output.line(
                "copied \(from) to \(PostgresStore.redacted(to)); point database (APNSD_DATABASE) at it and start the workers there"
            )
        }
    }

    /// Checks that no worker runs on the source and that the target is empty (or empties it), then copies.
    private static func migrate(
        from source: Store, to target: PostgresStore, naming names: (from: String, to: String),
        replace: Bool
    ) async throws -> [(table: String, rows: Int)] {
        let live = try await source.workers().filter {
            Date().timeIntervalSince($0.heartbeatAt) < 60 && !$0.processIsGone
        }
        guard live.isEmpty else {
            let workers = live.map { "\($0.host) pid \($0.pid)" }.joined(separator: ", ")
            throw CLIError.failure(
                "workers are running on \(names.from) (\(workers)): stop them (and 'apnsd serve') before migrating")
        }
        let filled = try await target.nonEmptyTables()
        if !filled.isEmpty && !replace {
            throw CLIError.failure(
                "\(names.to) already holds rows (\(filled.joined(separator: ", "))): "
                    + "migrate into an empty database, or pass --replace to empty it first")
        }
        if replace { try await target.emptyAllTables() }
        try await source.prepareForExport()
        let copied = try await copy(from: source, to: target)
        try await target.finishImport()
        return copied
    }

    /// Copies every table in pages, then checks that both sides count the same rows.
    private static func copy(from source: Store, to target: PostgresStore) async throws -> [(table: String, rows: Int)]
    {
        var copied: [(table: String, rows: Int)] = []
        for table in CopyTable.all {
            var after: [CopyValue]?
            var rows = 0
            while true {
                let batch = try await source.exportRows(table, after: after, limit: page)
                if batch.isEmpty { break }
                try await target.importRows(table, batch)
                rows += batch.count
                after = Array(batch[batch.count - 1].prefix(table.key.count))
                if batch.count < page { break }
            }
            let expected = try await source.rowCount(table)
            let landed = try await target.rowCount(table)
            guard rows == expected, landed == expected else {
                throw CLIError.failure(
                    "\(table.name): \(expected) rows in the source, \(rows) read, \(landed) in the target; nothing is lost "
                        + "in the source: fix the cause and run again with --replace")
            }
            copied.append((table.name, rows))
        }
        return copied
    }
}
