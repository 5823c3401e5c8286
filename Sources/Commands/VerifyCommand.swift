import APNs
import Foundation
import Intake
import QueueModel

/// `apnsd device verify (--all | --user ID ... | --tokens FILE) [--topic T] [--environment E] [--at TIME] [--no-wait] [--json]`:
/// a background push (`content-available`, priority 5) to each device, through the queue as a campaign of kind
/// `verify` (durable, cancellable, watchable); 410 and 400 answers deactivate devices as every send does. Prints the
/// campaign id, then — unless `--no-wait` — waits for it to end and prints the counts.
enum VerifyCommand {
    /// What a verify push carries: nothing the app shows.
    static let payload = #"{"aps":{"content-available":1}}"#

    static func run(_ words: [String]) async throws(CLIError) {
        let arguments = try Arguments(
            words,
            valued: Set(["user", "tokens", "topic", "environment", "at", "idempotency-key"])
                .union(Configuration.flagNames),
            flagNames: ["all", "no-wait", "json"])
        let configuration = try Configuration.load(arguments: arguments)
        let topic = try DeviceCommands.topic(arguments, configuration)
        let environment = try arguments.value("environment")
        if let environment {
            do { _ = try Environment.parse(environment) } catch { throw .usage("--environment: \(error)") }
        }
        let options = try NotificationOptions(
            NotificationInput(
                topic: topic, pushType: PushType.background.rawValue, priority: Priority.conservePower.rawValue,
                environment: environment, payload: Array(payload.utf8)),
            configuration: configuration)
        guard
            let id = try await CampaignCommands.enqueue(
                arguments, configuration,
                makeSpec: { (audience, scheduledAt) throws(CLIError) in
                    try options.spec(kind: .verify, audience: audience, scheduledAt: scheduledAt)
                })
        else { return }
        if arguments.flag("no-wait") {
            Output.line(id.description)
            return
        }
        if !arguments.flag("json") {
            Output.error("verify campaign \(id): waiting for it to end (apnsd campaign watch \(id) shows progress)")
        }
        let store = try await StoreAccess.open(configuration, readOnly: true)
        var campaign: Campaign
        while true {
            do { campaign = try await store.campaign(id) } catch { throw .store(error) }
            if campaign.status.isFinished { break }
            try? await Task.sleep(for: .milliseconds(500))
        }
        let c = campaign.counters
        if arguments.flag("json") {
            Output.line(campaign.json.description)
        } else {
            Output.line(id.description)
            Output.line(
                "verified \(c.total) devices: \(c.accepted) reachable, \(c.unregistered) unregistered (deactivated), "
                    + "\(c.rejected) rejected (bad tokens deactivated), \(c.failed) failed, \(c.cancelled) cancelled")
        }
        if campaign.status == .cancelled { throw .failure("verify campaign \(id) was cancelled") }
    }
}
