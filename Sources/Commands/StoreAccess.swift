import Intake
import PostgresStore
import QueueModel
import Store

/// Opening the database for a command, with errors that tell the operator what to do. The one place the
/// commands' store is assembled: they see it through the store protocols only.
enum StoreAccess {
    /// The producer side, for every command but the worker. Commands that only read pass `readOnly`, so that
    /// they work on a file this user may not write (the worker's, read by an operator) and never change it, not
    /// even by migrating it.
    static func open(
        _ configuration: Configuration, create: Bool = false, readOnly: Bool = false,
        cacheSizeMiB: Int = 64
    ) async throws(CLIError) -> any ProducerStore {
        try await openAny(configuration, create: create, readOnly: readOnly, cacheSizeMiB: cacheSizeMiB)
    }

    /// The worker side, for `apnsd worker`.
    static func openForWorker(_ configuration: Configuration) async throws(CLIError) -> any DeliveryStore & GaugeStore {
        try await openAny(configuration, create: false, readOnly: false, cacheSizeMiB: 64)
    }

    /// `apnsd status`: read only, what `StatusReport` reads.
    static func openForStatus(_ configuration: Configuration) async throws(CLIError) -> any ProducerStore
        & DeliveryStore & EventStore & GaugeStore
    {
        try await openAny(configuration, create: false, readOnly: true, cacheSizeMiB: 16)
    }

    /// `apnsd serve`: one read-write store for the API and its worker.
    static func openForServe(_ configuration: Configuration) async throws(CLIError) -> any ProducerStore & DeliveryStore
        & APIKeyStore & EventStore & GaugeStore & ChannelStore
    {
        try await openAny(configuration, create: false, readOnly: false, cacheSizeMiB: 64)
    }

    /// API-key management (`apnsd api-key`); `readOnly` for listing.
    static func openForAPIKeys(_ configuration: Configuration, readOnly: Bool = false) async throws(CLIError)
        -> any APIKeyStore
    {
        try await openAny(configuration, create: false, readOnly: readOnly, cacheSizeMiB: 64)
    }

    /// Broadcast channels (`apnsd channel`); `readOnly` for listing.
    static func openForChannels(_ configuration: Configuration, readOnly: Bool = false) async throws(CLIError)
        -> any ChannelStore
    {
        try await openAny(configuration, create: false, readOnly: readOnly, cacheSizeMiB: 16)
    }

    /// `apnsd send --channel`: the channel is read, then the broadcast enqueued.
    static func openForBroadcast(_ configuration: Configuration) async throws(CLIError) -> any ProducerStore
        & ChannelStore
    {
        try await openAny(configuration, create: false, readOnly: false, cacheSizeMiB: 16)
    }

    /// `apnsd backup`: read-only, so an operator who may only read the file can copy it.
    static func openForBackup(_ configuration: Configuration) async throws(CLIError) -> any BackupStore {
        try await openAny(configuration, create: false, readOnly: true, cacheSizeMiB: 16)
    }

    /// Retention (`apnsd prune`); `readOnly` for a dry run.
    static func openForRetention(_ configuration: Configuration, readOnly: Bool) async throws(CLIError)
        -> any RetentionStore
    {
        try await openAny(configuration, create: false, readOnly: readOnly, cacheSizeMiB: 64)
    }

    /// Every store protocol, on either engine.
    typealias AnyStore = any ProducerStore & DeliveryStore & APIKeyStore & EventStore & GaugeStore & RetentionStore
        & BackupStore & ChannelStore

    /// The store `database` names: a `postgres://` or `postgresql://` URL is PostgreSQL, anything else a SQLite file.
    private static func openAny(
        _ configuration: Configuration, create: Bool, readOnly: Bool,
        cacheSizeMiB: Int
    ) async throws(CLIError) -> AnyStore {
        let database = configuration.database
        do {
            if PostgresStore.isURL(database) {
                return try await PostgresStore.open(
                    url: database, options: PostgresStore.Options(createIfMissing: create, readOnly: readOnly))
            }
            return try await Store.open(
                at: database,
                options: Store.Options(createIfMissing: create, readOnly: readOnly, cacheSizeMiB: cacheSizeMiB))
        } catch .databaseMissing {
            let name = PostgresStore.isURL(database) ? PostgresStore.redacted(database) : database
            throw .failure("no database at \(name); run 'apnsd init' first (or set database / APNSD_DATABASE)")
        } catch {
            throw .store(error)
        }
    }
}

extension CLIError {
    /// Wraps a store (or other) error as a failure (exit 1), with apnsd's hint for a store error; a CLIError
    /// passes through.
    static func store(_ error: any Error) -> CLIError {
        if let error = error as? CLIError { return error }
        if let error = error as? StoreError { return .failure("\(error)\(hint(error))") }
        return .failure("\(error)")
    }

    /// What an operator of apnsd does about a store error, appended to its line ("" when its line says it all).
    static func hint(_ error: StoreError) -> String {
        switch error {
        case .readOnly:
            return ": run apnsd as the database's owner or group, or create it with 'apnsd init --group NAME'"
        case .olderSchema:
            return ": run 'apnsd init' as the database's owner"
        case .databaseMissing:
            return ", or run a command that creates it (e.g. apnsd device add)"
        default:
            return ""
        }
    }
}
