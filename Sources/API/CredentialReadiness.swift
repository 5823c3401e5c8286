import Logging

/// One sending credential's state as `GET /readyz` shows it (in `credentials`, by name): whether it sends, why it
/// is paused, and how long its certificate has left.
public struct CredentialReadiness: Sendable, Hashable {
    public var name: String
    /// Why its deliveries are paused (`403 InvalidProviderToken`); nil while it sends.
    public var paused: String?
    /// Since when (RFC 3339), while paused.
    public var pausedSince: String?
    /// Whole days until its certificate expires (negative: expired); nil for a key.
    public var certificateDaysLeft: Int?

    public init(name: String, paused: String? = nil, pausedSince: String? = nil, certificateDaysLeft: Int? = nil) {
        self.name = name
        self.paused = paused
        self.pausedSince = pausedSince
        self.certificateDaysLeft = certificateDaysLeft
    }

    /// Its JSON object.
    var json: String {
        var fields = [#""status":\#(JSONText.quote(paused == nil ? "ok" : "paused"))"#]
        if let paused { fields.append(#""reason":\#(JSONText.quote(paused))"#) }
        if let pausedSince { fields.append(#""since":\#(JSONText.quote(pausedSince))"#) }
        if let certificateDaysLeft { fields.append(#""certificateDaysLeft":\#(certificateDaysLeft)"#) }
        return "{" + fields.joined(separator: ",") + "}"
    }
}
