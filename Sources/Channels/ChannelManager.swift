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
    public func create(topic: String, storage: ChannelStorage, environment: Environment, now: Date = Date()) async throws(ChannelError) -> Channel {
        do { try ChannelManagement.validate(bundleID: topic) } catch { throw .invalid("\(error)") }
        let credential = try credential(for: topic)
        let id = try await client.create(bundleID: topic, storage: storage, environment: environment, credential: credential)
        do {
            return try await store.recordChannel(channelID: id, topic: topic, environment: environment, storage: storage,
                                                 credential: credential.name, now: now)
        } catch {
            throw .store(error)
        }
    }

    /// The local table (only `topic`'s when given; deleted rows with `includeDeleted`).
    public func list(topic: String?, includeDeleted: Bool) async throws(ChannelError) -> [Channel] {
        if let topic { do { try ChannelManagement.validate(bundleID: topic) } catch { throw .invalid("\(error)") } }
        do { return try await store.channels(topic: topic, includeDeleted: includeDeleted) } catch { throw .store(error) }
    }

    /// The local table of `topic` compared with APNs's `all-channels` in `environment`.
    public func compare(topic: String, environment: Environment) async throws(ChannelError) -> ChannelComparison {
        do { try ChannelManagement.validate(bundleID: topic) } catch { throw .invalid("\(error)") }
        let credential = try credential(for: topic)
        let remote = try await client.list(bundleID: topic, environment: environment, credential: credential)
        let local: [Channel]
        do { local = try await store.channels(topic: topic, includeDeleted: false) } catch { throw .store(error) }
        let mine = local.filter { $0.environment == environment }
        let remoteSet = Set(remote)
        let localSet = Set(mine.map(\.channelID))
        return ChannelComparison(topic: topic, environment: environment, both: mine.filter { remoteSet.contains($0.channelID) },
                                 localOnly: mine.filter { !remoteSet.contains($0.channelID) },
                                 apnsOnly: remote.filter { !localSet.contains($0) })
    }

    /// The local row and, for a channel not deleted, its storage policy as APNs reads it.
    public func show(_ reference: ChannelReference) async throws(ChannelError) -> (channel: Channel, apnsStorage: ChannelStorage?) {
        let channel = try await find(reference)
        guard !channel.isDeleted else { return (channel, nil) }
        let credential = try credential(for: channel.topic)
        let storage = try await client.read(bundleID: channel.topic, channelID: channel.channelID, environment: channel.environment,
                                            credential: credential)
        return (channel, storage)
    }

    /// Deletes the channel at APNs, then marks its row deleted (kept for the log).
    public func delete(_ reference: ChannelReference, now: Date = Date()) async throws(ChannelError) -> Channel {
        let channel = try await find(reference)
        guard !channel.isDeleted else { throw .alreadyDeleted(channel) }
        let credential = try credential(for: channel.topic)
        try await client.delete(bundleID: channel.topic, channelID: channel.channelID, environment: channel.environment, credential: credential)
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
