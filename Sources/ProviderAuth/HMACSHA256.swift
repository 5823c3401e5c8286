internal import COpenSSL

/// HMAC-SHA256 (RFC 2104) through OpenSSL's one-shot `HMAC()`: the webhook's body signature.
public enum HMACSHA256 {
    /// The 32-byte MAC of `message` under `key`.
    public static func mac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        // An empty array may have no storage; HMAC wants valid pointers either way, so pass a one-byte buffer
        // with a length of 0.
        let keyStorage = key.isEmpty ? [0] : key
        let messageStorage = message.isEmpty ? [0] : message
        let result = HMAC(EVP_sha256(), keyStorage, Int32(key.count), messageStorage, message.count, &out, &length)
        // SHA-256 is in OpenSSL's default provider and HMAC() allocates nothing that can fail in practice.
        precondition(result != nil && length == 32, "HMAC(SHA-256) failed: \(OpenSSLErrorQueue.drain())")
        return Array(out.prefix(32))
    }

    /// The MAC as 64 lowercase hex digits.
    public static func hex(key: [UInt8], message: [UInt8]) -> String {
        LowercaseHex.encode(mac(key: key, message: message))
    }
}
