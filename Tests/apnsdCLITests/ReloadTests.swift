import CLITestSupport
import Foundation
import TestSupport
import Testing

/// SIGHUP makes a running worker read its settings and key again: what can change applies at once, the log says
/// what needs a restart, and settings that do not load change nothing.
@Suite(.offThePool) struct ReloadTests {
    @Test func sighupReloadsTheKeyTheRetriesAndTheLogLevel() async throws {
        let fleet = try await Fleet(devices: 3, rate: 100, campaign: false)
        defer { fleet.stop() }
        var cli = fleet.cli
        let key = CLI.fixture("keys/AuthKey_TESTKEY001.p8")
        let config = try cli.write(
            "settings.json", #"{"apns":{"keyFile":"\#(key)"},"retry":{"maxAttempts":8},"log":{"level":"info"}}"#)
        cli.environment["APNSD_KEY_FILE"] = nil
        cli.environment["APNSD_CONFIG"] = config
        let worker = try BackgroundWorker(cli: cli, arguments: ["worker"])
        defer { worker.killIfRunning() }

        try #require(await cli.run("send", Tokens.hex(1), "--payload", Fleet.payload).status == 0)
        #expect(await Fleet.eventually(20, every: 0.02) { fleet.accepted >= 1 }, "\(worker.log.suffix(1500))")
        #expect(!worker.log.contains("apns.request"), "debug lines at info level")

        // The same key under another name (it keeps its token: APNs refuses a key's tokens renewed within 20
        // minutes), debug logging, fewer attempts, and a setting only a restart can change.
        let copy = try cli.write("AuthKey_copy.p8", try String(contentsOfFile: key, encoding: .utf8))
        try Data(
            #"{"apns":{"keyFile":"\#(copy)"},"retry":{"maxAttempts":3},"log":{"level":"debug"},"api":{"listen":"127.0.0.1:9999"}}"#
                .utf8
        )
        .write(to: URL(fileURLWithPath: config))
        kill(worker.pid, SIGHUP)
        #expect(
            await Fleet.eventually(20, every: 0.02) { worker.log.contains("reload.done") }, "\(worker.log.suffix(1500))"
        )
        let done = try #require(worker.events().last { $0["msg"] as? String == "reload.done" })
        let applied = Set(((done["applied"] as? String) ?? "").split(separator: ",").map(String.init))
        #expect(applied == ["keyFile", "maxAttempts", "logLevel"], "\(done)")
        #expect(done["needs_restart"] as? String == "apiListen", "\(done)")

        try #require(await cli.run("send", Tokens.hex(2), "--payload", Fleet.payload).status == 0)
        #expect(await Fleet.eventually(20, every: 0.02) { fleet.accepted >= 2 }, "\(worker.log.suffix(3000))")
        #expect(
            await Fleet.eventually(5, every: 0.02) { worker.log.contains("apns.request") },
            "no debug line after the reload")
        #expect(worker.events("apns.token_minted").count == 1, "the same key minted again")

        // A config that does not load changes nothing; the worker goes on.
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: config))
        kill(worker.pid, SIGHUP)
        #expect(
            await Fleet.eventually(20, every: 0.02) { worker.log.contains("reload.failed") },
            "\(worker.log.suffix(1500))")
        try #require(await fleet.cli.run("send", Tokens.hex(3), "--payload", Fleet.payload).status == 0)
        #expect(await Fleet.eventually(20, every: 0.02) { fleet.accepted >= 3 }, "\(worker.log.suffix(1500))")

        // At level error, an operator who sends SIGHUP still reads the reload's result; like every line of the
        // worker, it carries the worker's id.
        try Data(#"{"apns":{"keyFile":"\#(copy)"},"log":{"level":"error"}}"#.utf8).write(
            to: URL(fileURLWithPath: config))
        kill(worker.pid, SIGHUP)
        #expect(
            await Fleet.eventually(20, every: 0.02) { worker.events("reload.done").count == 2 },
            "\(worker.log.suffix(1500))")
        let quiet = try #require(worker.events("reload.done").last)
        #expect((quiet["applied"] as? String)?.contains("logLevel") == true, "\(quiet)")
        #expect(worker.events().allSatisfy { $0["worker.id"] is String }, "a worker line without its id")
        #expect(
            worker.terminate(within: 20) != nil && worker.process.terminationStatus == 0,
            "\(worker.log.suffix(1500))")
        #expect(!worker.log.contains("eyJ"))
    }
}
