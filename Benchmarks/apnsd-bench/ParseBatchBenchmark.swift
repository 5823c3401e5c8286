import API
import Foundation

/// `apnsd-bench parse-batch`: runs `POST /v1/notifications/batch`'s parse and validation (`API.batchSpecs`, the
/// route's own code) on a body file REPEAT times and reports the CPU time per notification.
enum ParseBatchBenchmark {
    static func run(path: String, repeats: Int) {
        guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
        let body = Array(data)
        let items: Int
        do {
            items = try API.batchSpecs(body: body, contentType: "application/json", defaultTopic: "com.example.bench")
                .count
        } catch {
            fail("\(path) is refused: \(error)")
        }
        var best = Double.infinity
        var total = 0.0
        for _ in 0..<repeats {
            let begin = ContinuousClock.now
            // The specs are dropped inside the timed part, as the route drops them after enqueueing.
            do {
                let specs = try API.batchSpecs(
                    body: body, contentType: "application/json", defaultTopic: "com.example.bench")
                precondition(specs.count == items)
            } catch {
                fail("\(error)")
            }
            let elapsed = Double((ContinuousClock.now - begin) / .nanoseconds(1)) / 1e9
            best = min(best, elapsed)
            total += elapsed
        }
        emit("items", items)
        emit("bytes", body.count)
        emit("repeats", repeats)
        emit("us_per_item_best", String(format: "%.3f", best * 1e6 / Double(items)))
        emit("us_per_item_mean", String(format: "%.3f", total / Double(repeats) * 1e6 / Double(items)))
    }
}
