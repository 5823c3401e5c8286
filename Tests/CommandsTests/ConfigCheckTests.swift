import APNs
import CLITestSupport
import Foundation
import Store
import TestSupport
import Testing

/// `apnsd config check`: what it finds, its exit code, and that it never prints key material or a token.
@Suite struct ConfigCheckTests {
    private func configured() throws -> CLI {
        var cli = try CLI()
        cli.environment.merge([
            "APNSD_KEY_FILE": CLI.fixture("keys/AuthKey_TESTKEY001.p8"), "APNSD_KEY_ID": "TESTKEY001",
            "APNSD_TEAM_ID": "TESTTEAM01",
            "APNSD_PRODUCTION_URL": "https://127.0.0.1:8443", "APNSD_DEVELOPMENT_URL": "https://localhost:8444",
            "APNSD_TOPIC": "com.example.app",
            "APNSD_CHANNEL_PRODUCTION_URL": "https://127.0.0.1:2196",
            "APNSD_CHANNEL_DEVELOPMENT_URL": "https://localhost:2195",
        ]) { $1 }
        return cli
    }

    @Test func aGoodConfigurationPassesEveryCheck() async throws {
        let cli = try configured()
        defer { cli.cleanUp() }
        try #require(await cli.run("init").status == 0)
        let checked = try await cli.run("config", "check")
        #expect(checked.status == 0, "\(checked.stdout)\(checked.stderr)")
        let lines = checked.lines
        #expect(lines.allSatisfy { $0.hasPrefix("ok    ") }, "\(checked.stdout)")
        #expect(lines.contains { $0.contains("key id TESTKEY001, team TESTTEAM01") && $0.contains("minted") })
        #expect(lines.contains { $0.contains("https://127.0.0.1:8443 → 127.0.0.1") })
        let key = try String(contentsOfFile: CLI.fixture("keys/AuthKey_TESTKEY001.p8"), encoding: .utf8)
        let keyBody = key.split(separator: "\n").filter { !$0.hasPrefix("-----") }
        #expect(
            !keyBody.contains { checked.stdout.contains($0) || checked.stderr.contains($0) }, "key material printed")
        #expect(!checked.stdout.contains("eyJ") && !checked.stderr.contains("eyJ"), "a token printed")

