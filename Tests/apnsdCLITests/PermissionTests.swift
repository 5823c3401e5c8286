import CLITestSupport
import Foundation
import TestSupport
import Testing

/// Databases this user may not write: read-only commands still work, writing ones fail with one line and change
/// nothing, and `init --group` shares a database between users. "Another user" is nobody (`OtherUser`).
@Suite(.offThePool) struct PermissionTests {
    static let topic = "com.example.permissions"
    static let otherUserUnavailable = Comment(rawValue: "skipped: this test \(OtherUser.unavailable ?? "")")
    static let payload = #"{"aps":{"alert":"hi"}}"#

    /// A database made by root (this process) with one device and one single send (campaign 1).
    func populated(_ cli: CLI) async throws {
        try #require(await cli.run("init").status == 0)
        try #require(await cli.run("device", "add", Tokens.hex(1), "--topic", Self.topic).status == 0)
        try #require(
            await cli.run("send", Tokens.hex(1), "--topic", Self.topic, "--payload", Self.payload).stdout == "1\n")
    }

    /// The database's files: itself and whatever SQLite put next to it (-wal, -shm, -journal).
    func files(of database: String) throws -> [String] {
        let name = (database as NSString).lastPathComponent
        return try FileManager.default.contentsOfDirectory(atPath: (database as NSString).deletingLastPathComponent)
            .filter { $0.hasPrefix(name) }.sorted()
    }

    func errorLines(_ result: CLI.Result) -> [Substring] { result.stderr.split(separator: "\n") }

    func expectReadOnlyRefusal(
        _ result: CLI.Result, _ database: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(result.status == 1, sourceLocation: sourceLocation)
        #expect(errorLines(result).count == 1, "one line: \(result.stderr)", sourceLocation: sourceLocation)
        #expect(
            result.stderr.contains("database \(database) is read-only for this user (uid \(OtherUser.uid))")
                && result.stderr.contains("apnsd init --group NAME"), "\(result.stderr)", sourceLocation: sourceLocation
        )
    }

    @Test(.enabled(if: OtherUser.unavailable == nil, otherUserUnavailable))
    func readCommandsWorkOnAFileTheUserMayNotWriteAndWritesChangeNothing() async throws {
        // 0755: the directory is read-only for nobody; 1777 (like /tmp): nobody could create -wal/-shm there,
        // and must not, since they would be nobody's and read-only for the owner.
        for directoryMode: mode_t in [0o755, 0o1777] {
            let cli = try CLI()
            defer { cli.cleanUp() }
            try await populated(cli)
            try #require(chmod(cli.database, 0o444) == 0 && chmod(cli.directory.path, directoryMode) == 0)
            let before = try Data(contentsOf: URL(fileURLWithPath: cli.database))
            try #require(try files(of: cli.database) == ["apnsd.sqlite"])

            let log = try cli.runAsOtherUser("log", "--json")
            #expect(log.status == 0 && log.lines.count == 1 && log.stdout.contains(Tokens.hex(1)), "\(log.stderr)")
            let campaigns = try cli.runAsOtherUser("campaign", "list", "--json")
            #expect(
                campaigns.status == 0 && campaigns.lines.count == 1 && campaigns.stdout.contains(#""kind":"single""#),
                "\(campaigns.stderr)")
            let campaign = try cli.runAsOtherUser("campaign", "show", "1")
            #expect(campaign.status == 0 && campaign.stdout.hasPrefix("campaign 1 (single)"), "\(campaign.stderr)")
            let devices = try cli.runAsOtherUser("device", "list", "--json")
            #expect(
                devices.status == 0 && devices.lines.count == 1 && devices.stdout.contains(Tokens.hex(1)),
                "\(devices.stderr)")

            expectReadOnlyRefusal(
                try cli.runAsOtherUser("send", Tokens.hex(2), "--topic", Self.topic, "--payload", Self.payload),
                cli.database)
            expectReadOnlyRefusal(
                try cli.runAsOtherUser("device", "add", Tokens.hex(3), "--topic", Self.topic), cli.database)
            expectReadOnlyRefusal(try cli.runAsOtherUser("campaign", "cancel", "1"), cli.database)
            #expect(
                try Data(contentsOf: URL(fileURLWithPath: cli.database)) == before,
                "directory mode \(String(directoryMode, radix: 8))")
            #expect(
                try files(of: cli.database) == ["apnsd.sqlite"], "directory mode \(String(directoryMode, radix: 8))")
        }
    }

    @Test(.enabled(if: OtherUser.unavailable == nil, otherUserUnavailable))
    func readCommandsSeeWhatARunningWriterHasInItsWAL() async throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        try await populated(cli)
        let held = try HeldConnection(database: cli.database)
        defer { held.close() }
        // A second send while the connection is held stays in the -wal, which (like -shm) has the file's mode.
        try #require(
            await cli.run("send", Tokens.hex(1), "--topic", Self.topic, "--payload", Self.payload).stdout == "2\n")
        try #require(try files(of: cli.database) == ["apnsd.sqlite", "apnsd.sqlite-shm", "apnsd.sqlite-wal"])
        // Readable, not writable, by others: the three files are created 0640 (DatabaseFile).
        for file in try files(of: cli.database) {
            try #require(chmod(cli.directory.appendingPathComponent(file).path, 0o444) == 0)
        }

        let campaigns = try cli.runAsOtherUser("campaign", "list", "--json")
        #expect(campaigns.status == 0 && campaigns.lines.count == 2, "\(campaigns.stderr)")
        let log = try cli.runAsOtherUser("log", "--campaign", "2", "--json")
        #expect(log.status == 0 && log.lines.count == 1, "\(log.stderr)")
        expectReadOnlyRefusal(
            try cli.runAsOtherUser("send", Tokens.hex(2), "--topic", Self.topic, "--payload", Self.payload),
            cli.database
        )
    }

    @Test(.enabled(if: OtherUser.unavailable == nil, otherUserUnavailable))
    func aDatabaseCreatedByRootWithoutAGroupIsClosedToOthersAndReadOnlyForItsGroup() async throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        try await populated(cli)
        let before = try Data(contentsOf: URL(fileURLWithPath: cli.database))
        // 0640: nobody may not even read it (it holds device tokens and user ids)…
        let send = try cli.runAsOtherUser("send", Tokens.hex(1), "--topic", Self.topic, "--payload", Self.payload)
        #expect(send.status == 1 && errorLines(send).count == 1, "\(send.stderr)")
        let list = try cli.runAsOtherUser("campaign", "list")
        #expect(list.status == 1 && errorLines(list).count == 1 && list.stdout.isEmpty, "\(list.stderr)")
        // …while a member of the file's group (root's: 0) reads it, and may not write.
        #expect(try cli.runAsOtherUser("campaign", "list", groups: [0]).status == 0)
        expectReadOnlyRefusal(
            try cli.runAsOtherUser(
                "send", Tokens.hex(1), "--topic", Self.topic, "--payload", Self.payload, groups: [0]),
            cli.database)
        #expect(try Data(contentsOf: URL(fileURLWithPath: cli.database)) == before)
    }

    /// The current umask, from /proc (reading it with umask(2) would change it for the tests running alongside).
    static func umask() throws -> mode_t {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("Umask:") })
        return try #require(mode_t(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8))
    }

    func mode(_ path: String) throws -> mode_t {
        var info = stat()
        try #require(stat(path, &info) == 0, "\(path)")
        return info.st_mode & 0o7777
    }

    @Test func theDatabaseAndItsWALAndSHMAreCreated0640() async throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        try await populated(cli)
        let held = try HeldConnection(database: cli.database)
        defer { held.close() }
        try #require(
            await cli.run("send", Tokens.hex(1), "--topic", Self.topic, "--payload", Self.payload).status == 0)
        let names = try files(of: cli.database)
        try #require(names == ["apnsd.sqlite", "apnsd.sqlite-shm", "apnsd.sqlite-wal"])
        let expected = 0o640 & ~(try Self.umask())
        for name in names {
            #expect(try mode(cli.directory.appendingPathComponent(name).path) == expected, "\(name)")
        }
    }

    @Test func initTakesOtherUsersAccessAwayFromAnOlderDatabase() async throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        try await populated(cli)
        try #require(chmod(cli.database, 0o644) == 0)
        let again = try await cli.run("init")
        #expect(again.status == 0)
        #expect(try mode(cli.database) == 0o640)
        #expect(
            errorLines(again).count == 1 && again.stderr.contains("\(cli.database) was readable by other users"),
            "\(again.stderr)")
        #expect(try await cli.run("init").stderr.isEmpty, "nothing to say the second time")
    }

    @Test(.enabled(if: OtherUser.unavailable == nil, otherUserUnavailable))
    func aGroupMemberWritesToADatabaseInitializedForTheGroup() async throws {
        let group = try #require(OtherUser.sharedGroup, "no group 'users' or 'staff' to share the database with")
        var cli = try CLI()
        defer { cli.cleanUp() }
        let directory = cli.directory.appendingPathComponent("shared").path
        cli.environment["APNSD_DATABASE"] = directory + "/apnsd.sqlite"
        let initialized = try await cli.run("init", "--group", group.name)
        #expect(
            initialized.status == 0 && initialized.stdout.contains("shared by group \(group.name)"),
            "\(initialized.stderr)")

        var info = stat()
        try #require(stat(directory, &info) == 0)
        #expect(info.st_gid == group.id && info.st_mode & 0o7777 == 0o2770)
        try #require(stat(cli.database, &info) == 0)
        #expect(info.st_gid == group.id && info.st_mode & 0o7777 == 0o660)

        let member = [group.id]
        #expect(
            try cli.runAsOtherUser("device", "add", Tokens.hex(1), "--topic", Self.topic, groups: member).status == 0)
        let sent = try cli.runAsOtherUser(
            "send", Tokens.hex(1), "--topic", Self.topic, "--payload", Self.payload, groups: member)
        #expect(sent.status == 0 && sent.stdout == "1\n", "\(sent.stderr)")
        #expect(try cli.runAsOtherUser("log", "--json", groups: member).lines.count == 1)
        #expect(try await cli.run("log", "--json").lines.count == 1, "root sees the member's send")
        #expect(
            try await cli.run("send", Tokens.hex(1), "--topic", Self.topic, "--payload", Self.payload).stdout == "2\n",
            "and can still write")

        let outsider = try cli.runAsOtherUser("send", Tokens.hex(1), "--topic", Self.topic, "--payload", Self.payload)
        #expect(
            outsider.status == 1 && errorLines(outsider).count == 1 && outsider.stderr.contains("permission denied"),
            "\(outsider.stderr)")
        #expect(try await cli.run("campaign", "list", "--json").lines.count == 2)
    }

    @Test func initRefusesAnUnknownGroupBeforeCreatingAnything() async throws {
        var cli = try CLI()
        defer { cli.cleanUp() }
        let directory = cli.directory.appendingPathComponent("shared").path
        cli.environment["APNSD_DATABASE"] = directory + "/apnsd.sqlite"
        let result = try await cli.run("init", "--group", "no-such-group-\(getpid())")
        #expect(
            result.status == 64 && errorLines(result).count == 1
                && result.stderr.contains("unknown group 'no-such-group-"))
        #expect(!FileManager.default.fileExists(atPath: directory))
    }

    @Test func initLeavesADirectoryWithOtherFilesAlone() async throws {
        let group = try #require(OtherUser.sharedGroup, "no group 'users' or 'staff' to share the database with")
        let cli = try CLI()
        defer { cli.cleanUp() }
        _ = try cli.write("notes.txt", "not apnsd's")
        var before = stat()
        try #require(stat(cli.directory.path, &before) == 0)
        let result = try await cli.run("init", "--group", group.name)
        #expect(
            result.status == 1 && errorLines(result).count == 1
                && result.stderr.contains("holds other files than the database"))
        #expect(!FileManager.default.fileExists(atPath: cli.database))
        var after = stat()
        try #require(stat(cli.directory.path, &after) == 0)
        #expect(after.st_mode == before.st_mode && after.st_gid == before.st_gid)
    }
}
