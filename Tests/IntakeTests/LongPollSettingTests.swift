import Testing

@testable import Intake

/// `api.maxLongPolls` and `api.maxLongPollsPerKey` from the file, a variable or a flag, within 1…100000.
@Suite struct LongPollSettingTests {
    @Test func longPollSlotsAreSetEachWayAndChecked() throws {
        #expect(Configuration().apiMaxLongPolls == 256 && Configuration().apiMaxLongPollsPerKey == 16)
        var file = Configuration()
        try file.apply(fileBytes: Array(#"{"api":{"maxLongPolls":40,"maxLongPollsPerKey":4}}"#.utf8))
        #expect(file.apiMaxLongPolls == 40 && file.apiMaxLongPollsPerKey == 4)
        let variables = try Configuration.load(
            configPath: nil, flag: { _ in nil },
            environment: ["APNSD_API_MAX_LONG_POLLS": "8", "APNSD_API_MAX_LONG_POLLS_PER_KEY": "2"])
        #expect(variables.apiMaxLongPolls == 8 && variables.apiMaxLongPollsPerKey == 2)
        let flags = try Configuration.load(
            configPath: nil, flag: { ["api-max-long-polls": "3", "api-max-long-polls-per-key": "1"][$0] },
            environment: ["APNSD_API_MAX_LONG_POLLS": "8"])
        #expect(flags.apiMaxLongPolls == 3 && flags.apiMaxLongPollsPerKey == 1)
        for bad in ["0", "-1", "100001", "many"] {
            #expect(throws: Configuration.LoadError.self) {
                try Configuration.load(
                    configPath: nil, flag: { _ in nil }, environment: ["APNSD_API_MAX_LONG_POLLS": bad])
            }
            #expect(throws: Configuration.LoadError.self) {
                try Configuration.load(
                    configPath: nil, flag: { _ in nil }, environment: ["APNSD_API_MAX_LONG_POLLS_PER_KEY": bad])
            }
        }
    }
}
