import ProviderAuth

extension FuzzTargets {
    /// `SigningKey(pem:)`: throws ProviderAuthError (typed) or gives a key that signs and verifies; leaves
    /// nothing on OpenSSL's error queue either way (a stale error would show up in a later, unrelated message).
    /// Leaks of OpenSSL objects are for LeakSanitizer (scripts/fuzz runs with -detect_leaks=1).
    public static func key(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        do {
            let key = try SigningKey(pem: text)
            let message = Array("fuzz".utf8)
            let signature = try key.signES256(message)
            require(signature.count == 64, "raw signature of \(signature.count) bytes")
            require(
                key.verifyES256(message: message, rawSignature: signature), "a loaded key's signature does not verify")
            // Written back out, the key reads again.
            require((try? SigningKey(pem: key.pkcs8PEM)) != nil, "a loaded key's PEM does not load again")
        } catch {
            require(!error.description.isEmpty, "an empty error")
        }
        let queue = OpenSSLErrorQueue.drain()
        require(queue == "no OpenSSL error queued", "SigningKey(pem:) left errors on OpenSSL's queue: \(queue)")
    }
}
