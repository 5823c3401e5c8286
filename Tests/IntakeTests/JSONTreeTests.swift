import APNs
import Intake
import Testing

/// `JSONReader`'s flat tree: members found by name as text (escapes, canonical equivalence), duplicates refused
/// both ways of checking them, the UTF-8 answer winning over a syntax error, and the values read back.
@Suite struct JSONTreeTests {
    private func parse(_ text: String) throws -> JSONTree { try JSONReader.read(Array(text.utf8)) }

    private func failure(_ bytes: [UInt8]) -> String? {
        do {
            _ = try JSONReader.read(bytes)
            return nil
        } catch { return IntakeError(json: error).description }
    }

    @Test func membersAndElementsAreFoundInOrder() throws {
        let tree = try parse(#" {"a": [1, "x\u00e9\n", {"b": null}, true], "t\u006fken": -12, "c": {} } "#)
        let a = try #require(tree.member(of: tree.root, named: "a"))
        #expect(a.position == 0 && tree[a.value].kind == .array && tree[a.value].count == 4)
        let elements = Array(tree.children(of: a.value))
        #expect(elements.map { tree[$0].kind } == [.number, .string, .object, .bool])
        #expect(tree.string(elements[1]) == "xé\n" && !tree[elements[1]].isVerbatim)
        #expect(tree.bool(elements[3]) == true && tree.int64(elements[0]) == 1)
        #expect(tree.member(of: elements[2], named: "b").map { tree[$0.value].kind } == .null)
        let token = try #require(tree.member(of: tree.root, named: "token"), "an escaped name is its text")
        #expect(token.position == 1 && tree.int64(token.value) == -12)
        #expect(
            tree.member(of: tree.root, named: "c").map { tree.bytes[tree[$0.value].range] } == Array("{}".utf8)[...])
        #expect(tree.member(of: tree.root, named: "tok") == nil && tree.member(of: a.value, named: "a") == nil)
    }

    @Test func numbersReadAsIntegersOnlyWhenWholeAndInRange() throws {
        let tree = try parse("[0, -0, 9223372036854775807, 9223372036854775808, 1.0, 1e2, \"1\"]")
        #expect(tree.children(of: tree.root).map { tree.int64($0) } == [0, 0, Int64.max, nil, nil, nil, nil])
    }

    @Test func duplicateKeysAreRefusedAsText() {
        #expect(failure(Array(#"{"a":1,"\u0061":2}"#.utf8)) == #"invalid JSON: duplicate key "a" at byte 15"#)
        // Swift's String equality is canonical equivalence: é precomposed and decomposed are one key.
        #expect(failure(Array("{\"\u{E9}\":1,\"e\u{301}\":2}".utf8))?.hasPrefix("invalid JSON: duplicate key") == true)
        let many = (0..<40).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        #expect(
            failure(Array("{\(many),\"k\\u0033\":1}".utf8))?.hasPrefix(#"invalid JSON: duplicate key "k3" at byte "#)
                == true)
        #expect(failure(Array("{\(many)}".utf8)) == nil)
    }

    @Test func invalidUTF8AnywhereIsTheAnswer() {
        #expect(failure([0x7B, 0x22, 0xC3, 0x28, 0x22, 0x3A, 0x31, 0x7D]) == "body is not valid UTF-8")
        #expect(failure(Array("{,".utf8) + [0xFF]) == "body is not valid UTF-8", "even after a syntax error")
        #expect(
            failure(Array("[\"".utf8) + [0xED, 0xA0, 0x80] + Array("\"]".utf8)) == "body is not valid UTF-8",
            "a surrogate")
        #expect(failure(Array("[\"\u{10FFFF}\"]".utf8)) == nil)
    }
}
