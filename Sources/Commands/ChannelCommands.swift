import APNs
import Channels
import Foundation
import Intake
import QueueModel

/// `apnsd channel create | list | show | delete`: iOS 18 broadcast channels, at APNs (channel management API)
/// and in the local `channels` table.
enum ChannelCommands {
    /// `--storage` when not given: `latest` keeps APNs's usual store-and-forward (a device that comes back online gets
    /// the last update, and broadcasts may carry an expiration); `none` is the opt-in for updates that are worthless
    /// once late, for the larger publishing budget.
    static let defaultStorage = ChannelStorage.latest

    static func create(_ words: [String]) async throws(CLIError) {
        let arguments = try Arguments(
            words, valued: Set(["topic", "storage", "environment"]).union(Configuration.flagNames), flagNames: ["json"])
        let configuration = try Configuration.load(arguments: arguments)
        _ = try arguments.positionals(exactly: [])
        guard let topic = try arguments.value("topic") ?? configuration.topic else {
            throw .usage("--topic BUNDLE is required (or set apns.topic)")
        }
        do { try ChannelManagement.validate(bundleID: topic) } catch { throw .usage("--topic: \(error)") }
        var storage = defaultStorage
        if let text = try arguments.value("storage") {
            do { storage = try ChannelStorage.parse(text) } catch { throw .usage("--storage: \(error)") }
        }
        let environment = try environment(arguments) ?? .production
        let setup = try WorkerSetup(configuration)
        if let why = setup.routes.refusal(for: topic) { throw .usage(why) }
        let manager = setup.channelManager(store: try await StoreAccess.openForChannels(configuration))
        let channel: Channel
        do { channel = try await manager.create(topic: topic, storage: storage, environment: environment) } catch {
            throw .failure(error.description)
        }
        if arguments.flag("json") { return Output.line(channel.json.description) }
        Output.line(
            "created channel \(channel.id): \(channel.channelID) (\(channel.topic), \(channel.environment), storage \(channel.storage), credential \(channel.credential))"
        )
    }

    /// The local table; with `--topic B`, also APNs's `all-channels` for B (ChannelManager.list).
    static func list(_ words: [String]) async throws(CLIError) {
        let arguments = try Arguments(
            words, valued: Set(["topic", "environment"]).union(Configuration.flagNames), flagNames: ["json", "deleted"])
        let configuration = try Configuration.load(arguments: arguments)
        _ = try arguments.positionals(exactly: [])
        let topic = try arguments.value("topic")
        if let topic {
            do { try ChannelManagement.validate(bundleID: topic) } catch { throw .usage("--topic: \(error)") }
        }
        let environment = try environment(arguments)
        if environment != nil && topic == nil {
            throw .usage("--environment needs --topic (it names which APNs list to compare with)")
        }
        let store = try await StoreAccess.openForChannels(configuration, readOnly: true)
        let listing: ChannelListing
        do {
            if let topic {
                let setup = try WorkerSetup(configuration)
                if let why = setup.routes.refusal(for: topic) { throw CLIError.usage(why) }
                listing = try await setup.channelManager(store: store).list(
                    topic: topic, environment: environment,
                    includeDeleted: arguments.flag("deleted"))
            } else {
                let rows = try await store.channels(topic: nil, includeDeleted: arguments.flag("deleted"))
                listing = ChannelListing(
                    rows: rows.map { .init(channel: $0, atAPNs: nil) }, notRecorded: [], compared: false)
            }
        } catch let error as CLIError {
            throw error
        } catch let error as ChannelError {
            throw .failure(error.description)
        } catch {
            throw .store(error)
        }
        printTable(listing, json: arguments.flag("json"))
    }

