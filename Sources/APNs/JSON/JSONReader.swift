/// The one strict JSON reader (RFC 8259), for notification payloads, Live Activity checks, config files and API
/// bodies alike. What it accepts, for every use:
/// - valid UTF-8 only, and no byte-order mark (invalid UTF-8 anywhere is the answer, even after a syntax error);
/// - no duplicate member names in any object, names compared as text (escapes decoded; Swift's `String` equality,
///   so "é" precomposed and decomposed are one name): Foundation's parser lets the last one win, so two readers
///   could otherwise see different documents;
/// - at most `maximumDepth` arrays and objects nested, so no input exhausts the stack;
/// - numbers whose value is a finite double (`1e400` is JSON but no reader can represent it);
/// - one value and nothing after it but whitespace.
/// What a use needs beyond that (a payload's object with `aps`, a config file's object) it checks on the tree.
/// The tree keeps the bytes and flat nodes, so reading a document allocates once, not once per value.
public struct JSONReader {
    /// Deeper nesting of arrays and objects than this is refused (APNs payloads are a few levels deep).
    public static let maximumDepth = 64
    /// Objects with more members than this check their keys for duplicates with a set instead of one by one.
    private static let keysCompared = 16

    /// Why bytes are not acceptable JSON: the reason and where it was found (none for invalid UTF-8, which is the
    /// answer wherever it is).
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        public var reason: String
        public var offset: Int?

        /// The bytes are not valid UTF-8.
        public var isInvalidUTF8: Bool { offset == nil }

        public var description: String { offset.map { "\(reason) at byte \($0)" } ?? reason }
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var nodes: [JSONNode] = []

    private init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// Reads `bytes` as one JSON value.
    public static func read(_ bytes: [UInt8]) throws(Failure) -> JSONTree {
        guard bytes.count < UInt32.max else { throw Failure(reason: "too large", offset: 0) }
        let parsed = bytes.withUnsafeBufferPointer { buffer -> Result<[JSONNode], Failure> in
            var reader = JSONReader(buffer)
            do throws(Failure) {
                try reader.document()
                return .success(reader.nodes)
            } catch {
                return .failure(error)
            }
        }
        switch parsed {
        case .success(let nodes):
            return JSONTree(bytes: bytes, nodes: nodes)
        case .failure(let error):
            // A read only checks the UTF-8 of the strings it reached; invalid UTF-8 anywhere is the answer that wins.
            guard String(validating: bytes, as: UTF8.self) != nil else {
                throw Failure(reason: "not valid UTF-8", offset: nil)
            }
            throw error
        }
    }

