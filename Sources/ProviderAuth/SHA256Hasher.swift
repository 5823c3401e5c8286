internal import COpenSSL

extension SHA256 {
    /// A SHA-256 digest fed in pieces (`EVP_DigestUpdate`): the same digest as `SHA256.hex` of the pieces joined,
    /// without holding them. For input read as a stream, a token file say.
    public final class Hasher {
        private let context: OpaquePointer

        public init() {
            // As `SHA256.hex`: the default provider's SHA-256, and allocations that do not fail in practice.
            guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
                preconditionFailure("EVP_DigestInit_ex(SHA-256) failed: \(OpenSSLErrorQueue.drain())")
            }
            self.context = context
        }

        deinit { EVP_MD_CTX_free(context) }

        /// Adds `bytes` to the digest.
        public func update(_ bytes: UnsafeBufferPointer<UInt8>) {
            let ok = EVP_DigestUpdate(context, bytes.baseAddress, bytes.count)
            precondition(ok == 1, "EVP_DigestUpdate failed: \(OpenSSLErrorQueue.drain())")
        }

        /// The digest of everything added, as 64 lowercase hex digits. The hasher is spent after it.
        public func finish() -> String {
            var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
            var length: UInt32 = 0
            let ok = EVP_DigestFinal_ex(context, &digest, &length)
            precondition(ok == 1 && length == 32, "EVP_DigestFinal_ex failed: \(OpenSSLErrorQueue.drain())")
            return LowercaseHex.encode(digest.prefix(32))
        }
    }
}