    static func show(_ words: [String]) async throws(CLIError) {
        let arguments = try Arguments(words, valued: Configuration.flagNames, flagNames: ["json"])
        let configuration = try Configuration.load(arguments: arguments)
        let reference = ChannelReference(try arguments.positionals(exactly: ["ID"])[0])
        let setup = try WorkerSetup(configuration)
        let manager = setup.channelManager(store: try await StoreAccess.openForChannels(configuration, readOnly: true))
        let shown: (channel: Channel, apnsStorage: ChannelStorage?)
        do { shown = try await manager.show(reference) } catch { throw .failure(error.description) }
        let channel = shown.channel
        if arguments.flag("json") {
            return Output.line(channel.json.adding([("apnsStorage", .string(shown.apnsStorage?.rawValue))]).description)
        }
        Output.line(
            """
            channel      \(channel.id)
            channel id   \(channel.channelID)
            topic        \(channel.topic)
            environment  \(channel.environment)
            storage      \(channel.storage) (message-storage-policy \(channel.storage.messageStoragePolicy))
            at APNs      \(shown.apnsStorage.map { "exists, storage \($0)" } ?? "deleted (not asked)")
            credential   \(channel.credential)
            created      \(Output.timestamp(channel.createdAt))
            deleted      \(channel.deletedAt.map(Output.timestamp) ?? "-")
            """)
    }

    static func delete(_ words: [String]) async throws(CLIError) {
        let arguments = try Arguments(words, valued: Configuration.flagNames, flagNames: [])
        let configuration = try Configuration.load(arguments: arguments)
        let reference = ChannelReference(try arguments.positionals(exactly: ["ID"])[0])
        let setup = try WorkerSetup(configuration)
        let manager = setup.channelManager(store: try await StoreAccess.openForChannels(configuration))
        let channel: Channel
        do { channel = try await manager.delete(reference) } catch { throw .failure(error.description) }
        Output.line("deleted channel \(channel.id): \(channel.channelID) (\(channel.topic), \(channel.environment))")
    }

    private static func environment(_ arguments: Arguments) throws(CLIError) -> Environment? {
        guard let text = try arguments.value("environment") else { return nil }
        do { return try Environment.parse(text) } catch { throw .usage("--environment: \(error)") }
    }

    /// Aligned columns, or JSON Lines (`atAPNs` only when APNs was asked).
    private static func printTable(_ listing: ChannelListing, json: Bool) {
        if json {
            for row in listing.rows {
                Output.line(
                    row.atAPNs.map { row.channel.json.adding([("atAPNs", .bool($0))]) }?.description
                        ?? row.channel.json.description)
            }
            for extra in listing.notRecorded {
                Output.line(
                    JSONLine([
                        "id": .string(nil), "channelId": .string(extra.channelID), "topic": .string(extra.topic),
                        "environment": .string(extra.environment.rawValue), "atAPNs": .bool(true),
                    ]).description)
            }
            return
        }
        let ids = listing.rows.map(\.channel.channelID) + listing.notRecorded.map(\.channelID)
        let topics = listing.rows.map(\.channel.topic) + listing.notRecorded.map(\.topic)
        let width = max(26, (ids.map(\.count).max() ?? 0) + 2)
        let topicWidth = max(24, (topics.map(\.count).max() ?? 0) + 2)
        let pad = Output.pad
        Output.line(
            pad("ID", 8) + pad("CHANNEL ID", width) + pad("TOPIC", topicWidth) + pad("ENVIRONMENT", 13)
                + pad("STORAGE", 9)
                + pad("CREATED", 26) + (listing.compared ? pad("DELETED", 26) + "AT APNS" : "DELETED"))
        for row in listing.rows {
            let channel = row.channel
            let deleted = channel.deletedAt.map(Output.timestamp) ?? "-"
            Output.line(
                pad("\(channel.id)", 8) + pad(channel.channelID, width) + pad(channel.topic, topicWidth)
                    + pad(channel.environment.rawValue, 13) + pad(channel.storage.rawValue, 9)
                    + pad(Output.timestamp(channel.createdAt), 26)
                    + (listing.compared
                        ? pad(deleted, 26) + (row.atAPNs.map { $0 ? "yes" : "missing" } ?? "-") : deleted))
        }
        for extra in listing.notRecorded {
            Output.line(
                pad("-", 8) + pad(extra.channelID, width) + pad(extra.topic, topicWidth)
                    + pad(extra.environment.rawValue, 13)
                    + pad("?", 9) + pad("-", 26) + pad("-", 26) + "not recorded")
        }
    }
}
