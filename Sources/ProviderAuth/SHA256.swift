internal import COpenSSL

/// SHA-256 through OpenSSL (`EVP_Digest`): API key hashes and idempotency request hashes.
public enum SHA256 {
    /// The digest of `bytes` as 64 lowercase hex digits.
    public static func hex(_ bytes: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBytes { raw in
            EVP_Digest(raw.baseAddress, raw.count, &digest, &length, EVP_sha256(), nil)
        }
        // SHA-256 needs no provider beyond the default one and no allocation that can fail in practice.
        precondition(ok == 1 && length == 32, "EVP_Digest(SHA-256) failed: \(OpenSSLErrorQueue.drain())")
        return LowercaseHex.encode(digest.prefix(32))
    }
}
