import Foundation
import ProviderAuth

/// The mock's judgement of an `authorization` header, one case per APNs answer.
public enum JWTVerdict: Sendable, Equatable {
    /// A good token; `derSignature` is true when it carried DER instead of raw r‖s (APNs is lenient; the mock counts
    /// it); `team` is the index in `JWTVerifier.teams` of the team whose key signed it.
    case valid(issuedAt: Int, derSignature: Bool, team: Int = 0)
    /// No header, or no token after "bearer": 403 MissingProviderToken.
    case missing
    /// Malformed, not ES256, a kid naming no team's key, an iss other than that key's team, bad signature, or
    /// issued in the future: 403 InvalidProviderToken.
    /// The reason is a fixed phrase, safe to count in stats; it never quotes the token.
    case invalid(String)
    /// Issued more than `maxAge` ago: 403 ExpiredProviderToken.
    case expired
}

/// Checks provider tokens the way APNs does: ES256 signature, kid, iss and iat, against the key the token's kid
/// names among the configured teams' keys.
public struct JWTVerifier: Sendable {
    /// The teams whose tokens are accepted, each with its key.
    public let teams: [MockTeam]
    private let teamByKeyID: [String: Int]
    /// Tokens whose iat is older than this are expired; APNs uses one hour.
    public let maxAge: TimeInterval
    /// How far in the future an iat may be before the token is invalid, to forgive small clock differences.
    public let allowedClockSkew: TimeInterval

    /// A verifier for tokens minted with `key` under `credential`: one team, any topic.
    public init(
        key: SigningKey, credential: ProviderCredential, maxAge: TimeInterval = 3600,
        allowedClockSkew: TimeInterval = 60
    ) {
        self.init(
            teams: [MockTeam(key: key, credential: credential)], maxAge: maxAge, allowedClockSkew: allowedClockSkew)
    }

    /// A verifier for tokens of any of `teams`; a key id listed twice keeps its first team.
    public init(teams: [MockTeam], maxAge: TimeInterval = 3600, allowedClockSkew: TimeInterval = 60) {
        self.teams = teams
        var byKeyID: [String: Int] = [:]
        for (index, team) in teams.enumerated() where byKeyID[team.credential.keyId] == nil {
            byKeyID[team.credential.keyId] = index
        }
        teamByKeyID = byKeyID
        self.maxAge = maxAge
        self.allowedClockSkew = allowedClockSkew
    }

    /// Judges the value of an `authorization` header ("bearer <jwt>", scheme case-insensitive) at time `now`.
    public func verify(authorization: String?, now: Date) -> JWTVerdict {
        guard let header = authorization?.trimmingCharacters(in: .whitespaces), !header.isEmpty else {
            return .missing
        }
        let scheme = header.prefix { $0 != " " }
        guard scheme.lowercased() == "bearer" else {
            return .invalid("authorization scheme is not bearer")
        }
        let token = header.dropFirst(scheme.count).trimmingCharacters(in: .whitespaces)
        guard !token.isEmpty else { return .missing }
        return verify(token: token, now: now)
    }

    private func verify(token: String, now: Date) -> JWTVerdict {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3 else { return .invalid("not three dot-separated segments") }
        guard let header = Self.jsonObject(segments[0]) else { return .invalid("header is not base64url JSON") }
        guard header["alg"] as? String == "ES256" else { return .invalid("alg is not ES256") }
        guard let keyID = header["kid"] as? String, let team = teamByKeyID[keyID] else {
            return .invalid("kid names no configured key")
        }
        guard let claims = Self.jsonObject(segments[1]) else { return .invalid("claims are not base64url JSON") }
        guard claims["iss"] as? String == teams[team].credential.teamId else {
            return .invalid("iss does not match the team")
        }
        guard let issuedAt = claims["iat"] as? Int, !(claims["iat"] is NSDecimalNumber) else {
            return .invalid("iat is not an integer")
        }
        guard let signature = Base64URL.decode(segments[2]) else { return .invalid("signature is not base64url") }
        let signingInput = token.utf8.prefix(segments[0].utf8.count + 1 + segments[1].utf8.count)
        guard let derSignature = Self.checkSignature(signature, over: signingInput, key: teams[team].key) else {
            return .invalid("signature does not verify")
        }
        let age = now.timeIntervalSince1970 - TimeInterval(issuedAt)
        if age < -allowedClockSkew { return .invalid("iat is in the future") }
        if age > maxAge { return .expired }
        return .valid(issuedAt: issuedAt, derSignature: derSignature, team: team)
    }

    // Returns whether the good signature was DER, or nil when it does not verify in either form.
    private static func checkSignature(_ signature: [UInt8], over message: Substring.UTF8View, key: SigningKey) -> Bool?
    {
        if signature.count == 64, key.verifyES256(message: message, rawSignature: signature) {
            return false
        }
        // A DER ECDSA-Sig-Value starts with SEQUENCE (0x30); a raw r‖s may too, hence the order above.
        if signature.first == 0x30, key.verifyES256DER(message: message, derSignature: signature) {
            return true
        }
        return nil
    }

    private static func jsonObject(_ segment: Substring) -> [String: Any]? {
        guard let bytes = Base64URL.decode(segment) else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
    }
}
