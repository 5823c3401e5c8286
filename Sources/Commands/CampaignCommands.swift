import API
import APNs
import Foundation
import Intake
import ProviderAuth
import QueueModel

/// `apnsd campaign create | list | show | cancel`.
enum CampaignCommands {
    static func create(_ words: [String]) async throws(CLIError) {
        let arguments = try Arguments(
            words,
            valued: NotificationOptions.valued.union([
                "user", "tokens", "at", "idempotency-key", "activity-type", "kind",
            ])
            .union(Configuration.flagNames),
            flagNames: ["all", "dry-run"])
        let configuration = try Configuration.load(arguments: arguments)
        let options = try NotificationOptions(arguments, configuration: configuration)
        let id = try await enqueue(arguments, configuration, dryRun: arguments.flag("dry-run")) {
            (audience, scheduledAt) throws(CLIError) in
            try options.spec(kind: .bulk, audience: audience, scheduledAt: scheduledAt)
        }
        if let id { Output.line(id.description) }
    }

    /// Enqueues one campaign to the audience the arguments choose (`--all`, `--user ID ...`, `--tokens FILE` or
    /// `--activity-type T [--kind K] [--user ID ...]`, at `--at`: an ISO 8601 time or `now`), made and validated by
    /// `makeSpec` (which gives the environment; the time is checked here, after an idempotent rerun has had its
    /// answer); with `--idempotency-key`, a rerun returns the first run's id. With `dryRun`, prints how many devices
    /// it would reach instead, writes nothing and returns nil. Used by `campaign create` and `device verify`.
    static func enqueue(
        _ arguments: Arguments, _ configuration: Configuration, dryRun: Bool = false,
        makeSpec: (Audience, Date?) throws(CLIError) -> CampaignSpec
    ) async throws(CLIError) -> CampaignID? {
        var users = arguments.values("user").flatMap { $0.split(separator: ",").map(String.init) }
        if !users.isEmpty { users += arguments.positionals } else { _ = try arguments.positionals(exactly: []) }
        for user in users {
            do { try UserID.validate(user) } catch { throw .usage("--user: \(error)") }
        }
        let tokensFile = try arguments.value("tokens")
        let activityType = try arguments.value("activity-type")
        let tokenKind = try DeviceCommands.kind(arguments)
        let chosen = [
            arguments.flag("all"), !users.isEmpty && activityType == nil, tokensFile != nil, activityType != nil,
        ].filter { $0 }.count
        guard chosen == 1 else {
            throw .usage(
                "choose exactly one audience: --all, --user ID ..., --tokens FILE, or --activity-type T [--user ID ...]"
            )
        }
        if tokenKind != nil && activityType == nil { throw .usage("--kind goes with --activity-type") }
        let scheduledAt = try arguments.value("at").flatMap(parseTime)

        let store: any ProducerStore
        if let tokensFile {
            // Validate the whole file before writing anything, then stream it again in chunks.
            var count = 0
            // The tokens' digest for the idempotency key, fed as the file is read: never the whole file in memory.
            let hashed = SHA256.Hasher()
            for entry in try TokenFile(path: tokensFile) {
                try entry.get().withHexBytes { hashed.update($0) }
                count += 1
            }
            guard count > 0 else { throw .usage("\(tokensFile) holds no tokens") }
            let spec = try makeSpec(.tokens([]), scheduledAt)
            if dryRun {
                var tokens: [DeviceToken] = []
                for entry in try TokenFile(path: tokensFile) {
                    if case .success(let token) = entry { tokens.append(token) }
                }
                var counted = spec
                counted.audience = .tokens(tokens, environment: spec.audience.environment)
                try await printDryRun(counted, configuration)
                return nil
            }
            let key = try NotificationOptions.idempotency(arguments, spec: spec, extra: hashed.finish())
            // Appending only: a page cache bigger than a chunk's pages would just fill up with staged tokens.
            store = try await StoreAccess.open(configuration, cacheSizeMiB: 8)
            if let earlier = try await remembered(store, key) { return earlier }
            try checkTime(spec)
            // The campaign is a draft, never sent, until the whole file is in it and it is sealed.
            let id: CampaignID
            do { id = try await store.beginCampaign(spec, now: Date()) } catch { throw .store(error) }
            do {
                var chunk: [DeviceToken] = []
                chunk.reserveCapacity(10_000)
                for entry in try TokenFile(path: tokensFile) {
                    guard case .success(let token) = entry else { continue }
                    chunk.append(token)
                    if chunk.count == 10_000 {
                        try await store.appendTokens(chunk, to: id)
                        chunk.removeAll(keepingCapacity: true)
                    }
                }
                if !chunk.isEmpty { try await store.appendTokens(chunk, to: id) }
                if let key { return try await store.sealCampaign(id, remembering: key, now: Date()).ids[0] }
                _ = try await store.sealCampaign(id)
                return id
            } catch {
                throw await abandon(id, store, after: error)
            }
        }
        let audience: Audience
        if let activityType {
            audience = .activities(type: activityType, kind: tokenKind ?? .activity, users: users.isEmpty ? nil : users)
        } else {
            audience = users.isEmpty ? .all() : .users(users)
        }
        let spec = try makeSpec(audience, scheduledAt)
        if dryRun {
            try await printDryRun(spec, configuration)
            return nil
        }
        let key = try NotificationOptions.idempotency(arguments, spec: spec)
        store = try await StoreAccess.open(configuration)
        if let earlier = try await remembered(store, key) { return earlier }
        try checkTime(spec)
        do {
            return try await store.enqueue([EnqueueRequest(specs: [spec], idempotency: key)], now: Date())[0].get().ids[
                0]
        } catch {
            throw .store(error)
        }
    }

