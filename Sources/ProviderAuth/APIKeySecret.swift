internal import COpenSSL

/// The secrets of apnsd's API keys: `apnsd_` followed by 32 random bytes in unpadded base64url (49 characters),
/// and the one thing a store keeps of them, their SHA-256 hash in lowercase hex.
///
/// No constant-time comparison is needed: a presented secret is hashed and the store looks the hash up in a unique
/// index; nothing compares a secret (or a hash) byte by byte against a stored one in code whose timing an attacker
/// could measure to learn a prefix, and a hash prefix learnt through the index's timing would not help find a
/// secret (preimage resistance of SHA-256).
public enum APIKeySecret {
    /// What every secret starts with, so a leaked one is recognisable (e.g. by secret scanners).
    public static let prefix = "apnsd_"
    /// Random bytes per secret.
    public static let randomBytes = 32

    /// A new secret from OpenSSL's CSPRNG (`RAND_bytes`).
    public static func generate() throws(APIKeySecretError) -> String {
        var bytes = [UInt8](repeating: 0, count: randomBytes)
        guard RAND_bytes(&bytes, Int32(bytes.count)) == 1 else {
            throw .randomFailed(openSSLErrors: OpenSSLErrorQueue.drain())
        }
        return prefix + Base64URL.encode(bytes)
    }

    /// SHA-256 of the secret's UTF-8 text, as 64 lowercase hex digits (`EVP_Digest`).
    public static func hash(_ secret: String) -> String { SHA256.hex(Array(secret.utf8)) }

    /// Whether `text` has the shape of a secret (the prefix and 43 base64url characters): a quick refusal of
    /// something else presented as a bearer token, before any hashing or lookup.
    public static func isWellFormed(_ text: some StringProtocol) -> Bool {
        guard text.hasPrefix(prefix) else { return false }
        let body = text.dropFirst(prefix.count)
        guard body.utf8.count == (randomBytes * 4 + 2) / 3, let bytes = Base64URL.decode(body) else { return false }
        return bytes.count == randomBytes
    }
}

/// Generating a secret failed.
public enum APIKeySecretError: Error, Hashable, Sendable, CustomStringConvertible {
    case randomFailed(openSSLErrors: String)

    public var description: String {
        switch self {
        case .randomFailed(let errors):
            return "generating an API key secret failed (\(errors)): check the OpenSSL installation"
        }
    }
}
