import Foundation
import TestSupport
import Testing

@testable import APNsMock

/// `--arrivals-out` / `MockConfiguration.arrivalsFile`: one line per push request, for latency benchmarks.
@Suite("Mock: arrivals file", .offThePool)
struct MockArrivalsTests {
    @Test(
        "every push request gets a line: wall-clock ns within the run and its apns-id, '-' without one; stats requests none"
    )
    func linesPerRequest() throws {
        let scratch = try TempDirectory("arrivals")
        defer { scratch.remove() }
        let file = scratch.path("arrivals.txt")
        let mock = try MockHarness(arrivalsFile: file)
        let ids = (0..<5).map { _ in UUID().uuidString.lowercased() }
        let before = UInt64(Date().timeIntervalSince1970 * 1e9)
        var requests = try ids.map { try mock.push(Fixture.token("aa"), extra: [("apns-id", $0)]) }
        requests.append(try mock.push(Fixture.token("bb")))
        requests.append(try mock.push(Fixture.token("cc"), extra: [("apns-id", "not-a-uuid")]))
        let responses = try mock.send(requests)
        _ = try mock.stats()
        let after = UInt64(Date().timeIntervalSince1970 * 1e9)
        #expect(responses.map(\.status) == [200, 200, 200, 200, 200, 200, 400])
        mock.stop()

        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 7, "\(lines)")
        var seen: [String] = []
        for line in lines {
            let fields = line.split(separator: " ")
            #expect(fields.count == 2, "\(line)")
            let time = try #require(UInt64(fields[0]))
            // Wall clock on both sides (the same clock); allow 1 ms for the Double rounding of `before`/`after`.
            #expect(time + 1_000_000 >= before && time <= after + 1_000_000, "\(time) outside \(before)…\(after)")
            seen.append(String(fields[1]))
        }
        #expect(seen.filter { $0 != "-" }.sorted() == ids.sorted())
        #expect(seen.filter { $0 == "-" }.count == 2)
    }
}
