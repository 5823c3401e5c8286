import Channels
import HTTP2Transport
import Intake
import ProviderAuth
import QueueModel

/// Channel management with the configured credentials: each key's provider token (its own cache, minted when first
/// needed, never logged) or each certificate's client identity, routed by TopicRoutes as pushes are.
extension WorkerSetup {
    /// The channel manager on `store`.
    func channelManager(store: any ChannelStore) -> ChannelManager {
        let credentials = credentials.map { loaded -> ChannelCredential in
            if let (key, credential) = loaded.key {
                return ChannelCredential(
                    name: loaded.name, authentication: .token(ProviderTokenCache(key: key, credential: credential)))
            }
            return ChannelCredential(name: loaded.name, authentication: .certificate(loaded.clientIdentity!))
        }
        let client = ChannelClient(
            baseURLs: [
                .production: configuration.channelProductionURL,
                .development: configuration.channelDevelopmentURL,
            ],
            caFile: configuration.caFile, timeout: .milliseconds(Int64(configuration.requestTimeout * 1000)),
            proxy: configuration.transportProxy)
        return ChannelManager(store: store, client: client, credentials: credentials, routes: routes)
    }
}
