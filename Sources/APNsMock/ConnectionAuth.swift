import APNs
internal import COpenSSL
import Foundation

/// The SHA-256 of an authorization header: what the verdict cache and the token-switch rule compare, so neither
/// keeps a header's bytes (a collision would need a second preimage, so a forged header cannot borrow a verdict).
struct AuthorizationDigest: Hashable {
    var words: (UInt64, UInt64, UInt64, UInt64)

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        var out = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        withUnsafeMutableBytes(of: &out) { raw in
            var length: UInt32 = 32
            _ = EVP_Digest(
                bytes.baseAddress, bytes.count, raw.baseAddress!.assumingMemoryBound(to: UInt8.self), &length,
                EVP_sha256(), nil)
        }
        words = out
    }

    static func == (a: Self, b: Self) -> Bool {
        a.words.0 == b.words.0 && a.words.1 == b.words.1 && a.words.2 == b.words.2 && a.words.3 == b.words.3
    }

    func hash(into hasher: inout Hasher) { hasher.combine(words.0) }
}

/// What a request's `authorization` header came to, judged when the header arrived: the stream keeps this, never
/// the header itself.
enum PresentedAuthorization {
    /// Longer than `ConnectionAuth.maximumHeaderBytes`: refused unread, as InvalidProviderToken.
    case oversized
    case judged(AuthorizationDigest, JWTVerdict)
}

/// One connection's provider-token state: verdicts cached per distinct JWT (as APNs must, to stay fast), and the
/// rule that a connection may switch to a new token only once per `updateInterval`.
///
/// Bounded: headers over `maximumHeaderBytes` are refused without being verified or kept; the cache holds the
/// SHA-256 of at most `maximumCachedVerdicts` headers (the oldest goes first), and only the last header's bytes,
/// so the next identical one costs a memcmp.
struct ConnectionAuth {
    /// A provider JWT is about 200 bytes (ES256 header, iss and iat claims, 64-byte signature); 4096 leaves room for
    /// twenty times that while keeping what one header can cost small.
    static let maximumHeaderBytes = 4096
    /// A client rotates its token every 20 to 60 minutes, and APNs refuses switches more often than every 20: a
    /// connection that needs more than a few verdicts is not a provider.
    static let maximumCachedVerdicts = 64

    let verifier: JWTVerifier
    let updateInterval: TimeInterval
    private var verdicts: [AuthorizationDigest: JWTVerdict] = [:]
    private var order: [AuthorizationDigest] = []
    private var oldest = 0
    private var last: (header: [UInt8], digest: AuthorizationDigest, verdict: JWTVerdict)?
    private var current: (digest: AuthorizationDigest, issuedAt: Int)?
    private var switchedAt: TimeInterval = 0
    /// Distinct tokens this connection has carried (a token evicted from the cache and seen again counts again).
    private(set) var distinctTokens = 0

    init(verifier: JWTVerifier, updateInterval: TimeInterval) {
        self.verifier = verifier
        self.updateInterval = updateInterval
    }

    /// Judges an `authorization` header as it arrives: from the cache, or verified (at `now()`) once and cached.
    mutating func judge(_ header: UnsafeBufferPointer<UInt8>, now: () -> TimeInterval) -> PresentedAuthorization {
        guard header.count <= Self.maximumHeaderBytes else { return .oversized }
        if header.isEmpty { return .judged(AuthorizationDigest(header), .missing) }
        if let last, last.header.equals(header) { return .judged(last.digest, last.verdict) }
        let digest = AuthorizationDigest(header)
        let verdict: JWTVerdict
        if let cached = verdicts[digest] {
            verdict = cached
        } else {
            verdict = verifier.verify(
                authorization: String(decoding: header, as: UTF8.self), now: Date(timeIntervalSince1970: now()))
            remember(digest, verdict)
            distinctTokens += 1
        }
        last = (Array(header), digest, verdict)
        return .judged(digest, verdict)
    }

    private mutating func remember(_ digest: AuthorizationDigest, _ verdict: JWTVerdict) {
        if order.count < Self.maximumCachedVerdicts {
            order.append(digest)
        } else {
            verdicts[order[oldest]] = nil
            order[oldest] = digest
            oldest = (oldest + 1) % order.count
        }
        verdicts[digest] = verdict
    }

    /// Whether this connection was refused a token switch (429 TooManyProviderTokenUpdates): from then on it is
    /// unusable and every request on it gets that answer until the client opens a new connection. APNs leaves such a
    /// connection failing for its old token too (Pushy #811: failures for over an hour until the connection closed).
    private(set) var spoiled = false

    /// The APNs error for this request's authorization, or nil when the request may proceed; `der` reports a DER
    /// signature, `team` the index (in `verifier.teams`) of the team whose token was accepted.
    mutating func check(_ presented: PresentedAuthorization?, now: TimeInterval) -> (
        problem: (Int, Reason)?, der: Bool, team: Int?
    ) {
        if spoiled { return ((429, .tooManyProviderTokenUpdates), false, nil) }
        guard let presented else { return ((403, .missingProviderToken), false, nil) }
        guard case .judged(let digest, let verdict) = presented else {
            return ((403, .invalidProviderToken), false, nil)
        }
        switch verdict {
        case .missing: return ((403, .missingProviderToken), false, nil)
        case .invalid: return ((403, .invalidProviderToken), false, nil)
        case .expired: return ((403, .expiredProviderToken), false, nil)
        case .valid(let issuedAt, let der, let team):
            if now - TimeInterval(issuedAt) > verifier.maxAge { return ((403, .expiredProviderToken), der, nil) }
            if let current, current.digest != digest {
                let currentExpired = now - TimeInterval(current.issuedAt) > verifier.maxAge
                if !currentExpired && now - switchedAt < updateInterval {
                    spoiled = true
                    return ((429, .tooManyProviderTokenUpdates), der, nil)
                }
            }
            if current?.digest != digest {
                current = (digest, issuedAt)
                switchedAt = now
            }
            return (nil, der, team)
        }
    }
}
