import Intake
import APNs
import QueueModel

/// `apnsd log [--campaign ID] [--token TOKEN] [--status S] [--json]`: the delivery log, oldest first.
enum LogCommand {
    static func run(_ words: [String]) async throws(CLIError) {
        let arguments = try Arguments(words, valued: Set(["campaign", "token", "status"]).union(Configuration.flagNames), flagNames: ["json"])
        let configuration = try Configuration.load(arguments: arguments)
        _ = try arguments.positionals(exactly: [])
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
                throw .usage("unknown status '\(text)' (expected pending, accepted, rejected, unregistered, failed or cancelled)")
            }
            filter.status = status
        }
        let json = arguments.flag("json")
        let store = try await StoreAccess.open(configuration, readOnly: true)
        if let campaign = filter.campaign {
            do { _ = try await store.campaign(campaign) } catch { throw .store(error) }
        }
        if !json { Output.line("CAMPAIGN  TOKEN             STATUS        HTTP  REASON                      ATTEMPTS  APNS-ID                               UPDATED") }
        var after: DeliveryID?
        do {
            while true {
                let page = try await store.log(filter, after: after, limit: 1000)
                for entry in page { Output.line(json ? entry.json.description : tableLine(entry)) }
                guard let last = page.last, page.count == 1000 else { break }
                after = last.id
            }
        } catch {
            throw .store(error)
        }
    }

    private static func tableLine(_ entry: LogEntry) -> String {
        let pad = Output.pad
        return pad(entry.campaignID.description, 10) + pad(entry.token.description, 18) + pad(entry.status.rawValue, 14)
            + pad(entry.httpStatus.map(String.init) ?? "-", 6) + pad(entry.reason.map { Printable.escaped($0.rawValue) } ?? "-", 28) + pad(String(entry.attempts), 10)
            + pad(entry.apnsID.map(Printable.escaped) ?? "-", 38) + Output.timestamp(entry.updatedAt)
    }
}
