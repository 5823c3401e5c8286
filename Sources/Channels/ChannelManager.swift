import APNs
import Foundation
import QueueModel

/// Broadcast channel management as `apnsd channel` and `/v1/channels` do it: APNs first, then the local table
/// (nothing is written when APNs did not succeed). The credential is the one TopicRoutes picks for the bundle id.
public struct ChannelManager: Sendable {
    public let store: any ChannelStore
    public let client: ChannelClient
    /// The credentials by name.
    public let credentials: [String: ChannelCredential]
    public let routes: TopicRoutes

    public init(store: any ChannelStore, client: ChannelClient, credentials: [ChannelCredential], routes: TopicRoutes) {
        self.store = store
        self.client = client
        self.credentials = Dictionary(credentials.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.routes = routes
    }

    /// Creates a channel for `topic` at APNs and records it.
    public func create(topic: String, storage: ChannelStorage, environment: Environment, now: Date = Date())
        async throws(ChannelError) -> Channel
    {
        do { try ChannelManagement.validate(bundleID: topic) } catch { throw .invalid("\(error)") }
        let credential = try credential(for: topic)
        let id = try await client.create(
            bundleID: topic, storage: storage, environment: environment, credential: credential)
        do {
            return try await store.recordChannel(
                channelID: id, topic: topic, environment: environment, storage: storage,
                credential: credential.name, now: now)
        } catch {
            throw .store(error)
        }
    }

    /// The local table (only `topic`'s when given; deleted rows with `includeDeleted`). With a topic, APNs's
    /// `all-channels` is read too — in `environment`, or in each environment the topic has live channels in
    /// (production when none) — and compared: each row says whether APNs lists it, and APNs's other channels are
    /// `notRecorded`. `environment` without a topic is refused (it names which APNs list to compare with).
    public func list(topic: String?, environment: Environment? = nil, includeDeleted: Bool) async throws(ChannelError)
        -> ChannelListing
    {
        guard let topic else {
            if environment != nil {
                throw .invalid("an environment needs a topic (it names which APNs list to compare with)")
            }
            do {
                let rows = try await store.channels(topic: nil, includeDeleted: includeDeleted)
                return ChannelListing(
                    rows: rows.map { .init(channel: $0, atAPNs: nil) }, notRecorded: [], compared: false)
            } catch {
                throw .store(error)
            }
        }
        do { try ChannelManagement.validate(bundleID: topic) } catch { throw .invalid("\(error)") }
        let credential = try credential(for: topic)
        let local: [Channel]
        do { local = try await store.channels(topic: topic, includeDeleted: includeDeleted) } catch {
            throw .store(error)
        }
        let environments =
            environment.map { [$0] }
            ?? {
                let used = Environment.all.filter { env in local.contains { $0.environment == env && !$0.isDeleted } }
                return used.isEmpty ? [.production] : used
            }()
        var listed: [Int64: Bool] = [:]
        var notRecorded: [ChannelListing.Unrecorded] = []
        for env in environments {
            let remote = Set(try await client.list(bundleID: topic, environment: env, credential: credential))
            var known: Set<String> = []
            // Only live rows are compared (a deleted one is not expected at APNs; if it is still listed, it shows as not recorded).
            for channel in local where channel.environment == env && !channel.isDeleted {
                known.insert(channel.channelID)
                listed[channel.id] = remote.contains(channel.channelID)
            }
            notRecorded += remote.subtracting(known).sorted().map {
                .init(channelID: $0, topic: topic, environment: env)
            }
        }
        let rows = local.filter { environment == nil || $0.environment == environment }.map {
            ChannelListing.Row(channel: $0, atAPNs: listed[$0.id])
        }
        return ChannelListing(rows: rows, notRecorded: notRecorded, compared: true)
    }

    /// The local row and, for a channel not deleted, its storage policy as APNs reads it.
    public func show(_ reference: ChannelReference) async throws(ChannelError) -> (
        channel: Channel, apnsStorage: ChannelStorage?
    ) {
        let channel = try await find(reference)
        guard !channel.isDeleted else { return (channel, nil) }
        let credential = try credential(for: channel.topic)
        let storage = try await client.read(
            bundleID: channel.topic, channelID: channel.channelID, environment: channel.environment,
            credential: credential)
        return (channel, storage)
    }

    /// Deletes the channel at APNs, then marks its row deleted (kept for the log).
    public func delete(_ reference: ChannelReference, now: Date = Date()) async throws(ChannelError) -> Channel {
        let channel = try await find(reference)
        guard !channel.isDeleted else { throw .alreadyDeleted(channel) }
        let credential = try credential(for: channel.topic)
        try await client.delete(
            bundleID: channel.topic, channelID: channel.channelID, environment: channel.environment,
            credential: credential)
        let marked: Channel?
        do { marked = try await store.markChannelDeleted(id: channel.id, now: now) } catch { throw .store(error) }
        guard let marked else { throw .unknownChannel(reference) }
        return marked
    }

    private func find(_ reference: ChannelReference) async throws(ChannelError) -> Channel {
        let found: Channel?
        do { found = try await store.channel(reference) } catch { throw .store(error) }
        guard let found else { throw .unknownChannel(reference) }
        return found
    }

    private func credential(for topic: String) throws(ChannelError) -> ChannelCredential {
        guard let name = routes.credential(for: topic), let credential = credentials[name] else {
            throw .noCredential(routes.refusal(for: topic) ?? "no credential sends for \(topic)")
        }
        return credential
    }
}
