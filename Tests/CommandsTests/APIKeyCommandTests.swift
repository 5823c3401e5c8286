import CLITestSupport
import Foundation
import ProviderAuth
import Store
import TestSupport
import Testing

/// `apnsd api-key create | list | revoke` as an operator runs them: a secret shown once, never again.
@Suite struct APIKeyCommandTests {
    func json(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    /// Every byte of the database's files (main, -wal, -shm), as Latin-1 text to search.
    func databaseBytes(_ cli: CLI) throws -> String {
        let names = try FileManager.default.contentsOfDirectory(atPath: cli.directory.path).filter {
            $0.hasPrefix("apnsd.sqlite")
        }
        return try names.map {
            String(decoding: try Data(contentsOf: cli.directory.appendingPathComponent($0)), as: Unicode.ASCII.self)
        }
        .joined()
    }

    @Test func createPrintsTheSecretOnceAndStoresOnlyItsHash() async throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        try #require(await cli.run("init").status == 0)
        let created = try await cli.run("api-key", "create", "backend")
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.lines.count == 1 && created.stdout.hasSuffix("\n"), "exactly one line on stdout")
        let secret = try #require(created.lines.first)
        #expect(APIKeySecret.isWellFormed(secret))
        #expect(created.stderr.contains("backend") && !created.stderr.contains(secret))
        let admin = try await cli.run("api-key", "create", "ops", "--scope", "admin", "--scope", "read")
        #expect(admin.status == 0 && admin.lines.count == 1)

        let table = try await cli.run("api-key", "list")
        #expect(
            table.status == 0 && !table.stdout.contains(secret) && !table.stdout.contains(APIKeySecret.hash(secret)))
        #expect(
            table.lines.count == 3 && table.lines[1].hasPrefix("backend ") && table.lines[1].contains("send,read")
                && table.lines[1].hasSuffix("never"))
        let listed = try await cli.run("api-key", "list", "--json")
        #expect(
            listed.status == 0 && !listed.stdout.contains(secret) && !listed.stdout.contains(APIKeySecret.hash(secret)))
        let keys = try listed.lines.map(json)
        #expect(keys.map { $0["name"] as? String } == ["backend", "ops"])
        #expect(
            keys[0]["scopes"] as? [String] == ["send", "read"] && keys[1]["scopes"] as? [String] == ["read", "admin"])
        #expect((keys[0]["createdAt"] as? String)?.hasSuffix("Z") == true && keys[0]["lastUsedAt"] is NSNull)
        #expect(Set(keys[0].keys) == ["name", "scopes", "createdAt", "lastUsedAt"])

        // The file holds the hash, never the secret; the hash authenticates.
        let bytes = try databaseBytes(cli)
        #expect(!bytes.contains(secret) && !bytes.contains(String(secret.dropFirst(6))))
        #expect(bytes.contains(APIKeySecret.hash(secret)))
        let store = try await Store.open(at: cli.database, options: Store.Options(createIfMissing: false))
        let key = try await store.authenticateAPIKey(secretHash: APIKeySecret.hash(secret), now: Date())
        #expect(key?.name == "backend" && key?.scopes == [.send, .read])
        await store.close()
        #expect(
            try await cli.run("api-key", "list", "--json").lines.map(json).first?["lastUsedAt"] is String,
            "the use is listed"
        )
    }

    @Test func revokeRemovesTheKeyAndFreesItsName() async throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        try #require(await cli.run("init").status == 0)
        try #require(await cli.run("api-key", "create", "k").status == 0)
        let duplicate = try await cli.run("api-key", "create", "k")
        #expect(duplicate.status == 1 && duplicate.stdout.isEmpty && duplicate.stderr.contains("already exists"))
        let revoked = try await cli.run("api-key", "revoke", "k")
        #expect(revoked.status == 0)
        #expect(try await cli.run("api-key", "list", "--json").stdout.isEmpty)
        let again = try await cli.run("api-key", "revoke", "k")
        #expect(
            again.status == 1 && again.stderr.split(separator: "\n").count == 1
                && again.stderr.contains("no API key named 'k'"))
        #expect(try await cli.run("api-key", "create", "k").status == 0, "a revoked name can be used again")
    }

    @Test(arguments: [
        ["api-key"], ["api-key", "rotate", "k"], ["api-key", "create"], ["api-key", "create", "a", "b"],
        ["api-key", "create", "k", "--scope", "write"], ["api-key", "create", "k", "--scope", "SEND"],
        ["api-key", "create", "k", "--scope"],
        ["api-key", "create", "has space"], ["api-key", "create", String(repeating: "n", count: 65)],
        ["api-key", "create", "a/b"],
        ["api-key", "create", ""], ["api-key", "create", "k", "--json"], ["api-key", "list", "extra"],
        ["api-key", "revoke"],
        ["api-key", "revoke", "bad name"],
    ])
    func usageErrorsExit64WithOneLine(_ arguments: [String]) async throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        try #require(await cli.run("init").status == 0)
        let result = try await cli.run(arguments)
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
        #expect(
            result.stdout.isEmpty && result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result.stderr)")
        #expect(try await cli.run("api-key", "list", "--json").stdout.isEmpty, "nothing was created")
    }

    @Test func helpHasExamples() async throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        let help = try await cli.run("api-key", "--help")
        #expect(help.status == 0 && help.stdout.contains("EXAMPLES:") && help.stdout.contains("apnsd api-key create"))
        #expect(try await cli.run("--help").stdout.contains("api-key"))
    }
}
