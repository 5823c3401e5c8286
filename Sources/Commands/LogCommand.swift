import APNs
import Foundation
import Intake
import QueueModel

/// `apnsd log [--campaign ID] [--token TOKEN] [--status S] [--user ID] [--reason R] [--since T] [--until T]
/// [--limit N] [--follow] [--attempts] [--json]`: the delivery log, oldest first (by id; in the order rows changed
/// when only a time window selects them).
enum LogCommand {
    static func run(_ words: [String]) async throws(CLIError) {
        let arguments = try Arguments(
            words,
            valued: Set(["campaign", "token", "status", "user", "reason", "since", "until", "limit"])
                .union(Configuration.flagNames),
            flagNames: ["json", "follow", "attempts"])
        let configuration = try Configuration.load(arguments: arguments)
        _ = try arguments.positionals(exactly: [])
        let now = Date()
        let filter = try filter(arguments, now: now)
        var limit: Int?
        if let text = try arguments.value("limit") {
            // Held in memory to be printed oldest first: a bound keeps that small.
            guard let value = Int(text), (1...100_000).contains(value) else {
                throw .usage(
                    "--limit must be a whole number from 1 to 100000, got '\(Printable.escaped(String(text.prefix(40))))'"
                )
            }
            limit = value
        }
        let follow = arguments.flag("follow")
        if follow && filter.until != nil {
            throw .usage("--follow and --until exclude each other: a followed log has no end")
        }
        if let since = filter.since, let until = filter.until, until <= since {
            throw .usage("--until (\(Output.timestamp(until))) must be after --since (\(Output.timestamp(since)))")
        }
        let printer = LogPrinter(json: arguments.flag("json"), attempts: arguments.flag("attempts"))
        if follow { _ = StopRequests.forThisCommand() }  // before anything slow, so a SIGTERM is never lost
        let store = try await StoreAccess.open(configuration, readOnly: true)
        if let campaign = filter.campaign {
            do { _ = try await store.campaign(campaign) } catch { throw .store(error) }
        }
        printer.header()
        // What --follow may see again in its first poll (changed within its overlap), so as not to print it twice.
        var recent: [LogEntry] = []
        let overlapStart = now.addingTimeInterval(-LogFollower.overlap)
        func show(_ page: [LogEntry]) async throws(StoreError) {
            try await printer.print(page, store)
            if follow { recent += page.filter { $0.updatedAt >= overlapStart } }
        }
        do {
            // Followed without a window or a count, the log starts like tail -f: with its last 10 rows.
            let newest = limit ?? (follow && filter.since == nil ? 10 : nil)
            if let newest {
                try await show(Self.newest(newest, filter, store))
            } else if Self.isTimeOnly(filter) {
                // A window and nothing as narrow (token, user, campaign): the rows in the order they changed,
                // paged along the `updated_at` index, so the cost is the window's rows, not the log's.
                var page = try await store.changedLog(
                    filter, from: filter.since ?? Date(timeIntervalSince1970: 0), after: nil, limit: 1000)
                while true {
                    try await show(page)
                    guard let last = page.last, page.count == 1000 else { break }
                    page = try await store.changedLog(filter, from: last.updatedAt, after: last.id, limit: 1000)
                }
            } else {
                var after: DeliveryID?
                while true {
                    let page = try await store.log(filter, after: after, limit: 1000)
                    try await show(page)
                    guard let last = page.last, page.count == 1000 else { break }
                    after = last.id
                }
            }
            if follow {
                try await LogFollower(filter: filter, printer: printer, startedAt: now).run(
                    store, alreadyPrinted: recent)
            }
        } catch {
            throw .store(error)
        }
    }

    /// Whether `filter` selects by time and by nothing that narrows as much (a token, a user, a campaign).
    static func isTimeOnly(_ filter: LogFilter) -> Bool {
        (filter.since != nil || filter.until != nil) && filter.token == nil && filter.user == nil
            && filter.campaign == nil
    }

    /// The filter given by the options; `now` anchors durations.
    static func filter(_ arguments: Arguments, now: Date) throws(CLIError) -> LogFilter {
        var filter = LogFilter()
        if let text = try arguments.value("campaign") {
            guard let id = CampaignID(text) else { throw .usage("'\(text)' is not a campaign id") }
            filter.campaign = id
        }
        if let text = try arguments.value("token") {
            do { filter.token = try DeviceToken(text) } catch { throw .usage("\(error)") }
        }
        if let text = try arguments.value("status") {
            guard let status = DeliveryStatus(rawValue: text) else {
                throw .usage(
                    "unknown status '\(text)' (expected pending, accepted, rejected, unregistered, failed or cancelled)"
                )
            }
            filter.status = status
        }
        if let text = try arguments.value("user") {
            do { try UserID.validate(text) } catch { throw .usage("--user: \(error)") }
            filter.user = text
        }
        if let text = try arguments.value("reason") {
            // Reasons are APNs' words (`BadDeviceToken`) or apnsd's (`Transport:timeout`, `HTTP502`).
            guard !text.isEmpty, text.utf8.count <= 64,
                text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == ":" || $0 == "_") })
            else {
                throw .usage(
                    "--reason must be an APNs reason such as Unregistered or BadDeviceToken, got '\(Printable.escaped(String(text.prefix(64))))'"
                )
            }
            filter.reason = Reason(rawValue: text)
        }
        let since = try arguments.value("since")
        let until = try arguments.value("until")
        do throws(IntakeError) {
            if let since { filter.since = try PastTime.parse(since, now: now) }
            if let until { filter.until = try PastTime.parse(until, now: now) }
        } catch {
            throw .usage("\(error)")
        }
        return filter
    }

    /// The newest `count` rows matching `filter`, oldest first: by id, or, for a time window alone, the rows
    /// that changed last (read backwards along the `updated_at` index, so an old window costs no more).
    private static func newest(_ count: Int, _ filter: LogFilter, _ store: any ProducerStore) async throws(StoreError)
        -> [LogEntry]
    {
        var rows: [LogEntry] = []
        if isTimeOnly(filter) {
            var through = filter.until ?? Date.distantFuture  // the filter's `until` still excludes its own millisecond
            var before: DeliveryID?
            while rows.count < count {
                let wanted = min(10_000, count - rows.count)
                let page = try await store.lastChanged(filter, through: through, before: before, limit: wanted)
                rows += page
                guard let last = page.last, page.count == wanted else { break }
                through = last.updatedAt
                before = last.id
            }
            return rows.reversed()
        }
        var before: DeliveryID?
        while rows.count < count {
            // Large pages: a closed time window sorts its rows for each page.
            let wanted = min(10_000, count - rows.count)
            let page = try await store.recentLog(filter, before: before, limit: wanted)
            rows += page
            guard let last = page.last, page.count == wanted else { break }
            before = last.id
        }
        return rows.reversed()
    }
}
