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
        let arguments = try Arguments(words, valued: Set(["topic", "storage", "environment"]).union(Configuration.flagNames), flagNames: ["json"])
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
        do { channel = try await manager.create(topic: topic, storage: storage, environment: environment) } catch { throw .failure(error.description) }
        if arguments.flag("json") { return Output.line(channel.json.description) }
        Output.line("created channel \(channel.id): \(channel.channelID) (\(channel.topic), \(channel.environment), storage \(channel.storage), credential \(channel.credential))")
    }

    /// The local table; with `--topic B`, also APNs's `all-channels` for B (in `--environment`, or in each
    /// environment B has rows in, production when none), marking channels only one side knows.
    static func list(_ words: [String]) async throws(CLIError) {
        let arguments = try Arguments(words, valued: Set(["topic", "environment"]).union(Configuration.flagNames), flagNames: ["json", "deleted"])
        let configuration = try Configuration.load(arguments: arguments)
        _ = try arguments.positionals(exactly: [])
        let topic = try arguments.value("topic")
        if let topic { do { try ChannelManagement.validate(bundleID: topic) } catch { throw .usage("--topic: \(error)") } }
        let environment = try environment(arguments)
        if environment != nil && topic == nil { throw .usage("--environment needs --topic (it names which APNs list to compare with)") }
        let json = arguments.flag("json")
        guard let topic else {
            let store = try await StoreAccess.openForChannels(configuration, readOnly: true)
            let channels: [Channel]
            do { channels = try await store.channels(topic: nil, includeDeleted: arguments.flag("deleted")) } catch { throw .store(error) }
            return printTable(channels.map { ($0, nil) }, apnsOnly: [], json: json)
        }
        let setup = try WorkerSetup(configuration)
        let manager = setup.channelManager(store: try await StoreAccess.openForChannels(configuration))
        do {
            let local = try await manager.list(topic: topic, includeDeleted: arguments.flag("deleted"))
            let environments = environment.map { [$0] } ?? {
                let used = Environment.all.filter { env in local.contains { $0.environment == env && !$0.isDeleted } }
                return used.isEmpty ? [.production] : used
            }()
            var listed: [String: Bool] = [:]
            var apnsOnly: [(String, Environment)] = []
            for env in environments {
                let comparison = try await manager.compare(topic: topic, environment: env)
                for channel in comparison.both { listed["\(channel.id)"] = true }
                for channel in comparison.localOnly { listed["\(channel.id)"] = false }
                apnsOnly += comparison.apnsOnly.map { ($0, env) }
            }
            let rows = local.filter { environment == nil || $0.environment == environment }.map { ($0, listed["\($0.id)"]) }
            printTable(rows, apnsOnly: apnsOnly.map { (topic, $0.0, $0.1) }, json: json)
        } catch {
            throw .failure(error.description)
        }
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
        Output.line("""
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

    /// Aligned columns, or JSON Lines; `atAPNs` is nil when APNs was not asked.
    private static func printTable(_ rows: [(Channel, Bool?)], apnsOnly: [(topic: String, channelID: String, environment: Environment)], json: Bool) {
        if json {
            for (channel, atAPNs) in rows {
                Output.line(atAPNs.map { channel.json.adding([("atAPNs", .bool($0))]) }?.description ?? channel.json.description)
            }
            for extra in apnsOnly {
                Output.line(JSONLine(["id": .int(nil), "channelId": .string(extra.channelID), "topic": .string(extra.topic),
                                      "environment": .string(extra.environment.rawValue), "atAPNs": .bool(true)]).description)
            }
            return
        }
        let compared = rows.contains { $0.1 != nil } || !apnsOnly.isEmpty
        let width = max(26, (rows.map(\.0.channelID.count) + apnsOnly.map(\.channelID.count)).max().map { $0 + 2 } ?? 0)
        let topicWidth = max(24, (rows.map(\.0.topic.count) + apnsOnly.map(\.topic.count)).max().map { $0 + 2 } ?? 0)
        Output.line(Output.pad("ID", 8) + Output.pad("CHANNEL ID", width) + Output.pad("TOPIC", topicWidth) + Output.pad("ENVIRONMENT", 13)
                    + Output.pad("STORAGE", 9) + Output.pad("CREATED", 26) + (compared ? Output.pad("DELETED", 26) + "AT APNS" : "DELETED"))
        for (channel, atAPNs) in rows {
            let deleted = channel.deletedAt.map(Output.timestamp) ?? "-"
            Output.line(Output.pad("\(channel.id)", 8) + Output.pad(channel.channelID, width) + Output.pad(channel.topic, topicWidth)
                        + Output.pad(channel.environment.rawValue, 13) + Output.pad(channel.storage.rawValue, 9)
                        + Output.pad(Output.timestamp(channel.createdAt), 26)
                        + (compared ? Output.pad(deleted, 26) + (atAPNs.map { $0 ? "yes" : "missing" } ?? "-") : deleted))
        }
        for extra in apnsOnly {
            Output.line(Output.pad("-", 8) + Output.pad(extra.channelID, width) + Output.pad(extra.topic, topicWidth)
                        + Output.pad(extra.environment.rawValue, 13) + Output.pad("?", 9) + Output.pad("-", 26) + Output.pad("-", 26)
                        + "not recorded")
        }
    }
}
