import Foundation
import TestSupport
import Testing

/// `apnsd device remove`, `apnsd device add --replaces` and `apnsd backup`, through the real binary.
@Suite(.offThePool) struct DeviceRemoveTests {
    @Test func removeByTokenAndByUserAndReplace() throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        try #require(cli.run("init").status == 0)
        for (n, user) in [(1, "alice"), (2, "alice"), (3, "bob")] {
            try #require(
                cli.run("device", "add", Tokens.hex(n), "--topic", "com.example.app", "--user", user).status == 0)
        }
        try #require(cli.run("device", "add", Tokens.hex(3), "--topic", "com.example.other").status == 0)

        let removed = try cli.run("device", "remove", Tokens.hex(1))
        #expect(
            removed.status == 0 && removed.stdout == "removed \(Tokens.hex(1)) for com.example.app\n",
            "\(removed.stdout)\(removed.stderr)")
        let again = try cli.run("device", "remove", Tokens.hex(1))
        #expect(again.status == 0 && again.stdout.contains("already inactive (Removed)"), "\(again.stdout)")
        // A token of two topics needs --topic; an unknown one is an error; both change nothing.
        let ambiguous = try cli.run("device", "remove", Tokens.hex(3))
        #expect(ambiguous.status == 1 && ambiguous.stderr.contains("several topics"), "\(ambiguous.stderr)")
        let unknown = try cli.run("device", "remove", Tokens.hex(9))
        #expect(
            unknown.status == 1 && unknown.stderr.hasPrefix("apnsd: error: no device with token"), "\(unknown.stderr)")
        #expect(try cli.run("device", "remove", "nothex").status == 64)
        #expect(try cli.run("device", "remove", Tokens.hex(3), "--user", "bob").status == 64)
        #expect(
            try cli.run("device", "remove", Tokens.hex(3), "--topic", "com.example.other").stdout.hasPrefix("removed "))

        let user = try cli.run("device", "remove", "--user", "alice")
        #expect(
            user.status == 0 && user.stdout == "deactivated 1 device of user alice (Removed)\n",
            "\(user.stdout)\(user.stderr)")

        // bob reinstalled: token 4 replaces token 3 and keeps his user.
        let replaced = try cli.run(
            "device", "add", Tokens.hex(4), "--topic", "com.example.app", "--replaces", Tokens.hex(3))
        #expect(
            replaced.status == 0 && replaced.stdout.contains("deactivated \(Tokens.hex(3)) (Replaced)"),
            "\(replaced.stdout)\(replaced.stderr)")
        #expect(
            try cli.run("device", "add", Tokens.hex(4), "--topic", "com.example.app", "--replaces", Tokens.hex(4))
                .status
                == 64)

        let devices = try cli.run("device", "list", "--json").lines.map { try Fleet.json($0) }
        func state(_ n: Int, _ topic: String = "com.example.app") -> String? {
            guard
                let device = devices.first(where: {
                    $0["token"] as? String == Tokens.hex(n) && $0["topic"] as? String == topic
                })
            else { return nil }
            return (device["active"] as? Bool) == true ? "active" : device["reason"] as? String
        }
        #expect(
            state(1) == "Removed" && state(2) == "Removed" && state(3) == "Replaced"
                && state(3, "com.example.other") == "Removed")
        #expect(state(4) == "active")
        #expect(devices.first { $0["token"] as? String == Tokens.hex(4) }?["user"] as? String == "bob")
    }
}

extension WorkerFleet {
    @Suite struct BackupTests {
        /// Copies taken while a worker sends are each one consistent snapshot: their counters agree with their rows.
        @Test func backupWhileSending() throws {
            let fleet = try Fleet(devices: 400, rate: 200)
            defer { fleet.stop() }
            let worker = try fleet.startWorker()
            defer { worker.killIfRunning() }
            #expect(Fleet.waitUntil(30, every: 0.02) { fleet.accepted >= 20 }, "\(worker.log.suffix(1500))")
            var copies: [String] = []
            for n in 0..<3 {
                let path = fleet.cli.directory.appendingPathComponent("copy-\(n).sqlite").path
                let result = try fleet.cli.run("backup", path)
                #expect(result.status == 0 && result.stdout.hasPrefix("backed up "), "\(result.stdout)\(result.stderr)")
                copies.append(path)
                Thread.sleep(forTimeInterval: 0.2)
            }
            for path in copies {
                let mode = try #require(
                    FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)
                #expect(mode.intValue == 0o600, "mode \(String(mode.intValue, radix: 8))")
                #expect(
                    !FileManager.default.fileExists(atPath: path + ".partial")
                        && !FileManager.default.fileExists(atPath: path + "-wal"))
                let checked = try ToolRun.run("/usr/bin/sqlite3", ["-readonly", path, "PRAGMA integrity_check"])
                #expect(checked.stdout == "ok\n", "\(checked.stdout)\(checked.stderr)")
                let counts = try ToolRun.run(
                    "/usr/bin/sqlite3",
                    [
                        "-readonly", path,
                        """
                        SELECT (SELECT accepted + pending FROM campaigns), (SELECT count(*) FROM deliveries WHERE status IN ('accepted', 'pending'));
                        SELECT (SELECT accepted FROM campaigns) = (SELECT count(*) FROM deliveries WHERE status = 'accepted');
                        """,
                    ])
                let lines = counts.stdout.split(separator: "\n")
                #expect(lines.count == 2 && lines[1] == "1", "counters and rows disagree in \(path): \(counts.stdout)")
            }
            // The copy is a working database: apnsd reads it.
            var copyCLI = fleet.cli
            copyCLI.environment["APNSD_DATABASE"] = copies[0]
            #expect(try copyCLI.run("campaign", "list").status == 0)
            // An existing file is refused and left alone.
            let before = try Data(contentsOf: URL(fileURLWithPath: copies[0]))
            let refused = try fleet.cli.run("backup", copies[0])
            #expect(refused.status == 1 && refused.stderr.contains("the file exists"), "\(refused.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: copies[0])) == before)
            #expect(worker.terminate(within: 20) != nil)
            // The worker said what it did, and never printed its token.
            let log = worker.log
            #expect(
                log.contains("apns.token_minted") && log.contains(#""key_id":"TESTKEY001""#)
                    && log.contains("campaign.started"), "\(log.suffix(2000))")
            #expect(!log.contains("eyJ"), "a provider token in the log")
        }
    }
}
