import CLITestSupport
import Foundation
import TestSupport
import Testing

@Suite struct BackupTests {
    /// Copies taken while a worker sends are each one consistent snapshot: their counters agree with their rows.
    @Test func backupWhileSending() async throws {
        let fleet = try await Fleet(devices: 400, rate: 200)
        defer { fleet.stop() }
        let worker = fleet.runWorker()
        defer { worker.stopIfRunning() }
        #expect(await Fleet.eventually(30, every: 0.02) { fleet.accepted >= 20 }, "\(worker.log.suffix(1500))")
        var copies: [String] = []
        for n in 0..<3 {
            let path = fleet.cli.directory.appendingPathComponent("copy-\(n).sqlite").path
            let result = try await fleet.cli.run("backup", path)
            #expect(result.status == 0 && result.stdout.hasPrefix("backed up "), "\(result.stdout)\(result.stderr)")
            copies.append(path)
            try await Task.sleep(for: .seconds(0.2))
        }
        for path in copies {
            let mode = try #require(
                FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)
            #expect(mode.intValue == 0o600, "mode \(String(mode.intValue, radix: 8))")
            #expect(
                !FileManager.default.fileExists(atPath: path + ".partial")
                    && !FileManager.default.fileExists(atPath: path + "-wal"))
            let checked = try await ToolRun.run("/usr/bin/sqlite3", ["-readonly", path, "PRAGMA integrity_check"])
            #expect(checked.stdout == "ok\n", "\(checked.stdout)\(checked.stderr)")
            let counts = try await ToolRun.run(
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
        #expect(try await copyCLI.run("campaign", "list").status == 0)
        // An existing file is refused and left alone.
        let before = try Data(contentsOf: URL(fileURLWithPath: copies[0]))
        let refused = try await fleet.cli.run("backup", copies[0])
        #expect(refused.status == 1 && refused.stderr.contains("the file exists"), "\(refused.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: copies[0])) == before)
        #expect(await worker.terminate(within: 20) != nil)
        // The worker said what it did, and never printed its token.
        let log = worker.log
        #expect(
            log.contains("apns.token_minted") && log.contains(#""key_id":"TESTKEY001""#)
                && log.contains("campaign.started"), "\(log.suffix(2000))")
        #expect(!log.contains("eyJ"), "a provider token in the log")
    }
}
