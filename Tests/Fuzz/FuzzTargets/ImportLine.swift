import APNs
import Intake

extension FuzzTargets {
    /// `DeviceToken(_:)`, `DeviceToken(normalizedHex:)`, `ImportLine.parse` and `ImportLine.tokenOnly`. An accepted
    /// token is lowercase even-length hex that round-trips; an accepted user id is printable valid UTF-8 of 1–256
    /// bytes; the two line parsers agree on the token; a line parses the same from any slice offset.
    public static func importLine(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        if let token = try? DeviceToken(text) { checkToken(token) }
        if let token = DeviceToken(normalizedHex: bytes[...]) {
            checkToken(token)
            require(token.hex.utf8.elementsEqual(bytes), "normalizedHex changed the bytes")
            require((try? DeviceToken(text)) == token, "normalizedHex accepted what init(_:) refuses: \(shown(bytes))")
        }

        // Results, not try?, which would fold "skipped" (nil) into "refused".
        let line = Result { () throws(IntakeError) in try ImportLine.parse(bytes[...]) }
        let tokenLine = Result { () throws(IntakeError) in try ImportLine.tokenOnly(bytes[...]) }
        // The same line inside a larger buffer (slices do not start at 0), as the importer reads them.
        let framed = [UInt8(ascii: "\n")] + bytes + [UInt8(ascii: "\n")]
        let inner = framed[1..<(framed.count - 1)]
        require(
            Result { () throws(IntakeError) in try ImportLine.parse(inner) } == line,
            "parse depends on the slice's start: \(shown(bytes))")
        require(
            Result { () throws(IntakeError) in try ImportLine.tokenOnly(inner) } == tokenLine,
            "tokenOnly depends on the slice's start: \(shown(bytes))")

        if case .success(let parsed?) = line {
            checkToken(parsed.token)
            require(tokenLine == .success(parsed.token), "parse and tokenOnly disagree on the token: \(shown(bytes))")
            if let user = parsed.user {
                let utf8 = Array(user.utf8)
                require(
                    !utf8.isEmpty && utf8.count <= UserID.maximumBytes,
                    "user id of \(utf8.count) bytes: \(shown(bytes))")
                require(String(validating: utf8, as: UTF8.self) == user, "user id is not valid UTF-8")
                require(Printable.isPrintable(user), "user id is not printable: \(shown(bytes))")
                require(!user.contains(","), "user id holds a comma: \(shown(bytes))")
                require(
                    !(utf8.first == 0x20 || utf8.first == 0x09 || utf8.last == 0x20 || utf8.last == 0x09),
                    "user id is not trimmed: \(shown(bytes))")
            }
        }
        if case .success(nil) = line {
            require(tokenLine == .success(nil), "parse skipped a line tokenOnly did not: \(shown(bytes))")
        }
        if case .success(let token?) = tokenLine { checkToken(token) }
    }

    private static func checkToken(_ token: DeviceToken) {
        let hex = Array(token.hex.utf8)
        require(
            !hex.isEmpty && hex.count % 2 == 0 && hex.count <= DeviceToken.maximumHexLength, "token length \(hex.count)"
        )
        require(
            hex.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) },
            "token is not lowercase hex: \(shown(hex))")
        require((try? DeviceToken(token.hex)) == token, "token does not round-trip: \(token.hex)")
        require(DeviceToken(normalizedHex: hex[...]) == token, "token is not normalized: \(token.hex)")
    }
}
