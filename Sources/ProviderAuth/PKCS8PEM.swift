internal import COpenSSL

/// Decodes an unencrypted PKCS#8 PEM private key, telling apart the look-alikes people mistake for a .p8 file.
enum PKCS8PEM {
    /// A new EVP_PKEY that the caller owns, or the reason the text is not an unencrypted PKCS#8 key.
    static func privateKey(from pem: [UInt8]) throws(ProviderAuthError) -> OpaquePointer {
        OpenSSLErrorQueue.clear()
        let result: Result<OpaquePointer, ProviderAuthError> = pem.withUnsafeBytes { text in
            // A memory BIO reads the buffer in place, so all reading happens inside this closure.
            guard let bio = BIO_new_mem_buf(text.baseAddress, Int32(clamping: text.count)) else {
                return .failure(.malformedKey(openSSLErrors: OpenSSLErrorQueue.drain()))
            }
            defer { BIO_free(bio) }
            return firstKeyBlock(in: bio)
        }
        return try result.get()
    }

    private static func firstKeyBlock(in bio: OpaquePointer) -> Result<OpaquePointer, ProviderAuthError> {
        while true {
            var name: UnsafeMutablePointer<CChar>?
            var header: UnsafeMutablePointer<CChar>?
            var data: UnsafeMutablePointer<UInt8>?
            var length = 0
            guard PEM_read_bio(bio, &name, &header, &data, &length) == 1, let name, let data else {
                OpenSSLErrorQueue.clear()
                return .failure(.notPEM)
            }
            defer {
                OPENSSL_cleanse(data, length)
                _ = apnsd_OPENSSL_free(data)
                _ = apnsd_OPENSSL_free(name)
                _ = apnsd_OPENSSL_free(header)
            }
            let label = String(cString: name)
            // `openssl ecparam -genkey` writes an EC PARAMETERS block before the key.
            if label.hasSuffix("PARAMETERS") { continue }
            switch label {
            case "PRIVATE KEY":
                return decode(der: data, length: length).flatMap(requireP256)
            case "ENCRYPTED PRIVATE KEY":
                return .failure(.encrypted)
            case _ where label.hasSuffix("PRIVATE KEY"):
                return .failure(.notPKCS8(label: label))
            default:
                return .failure(.notAPrivateKey(label: label))
            }
        }
    }

    private static func decode(der: UnsafeMutablePointer<UInt8>, length: Int) -> Result<
        OpaquePointer, ProviderAuthError
    > {
        var cursor: UnsafePointer<UInt8>? = UnsafePointer(der)
        guard let info = d2i_PKCS8_PRIV_KEY_INFO(nil, &cursor, length) else {
            return .failure(.malformedKey(openSSLErrors: OpenSSLErrorQueue.drain()))
        }
        defer { PKCS8_PRIV_KEY_INFO_free(info) }
        guard let key = EVP_PKCS82PKEY(info) else {
            return .failure(.malformedKey(openSSLErrors: OpenSSLErrorQueue.drain()))
        }
        return .success(key)
    }

    private static func requireP256(_ key: OpaquePointer) -> Result<OpaquePointer, ProviderAuthError> {
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_EC else {
            let type = EVP_PKEY_get0_type_name(key).map { String(cString: $0) } ?? "non-EC"
            EVP_PKEY_free(key)
            return .failure(.notEC(keyType: type))
        }
        var buffer = [CChar](repeating: 0, count: 80)
        var length = 0
        guard EVP_PKEY_get_group_name(key, &buffer, buffer.count, &length) == 1 else {
            OpenSSLErrorQueue.clear()
            EVP_PKEY_free(key)
            return .failure(.notP256(curve: "explicit curve parameters"))
        }
        let curve = String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard OBJ_sn2nid(curve) == NID_X9_62_prime256v1 else {
            EVP_PKEY_free(key)
            return .failure(.notP256(curve: curve))
        }
        return checkPair(key)
    }

    /// A damaged .p8 can hold a private scalar that no longer matches the public key stored beside it: OpenSSL
    /// loads it, signs with the scalar, and every token is refused (found by fuzzing, FUZZING.md). Checks the
    /// scalar's range, the point, and that the two belong together.
    private static func checkPair(_ key: OpaquePointer) -> Result<OpaquePointer, ProviderAuthError> {
        let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil)
        let valid = context.map { EVP_PKEY_check($0) == 1 } ?? false
        EVP_PKEY_CTX_free(context)
        guard valid else {
            let errors = OpenSSLErrorQueue.drain()
            EVP_PKEY_free(key)
            return .failure(.malformedKey(openSSLErrors: "its public key does not match its private key: \(errors)"))
        }
        return .success(key)
    }
}
