internal import COpenSSL

extension SigningKey {
    /// Signs `message` with ECDSA P-256 over SHA-256 and returns the raw 64-byte r‖s that JWTs carry.
    public func signES256(_ message: [UInt8]) throws(ProviderAuthError) -> [UInt8] {
        let der = try signES256DER(message)
        guard let raw = ECDSASignature.raw(fromDER: der) else {
            throw .signingFailed(openSSLErrors: "OpenSSL returned a signature that is not DER ECDSA-Sig-Value")
        }
        return raw
    }

    /// Signs `message` with ECDSA P-256 over SHA-256 and returns OpenSSL's DER ECDSA-Sig-Value.
    public func signES256DER(_ message: [UInt8]) throws(ProviderAuthError) -> [UInt8] {
        OpenSSLErrorQueue.clear()
        guard let context = EVP_MD_CTX_new() else {
            throw .signingFailed(openSSLErrors: OpenSSLErrorQueue.drain())
        }
        defer { EVP_MD_CTX_free(context) }
        return try withPKey { key throws(ProviderAuthError) in
            guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else {
                throw .signingFailed(openSSLErrors: OpenSSLErrorQueue.drain())
            }
            var length = 0
            guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else {
                throw .signingFailed(openSSLErrors: OpenSSLErrorQueue.drain())
            }
            var signature = [UInt8](repeating: 0, count: length)
            guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1 else {
                throw .signingFailed(openSSLErrors: OpenSSLErrorQueue.drain())
            }
            return Array(signature.prefix(length))
        }
    }
}
