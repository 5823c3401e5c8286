import APNs
import Foundation

/// A signed provider token (compact JWT) for the `authorization: bearer` header; prints redacted.
public struct ProviderToken: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The compact JWT; a credential: send it to APNs, never log it.
    public let value: String
    /// The key id the token names in its "kid" header.
    public let keyId: String
    /// The token's "iat" claim, whole seconds.
    public let issuedAt: Date
    /// The value of the HTTP `authorization` header that carries this token: spelled once, sent with every request.
    public let authorizationHeader: String

    /// Wraps an already-signed compact JWT; `mint` is the usual way to get one.
    public init(value: String, keyId: String, issuedAt: Date) {
        self.value = value
        self.keyId = keyId
        self.issuedAt = issuedAt
        authorizationHeader = HeaderName.bearer(value)
    }

    public var description: String {
        "ProviderToken(kid: \(keyId.prefix(3))…, iat: \(Int(issuedAt.timeIntervalSince1970)))"
    }

    public var debugDescription: String {
        description
    }

    // dump() and debuggers walk the mirror: keep the JWT out of it too.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "keyId": keyId, "issuedAt": issuedAt, "value": "<redacted>", "authorizationHeader": "<redacted>",
            ])
    }
}
