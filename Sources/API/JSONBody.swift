import APNs
import Foundation
import Intake

/// A request body's top-level JSON object, read member by member: each read checks the member's type and names
/// the field when it is wrong; `finish()` refuses members nobody read (unknown fields are invalid).
struct JSONBody {
    /// The parsed body; a payload object is taken from its bytes exactly as sent.
    let tree: JSONTree
    /// The object's node in `tree`.
    let node: Int
    /// Prefix for field names in errors (`audience.`).
    let path: String
    /// Positions of the members read so far: the first 64 as bits (the objects read have a few members), the rest listed.
    private var read: UInt64 = 0
    private var readBeyond: [Int] = []

    init(_ tree: JSONTree, node: Int, path: String = "") throws(APIError) {
        guard tree[node].kind == .object else {
            throw .invalid(
                "expected a JSON object\(path.isEmpty ? "" : " for \(path.dropLast())"), got \(tree[node].typeName)",
                field: path.isEmpty ? nil : String(path.dropLast()))
        }
        self.tree = tree
        self.node = node
        self.path = path
    }

    /// Parses a request body: `application/json` (415 otherwise), strict JSON (400), an object.
    static func parse(_ body: [UInt8], contentType: String?) throws(APIError) -> JSONBody {
        let mediaType = contentType?.split(separator: ";").first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        guard mediaType == "application/json" else {
            throw APIError(415, "unsupported_media_type", "send the body as Content-Type: application/json")
        }
        let tree: JSONTree
        do { tree = try JSONReader.read(body) } catch { throw .invalid(IntakeError(json: error).description) }
        return try JSONBody(tree, node: tree.root)
    }

    func has(_ key: StaticString) -> Bool { tree.member(of: node, named: key) != nil }

    /// The member's value node, marked read; nil when it is missing or null.
    private mutating func value(_ key: StaticString) -> Int? {
        guard let (position, value) = tree.member(of: node, named: key) else { return nil }
        if position < 64 { read |= 1 << position } else { readBeyond.append(position) }
        return tree[value].kind == .null ? nil : value
    }

    private func isRead(_ position: Int) -> Bool {
        position < 64 ? read & (1 << position) != 0 : readBeyond.contains(position)
    }

    private func wrongType(_ key: StaticString, expected: String, got node: Int) -> APIError {
        .invalid("\(path)\(key) must be \(expected), not \(tree[node].typeName)", field: path + key.description)
    }

    mutating func string(_ key: StaticString) throws(APIError) -> String? {
        try stringNode(key).map(tree.string)
    }

    /// A string member's node, for a caller that can use its bytes as they are.
    mutating func stringNode(_ key: StaticString) throws(APIError) -> Int? {
        guard let node = value(key) else { return nil }
        guard tree[node].kind == .string else { throw wrongType(key, expected: "a string", got: node) }
        return node
    }

    mutating func integer(_ key: StaticString) throws(APIError) -> Int64? {
        guard let node = value(key) else { return nil }
        guard let number = tree.int64(node) else { throw wrongType(key, expected: "a whole number", got: node) }
        return number
    }

    mutating func bool(_ key: StaticString) throws(APIError) -> Bool? {
        guard let node = value(key) else { return nil }
        guard let flag = tree.bool(node) else { throw wrongType(key, expected: "true or false", got: node) }
        return flag
    }

    mutating func strings(_ key: StaticString, maximum: Int) throws(APIError) -> [String]? {
        try stringNodes(key, maximum: maximum)?.map(tree.string)
    }

    /// An array of strings' nodes, for a caller that can use their bytes as they are.
    mutating func stringNodes(_ key: StaticString, maximum: Int) throws(APIError) -> [Int]? {
        guard let node = value(key) else { return nil }
        guard tree[node].kind == .array else { throw wrongType(key, expected: "an array of strings", got: node) }
        let count = tree[node].count
        guard count > 0 else { throw .invalid("\(path)\(key) must not be empty", field: path + key.description) }
        guard count <= maximum else {
            throw .invalid("\(path)\(key) has \(count) entries; at most \(maximum)", field: path + key.description)
        }
        var strings: [Int] = []
        strings.reserveCapacity(count)
        for (i, item) in tree.children(of: node).enumerated() {
            guard tree[item].kind == .string else {
                throw .invalid(
                    "\(path)\(key)[\(i)] must be a string, not \(tree[item].typeName)", field: path + key.description)
            }
            strings.append(item)
        }
        return strings
    }

    /// An object member's exact bytes.
    mutating func rawObject(_ key: StaticString) throws(APIError) -> [UInt8]? {
        guard let node = value(key) else { return nil }
        guard tree[node].kind == .object else { throw wrongType(key, expected: "an object", got: node) }
        return Array(tree.bytes[tree[node].range])
    }

    /// An object member, to read further.
    mutating func object(_ key: StaticString) throws(APIError) -> JSONBody? {
        guard let node = value(key) else { return nil }
        return try JSONBody(tree, node: node, path: path + key.description + ".")
    }

    /// An array member's element nodes.
    mutating func array(_ key: StaticString) throws(APIError) -> JSONTree.Children? {
        guard let node = value(key) else { return nil }
        guard tree[node].kind == .array else { throw wrongType(key, expected: "an array", got: node) }
        return tree.children(of: node)
    }

    /// Refuses members that were never read.
    func finish() throws(APIError) {
        for (position, key) in tree.children(of: node).enumerated() where !isRead(position) {
            let name = tree.string(key)
            throw .invalid("unknown field \(path)\(name)", field: path + name)
        }
    }
}