    private mutating func document() throws(Failure) {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            throw failure("starts with a byte-order mark (send plain UTF-8)")
        }
        // Most documents hold about one value per 12 bytes; growing a little past that beats reserving a lot.
        nodes.reserveCapacity(bytes.count / 12 + 4)
        skipSpace()
        try value(depth: 0)
        skipSpace()
        guard index == bytes.count else { throw failure("unexpected data after the JSON value") }
    }

    private func failure(_ reason: String, at offset: Int? = nil) -> Failure {
        Failure(reason: reason, offset: offset ?? index)
    }

    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    /// Reads the value at `index`, inside `depth` arrays and objects.
    private mutating func value(depth: Int) throws(Failure) {
        guard let byte = peek() else { throw failure("unexpected end") }
        if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "["), depth >= Self.maximumDepth {
            throw failure("nested deeper than \(Self.maximumDepth) levels")
        }
        switch byte {
        case UInt8(ascii: "{"): try object(depth: depth)
        case UInt8(ascii: "["): try array(depth: depth)
        case UInt8(ascii: "\""): try string()
        case UInt8(ascii: "t"): try literal("true", .bool, flag: true)
        case UInt8(ascii: "f"): try literal("false", .bool, flag: false)
        case UInt8(ascii: "n"): try literal("null", .null, flag: false)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
        default: throw failure("unexpected character")
        }
    }

    private mutating func literal(_ word: StaticString, _ kind: JSONNode.Kind, flag: Bool) throws(Failure) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw failure("unexpected character") }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
            throw failure("unexpected character")
        }
        nodes.append(JSONNode(kind, start: index, end: index + count, index: nodes.count, flag: flag))
        index += count
    }

    /// Opens a container's node; `close` sets where it ends once its contents are read.
    private mutating func open(_ kind: JSONNode.Kind) -> Int {
        nodes.append(JSONNode(kind, start: index, end: index, index: nodes.count))
        index += 1
        return nodes.count - 1
    }

    private mutating func close(_ node: Int, count: Int) {
        index += 1
        nodes[node].end = UInt32(truncatingIfNeeded: index)
        nodes[node].next = UInt32(truncatingIfNeeded: nodes.count)
        nodes[node].contents = UInt32(truncatingIfNeeded: count)
    }

    private mutating func object(depth: Int) throws(Failure) {
        let node = open(.object)
        var count = 0
        // Past `keysCompared` members, the texts of the keys (a set of them is what tells duplicates apart).
        var keys: Set<String>?
        skipSpace()
        if peek() == UInt8(ascii: "}") { return close(node, count: 0) }
        while true {
            guard peek() == UInt8(ascii: "\"") else { throw failure("expected a member name") }
            let key = nodes.count
            try string()
            try checkUnique(key, in: node, count: count, keys: &keys)
            count += 1
            skipSpace()
            guard peek() == UInt8(ascii: ":") else { throw failure("expected ':'") }
            index += 1
            skipSpace()
            try value(depth: depth + 1)
            skipSpace()
            switch peek() {
            case UInt8(ascii: ","):
                index += 1
                skipSpace()
            case UInt8(ascii: "}"): return close(node, count: count)
            default: throw failure("expected ',' or '}'")
            }
        }
    }

    /// Refuses the key at `key` when an earlier member of `object` has the same text (`String` equality).
    private func checkUnique(_ key: Int, in object: Int, count: Int, keys: inout Set<String>?) throws(Failure) {
        if keys == nil, count < Self.keysCompared {
            var earlier = object + 1
            for _ in 0..<count {
                if sameText(earlier, key) { throw failure("duplicate key \"\(text(key))\"") }
                earlier = Int(nodes[earlier + 1].next)
            }
            return
        }
        if keys == nil {
            var all = Set<String>()
            var earlier = object + 1
            for _ in 0..<count {
                all.insert(text(earlier))
                earlier = Int(nodes[earlier + 1].next)
            }
            keys = all
        }
        let name = text(key)
        guard keys!.insert(name).inserted else { throw failure("duplicate key \"\(name)\"") }
    }

    /// Whether two strings' texts are equal: by their bytes when both are plain ASCII, else as `String`s.
    private func sameText(_ a: Int, _ b: Int) -> Bool {
        let first = nodes[a]
        let second = nodes[b]
        guard first.isPlainASCII, second.isPlainASCII else { return text(a) == text(b) }
        let length = Int(first.end - first.start)
        guard length == Int(second.end - second.start) else { return false }
        for offset in 0..<length where bytes[Int(first.start) + offset] != bytes[Int(second.start) + offset] {
            return false
        }
        return true
    }

    private func text(_ node: Int) -> String { JSONTree.text(of: bytes[nodes[node].range], escaped: nodes[node].flag) }

    private mutating func array(depth: Int) throws(Failure) {
        let node = open(.array)
        var count = 0
        skipSpace()
        if peek() == UInt8(ascii: "]") { return close(node, count: 0) }
        while true {
            try value(depth: depth + 1)
            count += 1
            skipSpace()
            switch peek() {
            case UInt8(ascii: ","):
                index += 1
                skipSpace()
            case UInt8(ascii: "]"): return close(node, count: count)
            default: throw failure("expected ',' or ']'")
            }
        }
    }

    /// Reads a string (on its opening quote) into a node of its bytes between the quotes, checking its escapes and
    /// its UTF-8 on the way.
    private mutating func string() throws(Failure) {
        index += 1
        let start = index
        var escaped = false
        var nonASCII = false
        while true {
            guard let byte = peek() else { throw failure("unterminated string") }
            switch byte {
            case UInt8(ascii: "\""):
                nodes.append(
                    JSONNode(.string, start: start, end: index, index: nodes.count, flag: escaped, nonASCII: nonASCII))
                index += 1
                return
            case UInt8(ascii: "\\"):
                escaped = true
                index += 1
                try escape()
            case 0..<0x20:
                throw failure("control character in a string")
            case 0x80...:
                nonASCII = true
                try utf8Sequence()
            default:
                index += 1
            }
        }
    }

    /// Steps over one multi-byte UTF-8 sequence, well-formed per Unicode table 3-7 (what `String(validating:)` accepts).
    private mutating func utf8Sequence() throws(Failure) {
        guard case .length(let length) = UTF8Sequence.check(UnsafeRawBufferPointer(bytes), at: index) else {
            throw failure("invalid UTF-8")
        }
        index += length
    }

    private mutating func escape() throws(Failure) {
        guard let byte = peek() else { throw failure("unterminated string") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"),
            UInt8(ascii: "r"), UInt8(ascii: "t"):
            return
        case UInt8(ascii: "u"):
            let high = try hex4()
            if (0xD800..<0xDC00).contains(high) {
                guard peek() == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u")
                else {
                    throw failure("unpaired surrogate")
                }
                index += 2
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low) else { throw failure("unpaired surrogate") }
                return
            }
            guard Unicode.Scalar(high) != nil else { throw failure("unpaired surrogate") }
        default:
            throw failure("invalid escape")
        }
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
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

    private mutating func number() throws(Failure) {
        let start = index
        if peek() == UInt8(ascii: "-") { index += 1 }
        guard let first = peek(), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            throw failure("invalid number")
        }
        if first == UInt8(ascii: "0") { index += 1 } else { digits() }
        if peek() == UInt8(ascii: ".") {
            index += 1
            guard digits() else { throw failure("invalid number") }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            guard digits() else { throw failure("invalid number") }
            try checkRange(start)
        } else if index - start >= 300 {
            // Without an exponent, fewer than 300 digits cannot reach Double.greatestFiniteMagnitude (~1.8e308).
            try checkRange(start)
        }
        nodes.append(JSONNode(.number, start: start, end: index, index: nodes.count))
    }

    /// Refuses a number whose value is beyond a double's range: Foundation's parser, and so a device reading a
    /// payload, refuses it (found by fuzzing).
    private func checkRange(_ start: Int) throws(Failure) {
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw failure("number out of range (beyond ±1.8e308)", at: start)
        }
    }

    @discardableResult
    private mutating func digits() -> Bool {
        let start = index
        while let byte = peek(), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
        return index > start
    }
}
