import APNs
import Foundation
import Intake
import QueueModel

/// `apnsd send TOKEN --payload …` (or `--user ID`): enqueue one notification ahead of bulk work; print its id.
enum SendCommand {
    static func run(_ words: [String]) async throws(CLIError) {
        let arguments = try Arguments(words, valued: NotificationOptions.valued.union(["user", "idempotency-key"]).union(Configuration.flagNames), flagNames: [])
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
        let spec = options.spec(kind: .single, audience: audience)
        do { try spec.validate() } catch .invalidCampaign(let why) { throw .usage(why) } catch { throw .store(error) }
        let key = try NotificationOptions.idempotency(arguments, spec: spec)
        let store = try await StoreAccess.open(configuration)
        do {
            let result = try await store.enqueue([EnqueueRequest(specs: [spec], idempotency: key)], now: Date())[0].get()
            Output.line(result.ids[0].description)
        } catch {
            throw .store(error)
        }
    }
}
