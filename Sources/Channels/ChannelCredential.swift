import HTTP2Transport
import ProviderAuth

/// A credential channel management requests authenticate with: the provider token of a key (the same JWT as
/// pushes), or the client certificate of a certificate credential.
public struct ChannelCredential: Sendable {
    /// How its requests prove who sends them.
    public enum Authentication: Sendable {
        /// `authorization: bearer <JWT>` from this cache (never logged).
        case token(ProviderTokenCache)
        /// The TLS client certificate presented on the connection.
        case certificate(ClientIdentity)
    }

    /// Its name in `apns.credentials` (`default` for the single key).
    public let name: String
    public let authentication: Authentication

    public init(name: String, authentication: Authentication) {
        self.name = name
        self.authentication = authentication
    }
}
