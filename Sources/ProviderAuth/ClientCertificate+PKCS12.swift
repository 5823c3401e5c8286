internal import COpenSSL

extension ClientCertificate {
    /// Decodes a PKCS#12 (.p12) file: its MAC is checked first, so a wrong password is told apart from damage.
    static func fromPKCS12(_ bytes: [UInt8], password: String?) throws(ProviderAuthError) -> ClientCertificate {
        OpenSSLErrorQueue.clear()
        let decoded: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_PKCS12(nil, &cursor, buffer.count)
        }
        guard let p12 = decoded else {
            OpenSSLErrorQueue.clear()
            throw .notACertificate
        }
        defer { PKCS12_free(p12) }
        let password = password.flatMap { $0.isEmpty ? nil : $0 }
        try verifyMAC(p12, password: password)

        var key: OpaquePointer?
        var leaf: OpaquePointer?
        var extra: OpaquePointer?
        defer {
            EVP_PKEY_free(key)
            X509_free(leaf)
            if let extra {
                for certificate in certificates(in: extra) { X509_free(certificate) }
                OPENSSL_sk_free(extra)
            }
        }
        if !parse(p12, password: password, key: &key, leaf: &leaf, extra: &extra) {
            let entries = OpenSSLErrorQueue.drainEntries()
            // OpenSSL 3 keeps RC2 (older Keychain exports) in its legacy provider, which is not loaded by default.
            guard entries.contains(where: { ERR_GET_REASON($0.code) == unsupportedReason }) else {
                throw failure(entries, password: password)
            }
            if let error = legacyProviderError { throw .legacyPKCS12Unsupported(openSSLErrors: error) }
            guard parse(p12, password: password, key: &key, leaf: &leaf, extra: &extra) else {
                throw failure(OpenSSLErrorQueue.drainEntries(), password: password)
            }
        }
        let others = extra.map(certificates) ?? []
        guard let key else {
            throw leaf == nil && others.isEmpty ? .notACertificate : .certificateWithoutPrivateKey
        }
        if let leaf { return try assemble(leaf: leaf, key: key, chain: others) }
        // Without a localKeyID pairing them, PKCS12_parse returns every certificate as "other": find the key's own.
        guard let index = others.firstIndex(where: { X509_check_private_key($0, key) == 1 }) else {
            OpenSSLErrorQueue.clear()
            throw others.isEmpty ? .notACertificate : .certificateKeyMismatch
        }
        OpenSSLErrorQueue.clear()
        var chain = others
        let own = chain.remove(at: index)
        return try assemble(leaf: own, key: key, chain: chain)
    }

    /// The X509s of a STACK_OF(X509) (the sk_X509_* macros do not import into Swift), still owned by the stack.
    private static func certificates(in stack: OpaquePointer) -> [OpaquePointer] {
        (0..<max(0, OPENSSL_sk_num(stack))).compactMap { OPENSSL_sk_value(stack, $0).map(OpaquePointer.init) }
    }

    /// Without a password, OpenSSL's own rule applies: the MAC may be keyed with "" or with no password at all.
    private static func verifyMAC(_ p12: OpaquePointer, password: String?) throws(ProviderAuthError) {
        guard PKCS12_mac_present(p12) == 1 else { return }
        let verified: Bool
        if let password {
            verified = PKCS12_verify_mac(p12, password, Int32(clamping: password.utf8.count)) == 1
        } else {
            verified = PKCS12_verify_mac(p12, "", 0) == 1 || PKCS12_verify_mac(p12, nil, 0) == 1
        }
        guard !verified else {
            OpenSSLErrorQueue.clear()
            return
        }
        // OpenSSL 3.0 returns a MAC that does not match without queueing an error; later versions queue this reason.
        let entries = OpenSSLErrorQueue.drainEntries()
        guard entries.isEmpty || entries.contains(where: { ERR_GET_REASON($0.code) == PKCS12_R_MAC_VERIFY_FAILURE })
        else {
            throw .malformedCertificate(openSSLErrors: OpenSSLErrorQueue.text(of: entries))
        }
        throw password == nil ? .certificatePasswordRequired : .wrongCertificatePassword
    }

    private static func parse(
        _ p12: OpaquePointer, password: String?, key: inout OpaquePointer?, leaf: inout OpaquePointer?,
        extra: inout OpaquePointer?
    ) -> Bool {
        PKCS12_parse(p12, password, &key, &leaf, &extra) == 1
    }

    /// A file without a MAC cannot tell a wrong password from damage but by the decryption failing.
    private static func failure(_ entries: [(code: UInt, text: String)], password: String?) -> ProviderAuthError {
        let badDecrypt = entries.contains { entry in
            let reason = ERR_GET_REASON(entry.code)
            return reason == EVP_R_BAD_DECRYPT || reason == PKCS12_R_PKCS12_CIPHERFINAL_ERROR
        }
        if badDecrypt { return password == nil ? .certificatePasswordRequired : .wrongCertificatePassword }
        return .malformedCertificate(openSSLErrors: OpenSSLErrorQueue.text(of: entries))
    }

    /// ERR_R_UNSUPPORTED (268 | ERR_RFLAG_COMMON), which Swift does not import: an algorithm no provider offers.
    private static let unsupportedReason: Int32 = 268 | (0x2 << 18)

    /// Loads OpenSSL's legacy provider once for the process; nil when loaded, else why not. The default provider
    /// is loaded explicitly too, because loading any provider stops OpenSSL from loading it on demand.
    private static let legacyProviderError: String? = {
        OpenSSLErrorQueue.clear()
        guard OSSL_PROVIDER_load(nil, "default") != nil, OSSL_PROVIDER_load(nil, "legacy") != nil else {
            return OpenSSLErrorQueue.drain()
        }
        return nil
    }()
}
