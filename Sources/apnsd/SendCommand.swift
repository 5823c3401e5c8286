import APNs
import Foundation
import Intake
import QueueModel

/// `apnsd send TOKEN --payload …` (or `--user ID`): enqueue one notification ahead of bulk work; print its id.
enum SendCommand {
    static func run(_ words: [String]) async throws(CLIError) {
        let arguments = try Arguments(words, valued: NotificationOptions.valued.union(["user"]).union(Configuration.flagNames), flagNames: [])
        let configuration = try Configuration.load(arguments: arguments)
        let options = try NotificationOptions(arguments, configuration: configuration)
        let audience: Audience
        if let user = try arguments.value("user") {
            _ = try arguments.positionals(exactly: [])
            do { try UserID.validate(user) } catch { throw .usage("--user: \(error)") }
            audience = .users([user], environment: options.environment)
        } else {
            let text = try arguments.positionals(exactly: ["TOKEN (or --user ID)"])[0]
            do { audience = .tokens([try DeviceToken(text)], environment: options.environment) } catch { throw .usage("\(error)") }
        }
        let store = try await StoreAccess.open(configuration)
        do {
            let id = try await store.enqueueSingle(options.spec(kind: .single, audience: audience), now: Date())
            Output.line(id.description)
        } catch {
            throw .store(error)
        }
    }
}
