import Foundation
import Intake
import Testing

/// Settings are declared once (`Configuration.settings`); the README's table and `--help` must say the same.
@Suite struct SettingsDocumentationTests {
    static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("README.md")

    @Test func theREADMETableMatchesTheDeclarations() throws {
        let text = try String(contentsOf: Self.readme, encoding: .utf8)
        let rows = text.split(separator: "\n").filter { $0.hasPrefix("| ") && $0.contains(" | APNSD_") }
            .map { $0.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) } }
        #expect(rows.map { $0[0] } == Configuration.settings.map(\.key), "the README lists the settings in declaration order")
        for (row, setting) in zip(rows, Configuration.settings) {
            #expect(row[1] == setting.environment && row[2] == "--" + setting.flag && row[3] == setting.help
                    && row[4] == setting.defaultValue, "README row \(row) vs declaration \(setting.key)")
        }
    }

    @Test func helpListsEverySettingAndAMisspelledVariableIsRefused() throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        let help = try cli.run("--help").stdout
        for setting in Configuration.settings {
            #expect(help.contains("--\(setting.flag) ") && help.contains(setting.environment), "\(setting.key) missing from --help")
        }
        let typo = try cli.run(["campaign", "list"], environment: ["APNSD_RATEE": "5"])
        #expect(typo.status == 64)
        #expect(typo.stderr.contains("APNSD_RATEE") && typo.stderr.contains("APNSD_RATE"), "\(typo.stderr)")
    }
}
