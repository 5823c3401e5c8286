internal import COpenSSL

/// Converts ECDSA P-256 signatures between OpenSSL's DER form and JWT's raw 64-byte r‖s, through OpenSSL's own codec.
enum ECDSASignature {
    /// Bytes per coordinate of a P-256 signature.
    static let coordinateLength = 32

    /// The raw r‖s form (always 64 bytes: short r or s are left-padded with zeros), or nil if `der` is not an ECDSA-Sig-Value.
    static func raw(fromDER der: [UInt8]) -> [UInt8]? {
        der.withUnsafeBufferPointer { buffer -> [UInt8]? in
            var cursor = buffer.baseAddress
            guard let signature = d2i_ECDSA_SIG(nil, &cursor, buffer.count) else {
                OpenSSLErrorQueue.clear()
                return nil
            }
            defer { ECDSA_SIG_free(signature) }
            var r: OpaquePointer?
            var s: OpaquePointer?
            ECDSA_SIG_get0(signature, &r, &s)
            var raw = [UInt8](repeating: 0, count: 2 * coordinateLength)
            let written = raw.withUnsafeMutableBufferPointer { out in
                (
                    BN_bn2binpad(r, out.baseAddress, Int32(coordinateLength)),
                    BN_bn2binpad(s, out.baseAddress! + coordinateLength, Int32(coordinateLength))
                )
            }
            guard written == (Int32(coordinateLength), Int32(coordinateLength)) else {
                OpenSSLErrorQueue.clear()
                return nil
            }
            return raw
        }
    }

    /// The DER form of a raw r‖s signature, or nil if `raw` is not 64 bytes.
    static func der(fromRaw raw: [UInt8]) -> [UInt8]? {
        guard raw.count == 2 * coordinateLength, let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let (r, s) = raw.withUnsafeBufferPointer { input in
            (
                BN_bin2bn(input.baseAddress, Int32(coordinateLength), nil),
                BN_bin2bn(input.baseAddress! + coordinateLength, Int32(coordinateLength), nil)
            )
        }
        // ECDSA_SIG_set0 takes ownership of r and s only when it succeeds.
        guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            OpenSSLErrorQueue.clear()
            return nil
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { out in
            var cursor = out.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        return written == length ? der : nil
    }
}
