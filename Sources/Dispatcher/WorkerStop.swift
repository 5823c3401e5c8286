import APNs
import HTTP2Transport

/// Why the worker must stop sending altogether: APNs or TLS refused our configuration, or no provider token can
/// be made. Nothing more would succeed until an operator fixes it; the queue is left as it was.
public enum WorkerStop: Error, Hashable, Sendable, CustomStringConvertible {
    /// APNs answered 403 with a reason other than ExpiredProviderToken (InvalidProviderToken, BadCertificate, …) to
    /// the credential named (status 0: its provider token could not be made).
    case credentialsRefused(status: Int, reason: Reason, credential: String)
    /// No credential sends these topics (with `--until-idle`: their deliveries were left pending).
    case noCredential(topics: [String])
    /// The server's certificate was not accepted (or the CA file is unusable).
    case tlsVerification(TransportError)

    public var description: String {
        switch self {
        case .credentialsRefused(let status, let reason, let credential):
            let what =
                credential == "default"
                ? "apns.keyFile, apns.keyId, apns.teamId" : "apns.credentials entry '\(credential)'"
            return
                "APNs refused our credentials: \(status == 0 ? "" : "\(status) ")\(reason) — check \(what) and the environment; its deliveries stay pending"
        case .noCredential(let topics):
            return
                "no credential sends for \(topics.joined(separator: ", ")): add them to an apns.credentials entry's topics; their deliveries stay pending"
        case .tlsVerification(let error):
            return "TLS verification of the APNs server failed: \(error)"
        }
    }
}
