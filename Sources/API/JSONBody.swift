import Foundation
import Intake

/// A request body's top-level JSON object, read member by member: each read checks the member's type and names
/// the field when it is wrong; `finish()` refuses members nobody read (unknown fields are invalid).
struct JSONBody {
    let members: [(key: String, value: JSONNode)]
    /// The raw body, so that an object member (a payload) is taken exactly as sent.
    let bytes: [UInt8]
    /// Prefix for field names in errors (`audience.`).
    let path: String
    /// Names read so far (a few per object: an array beats hashing).
    private var read: [String] = []

    init(_ node: JSONNode, bytes: [UInt8], path: String = "") throws(APIError) {
        guard case .object(let members, _) = node else {
            throw .invalid("expected a JSON object\(path.isEmpty ? "" : " for \(path.dropLast())"), got \(node.typeName)",
                           field: path.isEmpty ? nil : String(path.dropLast()))
        }
        self.members = members
        self.bytes = bytes
        self.path = path
    }

    /// Parses a request body: `application/json` (415 otherwise), strict JSON (400), an object.
    static func parse(_ body: [UInt8], contentType: String?) throws(APIError) -> JSONBody {
        let mediaType = contentType?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard mediaType == "application/json" else {
            throw APIError(415, "unsupported_media_type", "send the body as Content-Type: application/json")
        }
        let node: JSONNode
        do { node = try JSONParser.parse(body) } catch { throw .invalid("\(error)") }
        return try JSONBody(node, bytes: body)
    }

    func has(_ key: String) -> Bool { members.contains { $0.key == key } }

    private mutating func value(_ key: String) -> JSONNode? {
        if !read.contains(key) { read.append(key) }
        guard let value = members.first(where: { $0.key == key })?.value, value != .null else { return nil }
        return value
    }

    private func wrongType(_ key: String, expected: String, got node: JSONNode) -> APIError {
        .invalid("\(path)\(key) must be \(expected), not \(node.typeName)", field: path + key)
    }

    mutating func string(_ key: String) throws(APIError) -> String? {
        guard let node = value(key) else { return nil }
        guard case .string(let text) = node else { throw wrongType(key, expected: "a string", got: node) }
        return text
    }

    mutating func integer(_ key: String) throws(APIError) -> Int64? {
        guard let node = value(key) else { return nil }
        guard let number = node.int64 else { throw wrongType(key, expected: "a whole number", got: node) }
        return number
    }

    mutating func bool(_ key: String) throws(APIError) -> Bool? {
        guard let node = value(key) else { return nil }
        guard case .bool(let flag) = node else { throw wrongType(key, expected: "true or false", got: node) }
        return flag
    }

    mutating func strings(_ key: String, maximum: Int) throws(APIError) -> [String]? {
        guard let node = value(key) else { return nil }
        guard case .array(let items) = node else { throw wrongType(key, expected: "an array of strings", got: node) }
        guard !items.isEmpty else { throw .invalid("\(path)\(key) must not be empty", field: path + key) }
        guard items.count <= maximum else {
            throw .invalid("\(path)\(key) has \(items.count) entries; at most \(maximum)", field: path + key)
        }
        var strings: [String] = []
        strings.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            guard case .string(let text) = item else {
                throw .invalid("\(path)\(key)[\(i)] must be a string, not \(item.typeName)", field: path + key)
            }
            strings.append(text)
        }
        return strings
    }

    /// An object member's exact bytes.
    mutating func rawObject(_ key: String) throws(APIError) -> [UInt8]? {
        guard let node = value(key) else { return nil }
        guard case .object(_, let raw) = node else { throw wrongType(key, expected: "an object", got: node) }
        return Array(bytes[raw])
    }

    /// An object member, to read further.
    mutating func object(_ key: String) throws(APIError) -> JSONBody? {
        guard let node = value(key) else { return nil }
        return try JSONBody(node, bytes: bytes, path: path + key + ".")
    }

    /// An array member's elements.
    mutating func array(_ key: String) throws(APIError) -> [JSONNode]? {
        guard let node = value(key) else { return nil }
        guard case .array(let items) = node else { throw wrongType(key, expected: "an array", got: node) }
        return items
    }

    /// Refuses members that were never read.
    func finish() throws(APIError) {
        if let unknown = members.first(where: { !read.contains($0.key) }) {
            throw .invalid("unknown field \(path)\(unknown.key)", field: path + unknown.key)
        }
    }
}
