internal import COpenSSL

extension SigningKey {
    /// The private key as unencrypted PKCS#8 PEM, for writing throwaway .p8 files; never log it.
    public var pkcs8PEM: String {
        // Secure-memory BIO: the buffer holding the private key is wiped when freed.
        pem(into: BIO_s_secmem()) { bio, key in
            PEM_write_bio_PKCS8PrivateKey(bio, key, nil, nil, 0, nil, nil)
        }
    }

    /// The public key as SubjectPublicKeyInfo PEM ("-----BEGIN PUBLIC KEY-----").
    public var publicKeyPEM: String {
        pem(into: BIO_s_mem()) { bio, key in
            PEM_write_bio_PUBKEY(bio, key)
        }
    }

    private func pem(into method: OpaquePointer?, write: (OpaquePointer, OpaquePointer) -> Int32) -> String {
        withPKey { key in
            // Writing an in-memory key to a memory BIO fails only when allocation fails, which Swift treats as fatal too.
            guard let bio = BIO_new(method) else {
                fatalError("SigningKey: BIO_new failed: \(OpenSSLErrorQueue.drain())")
            }
            defer { BIO_free(bio) }
            guard write(bio, key) == 1 else {
                fatalError("SigningKey: writing PEM failed: \(OpenSSLErrorQueue.drain())")
            }
            var start: UnsafeMutablePointer<CChar>?
            let length = apnsd_BIO_get_mem_data(bio, &start)
            guard let start, length > 0 else { return "" }
            return String(decoding: UnsafeRawBufferPointer(start: start, count: length), as: UTF8.self)
        }
    }
}
