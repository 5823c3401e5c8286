/// A strict, allocation-light check of a notification payload's JSON (RFC 8259): valid UTF-8, no byte-order
/// mark, no duplicate keys in any object, a bounded depth, and an object at the top level. Foundation's parser
/// accepts duplicate keys (the last wins, so `{"aps":1,"aps":{}}` passes) and a leading BOM, which APNs and
/// devices may read differently; this is what is enqueued and sent, so it is checked to the letter.
///
/// Iterative (an explicit stack), so no input can exhaust the call stack.
public struct JSONValidator {
    /// What the top level holds.
    public struct Summary: Equatable, Sendable {
        /// The type of the top-level `aps` member, if there is one.
        public var aps: ValueKind?
    }

    /// A JSON value's type.
    public enum ValueKind: Equatable, Sendable {
        case object, array, string, number, literal
    }

    /// Deeper nesting than this is refused (APNs payloads are a few levels deep).
    public static let maximumDepth = 64

    /// Why the bytes are not an acceptable JSON object; `offset` is where the problem was found.
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        public var reason: String
        public var offset: Int
        public var description: String { "\(reason) at byte \(offset)" }
    }

    private let bytes: UnsafeRawBufferPointer
    private var index = 0
    /// Whether the last string read had an escape.
    private var stringHadEscape = false

    private init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// Validates `bytes`; returns what the top level holds.
    public static func validate(_ bytes: some Collection<UInt8>) throws(Failure) -> Summary {
        // Contiguous bytes (an array, a payload's) are read where they are; only others are copied first.
        if let result = bytes.withContiguousStorageIfAvailable({ validate(UnsafeRawBufferPointer($0)) }) {
            return try result.get()
        }
        return try Array(bytes).withUnsafeBytes { validate($0) }.get()
    }

    private static func validate(_ raw: UnsafeRawBufferPointer) -> Result<Summary, Failure> {
        var validator = JSONValidator(raw)
        do throws(Failure) { return .success(try validator.run()) } catch { return .failure(error) }
    }

    /// An object or array being read.
    private struct Frame {
        var isObject: Bool
        /// Where this object's keys start in the key list.
        var firstKey: Int
        /// Past `keysCompared` keys, their decoded bytes, to find a duplicate without comparing each pair.
        var keySet: Set<[UInt8]>?
    }

    /// A member name: from its opening quote to past its closing one.
    private struct Key {
        var start: Int
        var end: Int
        /// It has an escape, so its bytes are not its decoded text.
        var escaped: Bool
    }

    /// Objects with more keys than this find duplicates with a set.
    private static let keysCompared = 16

    private mutating func run() throws(Failure) -> Summary {
        if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF {
            throw Failure(reason: "starts with a byte-order mark (send plain UTF-8)", offset: 0)
        }
        skipWhitespace()
        guard peek() == UInt8(ascii: "{") else { throw fail("the top level is not an object") }
        var summary = Summary()
        var stack: [Frame] = []
        /// The keys of the open objects, innermost last (each frame knows where its own start).
        var keys: [Key] = []
        /// The key of the top-level member whose value is read next.
        var topLevelKey: Key?
        values: while true {
            // At a value.
            skipWhitespace()
            let depth = stack.count
            let kind = try startValue(&stack, keyCount: keys.count)  // nil: a container was opened
            if depth == 1, let key = topLevelKey, isAps(key), summary.aps == nil {
                summary.aps = kind ?? (stack.last!.isObject ? .object : .array)
            }
            topLevelKey = nil
            if kind == nil {
                skipWhitespace()
                if try !closeIfEmpty(&stack) {
                    if stack.last!.isObject {
                        let key = try readKey(&stack, &keys)
                        if stack.count == 1 { topLevelKey = key }
                    }
                    continue values
                }
            }
            // After a value: the next member, or the end of one container after another.
            while true {
                skipWhitespace()
                guard let frame = stack.last else {
                    guard index == bytes.count else { throw fail("text after the top-level object") }
                    return summary
                }
                switch peek() {
                case UInt8(ascii: ","):
                    index += 1
                    skipWhitespace()
                    if frame.isObject {
                        let key = try readKey(&stack, &keys)
                        if stack.count == 1 { topLevelKey = key }
                    }
                    continue values
                case UInt8(ascii: "}") where frame.isObject, UInt8(ascii: "]") where !frame.isObject:
                    index += 1
                    stack.removeLast()
                    keys.removeSubrange(frame.firstKey...)
                default:
                    throw fail(frame.isObject ? "expected ',' or '}'" : "expected ',' or ']'")
                }
            }
        }
    }

    private static let apsKey = Array("aps".utf8)

    /// Whether a key's decoded text is `aps`.
    private func isAps(_ key: Key) -> Bool {
        guard !key.escaped else { return decoded(key) == Self.apsKey }
        return key.end - key.start == 5 && bytes[key.start + 1] == UInt8(ascii: "a")
            && bytes[key.start + 2] == UInt8(ascii: "p")
            && bytes[key.start + 3] == UInt8(ascii: "s")
    }

    /// Reads one value, or opens a container (pushes its frame, whose keys start at `keyCount`, and returns nil).
    private mutating func startValue(_ stack: inout [Frame], keyCount: Int) throws(Failure) -> ValueKind? {
        guard let byte = peek() else { throw fail("unexpected end of the payload") }
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard stack.count < Self.maximumDepth else { throw fail("nested deeper than \(Self.maximumDepth) levels") }
            stack.append(Frame(isObject: byte == UInt8(ascii: "{"), firstKey: keyCount))
            index += 1
            return nil
        case UInt8(ascii: "\""):
            _ = try readString(collect: false)
            return .string
        case UInt8(ascii: "t"):
            try literal("true")
            return .literal
        case UInt8(ascii: "f"):
            try literal("false")
            return .literal
        case UInt8(ascii: "n"):
            try literal("null")
            return .literal
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try number()
            return .number
        default: throw fail("unexpected character")
        }
    }

    /// At a container's first position: closes it when it is empty.
    private mutating func closeIfEmpty(_ stack: inout [Frame]) throws(Failure) -> Bool {
        let close = stack.last!.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
        guard peek() == close else { return false }
        index += 1
        stack.removeLast()
        return true
    }

    /// Reads `"key" :` in the innermost object, refusing a key it already has.
    private mutating func readKey(_ stack: inout [Frame], _ keys: inout [Key]) throws(Failure) -> Key {
        guard peek() == UInt8(ascii: "\"") else { throw fail("expected a member name in quotes") }
        let start = index
        _ = try readString(collect: false)
        let key = Key(start: start, end: index, escaped: stringHadEscape)
        let frame = stack.count - 1
        if stack[frame].keySet == nil, keys.count - stack[frame].firstKey < Self.keysCompared {
            for earlier in keys[stack[frame].firstKey...] where sameText(earlier, key) { throw duplicate(key) }
        } else {
            if stack[frame].keySet == nil { stack[frame].keySet = Set(keys[stack[frame].firstKey...].map(decoded)) }
            guard stack[frame].keySet!.insert(decoded(key)).inserted else { throw duplicate(key) }
        }
        keys.append(key)
        skipWhitespace()
        guard peek() == UInt8(ascii: ":") else { throw fail("expected ':' after a member name") }
        index += 1
        return key
    }

    private func duplicate(_ key: Key) -> Failure {
        Failure(
            reason: "duplicate key \"\(String(decoding: decoded(key).prefix(40), as: UTF8.self))\"", offset: key.start)
    }

    /// Whether two keys decode to the same bytes: compared as they are when neither has an escape.
    private func sameText(_ a: Key, _ b: Key) -> Bool {
        guard !a.escaped, !b.escaped else { return decoded(a) == decoded(b) }
        guard a.end - a.start == b.end - b.start else { return false }
        for offset in 0..<(a.end - a.start) where bytes[a.start + offset] != bytes[b.start + offset] { return false }
        return true
    }

    /// A key's decoded UTF-8, read again from its opening quote (it was read once without error).
    private func decoded(_ key: Key) -> [UInt8] {
        var reader = self
        reader.index = key.start
        do { return try reader.readString(collect: true) } catch {
            preconditionFailure("a key read once fails the second time: \(error)")
        }
    }

    /// Reads a string at `index` (on its opening quote); returns its decoded UTF-8 when `collect` is set.
    private mutating func readString(collect: Bool) throws(Failure) -> [UInt8] {
        index += 1
        stringHadEscape = false
        var value: [UInt8] = []
        while true {
            guard let byte = peek() else { throw fail("unterminated string") }
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return value
            case UInt8(ascii: "\\"):
                stringHadEscape = true
                index += 1
                guard let escape = peek() else { throw fail("unterminated string") }
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"):
                    if collect { value.append(escape) }
                case UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    if collect { value.append(escape) }
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard peek() == UInt8(ascii: "\\"), index + 1 < bytes.count,
                            bytes[index + 1] == UInt8(ascii: "u")
                        else {
                            throw fail("unpaired surrogate in \\u escape")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw fail("unpaired surrogate in \\u escape") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw fail("unpaired surrogate in \\u escape")
                    }
                    if collect, let unicode = Unicode.Scalar(scalar) {
                        value.append(contentsOf: Array(String(Character(unicode)).utf8))
                    }
                default:
                    throw fail("invalid escape")
                }
            case 0x00..<0x20:
                throw fail("control character in a string (escape it)")
            case 0x80...:
                let length = try utf8Sequence()
                if collect { value.append(contentsOf: bytes[(index - length)..<index]) }
            default:
                if collect { value.append(byte) }
                index += 1
            }
        }
    }

    /// Checks one multi-byte UTF-8 sequence at `index` (well-formed per Unicode table 3-7) and steps over it.
    private mutating func utf8Sequence() throws(Failure) -> Int {
        switch UTF8Sequence.check(bytes, at: index) {
        case .length(let length):
            index += length
            return length
        case .truncated: throw fail("invalid UTF-8 (truncated)")
        case .invalid: throw fail("invalid UTF-8")
        }
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw fail("invalid \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw fail("invalid literal") }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { throw fail("invalid literal") }
        index += count
    }

    /// A number (RFC 8259 grammar) whose value is a finite double: `1e400` is valid JSON but overflows, and
    /// Foundation's parser — and so a device reading the payload — refuses it (found by fuzzing, FUZZING.md).
    private mutating func number() throws(Failure) {
        let start = index
        if peek() == UInt8(ascii: "-") { index += 1 }
        guard let first = peek(), isDigit(first) else { throw fail("invalid number") }
        index += 1
        if first != UInt8(ascii: "0") { while let byte = peek(), isDigit(byte) { index += 1 } }
        let integerDigits = index - start
        var hasExponent = false
        if peek() == UInt8(ascii: ".") {
            index += 1
            guard let byte = peek(), isDigit(byte) else { throw fail("invalid number") }
            while let byte = peek(), isDigit(byte) { index += 1 }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            hasExponent = true
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            guard let byte = peek(), isDigit(byte) else { throw fail("invalid number") }
            while let byte = peek(), isDigit(byte) { index += 1 }
        }
        // Without an exponent, fewer than 300 integer digits cannot reach Double.greatestFiniteMagnitude (~1.8e308).
        if hasExponent || integerDigits >= 300 {
            let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            guard let value = Double(text), value.isFinite else {
                throw Failure(reason: "number out of range (beyond ±1.8e308)", offset: start)
            }
        }
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = peek(), byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    private func fail(_ reason: String) -> Failure { Failure(reason: reason, offset: index) }
}
