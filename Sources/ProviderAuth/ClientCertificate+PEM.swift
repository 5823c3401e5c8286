internal import COpenSSL

#if canImport(Glibc)
    import Glibc
#endif

extension ClientCertificate {
    /// Decodes PEM text holding certificates and one private key, in any order; the certificate the key belongs
    /// to comes first in the chain, the others follow in file order.
    static func fromPEM(_ bytes: [UInt8], password: String?) throws(ProviderAuthError) -> ClientCertificate {
        OpenSSLErrorQueue.clear()
        let password = password.flatMap { $0.isEmpty ? nil : $0 }
        let blocks = try withBIO(bytes, blockSummary)
        guard blocks.certificates > 0 else { throw .notACertificate }
        guard blocks.keys > 0 else { throw .certificateWithoutPrivateKey }

        var certificates: [OpaquePointer] = []
        defer { for certificate in certificates { X509_free(certificate) } }
        try withBIO(bytes) { bio in
            while let certificate = PEM_read_bio_X509(bio, nil, nil, nil) { certificates.append(certificate) }
        }
        // The loop ends on "no start line" after the last block; a block that did not decode ends it early.
        guard certificates.count == blocks.certificates else {
            throw .malformedCertificate(openSSLErrors: OpenSSLErrorQueue.drain())
        }
        OpenSSLErrorQueue.clear()

        let key = try withBIO(bytes) { bio throws(ProviderAuthError) in
            try privateKey(from: bio, password: password, encrypted: blocks.encryptedKey)
        }
        defer { EVP_PKEY_free(key) }
        guard let leafIndex = certificates.firstIndex(where: { X509_check_private_key($0, key) == 1 }) else {
            OpenSSLErrorQueue.clear()
            throw .certificateKeyMismatch
        }
        OpenSSLErrorQueue.clear()
        var chain = certificates
        let leaf = chain.remove(at: leafIndex)
        return try assemble(leaf: leaf, key: key, chain: chain)
    }

    private struct Blocks {
        var certificates = 0
        var keys = 0
        var encryptedKey = false
    }

    /// Counts the blocks by their labels (and PEM headers, where traditional encrypted keys say "Proc-Type: 4,ENCRYPTED").
    private static func blockSummary(_ bio: OpaquePointer) -> Blocks {
        var blocks = Blocks()
        while true {
            var name: UnsafeMutablePointer<CChar>?
            var header: UnsafeMutablePointer<CChar>?
            var data: UnsafeMutablePointer<UInt8>?
            var length = 0
            guard PEM_read_bio(bio, &name, &header, &data, &length) == 1, let name else {
                OpenSSLErrorQueue.clear()
                return blocks
            }
            defer {
                if let data { OPENSSL_cleanse(data, length) }
                _ = apnsd_OPENSSL_free(data)
                _ = apnsd_OPENSSL_free(name)
                _ = apnsd_OPENSSL_free(header)
            }
            let label = String(cString: name)
            if label == "CERTIFICATE" || label == "X509 CERTIFICATE" {
                blocks.certificates += 1
            } else if label.hasSuffix("PRIVATE KEY") {
                blocks.keys += 1
                let headerText = header.map { String(cString: $0) } ?? ""
                if label == "ENCRYPTED PRIVATE KEY" || headerText.contains("ENCRYPTED") { blocks.encryptedKey = true }
            }
        }
    }

    private static func privateKey(from bio: OpaquePointer, password: String?, encrypted: Bool)
        throws(ProviderAuthError) -> OpaquePointer
    {
        let key: OpaquePointer?
        if let password {
            key = password.withCString {
                PEM_read_bio_PrivateKey(bio, nil, passwordCallback, UnsafeMutableRawPointer(mutating: $0))
            }
        } else {
            key = PEM_read_bio_PrivateKey(bio, nil, passwordCallback, nil)
        }
        guard let key else {
            let errors = OpenSSLErrorQueue.drain()
            guard encrypted else {
                throw .malformedCertificate(openSSLErrors: "its private key does not decode: \(errors)")
            }
            throw password == nil ? .certificatePasswordRequired : .wrongCertificatePassword
        }
        return key
    }

    /// Hands OpenSSL the password passed as user data; with none, fails instead of OpenSSL's default of
    /// prompting on the terminal.
    private static let passwordCallback:
        @convention(c) (UnsafeMutablePointer<CChar>?, Int32, Int32, UnsafeMutableRawPointer?) -> Int32 = {
            buffer, size, _, user in
            guard let buffer, let user else { return -1 }
            let password = user.assumingMemoryBound(to: CChar.self)
            let length = strlen(password)
            guard length <= Int(size) else { return -1 }
            buffer.update(from: password, count: length)
            return Int32(length)
        }

    /// A read-only memory BIO over `bytes` for `body`; the BIO reads the buffer in place, so no copy of a key is left.
    private static func withBIO<R>(_ bytes: [UInt8], _ body: (OpaquePointer) throws(ProviderAuthError) -> R)
        throws(ProviderAuthError) -> R
    {
        let result: Result<R, ProviderAuthError> = bytes.withUnsafeBytes { text in
            guard let bio = BIO_new_mem_buf(text.baseAddress, Int32(clamping: text.count)) else {
                return .failure(.malformedCertificate(openSSLErrors: OpenSSLErrorQueue.drain()))
            }
            defer { BIO_free(bio) }
            do throws(ProviderAuthError) { return .success(try body(bio)) } catch { return .failure(error) }
        }
        return try result.get()
    }
}
