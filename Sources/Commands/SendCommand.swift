import APNs
import Foundation
import Intake
import QueueModel

/// `apnsd send TOKEN --payload …` (or `--user ID`, or `--channel ID` for a broadcast): enqueue one notification
/// ahead of bulk work; print its id.
enum SendCommand {
    static func run(_ words: [String]) async throws(CLIError) {
        let arguments = try Arguments(
            words,
            valued: NotificationOptions.valued.union(["user", "channel", "idempotency-key"]).union(
                Configuration.flagNames), flagNames: [])
        let configuration = try Configuration.load(arguments: arguments)
        if let channel = try arguments.value("channel") {
            if try arguments.value("user") != nil {
                throw .usage("--channel and --user: give one (a broadcast goes to a channel)")
            }
            _ = try arguments.positionals(exactly: [])
            return try await broadcast(channel, arguments, configuration)
        }
        let options = try NotificationOptions(arguments, configuration: configuration)
        let audience: Audience
        if let user = try arguments.value("user") {
            _ = try arguments.positionals(exactly: [])
            do { try UserID.validate(user) } catch { throw .usage("--user: \(error)") }
            audience = .users([user])
        } else {
            let text = try arguments.positionals(exactly: ["TOKEN (or --user ID)"])[0]
            do { audience = .tokens([try DeviceToken(text)]) } catch { throw .usage("\(error)") }
        }
        let spec = try options.spec(kind: .single, audience: audience)
        let key = try NotificationOptions.idempotency(arguments, spec: spec)
        let store = try await StoreAccess.open(configuration)
        do {
            let result = try await store.enqueue([EnqueueRequest(specs: [spec], idempotency: key)], now: Date())[0]
                .get()
            Output.line(result.ids[0].description)
        } catch {
            throw .store(error)
        }
    }

    /// `apnsd send --channel ID --payload …`: a Live Activity update or end broadcast on the channel (its local
    /// number or APNs id), validated against the channel before it is enqueued.
    private static func broadcast(_ reference: String, _ arguments: Arguments, _ configuration: Configuration)
        async throws(CLIError)
    {
        let input = try NotificationOptions.input(arguments)
        let store = try await StoreAccess.openForBroadcast(configuration)
        let found: Channel?
        do { found = try await store.channel(ChannelReference(reference)) } catch { throw .store(error) }
        guard let channel = found else {
            throw .usage(
                "--channel: no channel \(Printable.escaped(String(reference.prefix(120)))) (apnsd channel list)")
        }
        let content: NotificationContent
        do { content = try input.validateBroadcast(channel: channel) } catch { throw .usage("\(error)") }
        if let refusal = channel.broadcastRefusal(for: content) { throw .usage(refusal) }
        let routes: TopicRoutes?
        do { routes = try configuration.topicRoutes() } catch { throw .usage(error.description) }
        if let refusal = routes?.refusal(for: channel.topic) { throw .usage(refusal) }
        let spec = CampaignSpec(kind: .single, audience: .channel(channel.id), content: content)
        let key = try NotificationOptions.idempotency(arguments, spec: spec)
        do {
            let result = try await store.enqueue([EnqueueRequest(specs: [spec], idempotency: key)], now: Date())[0]
                .get()
            Output.line(result.ids[0].description)
        } catch {
            throw .store(error)
        }
    }
}
