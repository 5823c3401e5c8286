/// Builds a DER ECDSA-Sig-Value from raw r‖s by hand, independently of the library's OpenSSL-based conversion.
enum HandDER {
    static func signature(fromRaw raw: [UInt8]) -> [UInt8] {
        precondition(raw.count == 64)
        let body = integer(raw[0..<32]) + integer(raw[32..<64])
        return [0x30, UInt8(body.count)] + body
    }

    private static func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var magnitude = Array(bytes.drop { $0 == 0 })
        if magnitude.isEmpty { magnitude = [0] }
        if magnitude[0] >= 0x80 { magnitude.insert(0, at: 0) }
        return [0x02, UInt8(magnitude.count)] + magnitude
    }
}
