import CLITestSupport
import Foundation
import Intake
import TestSupport
import Testing

/// Settings are declared once (`Configuration.settings`); the README's table and `--help` must say the same.
@Suite struct SettingsDocumentationTests {
    static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("README.md")

    @Test func theREADMETableMatchesTheDeclarations() async throws {
        let text = try String(contentsOf: Self.readme, encoding: .utf8)
        let rows = text.split(separator: "\n").filter { $0.hasPrefix("| ") && $0.contains(" | APNSD_") }
            .map { $0.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) } }
        #expect(
            rows.map { $0[0] } == Configuration.settings.map(\.key),
            "the README lists the settings in declaration order")
        for (row, setting) in zip(rows, Configuration.settings) {
            #expect(
                row[1] == setting.environment && row[2] == "--" + setting.flag && row[3] == setting.help
                    && row[4] == setting.defaultValue, "README row \(row) vs declaration \(setting.key)")
        }
    }

    @Test func helpListsEverySettingAndAMisspelledVariableIsWarnedAbout() async throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        let help = try await cli.run("--help").stdout
        for setting in Configuration.settings {
            #expect(
                help.contains("--\(setting.flag) ") && help.contains(setting.environment),
                "\(setting.key) missing from --help")
        }
        try #require(await cli.run("init").status == 0)
        // The example: the variable is ignored (the command runs), with one line naming the closest name.
        let typo = try await cli.run(["campaign", "list"], environment: ["APNSD_MAX_ATTEMPTS": "2"])
        #expect(typo.status == 0)
        #expect(
            typo.stderr
                == "apnsd: warning: unknown environment variable APNSD_MAX_ATTEMPTS is ignored (did you mean APNSD_RETRY_MAX_ATTEMPTS?)\n",
            "\(typo.stderr)")
        let two = try await cli.run(
            ["campaign", "list"], environment: ["APNSD_RATEE": "5", "APNSD_CONFG": "x.json"])
        #expect(two.status == 0 && two.stderr.split(separator: "\n").count == 2, "\(two.stderr)")
        #expect(
            two.stderr.contains("APNSD_RATEE is ignored (did you mean APNSD_RATE?)")
                && two.stderr.contains("APNSD_CONFG is ignored (did you mean APNSD_CONFIG?)"),
            "\(two.stderr)")
        // The known names are the settings' own (Configuration.settings), so none of them is warned about.
        var every: [String: String] = [:]
        for name in Configuration.environmentNames { every[name] = "" }
        let known = try await cli.run(["campaign", "list"], environment: every)
        #expect(!known.stderr.contains("warning"), "\(known.stderr)")
    }
}
