import Foundation
import Intake
import ProviderAuth
import QueueModel

/// `apnsd api-key create | list | revoke`: keys for the HTTP API. A secret is printed once, at creation; the
/// database keeps only its SHA-256 hash.
enum APIKeyCommands {
    static func create(_ words: [String]) async throws(CLIError) {
        let arguments = try Arguments(words, valued: Set(["scope"]).union(Configuration.flagNames), flagNames: [])
        let configuration = try Configuration.load(arguments: arguments)
        let name = try arguments.positionals(exactly: ["NAME"])[0]
        let scopes: Set<APIKeyScope>
        do {
            try APIKeyRecord.validateName(name)
            let given = arguments.values("scope")
            scopes =
                given.isEmpty
                ? APIKeyScope.defaults
                : Set(try given.map { (text: String) throws(APIKeyError) in try APIKeyScope.parse(text) })
        } catch {
            throw .usage(error.description)
        }
        let secret: String
        do { secret = try APIKeySecret.generate() } catch { throw .failure(error.description) }
        let store = try await StoreAccess.openForAPIKeys(configuration)
        let key: APIKeyRecord
        do {
            key = try await store.createAPIKey(
                name: name, scopes: scopes, secretHash: APIKeySecret.hash(secret), now: Date())
        } catch .duplicateAPIKey {
            throw .failure(
                "an API key named '\(name)' already exists: revoke it first ('apnsd api-key revoke \(name)') or choose another name"
            )
        } catch {
            throw .store(error)
        }
        Output.line(secret)
        Output.error(
            "created API key '\(key.name)' (scopes: \(key.sortedScopes.map(\.rawValue).joined(separator: ", "))); "
                + "the secret above is shown only this once: store it now (apnsd keeps only its hash)")
    }

    static func list(_ words: [String]) async throws(CLIError) {
        let arguments = try Arguments(words, valued: Configuration.flagNames, flagNames: ["json"])
        let configuration = try Configuration.load(arguments: arguments)
        _ = try arguments.positionals(exactly: [])
        let store = try await StoreAccess.openForAPIKeys(configuration, readOnly: true)
        let keys: [APIKeyRecord]
        do { keys = try await store.apiKeys() } catch { throw .store(error) }
        if arguments.flag("json") {
            for key in keys { Output.line(key.json.description) }
            return
        }
        Output.line(
            "NAME                                                              SCOPES            CREATED                   LAST USED"
        )
        for key in keys {
            Output.line(
                Output.pad(key.name, 66) + Output.pad(key.sortedScopes.map(\.rawValue).joined(separator: ","), 18)
                    + Output.pad(Output.timestamp(key.createdAt), 26)
                    + (key.lastUsedAt.map(Output.timestamp) ?? "never"))
        }
    }

    static func revoke(_ words: [String]) async throws(CLIError) {
        let arguments = try Arguments(words, valued: Configuration.flagNames, flagNames: [])
        let configuration = try Configuration.load(arguments: arguments)
        let name = try arguments.positionals(exactly: ["NAME"])[0]
        do { try APIKeyRecord.validateName(name) } catch { throw .usage(error.description) }
        let store = try await StoreAccess.openForAPIKeys(configuration)
        let revoked: Bool
        do { revoked = try await store.revokeAPIKey(name: name) } catch { throw .store(error) }
        guard revoked else { throw .failure("no API key named '\(name)' (see apnsd api-key list)") }
        Output.line("revoked API key '\(name)'")
    }
}
