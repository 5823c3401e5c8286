import APNs
import Foundation

/// A credential APNs refused (403 InvalidProviderToken, BadCertificate, …) or that cannot make a provider token:
/// its deliveries wait, unsent and with their attempts unspent, while the other credentials keep sending. One probe
/// goes when each pause ends (decorrelated backoff between `retry.base` and `retry.cap`, as for an outage); any
/// answer other than a refusal ends the pause, as does a reload (SIGHUP) that replaces the credential.
struct CredentialPause: Sendable {
    var backoff: OutageBackoff
    /// The refusal's HTTP status (nil: the token could not be made).
    var status: Int?
    var reason: Reason
    /// What the operator reads (`403 InvalidProviderToken`).
    var detail: String
    /// Its certificate has expired: no probe goes (it cannot succeed) until a reload brings another.
    var certificateExpired = false

    init(base: Duration, cap: Duration) {
        backoff = OutageBackoff(base: base, cap: cap)
        status = nil
        reason = .invalidProviderToken
        detail = ""
    }

    /// When a held delivery of this credential is due again: when the pause ends, spread over a second so that the
    /// held work does not come back in one claim; while the probe is out, a second from now.
    func due(now: Date, unit: Double) -> Date {
        let end = backoff.probing ? now : max(now, backoff.pausedUntil ?? now)
        return end.addingTimeInterval(1 + unit)
    }
}

/// A credential's state as `/v1/status` (through the worker's stored view) and metrics show it.
public struct CredentialStatus: Sendable, Hashable {
    public var name: String
    /// Why its deliveries are paused (`403 InvalidProviderToken`); nil while it sends.
    public var paused: String?
    public var pausedSince: Date?
    /// When the next probe may go.
    public var nextProbe: Date?
    /// For a certificate credential: when the certificate expires.
    public var certificateExpires: Date?

    public init(
        name: String, paused: String? = nil, pausedSince: Date? = nil, nextProbe: Date? = nil,
        certificateExpires: Date? = nil
    ) {
        self.name = name
        self.paused = paused
        self.pausedSince = pausedSince
        self.nextProbe = nextProbe
        self.certificateExpires = certificateExpires
    }

    /// Whole days until its certificate expires, rounded down (negative once expired); nil for a key.
    public func certificateDaysLeft(now: Date) -> Int? {
        certificateExpires.map { Int((($0.timeIntervalSince(now)) / 86_400).rounded(.down)) }
    }
}
