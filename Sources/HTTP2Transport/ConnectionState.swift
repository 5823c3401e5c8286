/// What one connection of a pool is doing, for `apnsd_apns_connections{state}` and status pages.
public enum ConnectionState: String, Sendable, Hashable, CaseIterable {
    /// A TCP/TLS connection to APNs is open.
    case open
    /// None is open: one is being set up, or will be with the next request (never used yet, or closed while idle).
    case connecting
    /// Its last connection attempt failed; it waits out a pause before the next one.
    case backoff
}
