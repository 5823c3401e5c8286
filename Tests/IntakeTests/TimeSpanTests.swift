import Intake
import Testing

/// `TimeSpan`: the durations of the retention settings.
@Suite struct TimeSpanTests {
    @Test(
        arguments: [
            ("45s", 45, "45s"), ("90m", 5_400, "90m"), ("24h", 86_400, "24h"), ("30d", 2_592_000, "30d"),
            ("007d", 604_800, "7d"), ("36500d", 3_153_600_000, "36500d"),
        ] as [(String, Int64, String)])
    func parses(text: String, seconds: Int64, shown: String) throws {
        let span = try TimeSpan(parsing: text, name: "retention.x")
        #expect(span.seconds == seconds && span.description == shown)
    }

    @Test(arguments: [
        "", "d", "30", "30x", "0d", "0s", "-5d", "+5d", "5 d", " 5d", "1.5h", "5D", "36501d", "99999999999999d", "٣d",
    ])
    func refuses(text: String) {
        #expect(throws: IntakeError.self) { try TimeSpan(parsing: text, name: "retention.x") }
        do { _ = try TimeSpan(parsing: text, name: "retention.x") } catch {
            #expect(error.description.hasPrefix("retention.x must be a whole number"), "\(error)")
        }
    }

    @Test func theDefaultsAreThirtyAndNinetyDays() {
        let configuration = Configuration()
        #expect(
            configuration.retentionDeliveries.seconds == 30 * 86_400
                && configuration.retentionDevices.description == "90d")
    }
}
