import Foundation
import TestSupport
import Testing

/// deploy/'s systemd services — every `*.service` there, so a unit added later is held to the same — are
/// sandboxed well enough for `systemd-analyze security` (≤ 2.5 of 10), cannot restart forever on a bad key or
/// config, and those that sign (worker, serve) read the key through `LoadCredential=`.
@Suite(.offThePool) struct SystemdUnitTests {
    static let deploy = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("deploy")

    static let analyze = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    static let analyzeMissing = Comment(
        rawValue: "skipped: systemd-analyze is not installed (Debian package systemd; scripts/setup installs it)")

    static func services() throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: deploy, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "service" }.sorted { $0.path < $1.path }
    }

    /// The unit's `Key=value` lines (comments and sections left out).
    static func settings(_ unit: URL) throws -> [(key: String, value: String)] {
        try String(contentsOf: unit, encoding: .utf8).split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#"), !line.hasPrefix("["), let equals = line.firstIndex(of: "=") else { return nil }
            return (String(line[..<equals]), String(line[line.index(after: equals)...]))
        }
    }

    @Test(.enabled(if: analyze != nil, analyzeMissing))
    func everyServiceScoresAtMost2Point5() async throws {
        let units = try Self.services()
        #expect(units.count >= 2, "deploy/ has apnsd-worker.service and apnsd.service")
        for unit in units {
            // --threshold=25: exit non-zero above an exposure of 2.5; --offline: the unit file, not a running system.
            let result = try await ToolRun.run(
                Self.analyze!, ["security", "--offline=true", "--threshold=25", "--no-pager", unit.path])
            let text = result.stdout + result.stderr
            let verdict =
                text.split(separator: "\n").last { $0.contains("Overall exposure level") } ?? "no score printed"
            #expect(result.status == 0, "\(unit.lastPathComponent): \(verdict)\n\(text)")
        }
    }

    @Test func everyServiceStopsRestartingAndSigningServicesLoadTheKeyAsACredential() async throws {
        for unit in try Self.services() {
            let settings = try Self.settings(unit)
            func value(_ key: String) -> String? { settings.last { $0.key == key }?.value }
            let name = unit.lastPathComponent
            #expect(
                Int(value("StartLimitBurst") ?? "") ?? 0 > 0 && value("StartLimitIntervalSec") != nil,
                "\(name): StartLimitIntervalSec= and StartLimitBurst=, so a bad credential does not restart it forever")
            #expect(value("UMask") == "0027", "\(name): files it creates (the database) are never world-readable")
            let start = value("ExecStart") ?? ""
            guard
                start.hasSuffix(" worker") || start.contains(" worker ") || start.hasSuffix(" serve")
                    || start.contains(" serve ")
            else { continue }
            let credential = try #require(
                value("LoadCredential"), "\(name) signs pushes: it loads the key with LoadCredential=")
            let credentialName = String(credential.prefix { $0 != ":" })
            #expect(
                settings.contains { $0.key == "Environment" && $0.value == "APNSD_KEY_FILE=%d/\(credentialName)" },
                "\(name): APNSD_KEY_FILE points into the credentials directory (%d)")
        }
    }
}
