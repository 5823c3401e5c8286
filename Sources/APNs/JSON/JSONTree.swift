import Foundation

/// A parsed JSON document (`JSONReader.read`): the bytes and their values as flat `JSONNode`s, read by node
/// index. Strings stay bytes until a caller asks for their text, so a value is compared or copied where it lies.
public struct JSONTree: Sendable {
    /// The body as parsed; every node's range points into it.
    public let bytes: [UInt8]
    let nodes: [JSONNode]

    init(bytes: [UInt8], nodes: [JSONNode]) {
        self.bytes = bytes
        self.nodes = nodes
    }

    /// The index of the top-level value.
    public var root: Int { 0 }

    /// The node at `index`.
    public subscript(index: Int) -> JSONNode { nodes[index] }

    /// An array's element indexes or an object's member key indexes (each value is at its key + 1), in order.
    public func children(of node: Int) -> Children { Children(nodes: nodes, parent: node) }

    /// The value of the member of `object` named `key` and its position among the members, or nil. The names
    /// read are literals, which compare byte by byte without building a `String`.
    public func member(of object: Int, named key: StaticString) -> (position: Int, value: Int)? {
        let count = nodes[object].kind == .object ? nodes[object].count : 0
        var keyIndex = object + 1
        for position in 0..<count {
            if self.key(keyIndex, equals: key) { return (position, keyIndex + 1) }
            keyIndex = Int(nodes[keyIndex + 1].next)
        }
        return nil
    }

    /// Whether the string at `index` is `key` (`String` equality, as a dictionary of the texts would match).
    func key(_ index: Int, equals key: StaticString) -> Bool {
        let node = nodes[index]
        // Two ASCII texts are equal exactly when their bytes are; anything else is compared as text.
        guard node.isPlainASCII, key.hasPointerRepresentation, key.isASCII else {
            return string(index) == key.description
        }
        let count = key.utf8CodeUnitCount
        guard count == Int(node.end &- node.start) else { return false }
        return bytes.withUnsafeBufferPointer { memcmp($0.baseAddress! + Int(node.start), key.utf8Start, count) == 0 }
    }

    /// A string's text (escapes decoded), or a number's text as written.
    public func string(_ index: Int) -> String {
        let node = nodes[index]
        return Self.text(of: bytes[node.range], escaped: node.kind == .string && node.flag)
    }

    /// A bool's value.
    public func bool(_ index: Int) -> Bool? { nodes[index].kind == .bool ? nodes[index].flag : nil }

    /// A number without fraction or exponent that fits in 64 bits.
    public func int64(_ index: Int) -> Int64? {
        let node = nodes[index]
        guard node.kind == .number else { return nil }
        let text = bytes[node.range]
        guard !text.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") })
        else { return nil }
        return Int64(String(decoding: text, as: UTF8.self))
    }

    /// The text of a string's bytes that the parser checked (valid UTF-8, valid escapes).
    static func text<Bytes: RandomAccessCollection<UInt8>>(of bytes: Bytes, escaped: Bool) -> String
    where Bytes.Index == Int {
        guard escaped else { return String(decoding: bytes, as: UTF8.self) }
        var scalars = String.UnicodeScalarView()
        var runStart = bytes.startIndex
        var index = bytes.startIndex
        func hex4(_ at: Int) -> UInt32 {
            bytes[at..<at + 4].reduce(0) { value, byte in
                let digit: UInt8 =
                    switch byte {
                    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
                    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
                    default: byte - UInt8(ascii: "A") + 10
                    }
                return value << 4 | UInt32(digit)
            }
        }
        while index < bytes.endIndex {
            guard bytes[index] == UInt8(ascii: "\\") else {
                index += 1
                continue
            }
            scalars.append(contentsOf: String(decoding: bytes[runStart..<index], as: UTF8.self).unicodeScalars)
            let escape = bytes[index + 1]
            index += 2
            switch escape {
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"):
                var scalar = hex4(index)
                index += 4
                if (0xD800..<0xDC00).contains(scalar) {
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (hex4(index + 2) - 0xDC00)
                    index += 6
                }
                scalars.append(Unicode.Scalar(scalar)!)
            default: scalars.append(Unicode.Scalar(escape))
            }
            runStart = index
        }
        scalars.append(contentsOf: String(decoding: bytes[runStart..<index], as: UTF8.self).unicodeScalars)
        return String(scalars)
    }

    /// An array's element indexes or an object's member key indexes.
    public struct Children: Sequence, IteratorProtocol {
        /// How many there are (the iteration does not change it).
        public let count: Int
        private let nodes: [JSONNode]
        private var cursor: Int
        private var remaining: Int
        /// An object's members are a key and a value each: the next key is after the value.
        private let step: Int

        init(nodes: [JSONNode], parent: Int) {
            self.nodes = nodes
            cursor = parent + 1
            let node = nodes[parent]
            remaining = node.kind == .array || node.kind == .object ? node.count : 0
            count = remaining
            step = node.kind == .object ? 1 : 0
        }

        public mutating func next() -> Int? {
            guard remaining > 0 else { return nil }
            remaining -= 1
            defer { cursor = Int(nodes[cursor + step].next) }
            return cursor
        }
    }
}
