import QueueRules
import Testing

@Suite struct ByteOrderTests {
    @Test func sortsLikeSQLiteBinaryCollation() {
        let strings = [
            "", "a", "ab", "abc", "b", "aaaaaaaaaaaaaaaa", "aaaaaaaaaaaaaaaab", "aaaaaaaaaaaaaaaaa",
            "aaaaaaaaaaaaaaaa\u{0}", "Z", "é", "e\u{301}", "user10", "user9", "user1", "ff", "0f",
            "aaaaaaaaaaaaaaaa", "zzzzzzzzzzzzzzzzzzzz",
        ]
        let order = ByteOrder.indices(
            count: strings.count, prefix: { ByteOrder.Prefix(strings[$0]) },
            precedes: { a, b in strings[a] != strings[b] ? ByteOrder.precedes(strings[a], strings[b]) : a < b })
        let expected = strings.indices.sorted { a, b in
            let left = Array(strings[a].utf8)
            let right = Array(strings[b].utf8)
            return left != right ? left.lexicographicallyPrecedes(right) : a < b
        }
        #expect(order == expected)
    }

    @Test func prefixAgreesWithByteOrder() {
        let strings = ["", "a", "a\u{0}", "ab", "abcdefgh", "abcdefghi", "abcdefghijklmnop", "abcdefghijklmnopq", "b"]
        for (a, b) in zip(strings, strings.dropFirst()) {
            #expect(ByteOrder.Prefix(a) <= ByteOrder.Prefix(b), "\(a) < \(b)")
        }
        #expect(ByteOrder.Prefix("abcdefghijklmnopX") == ByteOrder.Prefix("abcdefghijklmnopY"))
        #expect(ByteOrder.indices(count: 0, prefix: { _ in ByteOrder.Prefix("") }, precedes: { _, _ in false }).isEmpty)
    }
}
