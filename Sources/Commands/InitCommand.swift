import Foundation
import Intake
import PostgresStore
import QueueModel

/// `apnsd init [--group NAME]`: create or migrate the database; safe to run again. With `--group`, the
/// database and its directory are shared by the users of that group (see `DatabaseGroup`).
enum InitCommand {
    static func run(_ words: [String]) async throws(CLIError) {
        let arguments = try Arguments(words, valued: Configuration.flagNames.union(["group"]), flagNames: [])
        let configuration = try Configuration.load(arguments: arguments)
        _ = try arguments.positionals(exactly: [])
        let group = try arguments.value("group").map { (name: String) throws(CLIError) in try DatabaseGroup(name) }
        if PostgresStore.isURL(configuration.database) {
            // PostgreSQL: the database exists (created by its administrator); init creates or migrates the schema.
            if group != nil {
                throw .usage("--group shares a SQLite file; a PostgreSQL database's access is granted in PostgreSQL")
            }
            let store = try await StoreAccess.open(configuration, create: true)
            await store.close()
            return Output.line("database ready at \(configuration.databaseName)")
        }
        try group?.prepareDirectory(of: configuration.database)
        let created = DatabaseFile.createPrivate(configuration.database)
        let store: any ProducerStore
        do {
            store = try await StoreAccess.open(configuration, create: true)
        } catch {
            if created { unlink(configuration.database) }  // A failed init leaves nothing behind.
            throw error
        }
        await store.close()
        for file in DatabaseFile.removeWorldAccess(configuration.database) {
            Output.error(
                "apnsd: note: \(file) was readable by other users; their access is removed (it holds device tokens)")
        }
        guard let group else { return Output.line("database ready at \(configuration.database)") }
        try group.shareFiles(of: configuration.database)
        Output.line(
            "database ready at \(configuration.database), shared by group \(group.name) "
                + "(directory mode \(String(DatabaseGroup.directoryMode, radix: 8)), file mode \(String(DatabaseGroup.fileMode, radix: 8)))"
        )
    }
}
