import APNs
import HTTP2Transport
import ProviderAuth

/// Why the worker must stop sending altogether: APNs or TLS refused our configuration, or no provider token can
/// be made. Nothing more would succeed until an operator fixes it; the queue is left as it was.
public enum WorkerStop: Error, Hashable, Sendable, CustomStringConvertible {
    /// APNs answered 403 with a reason other than ExpiredProviderToken (InvalidProviderToken, BadEnvironmentKeyInToken, …).
    case credentialsRefused(status: Int, reason: Reason)
    /// The server's certificate was not accepted (or the CA file is unusable).
    case tlsVerification(TransportError)
    /// The signing key could not make a provider token.
    case providerToken(ProviderAuthError)

    public var description: String {
        switch self {
        case .credentialsRefused(let status, let reason):
            return "APNs refused our credentials: \(status) \(reason) — check apns.keyFile, apns.keyId, apns.teamId and the environment"
        case .tlsVerification(let error):
            return "TLS verification of the APNs server failed: \(error)"
        case .providerToken(let error):
            return "cannot make a provider token: \(error)"
        }
    }
}
