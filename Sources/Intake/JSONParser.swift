/// A strict RFC 8259 parser for request bodies: valid UTF-8, no byte-order mark, no duplicate keys (Foundation's
/// parser lets the last one win, so two readers could see different requests), bounded depth, nothing after the
/// value. Errors say what and where, in one line.
public struct JSONParser {
    /// Deeper nesting than this is refused.
    public static let maximumDepth = 64

    private let bytes: [UInt8]
    private var index = 0

    private init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Parses `bytes` as one JSON value.
    public static func parse(_ bytes: [UInt8]) throws(IntakeError) -> JSONNode {
        guard String(validating: bytes, as: UTF8.self) != nil else { throw IntakeError("body is not valid UTF-8") }
        var parser = JSONParser(bytes)
        parser.skipSpace()
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.index == bytes.count else { throw parser.failure("unexpected data after the JSON value") }
        return value
    }

    private func failure(_ reason: String) -> IntakeError {
        IntakeError("invalid JSON: \(reason) at byte \(index)")
    }

    private mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func value(depth: Int) throws(IntakeError) -> JSONNode {
        guard depth < Self.maximumDepth else { throw failure("nested deeper than \(Self.maximumDepth) levels") }
        guard let byte = peek() else { throw failure("unexpected end") }
        switch byte {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw failure("unexpected character")
        }
    }

    private mutating func literal(_ word: String) throws(IntakeError) {
        let count = word.utf8.count
        guard index + count <= bytes.count, bytes[index..<index + count].elementsEqual(word.utf8) else {
            throw failure("unexpected character")
        }
        index += count
    }

    private mutating func object(depth: Int) throws(IntakeError) -> JSONNode {
        let start = index
        index += 1
        var members: [(key: String, value: JSONNode)] = []
        var keys = Set<String>()
        skipSpace()
        if peek() == UInt8(ascii: "}") {
            index += 1
            return .object([], raw: start..<index)
        }
        while true {
            guard peek() == UInt8(ascii: "\"") else { throw failure("expected a member name") }
            let key = try string()
            guard keys.insert(key).inserted else { throw failure("duplicate key \"\(key)\"") }
            skipSpace()
            guard peek() == UInt8(ascii: ":") else { throw failure("expected ':'") }
            index += 1
            skipSpace()
            members.append((key, try value(depth: depth + 1)))
            skipSpace()
            switch peek() {
            case UInt8(ascii: ","): index += 1; skipSpace()
            case UInt8(ascii: "}"): index += 1; return .object(members, raw: start..<index)
            default: throw failure("expected ',' or '}'")
            }
        }
    }

    private mutating func array(depth: Int) throws(IntakeError) -> JSONNode {
        index += 1
        var elements: [JSONNode] = []
        skipSpace()
        if peek() == UInt8(ascii: "]") {
            index += 1
            return .array([])
        }
        while true {
            elements.append(try value(depth: depth + 1))
            skipSpace()
            switch peek() {
            case UInt8(ascii: ","): index += 1; skipSpace()
            case UInt8(ascii: "]"): index += 1; return .array(elements)
            default: throw failure("expected ',' or ']'")
            }
        }
    }

    private mutating func string() throws(IntakeError) -> String {
        index += 1
        // Most strings (tokens, keys, user ids) have no escape: one scan, one decode of the bytes as they are.
        var end = index
        while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"), bytes[end] >= 0x20 { end += 1 }
        if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
            defer { index = end + 1 }
            return String(decoding: bytes[index..<end], as: UTF8.self)
        }
        var scalars = String.UnicodeScalarView()
        var runStart = index
        func flush(_ end: Int) {
            // The body was checked to be UTF-8, so an escape-free run decodes as is.
            scalars.append(contentsOf: String(decoding: bytes[runStart..<end], as: UTF8.self).unicodeScalars)
        }
        while true {
            guard let byte = peek() else { throw failure("unterminated string") }
            switch byte {
            case UInt8(ascii: "\""):
                flush(index)
                index += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                flush(index)
                index += 1
                scalars.append(try escape())
                runStart = index
            case 0..<0x20:
                throw failure("control character in a string")
            default:
                index += 1
            }
        }
    }

    private mutating func escape() throws(IntakeError) -> Unicode.Scalar {
        guard let byte = peek() else { throw failure("unterminated string") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let high = try hex4()
            if (0xD800..<0xDC00).contains(high) {
                guard peek() == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                    throw failure("unpaired surrogate")
                }
                index += 2
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low) else { throw failure("unpaired surrogate") }
                return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))!
            }
            guard let scalar = Unicode.Scalar(high) else { throw failure("unpaired surrogate") }
            return scalar
        default:
            throw failure("invalid escape")
        }
    }

    private mutating func hex4() throws(IntakeError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw failure("short \\u escape") }
        var value: UInt32 = 0
        for byte in bytes[index..<index + 4] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("invalid \\u escape")
            }
            value = value << 4 | UInt32(digit)
        }
        index += 4
        return value
    }

    private mutating func number() throws(IntakeError) -> String {
        let start = index
        if peek() == UInt8(ascii: "-") { index += 1 }
        guard let first = peek(), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { throw failure("invalid number") }
        if first == UInt8(ascii: "0") { index += 1 } else { digits() }
        if peek() == UInt8(ascii: ".") {
            index += 1
            guard digits() else { throw failure("invalid number") }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            guard digits() else { throw failure("invalid number") }
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    @discardableResult
    private mutating func digits() -> Bool {
        let start = index
        while let byte = peek(), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
        return index > start
    }
}
