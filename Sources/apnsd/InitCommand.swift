import Intake
/// `apnsd init [--group NAME]`: create or migrate the database; safe to run again. With `--group`, the
/// database and its directory are shared by the users of that group (see `DatabaseGroup`).
enum InitCommand {
    static func run(_ words: [String]) async throws(CLIError) {
        let arguments = try Arguments(words, valued: Configuration.flagNames.union(["group"]), flagNames: [])
        let configuration = try Configuration.load(arguments: arguments)
        _ = try arguments.positionals(exactly: [])
        let group = try arguments.value("group").map { (name: String) throws(CLIError) in try DatabaseGroup(name) }
        try group?.prepareDirectory(of: configuration.database)
        let store = try await StoreAccess.open(configuration, create: true)
        await store.close()
        guard let group else { return Output.line("database ready at \(configuration.database)") }
        try group.shareFiles(of: configuration.database)
        Output.line("database ready at \(configuration.database), shared by group \(group.name) "
            + "(directory mode \(String(DatabaseGroup.directoryMode, radix: 8)), file mode \(String(DatabaseGroup.fileMode, radix: 8)))")
    }
}
