import CLITestSupport
import Foundation
import TestSupport
import Testing

/// `apnsd device remove`, `apnsd device add --replaces` and `apnsd backup`, through the real binary.
@Suite struct DeviceRemoveTests {
    @Test func removeByTokenAndByUserAndReplace() async throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        try #require(await cli.run("init").status == 0)
        for (n, user) in [(1, "alice"), (2, "alice"), (3, "bob")] {
            try #require(
                await cli.run("device", "add", Tokens.hex(n), "--topic", "com.example.app", "--user", user).status == 0)
        }
        try #require(await cli.run("device", "add", Tokens.hex(3), "--topic", "com.example.other").status == 0)

        let removed = try await cli.run("device", "remove", Tokens.hex(1))
        #expect(
            removed.status == 0 && removed.stdout == "removed \(Tokens.hex(1)) for com.example.app\n",
            "\(removed.stdout)\(removed.stderr)")
        let again = try await cli.run("device", "remove", Tokens.hex(1))
        #expect(again.status == 0 && again.stdout.contains("already inactive (Removed)"), "\(again.stdout)")
        // A token of two topics needs --topic; an unknown one is an error; both change nothing.
        let ambiguous = try await cli.run("device", "remove", Tokens.hex(3))
        #expect(ambiguous.status == 1 && ambiguous.stderr.contains("several topics"), "\(ambiguous.stderr)")
        let unknown = try await cli.run("device", "remove", Tokens.hex(9))
        #expect(
            unknown.status == 1 && unknown.stderr.hasPrefix("apnsd: error: no device with token"), "\(unknown.stderr)")
        #expect(try await cli.run("device", "remove", "nothex").status == 64)
        #expect(try await cli.run("device", "remove", Tokens.hex(3), "--user", "bob").status == 64)
        #expect(
            try await cli.run("device", "remove", Tokens.hex(3), "--topic", "com.example.other").stdout.hasPrefix(
                "removed "))

        let user = try await cli.run("device", "remove", "--user", "alice")
        #expect(
            user.status == 0 && user.stdout == "deactivated 1 device of user alice (Removed)\n",
            "\(user.stdout)\(user.stderr)")

        // bob reinstalled: token 4 replaces token 3 and keeps his user.
        let replaced = try await cli.run(
            "device", "add", Tokens.hex(4), "--topic", "com.example.app", "--replaces", Tokens.hex(3))
        #expect(
            replaced.status == 0 && replaced.stdout.contains("deactivated \(Tokens.hex(3)) (Replaced)"),
            "\(replaced.stdout)\(replaced.stderr)")
        #expect(
            try await cli.run("device", "add", Tokens.hex(4), "--topic", "com.example.app", "--replaces", Tokens.hex(4))
                .status
                == 64)

        let devices = try await cli.run("device", "list", "--json").lines.map { try Fleet.json($0) }
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
