import APNs
import Intake
import QueueModel

/// How `apnsd log` prints rows: a table or JSON Lines, each row followed by its APNs answers with `--attempts`.
struct LogPrinter: Sendable {
    let json: Bool
    let attempts: Bool

    func header() {
        guard !json else { return }
        Output.line(
            "CAMPAIGN  TOKEN             STATUS        HTTP  REASON                      ATTEMPTS  APNS-ID                               UPDATED"
        )
    }

    /// Prints `entries`, with their answers read in one query when `attempts` is on.
    func print(_ entries: [LogEntry], _ store: any ProducerStore) async throws(StoreError) {
        guard !entries.isEmpty else { return }
        let answers = attempts ? try await store.attempts(of: entries.map(\.id)) : [:]
        for entry in entries {
            if json {
                Output.line((attempts ? entry.json(answers: answers[entry.id] ?? []) : entry.json).description)
                continue
            }
            Output.line(Self.tableLine(entry))
            for answer in answers[entry.id] ?? [] { Output.line(Self.answerLine(answer)) }
        }
    }

    static func tableLine(_ entry: LogEntry) -> String {
        let pad = Output.pad
        return pad(entry.campaignID.description, 10) + pad(entry.target.description, 18)
            + pad(entry.status.rawValue, 14)
            + pad(entry.httpStatus.map(String.init) ?? "-", 6)
            + pad(entry.reason.map { Printable.escaped($0.rawValue) } ?? "-", 28) + pad(String(entry.attempts), 10)
            + pad(entry.apnsID.map(Printable.escaped) ?? "-", 38) + Output.timestamp(entry.updatedAt)
    }

    /// An answer under its row, its status and reason in the row's columns.
    static func answerLine(_ answer: DeliveryAttempt) -> String {
        let pad = Output.pad
        return pad("", 10) + pad("  attempt \(answer.attempt)", 32) + pad(answer.httpStatus.map(String.init) ?? "-", 6)
            + pad(answer.reason.map { Printable.escaped($0.rawValue) } ?? "-", 28) + pad("", 48)
            + Output.timestamp(answer.at)
    }
}
