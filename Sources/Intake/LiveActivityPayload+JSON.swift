import APNs

extension LiveActivityPayload {
    /// Reads the `aps` members of a payload (already checked by `Payload`) with Intake's parser and checks them;
    /// the rules themselves are the APNs module's.
    public init(payload: Payload) throws(APNsError) {
        let tree: JSONTree
        do { tree = try JSONReader.read(payload.bytes) } catch { throw .payloadNotJSONObject(error.description) }
        guard let aps = tree.member(of: tree.root, named: "aps")?.value else { throw .payloadMissingAps }
        guard tree[aps].kind == .object else { throw .payloadApsNotObject }
        var members: [String: Member] = [:]
        for key in tree.children(of: aps) { members[tree.string(key)] = Self.member(tree, key + 1) }
        try self.init(aps: members)
    }

    private static func member(_ tree: JSONTree, _ node: Int) -> Member {
        switch tree[node].kind {
        case .object: .object
        case .array: .array
        case .bool: .bool
        case .null: .null
        case .string: .string(tree.string(node))
        case .number: tree.int64(node).map(Member.integer) ?? .number(tree.string(node))
        }
    }
}