        let json = try await cli.run("config", "check", "--json")
        let object = try Fleet.json(json.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(json.status == 0 && object["ok"] as? Bool == true)
        let checks = try #require(object["checks"] as? [String: [String: Any]])
        #expect(
            Set(checks.keys).isSuperset(of: [
                "settings", "database", "key", "ca", "production", "development", "channels", "api", "topic",
            ]))
        #expect(
            (checks["channels"]?["detail"] as? String)?.hasPrefix(
                "production https://127.0.0.1:2196 → 127.0.0.1; development https://localhost:2195 → ") == true,
            "\(checks["channels"] ?? [:])")
    }

    @Test func aChannelHostThatDoesNotResolveFails() async throws {
        var cli = try configured()
        defer { cli.cleanUp() }
        try #require(await cli.run("init").status == 0)
        cli.environment["APNSD_CHANNEL_DEVELOPMENT_URL"] = "https://api-manage-broadcast.sandbox.invalid:2195"
        let checked = try await cli.run("config", "check")
        #expect(
            checked.status == 1 && checked.stderr.hasSuffix("apnsd: error: config check failed: channels\n"),
            "\(checked.stdout)\(checked.stderr)")
        #expect(
            checked.lines.contains {
                $0.hasPrefix("FAIL  channels") && $0.contains("cannot resolve api-manage-broadcast.sandbox.invalid")
            },
            "\(checked.stdout)")
    }

    /// The broadcast-channel hosts are checked only when channels are in use (a channel recorded, or a host set): a
    /// staging setup that only reaches apns-mock passes without resolving Apple's channel hosts.
    @Test func channelHostsAreCheckedOnlyWhenChannelsAreInUse() async throws {
        var cli = try configured()
        defer { cli.cleanUp() }
        for name in ["APNSD_CHANNEL_PRODUCTION_URL", "APNSD_CHANNEL_DEVELOPMENT_URL"] { cli.environment[name] = nil }
        try #require(await cli.run("init").status == 0)
        let unused = try await cli.run("config", "check")
        #expect(unused.status == 0, "\(unused.stdout)\(unused.stderr)")
        #expect(
            unused.lines.contains { $0.hasPrefix("ok    channels") && $0.contains("not in use") }, "\(unused.stdout)")

        let store = try await Store.open(at: cli.database)
        _ = try await store.recordChannel(
            channelID: "dGhlIGZpcnN0IGNoYW5uZWw=", topic: "com.example.app", environment: .production,
            storage: ChannelStorage.none,
            credential: "default", now: Date())
        await store.close()
        let recorded = try await cli.run("config", "check", "--json")
        let checks = try #require(
            try Fleet.json(recorded.stdout.trimmingCharacters(in: .whitespacesAndNewlines))["checks"]
                as? [String: [String: Any]])
        // Resolved or not (that depends on the machine's DNS), Apple's hosts are checked now.
        #expect(
            (checks["channels"]?["detail"] as? String)?.hasPrefix(
                "production https://api-manage-broadcast.push.apple.com:2196") == true, "\(checks["channels"] ?? [:])")
    }

    @Test func eachProblemIsNamedAndExitsOne() async throws {
        var cli = try configured()
        defer { cli.cleanUp() }
        // No database yet, a broken key, an unreadable CA file.
        cli.environment["APNSD_KEY_FILE"] = try cli.write(
            "broken.p8", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
        cli.environment["APNSD_CA_FILE"] = "/nonexistent/ca.pem"
        let checked = try await cli.run("config", "check")
        #expect(checked.status == 1, "\(checked.stdout)\(checked.stderr)")
        let failed = checked.lines.filter { $0.hasPrefix("FAIL") }.map {
            $0.split(separator: " ", omittingEmptySubsequences: true)[1]
        }
        #expect(failed == ["database", "key", "ca"], "\(checked.stdout)")
        #expect(checked.stderr == "apnsd: error: config check failed: database, key, ca\n", "\(checked.stderr)")
        // A bad setting is a usage error, as for every command.
        #expect(try await cli.run("config", "check", "--rate", "fast").status == 64)
        #expect(try await cli.run("config", "verify").status == 64)
    }

    /// deploy/'s signing units start with the README's several-apps config: the unit's environment (its
    /// `Environment=` lines, the config path made this test's), the files the README's drop-in loads with
    /// `LoadCredential=` in `$CREDENTIALS_DIRECTORY`, and the config's relative file names pass `init` (the units'
    /// ExecStartPre) and `config check`.
    @Test func theUnitsEnvironmentAndTheREADMEsSeveralAppsConfigPassTheCheck() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let apps = try #require(readme.components(separatedBy: "### Several apps and teams\n").dropFirst().first)
        let json = try #require(
            apps.components(separatedBy: "```json\n").dropFirst().first?
                .components(separatedBy: "```").first)
        let install = try #require(readme.components(separatedBy: "## Install and deploy\n").dropFirst().first)
        let loads = install.split(separator: "\n").filter { $0.hasPrefix("LoadCredential=") && $0.contains(":") }
            .map { $0.dropFirst("LoadCredential=".count).split(separator: ":", maxSplits: 1).map(String.init) }
        try #require(loads.count == 4, "the README's drop-in: \(loads)")

        var cli = try CLI()
        defer { cli.cleanUp() }
        let credentials = cli.directory.appendingPathComponent("credentials")
        try FileManager.default.createDirectory(at: credentials, withIntermediateDirectories: true)
        let ca = try TestCertificateAuthority(in: cli.directory.appendingPathComponent("ca").path)
        let legacy = try ca.issue(bundleID: "com.example.legacy", environments: [.production])
        for load in loads {
            let copy = credentials.appendingPathComponent(load[0])
            switch URL(fileURLWithPath: load[1]).pathExtension {
            case "p8":
                try FileManager.default.copyItem(atPath: CLI.fixture("keys/AuthKey_TESTKEY001.p8"), toPath: copy.path)
            case "p12": try FileManager.default.copyItem(atPath: legacy.p12, toPath: copy.path)
            case "pass": try (legacy.password + "\n").write(to: copy, atomically: true, encoding: .utf8)
            default: Issue.record("a credential the test cannot make: \(load)")
            }
        }
        // The README's config, with this test's database and APNs hosts that resolve offline.
        var config = try #require(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        var apns = try #require(config["apns"] as? [String: Any])
        apns["productionURL"] = "https://127.0.0.1:8443"
        apns["developmentURL"] = "https://127.0.0.1:8444"
        apns["channelProductionURL"] = "https://127.0.0.1:2196"
        apns["channelDevelopmentURL"] = "https://127.0.0.1:2195"
        config["apns"] = apns
        config["database"] = cli.database
        let path = try cli.write(
            "apnsd.json", String(decoding: try JSONSerialization.data(withJSONObject: config), as: UTF8.self))

        for unit in ["apnsd-worker.service", "apnsd.service"] {
            let text = try String(contentsOf: root.appendingPathComponent("deploy/\(unit)"), encoding: .utf8)
            var environment = ["PATH": "/usr/bin:/bin", "CREDENTIALS_DIRECTORY": credentials.path]
            for line in text.split(separator: "\n") where line.hasPrefix("Environment=") {
                let assignment = line.dropFirst("Environment=".count).split(separator: "=", maxSplits: 1)
                environment[String(assignment[0])] = String(assignment.count > 1 ? assignment[1] : "")
                    .replacingOccurrences(of: "%d", with: credentials.path)
            }
            #expect(environment["APNSD_CONFIG"] == "/etc/apnsd/apnsd.json", "\(unit)")
            environment["APNSD_CONFIG"] = path
            cli.environment = environment
            let initialized = try await cli.run("init")
            #expect(initialized.status == 0, "\(unit): \(initialized.stderr)")
            let checked = try await cli.run("config", "check")
            #expect(checked.status == 0, "\(unit): \(checked.stdout)\(checked.stderr)")
            for name in ["shop", "rides", "legacy"] {
                #expect(checked.lines.contains { $0.hasPrefix("ok    credential.\(name)") }, "\(checked.stdout)")
            }
        }
    }
}
