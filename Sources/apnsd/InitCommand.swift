/// `apnsd init`: create or migrate the database; safe to run again.
enum InitCommand {
    static func run(_ words: [String]) async throws(CLIError) {
        let arguments = try Arguments(words, valued: Configuration.flagNames, flagNames: [])
        let configuration = try Configuration.load(arguments: arguments)
        _ = try arguments.positionals(exactly: [])
        let store = try await StoreAccess.open(configuration, create: true)
        await store.close()
        Output.line("database ready at \(configuration.database)")
    }
}
