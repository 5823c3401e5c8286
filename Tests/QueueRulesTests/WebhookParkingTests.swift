import Foundation
import QueueModel
import QueueRules
import Testing

/// The parking rule on an injected clock: refusals counted per batch (its first event), the first failure kept,
/// parked only at `maxAttempts` refusals AND an hour after the first failure.
@Suite struct WebhookParkingTests {
    static let t0 = Date(timeIntervalSince1970: 1_900_000_000)

    @Test(
        arguments: [
            (200, false), (204, false), (nil, false), (400, true), (401, true), (404, true), (410, true), (413, true),
            (422, true), (500, true), (429, false), (502, false), (503, false), (504, false), (301, true),
        ] as [(Int?, Bool)])
    func whatCountsAsARefusal(status: Int?, refusal: Bool) {
        #expect(WebhookParking.isRefusal(status: status) == refusal)
    }

    /// Each row: refusals so far, seconds since the first failure, whether the batch is parked (maxAttempts 20).
    @Test(arguments: [
        (19, 3600.0, false), (20, 3599.999, false), (20, 3600, true), (25, 7200, true), (0, 86_400, false),
        (1, 0, false), (20, 0, false),
    ])
    func parksAtMaxAttemptsAndAnHour(attempts: Int, age: Double, parks: Bool) {
        let failure = WebhookFailure(
            first: EventID(5), last: EventID(9), events: 5, attempts: attempts, firstFailureAt: Self.t0,
            lastError: "HTTP 400", updatedAt: Self.t0)
        #expect(WebhookParking().parks(failure, now: Self.t0.addingTimeInterval(age)) == parks)
    }

    @Test func aFailureCountsOnTheSameBatchAndStartsAgainOnAnother() {
        let rule = WebhookParking(maxAttempts: 3, minimumAge: .seconds(60))
        var failure: WebhookFailure?
        // (seconds, status): a 503 and a transport failure are recorded but not counted.
        let attempts: [(Double, Int?)] = [(0, 503), (10, 400), (20, nil), (30, 400), (40, 500)]
        for (seconds, status) in attempts {
            failure = rule.failed(
                failure, first: EventID(5), last: EventID(seconds < 30 ? 6 : 8), events: seconds < 30 ? 2 : 4,
                status: status, error: "e\(Int(seconds))", now: Self.t0.addingTimeInterval(seconds))
        }
        let counted = try! #require(failure)
        #expect(counted.attempts == 3 && counted.firstFailureAt == Self.t0 && counted.lastError == "e40")
        #expect(counted.last == EventID(8) && counted.events == 4, "the last attempt's batch is what is parked")
        #expect(rule.parks(counted, now: Self.t0.addingTimeInterval(59)) == false)
        #expect(rule.parks(counted, now: Self.t0.addingTimeInterval(60)))

        let next = rule.failed(
            counted, first: EventID(9), last: EventID(9), events: 1, status: 400, error: "x",
            now: Self.t0.addingTimeInterval(100))
        #expect(next.attempts == 1 && next.firstFailureAt == Self.t0.addingTimeInterval(100))
    }
}
