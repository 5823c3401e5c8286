/// A parsed JSON value of a request body (the HTTP API's input). Objects keep their members in order and the
/// byte range they came from, so a `payload` object is enqueued exactly as the client sent it.
public indirect enum JSONNode: Sendable, Equatable {
    case object([(key: String, value: JSONNode)], raw: Range<Int>)
    case array([JSONNode])
    case string(String)
    /// The number as written (validated against RFC 8259's grammar).
    case number(String)
    case bool(Bool)
    case null

    public static func == (lhs: JSONNode, rhs: JSONNode) -> Bool {
        switch (lhs, rhs) {
        case let (.object(a, _), .object(b, _)):
            a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        case let (.array(a), .array(b)): a == b
        case let (.string(a), .string(b)): a == b
        case let (.number(a), .number(b)): a == b
        case let (.bool(a), .bool(b)): a == b
        case (.null, .null): true
        default: false
        }
    }

    /// The member named `key` of an object.
    public subscript(key: String) -> JSONNode? {
        guard case .object(let members, _) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// The JSON type's name, for error messages ("expected a string, got a number").
    public var typeName: String {
        switch self {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .number: "a number"
        case .bool: "a boolean"
        case .null: "null"
        }
    }

    /// The value as an integer when it is a number without fraction or exponent that fits in 64 bits.
    public var int64: Int64? {
        guard case .number(let text) = self, !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) else { return nil }
        return Int64(text)
    }
}
