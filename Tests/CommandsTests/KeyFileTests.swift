import CLITestSupport
import Foundation
import TestSupport
import Testing

/// A `.p8` any user can read is warned about (it still works: the warning names the fix); a private one is not.
@Suite struct KeyFileTests {
    @Test func aWorldReadableKeyGetsOneWarningLine() async throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        try #require(await cli.run("init").status == 0)
        let key = cli.directory.appendingPathComponent("AuthKey_TESTKEY001.p8").path
        try FileManager.default.copyItem(atPath: CLI.fixture("keys/AuthKey_TESTKEY001.p8"), toPath: key)
        let environment = ["APNSD_KEY_FILE": key, "APNSD_KEY_ID": "TESTKEY001", "APNSD_TEAM_ID": "TESTTEAM01"]

        try #require(chmod(key, 0o644) == 0)
        let open = try await cli.run(["worker", "--until-idle"], environment: environment)
        #expect(open.status == 0, "\(open.stderr)")
        let warnings = open.stderr.split(separator: "\n").filter { $0.hasPrefix("apnsd: warning: ") }
        #expect(
            warnings == [
                "apnsd: warning: key file \(key) is readable by every user (mode 644): chmod 600 it, or load it with systemd's LoadCredential= (deploy/)"
            ],
            "\(open.stderr)")

        try #require(chmod(key, 0o600) == 0)
        let closed = try await cli.run(["worker", "--until-idle"], environment: environment)
        #expect(closed.status == 0 && !closed.stderr.contains("readable by every user"), "\(closed.stderr)")
    }
}