    /// The campaign an earlier run with `key` created (an idempotent rerun), looked up before the time is checked.
    private static func remembered(_ store: any ProducerStore, _ key: IdempotencyKey?) async throws(CLIError)
        -> CampaignID?
    {
        guard let key else { return nil }
        do { return try await store.idempotentResult(key, now: Date())?.ids[0] } catch { throw .store(error) }
    }

    /// A token-file campaign whose tokens could not all be added: its draft (never sent) is cancelled, so that
    /// nothing of it is left to clean up and the command can simply be run again. The error says what was left.
    private static func abandon(_ id: CampaignID, _ store: any ProducerStore, after error: any Error) async -> CLIError
    {
        let failure = CLIError.store(error).message
        do {
            _ = try await store.finishCancel(id, request: nil, unacknowledged: 0, now: Date())
            return .failure("\(failure); campaign \(id) was cancelled before sending anything: run the command again")
        } catch {
            return .failure(
                "\(failure); campaign \(id) is left a draft, which is never sent: 'apnsd campaign cancel \(id)' "
                    + "removes it, and the command can be run again")
        }
    }

    /// `--at` more than `EnqueuePlan.pastTolerance` ago is refused (exit 64).
    private static func checkTime(_ spec: CampaignSpec) throws(CLIError) {
        if let refusal = EnqueuePlan.timeRefusal(spec.scheduledAt, now: Date()) { throw .usage("--at: \(refusal)") }
    }

    /// A dry run: the devices `spec` would reach now, by environment, as one JSON object; the store opened read-only.
    private static func printDryRun(_ spec: CampaignSpec, _ configuration: Configuration) async throws(CLIError) {
        try checkTime(spec)
        let store = try await StoreAccess.open(configuration, readOnly: true)
        do { Output.line(try await store.audienceCount(spec).dryRunJSON) } catch { throw .store(error) }
    }

    /// `campaign show`'s audience: "all devices", "users (3)", "activities of DeliveryAttributes, users (2)",
    /// "channel 3"…
    static func audienceText(_ audience: AudienceSummary) -> String {
        if let channel = audience.channel { return "channel \(channel)" }
        let who = audience.kind == .all ? nil : "\(audience.kind) (\(audience.size))"
        guard let activity = audience.activity else { return who ?? "all devices" }
        return Printable.escaped(activity.description) + (who.map { ", " + $0 } ?? "")
    }

    /// `--at`: nil for `now`.
    private static func parseTime(_ text: String) throws(CLIError) -> Date? {
        do { return try EnqueuePlan.time(text) } catch { throw .usage("--at: \(error)") }
    }

    /// `campaign list [--kind single|bulk|verify] [--status S] [--limit N] [--json]`: newest first; every kind and
    /// status unless filtered, all of them unless `--limit`.
    static func list(_ words: [String]) async throws(CLIError) {
        let arguments = try Arguments(
            words, valued: Set(["kind", "status", "limit"]).union(Configuration.flagNames), flagNames: ["json"])
        let configuration = try Configuration.load(arguments: arguments)
        _ = try arguments.positionals(exactly: [])
        let kind = try arguments.value("kind").map { (text: String) throws(CLIError) -> CampaignKind in
            guard let kind = CampaignKind(rawValue: text) else {
                throw .usage("--kind must be single, bulk or verify, got '\(text)'")
            }
            return kind
        }
        let status = try arguments.value("status").map { (text: String) throws(CLIError) -> CampaignStatus in
            guard let status = CampaignStatus(rawValue: text) else {
                throw .usage("--status must be draft, scheduled, running, completed or cancelled, got '\(text)'")
            }
            return status
        }
        var remaining = Int.max
        if let text = try arguments.value("limit") {
            guard let limit = Int(text), limit > 0 else {
                throw .usage("--limit must be a positive whole number, got '\(text)'")
            }
            remaining = limit
        }
        let store = try await StoreAccess.open(configuration, readOnly: true)
        let json = arguments.flag("json")
        if !json {
            Output.line(
                "ID      KIND    STATUS      AUDIENCE   TOTAL     PENDING   ACCEPTED  UNREG     REJECTED  FAILED    SCHEDULED"
            )
        }
        do {
            var before: CampaignID?
            while remaining > 0 {
                let want = min(100, remaining)
                let page = try await store.campaigns(kind: kind, status: status, before: before, limit: want)
                for campaign in page { Output.line(json ? campaign.json.description : tableLine(campaign)) }
                remaining -= page.count
                guard let last = page.last, page.count >= want else { break }
                before = last.id
            }
        } catch {
            throw .store(error)
        }
    }

