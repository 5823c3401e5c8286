import Foundation
import TestSupport
import Testing

/// deploy/'s systemd services — every `*.service` there, so a unit added later is held to the same — are
/// sandboxed well enough for `systemd-analyze security` (≤ 2.5 of 10), cannot restart forever on a bad key or
/// config, and those that sign (worker, serve) read the key through `LoadCredential=`; every unit passes
/// `systemd-analyze verify` as scripts/install puts it. systemd-analyze is required (scripts/setup installs it):
/// these tests fail, not skip, without it.
@Suite(.offThePool) struct SystemdUnitTests {
    static let deploy = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("deploy")

    static let analyze = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    static let analyzeMissing = Comment(
        rawValue: "systemd-analyze is not installed (Debian package systemd; scripts/setup installs it)")
    static let systemctl = ["/usr/bin/systemctl", "/bin/systemctl"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

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

    @Test func everyServiceScoresAtMost2Point5() async throws {
        let analyze = try #require(Self.analyze, Self.analyzeMissing)
        let units = try Self.services()
        #expect(units.count >= 2, "deploy/ has apnsd-worker.service and apnsd.service")
        for unit in units {
            // --threshold=25: exit non-zero above an exposure of 2.5; --offline: the unit file, not a running system.
            let result = try await ToolRun.run(
                analyze, ["security", "--offline=true", "--threshold=25", "--no-pager", unit.path])
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
            #expect(credential == "apns.p8:/etc/apnsd/apns.p8", "\(name): the example config's relative keyFile")
            // APNSD_KEY_FILE would make a default credential beside apns.credentials, without its key id: exit 64.
            #expect(
                !settings.contains { $0.key == "Environment" && $0.value.hasPrefix("APNSD_KEY_FILE=") },
                "\(name): the key's path comes from the config file (relative: in the credentials directory)")
        }
    }

    /// Every unit as scripts/install puts it — under /usr/local, where systemd reads units, and under /opt/apnsd,
    /// where it does not and the `systemctl link` commands install prints make it — passes `systemd-analyze verify`
    /// in a scratch root holding what the units name (the binaries, the targets), the signing units with the
    /// README's several-apps drop-in too. Install's notes say how to make the user and directories.
    @Test func everyUnitVerifiesWhereScriptsInstallPutsIt() async throws {
        let analyze = try #require(Self.analyze, Self.analyzeMissing)
        let systemctl = try #require(Self.systemctl, Self.analyzeMissing)
        let manager = FileManager.default
        let scratch = manager.temporaryDirectory.appendingPathComponent("apnsd-units-\(UUID().uuidString)")
        defer { try? manager.removeItem(at: scratch) }
        let bin = scratch.appendingPathComponent("bin")
        try manager.createDirectory(at: bin, withIntermediateDirectories: true)
        for program in ["apnsd", "apns-mock"] {
            let stub = bin.appendingPathComponent(program).path
            try "#!/bin/sh\n".write(toFile: stub, atomically: true, encoding: .utf8)
            try manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: stub)
        }
        let deployed = try manager.contentsOfDirectory(atPath: Self.deploy.path)
            .filter { $0.hasSuffix(".service") || $0.hasSuffix(".timer") }.sorted()
        let readme = try Repository.text("README.md")
        let dropIn = try #require(
            readme.components(separatedBy: "```ini\n").dropFirst().first?.components(separatedBy: "```").first,
            "the README's LoadCredential= drop-in")

        for prefix in ["/usr/local", "/opt/apnsd"] {
            let root = scratch.appendingPathComponent("root\(prefix.replacingOccurrences(of: "/", with: "-"))")
            let install = try await ToolRun.run(
                "/usr/bin/env",
                [
                    "DESTDIR=\(root.path)", "APNSD_INSTALL_BIN=\(bin.path)", "bash",
                    Repository.root.appendingPathComponent("scripts/install").path, prefix,
                ])
            try #require(install.status == 0, "\(install.stderr)")
            let installed = try manager.contentsOfDirectory(atPath: root.path + prefix + "/lib/systemd/system").sorted()
            #expect(installed == deployed)
            let links = install.stderr.split(separator: "\n").compactMap { line in
                line.hasPrefix("  systemctl link ") ? String(line.dropFirst("  systemctl link ".count)) : nil
            }
            #expect(install.stderr.contains("useradd --system") && install.stderr.contains("/etc/apnsd"))
            var searched = root.path + prefix + "/lib/systemd/system"
            if prefix == "/opt/apnsd" {
                #expect(links.sorted() == deployed.map { "/opt/apnsd/lib/systemd/system/\($0)" }, "\(install.stderr)")
                for link in links {
                    let linked = try await ToolRun.run(systemctl, ["--root=\(root.path)", "link", link])
                    #expect(linked.status == 0, "\(linked.stderr)")
                }
                // systemd-analyze verify --root does not follow a link into the root: it verifies copies instead.
                searched = root.path + "/etc/systemd/system"
                for unit in deployed {
                    let copy = searched + "/" + unit
                    #expect(
                        (try? manager.destinationOfSymbolicLink(atPath: copy))
                            == "/opt/apnsd/lib/systemd/system/\(unit)", "systemctl link made no \(copy)")
                    try? manager.removeItem(atPath: copy)
                    try manager.copyItem(atPath: root.path + prefix + "/lib/systemd/system/" + unit, toPath: copy)
                }
            } else {
                #expect(links.isEmpty, "\(install.stderr)")
            }
            for unit in ["apnsd-worker.service", "apnsd.service"] {
                try manager.createDirectory(atPath: "\(searched)/\(unit).d", withIntermediateDirectories: true)
                try dropIn.write(toFile: "\(searched)/\(unit).d/override.conf", atomically: true, encoding: .utf8)
            }
            try manager.createDirectory(
                atPath: root.path + "/lib/systemd/system", withIntermediateDirectories: true)
            try "[Unit]\nDescription=stands in for the host's\n".write(
                toFile: root.path + "/lib/systemd/system/sysinit.target", atomically: true, encoding: .utf8)
            let verified = try await ToolRun.run(
                analyze, ["verify", "--root=\(root.path)", "--man=no"] + deployed.map { "\(searched)/\($0)" })
            // Unknown settings and bad values are only warnings to verify: any output fails the test.
            #expect(
                verified.status == 0 && (verified.stdout + verified.stderr).isEmpty,
                "\(prefix): \(verified.stdout)\(verified.stderr)")
        }
    }
}
