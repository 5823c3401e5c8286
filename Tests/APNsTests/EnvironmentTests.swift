import APNs
import Testing

/// docs/APNS.md, "Endpoints": production and development (sandbox) hosts.
@Suite("Environment")
struct EnvironmentTests {
    @Test(
        "names parse to Apple's hosts",
        arguments: [
            ("production", "https://api.push.apple.com"), ("development", "https://api.sandbox.push.apple.com"),
            ("sandbox", "https://api.sandbox.push.apple.com"), ("Production", "https://api.push.apple.com"),
        ])
    func hosts(name: String, host: String) throws {
        #expect(try Environment.parse(name).defaultBaseURL == host)
    }

    @Test("unknown names are refused with the name in the message")
    func unknown() {
        #expect(throws: APNsError.invalidEnvironment("staging")) { try Environment.parse("staging") }
        #expect(APNsError.invalidEnvironment("staging").description.contains("staging"))
    }
}
