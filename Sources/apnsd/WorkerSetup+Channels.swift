import Channels
import HTTP2Transport
import Intake
import QueueModel

/// Channel management with the worker's credentials: each key's provider token (minted here, never logged) or
/// each certificate's client identity, routed by TopicRoutes as pushes are.
extension WorkerSetup {
    /// The channel manager on `store`.
    func channelManager(store: any ChannelStore) -> ChannelManager {
        let set = credentialSet()
        let identities = clientIdentities(of: set)
        let credentials = credentials.compactMap { loaded -> ChannelCredential? in
            guard let sending = set.byName[loaded.name] else { return nil }
            switch sending.authorization {
            case .token(let cache, _, _, _):
                return ChannelCredential(name: loaded.name, authentication: .token(cache))
            case .certificate:
                guard let identity = identities[sending.poolID] else { return nil }
                return ChannelCredential(name: loaded.name, authentication: .certificate(identity))
            }
        }
        let client = ChannelClient(baseURLs: [.production: configuration.channelProductionURL,
                                              .development: configuration.channelDevelopmentURL],
                                   caFile: configuration.caFile, timeout: .milliseconds(Int64(configuration.requestTimeout * 1000)))
        return ChannelManager(store: store, client: client, credentials: credentials, routes: routes)
    }
}
