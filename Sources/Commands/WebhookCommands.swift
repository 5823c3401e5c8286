import APNs
import Events
import Foundation
import Intake
import Logging
import QueueModel

/// `apnsd webhook status [--json]` and `apnsd webhook retry`: the webhook's backlog, the batch it is failing to
/// deliver (with the last error) and the batches it parked; and sending the parked batches again.
enum WebhookCommands {
    /// `apnsd webhook status [--json]`: read only.
    static func status(_ words: [String]) async throws(CLIError) {
        let arguments = try Arguments(words, valued: Configuration.flagNames, flagNames: ["json"])
        let configuration = try Configuration.load(arguments: arguments)
        _ = try arguments.positionals(exactly: [])
        let store = try await StoreAccess.openForStatus(configuration)
        let backlog: Int
        let failure: WebhookFailure?
        let parked: [ParkedWebhookBatch]
        do {
            backlog = try await store.gauges(now: Date()).webhookBacklog
            failure = try await store.webhookFailure()
            parked = try await store.parkedWebhookBatches()
        } catch {
            await store.close()
            throw .store(error)
        }
        await store.close()
        let url = configuration.webhookURL.map(WebhookSender.redacted)
        if arguments.flag("json") {
            return Output.line(json(url: url, backlog: backlog, failure: failure, parked: parked))
        }
        Output.line("webhook      " + (url ?? "not configured (webhook.url)"))
        Output.line("backlog      \(backlog) events")
        if let failure {
            Output.line(
                "failing      events \(failure.first)–\(failure.last) (\(failure.events)), \(failure.attempts) refused, "
                    + "since \(Output.timestamp(failure.firstFailureAt)): \(Printable.escaped(failure.lastError))")
        } else {
            Output.line("failing      none")
        }
        if parked.isEmpty { Output.line("parked       none") }
        for batch in parked {
            Output.line(
                "parked       batch \(batch.id): events \(batch.first)–\(batch.last) (\(batch.events)), "
                    + "\(batch.attempts) refused, parked \(Output.timestamp(batch.parkedAt)): "
                    + Printable.escaped(batch.lastError))
        }
    }

    /// `webhook status --json`: one object.
    static func json(url: String?, backlog: Int, failure: WebhookFailure?, parked: [ParkedWebhookBatch]) -> String {
        let failing = failure.map { failure in
            JSONLine([
                "first": .string(failure.first.description), "last": .string(failure.last.description),
                "events": .int(failure.events), "attempts": .int(failure.attempts),
                "firstFailureAt": .date(failure.firstFailureAt), "lastError": .string(failure.lastError),
                "updatedAt": .date(failure.updatedAt),
            ]).description
        }
        let batches = parked.map { batch in
            JSONLine([
                "id": .string(String(batch.id)), "first": .string(batch.first.description),
                "last": .string(batch.last.description), "events": .int(batch.events),
                "attempts": .int(batch.attempts), "firstFailureAt": .date(batch.firstFailureAt),
                "parkedAt": .date(batch.parkedAt), "lastError": .string(batch.lastError),
            ]).description
        }
        return JSONLine([
            "url": .string(url), "backlog": .int(backlog), "lastError": .string(failure?.lastError),
            "failing": .raw(failing ?? "null"), "parked": .raw("[" + batches.joined(separator: ",") + "]"),
            "parkedEvents": .int(parked.reduce(0) { $0 + $1.events }),
        ]).description
    }

    /// `apnsd webhook retry`: every parked batch POSTed once more (after later events: out of order). Exit 1 when
    /// the receiver refused one again (it stays parked).
    static func retry(_ words: [String]) async throws(CLIError) {
        let arguments = try Arguments(words, valued: Configuration.flagNames, flagNames: [])
        let configuration = try Configuration.load(arguments: arguments)
        _ = try arguments.positionals(exactly: [])
        let logger = Logger(label: "apnsd.webhook", minimumLevel: configuration.loggerLevel)
        configuration.warnAboutSecretsOnTheCommandLine(arguments, logger: logger)
        guard let url = configuration.webhookURL, configuration.webhookConfigured else {
            throw .usage("webhook.url is not set: there is no receiver to send the parked batches to")
        }
        let signing = try configuration.webhookSigning()
        let store = try await StoreAccess.openForServe(configuration)
        let report: WebhookRetry.Report
        do {
            report = try await WebhookRetry.run(
                store: store, url: url, signing: signing, logger: logger)
        } catch {
            await store.close()
            throw .store(error)
        }
        await store.close()
        for batch in report.delivered {
            Output.line("batch \(batch.id): events \(batch.first)–\(batch.last) delivered")
        }
        for batch in report.pruned {
            Output.line("batch \(batch.id): events \(batch.first)–\(batch.last) pruned meanwhile, dropped")
        }
        for (batch, error) in report.refused {
            Output.line(
                "batch \(batch.id): events \(batch.first)–\(batch.last) refused again (\(Printable.escaped(error))), still parked"
            )
        }
        let total = report.delivered.count + report.pruned.count + report.refused.count
        Output.line(
            "\(total) parked batches: \(report.delivered.count) delivered, \(report.refused.count) refused, "
                + "\(report.pruned.count) pruned")
        if !report.refused.isEmpty {
            throw .failure("\(report.refused.count) parked batches were refused again; see above")
        }
    }
}

extension Configuration {
    /// How the webhook signs, with its secret read (`webhook.secretFile` too). A secret that cannot be read fails.
    func webhookSigning() throws(CLIError) -> WebhookSigning {
        let secret: String?
        do { secret = try webhookSecretValue() } catch { throw .failure(error.description) }
        guard let secret else { throw .usage("webhook.secret (or webhook.secretFile) is required with webhook.url") }
        return WebhookSigning(secret: secret, previousSecret: webhookPreviousSecret, legacy: webhookLegacySignature)
    }

    /// One warning line per secret given as a flag: any local user reads a command line (`/proc/PID/cmdline`).
    func warnAboutSecretsOnTheCommandLine(_ arguments: Arguments, logger: Logger) {
        for (flag, setting) in [
            ("webhook-secret", "webhook.secret"), ("webhook-previous-secret", "webhook.previousSecret"),
        ] where (try? arguments.value(flag)) != nil {
            logger.warning(
                "config.secret_on_command_line", ("setting", .string(setting)), ("flag", .string("--" + flag)),
                ("hint", .string("every local user can read a command line: use webhook.secretFile or the config file"))
            )
        }
    }
}
