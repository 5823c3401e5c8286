import Foundation
import FuzzTargets
import Testing

/// Every fuzz target's seed corpus (Fixtures/fuzz/NAME, with the inputs fuzzing once found) replayed through the
/// same code libFuzzer drives: nothing traps, and each target has seeds. Fast: a few dozen small files.
@Suite struct FuzzCorpusTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/fuzz")

    @Test(arguments: FuzzTargets.all.map(\.name))
    func seedCorpusReplays(target: String) throws {
        let run = try #require(FuzzTargets.all.first { $0.name == target }?.run)
        let files = FuzzReplay.files(Self.root.appendingPathComponent(target).path)
        #expect(files.count >= 4, "seeds for \(target)")
        #expect(FuzzReplay.run(arguments: files, run) == files.count)
    }

    @Test func deepNestingIsRefusedQuicklyAndWithoutRecursion() {
        // 1 MB of '[' or '{"a":' would overflow a recursive parser's stack; the validator is iterative and stops at depth 64.
        for unit in ["[", "{\"a\":"] {
            let bytes = Array("{\"aps\":".utf8) + Array(repeating: Array(unit.utf8), count: 200_000).flatMap { $0 }
            let start = ContinuousClock.now
            FuzzTargets.payload(bytes)
            FuzzTargets.config(bytes)
            #expect(ContinuousClock.now - start < .seconds(5))
        }
    }

    @Test func mockRequestInputFormat() {
        let input = Array(":method: POST\n:path: /3/device/ab\napns-topic:com.example\nx\n\n{\"aps\":{}}".utf8)
        let parts = FuzzTargets.mockRequestParts(input)
        #expect(
            parts.headers.map { String(decoding: $0.name, as: UTF8.self) } == [":method", ":path", "apns-topic", "x"])
        #expect(
            parts.headers.map { String(decoding: $0.value, as: UTF8.self) } == [
                "POST", "/3/device/ab", "com.example", "",
            ])
        #expect(parts.body == 10)
    }
}
