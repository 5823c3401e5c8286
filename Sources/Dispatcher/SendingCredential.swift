import APNs
import Foundation
import HTTP2Transport
import ProviderAuth

/// One credential the worker sends with: its name (logs, `/v1/status`, metrics), the connection pools it owns, and how
/// its requests are authorized.
public struct SendingCredential: Sendable {
    /// How requests of this credential prove who sends them.
    public enum Authorization: Sendable {
        /// A provider token from this cache on every request (`authorization: bearer …`).
        /// `fingerprint` tells the key from another under the same key id (a file replaced in place).
        case token(ProviderTokenCache, keyID: String, teamID: String, fingerprint: String)
        /// The TLS client certificate the pool's connections present (the transport holds it); no header.
        /// `fingerprint` tells one certificate from its replacement.
        case certificate(notAfter: Date, fingerprint: String)
    }

    public let name: String
    public let authorization: Authorization
    /// The transport's pool id: changes with the key, so a connection never carries two keys' tokens
    /// (APNs allows one team's tokens per connection and refuses token switches within 20 minutes).
    public let poolID: String

    public init(name: String, authorization: Authorization) {
        self.name = name
        self.authorization = authorization
        switch authorization {
        case .token(_, let keyID, let teamID, let fingerprint):
            poolID = "\(name).\(teamID).\(keyID).\(fingerprint.prefix(8))"
        case .certificate(_, let fingerprint): poolID = "\(name).\(fingerprint.prefix(16))"
        }
    }

    /// When its certificate expires; nil for a key.
    public var certificateExpires: Date? {
        if case .certificate(let notAfter, _) = authorization { return notAfter }
        return nil
    }

    /// The pool for `environment`.
    public func poolKey(_ environment: Environment) -> PoolKey {
        PoolKey(credentialID: poolID, environment: environment)
    }
}

/// The worker's credentials by name, and which sends which topic.
public struct CredentialSet: Sendable {
    public let byName: [String: SendingCredential]
    public let routes: TopicRoutes

    public init(_ credentials: [SendingCredential], routes: TopicRoutes) {
        byName = Dictionary(credentials.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.routes = routes
    }

    /// One credential that sends every topic.
    public init(only credential: SendingCredential) {
        self.init([credential], routes: .only(credential.name))
    }

    /// The credential that sends `bundleID`'s notifications, or nil when none does.
    public func credential(for bundleID: String) -> SendingCredential? {
        routes.credential(for: bundleID).flatMap { byName[$0] }
    }

    /// Names, sorted.
    public var names: [String] { byName.keys.sorted() }
}
