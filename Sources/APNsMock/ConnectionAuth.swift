import APNs
import Foundation

/// One connection's provider-token state: verdicts cached per distinct JWT (as APNs must, to stay fast),
/// and the rule that a connection may switch to a new token only once per `updateInterval`.
struct ConnectionAuth {
    let verifier: JWTVerifier
    let updateInterval: TimeInterval
    private var verdicts: [[UInt8]: (verdict: JWTVerdict, id: Int)] = [:]
    private var last: (authorization: [UInt8], verdict: JWTVerdict, id: Int)?
    private var current: (id: Int, issuedAt: Int)?
    private var switchedAt: TimeInterval = 0

    init(verifier: JWTVerifier, updateInterval: TimeInterval) {
        self.verifier = verifier
        self.updateInterval = updateInterval
    }

    /// Distinct tokens this connection has carried.
    var distinctTokens: Int { verdicts.count }

    /// The stored copy of the last authorization checked, so the next identical header can share its storage.
    var lastAuthorization: [UInt8]? { last?.authorization }

    /// The APNs error for this authorization, or nil when the request may proceed; `der` reports a DER signature.
    mutating func check(_ authorization: [UInt8]?, now: TimeInterval) -> (problem: (Int, Reason)?, der: Bool) {
        guard let authorization, !authorization.isEmpty else { return ((403, .missingProviderToken), false) }
        let entry: (authorization: [UInt8], verdict: JWTVerdict, id: Int)
        if let last, last.authorization == authorization {
            entry = last
        } else if let cached = verdicts[authorization] {
            entry = (authorization, cached.verdict, cached.id)
        } else {
            let verdict = verifier.verify(authorization: String(decoding: authorization, as: UTF8.self), now: Date(timeIntervalSince1970: now))
            entry = (authorization, verdict, verdicts.count + 1)
            verdicts[authorization] = (verdict, entry.id)
        }
        last = entry
        switch entry.verdict {
        case .missing: return ((403, .missingProviderToken), false)
        case .invalid: return ((403, .invalidProviderToken), false)
        case .expired: return ((403, .expiredProviderToken), false)
        case .valid(let issuedAt, let der):
            if now - TimeInterval(issuedAt) > verifier.maxAge { return ((403, .expiredProviderToken), der) }
            if let current, current.id != entry.id {
                let currentExpired = now - TimeInterval(current.issuedAt) > verifier.maxAge
                if !currentExpired && now - switchedAt < updateInterval {
                    return ((429, .tooManyProviderTokenUpdates), der)
                }
            }
            if current?.id != entry.id {
                current = (entry.id, issuedAt)
                switchedAt = now
            }
            return (nil, der)
        }
    }
}
