/// One value of a parsed JSON document, as a flat record in its `JSONTree`: the type, where its bytes are in the
/// body and where the node after its contents is. A container's contents follow it in document order (an object's
/// as key, value, key, value…), so a whole tree is one array and reading it allocates nothing per value.
public struct JSONNode: Sendable {
    /// A JSON value's type.
    public enum Kind: UInt8, Sendable {
        case object, array, string, number, bool, null
    }

    public let kind: Kind
    /// A string: it has an escape (its bytes are not its text as is). A bool: its value.
    let flag: Bool
    /// A string: it has a byte above 0x7F.
    let nonASCII: Bool
    /// An object or array: from its bracket to its closing one; a string: between its quotes; else its text.
    let start: UInt32
    var end: UInt32
    /// The index of the node after this one and its contents: the next member or element.
    var next: UInt32
    /// An object's members or an array's elements.
    var contents: UInt32

    /// A node at position `index` of its tree, followed by the next one until `JSONReader` closes it as a container.
    init(_ kind: Kind, start: Int, end: Int, index: Int, flag: Bool = false, nonASCII: Bool = false) {
        self.kind = kind
        self.flag = flag
        self.nonASCII = nonASCII
        self.start = UInt32(truncatingIfNeeded: start)
        self.end = UInt32(truncatingIfNeeded: end)
        next = UInt32(truncatingIfNeeded: index + 1)
        contents = 0
    }

    /// An object's members or an array's elements.
    public var count: Int { Int(contents) }

    /// The JSON type's name, for error messages ("expected a string, got a number").
    public var typeName: String {
        switch kind {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .number: "a number"
        case .bool: "a boolean"
        case .null: "null"
        }
    }

    /// The byte range in the body (see `start`).
    public var range: Range<Int> { Int(start)..<Int(end) }

    /// A string whose bytes are its text as they are (no escape).
    public var isVerbatim: Bool { kind == .string && !flag }

    /// A string whose bytes are its text: no escape, ASCII only (so byte equality is `String` equality).
    var isPlainASCII: Bool { kind == .string && !flag && !nonASCII }
}