    static func show(_ words: [String]) async throws(CLIError) {
        let arguments = try Arguments(words, valued: Configuration.flagNames, flagNames: ["json"])
        let configuration = try Configuration.load(arguments: arguments)
        let id = try arguments.campaignID()
        let store = try await StoreAccess.open(configuration, readOnly: true)
        let campaign: Campaign
        let workers: [WorkerRecord]
        do {
            campaign = try await store.campaign(id)
            workers = campaign.status == .running ? try await store.workers() : []
        } catch {
            throw .store(error)
        }
        let waiting = CampaignWaiting.reason(
            for: campaign, workers: workers,
            credential: (try? configuration.topicRoutes())?.credential(for: campaign.content.bundleID), now: Date(),
            lease: configuration.lease)
        if arguments.flag("json") {
            Output.line(
                campaign.json.adding([("waiting", .raw(waiting.map(StatusReport.waiting(json:)) ?? "null"))])
                    .description)
            return
        }
        let c = campaign.counters
        Output.line(
            """
            campaign \(campaign.id) (\(campaign.kind)) — \(campaign.status)
              topic        \(Printable.escaped(campaign.content.topic))  push type \(campaign.content.pushType)  priority \(campaign.content.priority)
              audience     \(audienceText(campaign.audience))\(campaign.audience.environment.map { " \($0)" } ?? "")\(campaign.isExpanded ? "" : " — not expanded yet")
              scheduled    \(Output.timestamp(campaign.scheduledAt))
              started      \(campaign.startedAt.map(Output.timestamp) ?? "-")
              finished     \(campaign.finishedAt.map(Output.timestamp) ?? "-")
              deliveries   \(c.total) total: \(c.pending) pending, \(c.accepted) accepted, \(c.unregistered) unregistered, \(c.rejected) rejected, \(c.failed) failed, \(c.cancelled) cancelled
            """)
        if let waiting {
            Output.line("  waiting      \(waiting.reason.rawValue) since \(Output.timestamp(waiting.since))")
        }
    }

    /// `campaign pause ID` / `campaign resume ID`: stop sending a bulk campaign without losing its place, and go on.
    static func pause(_ words: [String], resume: Bool) async throws(CLIError) {
        let arguments = try Arguments(words, valued: Configuration.flagNames, flagNames: ["json"])
        let configuration = try Configuration.load(arguments: arguments)
        let id = try arguments.campaignID()
        let store = try await StoreAccess.open(configuration)
        let campaign: Campaign
        let moved: Int
        do {
            (campaign, moved) =
                resume
                ? try await store.resumeCampaign(id, now: Date()) : try await store.pauseCampaign(id, now: Date())
        } catch {
            throw .store(error)
        }
        if arguments.flag("json") {
            Output.line(campaign.json.description)
        } else if resume {
            Output.line("resumed campaign \(id): \(moved) deliveries due again, \(campaign.counters.pending) pending")
        } else {
            Output.line(
                "paused campaign \(id): \(moved) deliveries held until 'apnsd campaign resume \(id)' (workers release the ones they hold within a second)"
            )
        }
    }

    static func cancel(_ words: [String]) async throws(CLIError) {
        try await CancelCommand.run(words)
    }

    /// `campaign retry ID [--status failed|rejected]`: requeue a campaign's failed (or rejected) deliveries.
    static func retry(_ words: [String]) async throws(CLIError) {
        let arguments = try Arguments(
            words, valued: Set(["status"]).union(Configuration.flagNames), flagNames: ["json"])
        let configuration = try Configuration.load(arguments: arguments)
        let id = try arguments.campaignID()
        let statusText = try arguments.value("status") ?? "failed"
        guard let status = DeliveryStatus(rawValue: statusText), status == .failed || status == .rejected else {
            throw .usage("--status must be failed or rejected, got '\(statusText)'")
        }
        let store = try await StoreAccess.open(configuration)
        do {
            let count = try await store.requeue(id, status: status, now: Date())
            let campaign = try await store.campaign(id)
            if arguments.flag("json") {
                Output.line(campaign.json.adding([("requeued", .int(count))]).description)
            } else {
                Output.line(
                    "campaign \(id): \(count) \(status) deliveries requeued (attempts reset); the worker sends them next"
                )
            }
        } catch {
            throw .store(error)
        }
    }

    private static func tableLine(_ campaign: Campaign) -> String {
        let pad = Output.pad
        let c = campaign.counters
        return pad(campaign.id.description, 8) + pad("\(campaign.kind)", 8) + pad("\(campaign.status)", 12)
            + pad(
                campaign.audience.channel != nil
                    ? "channel" : campaign.audience.activity == nil ? "\(campaign.audience.kind)" : "activities", 11)
            + [c.total, c.pending, c.accepted, c.unregistered, c.rejected, c.failed].map { pad(String($0), 10) }
            .joined()
            + Output.timestamp(campaign.scheduledAt)
    }
}
