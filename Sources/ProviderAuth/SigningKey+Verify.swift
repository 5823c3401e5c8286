internal import COpenSSL

extension SigningKey {
    /// True when `rawSignature` is a valid 64-byte r‖s ES256 signature of `message` by this key.
    public func verifyES256(message: some Collection<UInt8>, rawSignature: [UInt8]) -> Bool {
        guard let der = ECDSASignature.der(fromRaw: rawSignature) else { return false }
        return verifyES256DER(message: message, derSignature: der)
    }

    /// True when `derSignature` is a valid DER ECDSA-Sig-Value over SHA-256 of `message` by this key.
    public func verifyES256DER(message: some Collection<UInt8>, derSignature: [UInt8]) -> Bool {
        let bytes = Array(message)
        guard let context = EVP_MD_CTX_new() else {
            OpenSSLErrorQueue.clear()
            return false
        }
        defer { EVP_MD_CTX_free(context) }
        let verified = withPKey { key in
            EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1
                && EVP_DigestVerify(context, derSignature, derSignature.count, bytes, bytes.count) == 1
        }
        // A bad signature queues errors; they are the answer, not a fault, and must not confuse later calls.
        OpenSSLErrorQueue.clear()
        return verified
    }
}
