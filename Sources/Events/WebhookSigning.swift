import Foundation
import ProviderAuth

/// How the webhook signs a POST: `X-Apnsd-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`,
/// a second `v1=` with the previous secret while one is set (rotation), and, while `legacy` is on, the old
/// `X-Apnsd-Signature-Legacy: sha256=<hex HMAC-SHA256 of the body>`. The time makes a captured POST useless once
/// receivers refuse an old `t`. Secrets are never logged.
public struct WebhookSigning: Sendable {
    public var secret: String
    /// `webhook.previousSecret`: the secret being rotated out, still signed with until receivers have the new one.
    public var previousSecret: String?
    /// `webhook.legacySignature`: also send `X-Apnsd-Signature-Legacy`.
    public var legacy: Bool

    public init(secret: String, previousSecret: String? = nil, legacy: Bool = true) {
        self.secret = secret
        self.previousSecret = previousSecret
        self.legacy = legacy
    }

    /// The headers of a POST of `body` at `now`: content type, signature, and the legacy signature when on.
    public func headers(body: [UInt8], at now: Date) -> [(name: String, value: String)] {
        var headers = [
            (name: "Content-Type", value: "application/json"),
            (name: "X-Apnsd-Signature", value: signature(of: body, at: Self.seconds(now))),
        ]
        if legacy {
            headers.append((name: "X-Apnsd-Signature-Legacy", value: Self.legacySignature(of: body, secret: secret)))
        }
        return headers
    }

    /// `t=<seconds>,v1=<hex>` (and `,v1=<hex>` with the previous secret).
    public func signature(of body: [UInt8], at seconds: Int64) -> String {
        let signed = Array("\(seconds).".utf8) + body
        return "t=\(seconds)"
            + ([secret] + (previousSecret.map { [$0] } ?? [])).map {
                ",v1=" + HMACSHA256.hex(key: Array($0.utf8), message: signed)
            }.joined()
    }

    /// The old signature: `sha256=<hex HMAC-SHA256 of the body>`.
    public static func legacySignature(of body: [UInt8], secret: String) -> String {
        "sha256=" + HMACSHA256.hex(key: Array(secret.utf8), message: body)
    }

    /// Whole Unix seconds of `date`.
    static func seconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }
}
