import APNs
import APNsMock
import TestSupport
import Testing

/// The simulator's request rules on plain values (`RequestRules.check`, what FuzzMockRequest drives).
@Suite(.offThePool) struct RequestRulesTests {
    static let token = "3f2a1c0e9b8d7f6a5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a29"

    static func headers(_ pairs: [(String, String)]) -> [(name: [UInt8], value: [UInt8])] {
        pairs.map { (Array($0.0.utf8), Array($0.1.utf8)) }
    }

    @Test func aValidRequestPassesWithItsTokenLowercased() {
        let verdict = RequestRules.check(
            headers: Self.headers([
                (":method", "POST"), (":path", "/3/device/" + Self.token.uppercased()),
                ("apns-topic", "com.example.app"),
                ("authorization", "bearer x"),
            ]), bodyBytes: 20)
        #expect(verdict.problem == nil)
        #expect(verdict.token == Self.token)
        #expect(verdict.authorization == Array("bearer x".utf8))
    }

    /// Found by FuzzMockRequest (FUZZING.md), minimized: a POST with a topic and a body but no :path at all was
    /// accepted, with no device token. nghttp2 resets such a stream before the rules see it, so the simulator
    /// never answered one; the rules alone now refuse it as APNs refuses a path that is not /3/device/….
    @Test func aRequestWithoutAPathIsBadPath() {
        let verdict = RequestRules.check(
            headers: Self.headers([(":method", "POST"), ("apns-topic", "a")]), bodyBytes: 1)
        #expect(verdict.problem?.status == 404)
        #expect(verdict.problem?.reason == .badPath)
        #expect(verdict.token == nil)
    }

    @Test func theFirstProblemWins() {
        let verdict = RequestRules.check(
            headers: Self.headers([
                (":method", "POST"), (":path", "/3/device/" + Self.token), ("apns-topic", "a"), ("apns-priority", "7"),
                ("apns-topic", "b"),
            ]), bodyBytes: 1)
        #expect(verdict.problem?.status == 400)
        #expect(verdict.problem?.reason == .badPriority)
    }
}
