/// Why a connection to APNs could not be set up, for `apnsd_apns_connect_failures_total{reason}` and the
/// `apns.connection_failed` line.
public enum ConnectFailureReason: String, Sendable, Hashable, CaseIterable {
    /// The host name did not resolve (nor the proxy's).
    case dns
    /// TCP refused or unreachable.
    case connect
    /// The TLS handshake failed or the server's certificate was refused.
    case tls
    /// The connect timeout expired.
    case timeout
    /// Anything else.
    case other
}
