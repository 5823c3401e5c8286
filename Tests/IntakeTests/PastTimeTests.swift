import Foundation
import Intake
import Testing

/// `--since`/`--until`: "that long ago" or an ISO 8601 time; anything else one clear error. And `retry.jitter`.
@Suite struct PastTimeTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(arguments: [("90s", 90), ("90m", 5400), ("24h", 86_400), ("7d", 604_800), ("0m", 0)])
    func durationsMeanThatLongAgo(text: String, seconds: Int) throws {
        #expect(try PastTime.parse(text, now: Self.now) == Self.now.addingTimeInterval(-Double(seconds)))
    }

    @Test func isoTimesAreTakenAsGiven() throws {
        #expect(try PastTime.parse("2026-12-01T09:00:00Z", now: Self.now) == Date(timeIntervalSince1970: 1_796_115_600))
        #expect(
            try PastTime.parse("2026-12-01T10:00:00+01:00", now: Self.now) == Date(timeIntervalSince1970: 1_796_115_600)
        )
    }

    @Test(arguments: [
        "", "h", "5", "5x", "-5m", "1.5h", "5 m", "yesterday", "99999999d", "2026-02-30T00:00:00Z", "2026-12-01",
    ])
    func anythingElseIsRefusedNamingBothForms(text: String) {
        do {
            _ = try PastTime.parse(text, now: Self.now)
            Issue.record("accepted '\(text)'")
        } catch {
            // A date-like text gets the ISO 8601 parser's own reason; anything else names both forms.
            #expect(error.description.contains("ISO 8601"), "\(error)")
            if !text.contains("-") { #expect(error.description.contains("90m"), "\(error)") }
        }
    }

    @Test func retryJitterIsOneOfThreeChoices() throws {
        for choice in ["full", "equal", "decorrelated"] {
            let configuration = try Configuration.load(
                configPath: nil, flag: { $0 == "retry-jitter" ? choice : nil }, environment: [:])
            #expect(configuration.retryJitter == choice)
        }
        #expect(try Configuration.load(configPath: nil, flag: { _ in nil }, environment: [:]).retryJitter == "full")
        #expect(
            try Configuration.load(configPath: nil, flag: { _ in nil }, environment: ["APNSD_RETRY_JITTER": "equal"])
                .retryJitter == "equal")
        do {
            _ = try Configuration.load(
                configPath: nil, flag: { $0 == "retry-jitter" ? "random" : nil }, environment: [:])
            Issue.record("accepted retry.jitter random")
        } catch {
            #expect(error.isUsage && error.description.contains("full, equal, decorrelated"), "\(error)")
        }
    }
}
