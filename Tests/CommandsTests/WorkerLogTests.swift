import APNsMock
import CLITestSupport
import Foundation
import Logging
import TestSupport
import Testing

/// `apnsd log`'s filters, `--limit`, `--attempts` and `--follow`, and `device list --user`, on a log written by
/// a real worker against apns-mock: a token answered 429 then 200, two answered 400 BadDeviceToken. And the
/// worker's own log lines, in the journal and not.
@Suite struct WorkerLogTests {
    static let retried = Tokens.hex(1, prefix: "c0de")
    static let bad = [Tokens.hex(1, prefix: "bad0"), Tokens.hex(2, prefix: "bad0")]
    static let fine = (1...4).map { Tokens.hex($0) }
    static let scenario = Scenario(tokenPrefixes: [
        "c0de": TokenBehaviour(failTimes: 1, failStatus: 429), "bad0": TokenBehaviour(respond: .badDeviceToken),
    ])

    /// Users: fine tokens 1–2 are u1's, 3–4 u2's; the retried token and the bad ones are u3's.
    static func sentLog() async throws -> Fleet {
        let fleet = try await Fleet(devices: 0, rate: 0, campaign: false, scenario: scenario)
        do {
            let lines =
                fine.enumerated().map { "\($0.element),u\($0.offset / 2 + 1)" }
                + ([retried] + bad).map { "\($0),u3" }
            try #require(
                await fleet.cli.run(["device", "import", "-"], stdin: lines.joined(separator: "\n")).status == 0)
            try #require(await fleet.cli.run("campaign", "create", "--all", "--payload", Fleet.payload).status == 0)
            let worker = try await fleet.cli.run("worker", "--until-idle")
            try #require(worker.status == 0, "\(worker.stderr)")
            return fleet
        } catch {
            fleet.stop()
            throw error
        }
    }

    @Test func filtersLimitAndAttemptsOnAWorkersLog() async throws {
        let fleet = try await Self.sentLog()
        defer { fleet.stop() }
        func tokens(_ extra: String...) async throws -> [String] {
            let result = try await fleet.cli.run(["log", "--json"] + extra)
            try #require(result.status == 0, "\(extra): \(result.stderr)")
            return try result.lines.map { try Fleet.json($0)["token"] as? String ?? "" }
        }
        let all = try await tokens()
        #expect(all.count == 7)
        #expect(try await tokens("--user", "u1") == Array(Self.fine.prefix(2)))
        #expect(try await tokens("--user", "u3", "--status", "accepted") == [Self.retried])
        #expect(try await tokens("--reason", "BadDeviceToken") == Self.bad)
        #expect(
            try await tokens("--reason", "TooManyRequests").isEmpty,
            "the 429 was followed by a 200: the row's reason is gone")
        // Both forms of a time: a duration meaning "that long ago", or an ISO 8601 time. A window alone lists
        // the rows in the order they changed.
        #expect(Set(try await tokens("--since", "1h")) == Set(all))
        #expect(try await tokens("--since", "7d", "--until", "1h").isEmpty)
        #expect(
            Set(try await tokens("--since", "2000-01-01T00:00:00Z", "--until", "2999-01-01T00:00:00+02:00")) == Set(all)
        )
        #expect(try await tokens("--since", "2999-01-01T00:00:00Z").isEmpty)
        #expect(try await tokens("--until", "90m").isEmpty)
        let changed = try await fleet.log("--since", "1h").map { $0["updatedAt"] as? String ?? "" }
        #expect(changed == changed.sorted(), "in the order they changed")
        #expect(
            try await tokens("--since", "1h", "--user", "u2") == Array(Self.fine.suffix(2)), "with a user: id order")
        // With a window alone, the newest N are the N that changed last, printed oldest first.
        let lastThree = try await fleet.log("--since", "1h", "--limit", "3").map { $0["id"] as? String ?? "" }
        #expect(lastThree == Array(try await fleet.log("--since", "1h").map { $0["id"] as? String ?? "" }.suffix(3)))
        // The newest N, printed oldest first.
        let ids = try await fleet.log().map { Int($0["id"] as! String)! }
        let limited = try await fleet.log("--limit", "3").map { Int($0["id"] as! String)! }
        #expect(limited == Array(ids.sorted().suffix(3)))
        #expect(try await fleet.log("--limit", "1", "--user", "u1").map { $0["token"] as? String } == [Self.fine[1]])

        // Every answer the retried delivery got: the 429, then the 200.
        let retried = try #require(try await fleet.log("--token", Self.retried, "--attempts").first)
        let answers = try #require(retried["answers"] as? [[String: Any]])
        #expect(answers.map { $0["httpStatus"] as? Int } == [429, 200])
        #expect(answers.map { $0["reason"] as? String } == ["TooManyRequests", nil])
        #expect(answers.map { $0["attempt"] as? Int } == [1, 2])
        #expect(retried["attempts"] as? Int == 2)
        let plain = try await fleet.cli.run("log", "--token", Self.retried, "--attempts")
        #expect(plain.status == 0)
        #expect(plain.lines.count == 4, "header, the row, one line per answer: \(plain.stdout)")
        #expect(
            plain.lines[2].contains("attempt 1") && plain.lines[2].contains("429")
                && plain.lines[2].contains("TooManyRequests"))
        #expect(plain.lines[3].contains("attempt 2") && plain.lines[3].contains("200"))
        let once = try #require(try await fleet.log("--token", Self.bad[0], "--attempts").first)
        #expect((once["answers"] as? [[String: Any]])?.map { $0["httpStatus"] as? Int } == [400])
    }

    @Test func deviceListByUserInAlignedColumns() async throws {
        let fleet = try await Self.sentLog()
        defer { fleet.stop() }
        let u3 = try await fleet.cli.run("device", "list", "--user", "u3", "--json")
        #expect(u3.status == 0)
        #expect(
            Set(try u3.lines.compactMap { try Fleet.json($0)["token"] as? String })
                == Set([Self.retried] + Self.bad))
        #expect(u3.lines.count == 3)
        #expect(try await fleet.cli.run("device", "list", "--user", "nobody", "--json").lines.isEmpty)

        let table = try await fleet.cli.run("device", "list")
        #expect(table.status == 0)
        let lines = table.lines
        #expect(lines.count == 8)
        let header = lines[0]
        // Every column starts where its heading does, whatever the reason's length.
        for heading in ["TOPIC", "ENV", "USER", "ACTIVE", "REASON", "REGISTERED"] {
            let column = try #require(header.range(of: heading)).lowerBound.utf16Offset(in: header)
            for line in lines.dropFirst() {
                let before = line.utf16.index(line.startIndex, offsetBy: column)
                #expect(
                    line[line.index(before: before)] == " " && line[before] != " ",
                    "\(heading) out of line in: \(line)")
            }
        }
        let deactivated = lines.filter { $0.contains("BadDeviceToken") }
        #expect(deactivated.count == 2 && deactivated.allSatisfy { $0.contains("  no  ") })
    }

    /// Under systemd with its output in the journal (`JOURNAL_STREAM` naming standard error's device and inode),
    /// every log line starts with its syslog priority and stays JSON; a pipe that the variable does not name (a
    /// child of such a service, say) gets plain JSON lines. Every line of the worker carries its id.
    @Test func journalLinesCarryTheirPriorityAndEveryLineTheWorkersID() async throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { for end in ends { close(end) } }
        var info = stat()
        try #require(fstat(ends[1], &info) == 0)
        let stream = ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino)"]
        let other = ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino + 1)"]
        #expect(StandardStreams.isJournal(descriptor: ends[1], environment: stream))
        #expect(!StandardStreams.isJournal(descriptor: ends[1], environment: other))
        #expect(!StandardStreams.isJournal(descriptor: ends[1], environment: [:]))
        #expect(!StandardStreams.isJournal(descriptor: ends[1], environment: ["JOURNAL_STREAM": "journal"]))

        let fleet = try await Fleet(devices: 0, rate: 0, campaign: false)
        defer { fleet.stop() }
        var cli = fleet.cli
        for (environment, priorities) in [(stream, true), (other, false)] {
            cli.errorIsJournal = StandardStreams.isJournal(descriptor: ends[1], environment: environment)
            try #require(await cli.run("send", Tokens.hex(1), "--payload", Fleet.payload).status == 0)
            let run = try await cli.run("worker", "--until-idle", "--log-level", "debug")
            try #require(run.status == 0, "\(run.stderr)")
            // Warnings before the log starts (the fixture key's mode) are plain lines, not log lines.
            let lines = run.stderr.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("apnsd: ") }
            var seen: Set<String> = []
            for line in lines {
                let prefix = line.firstMatch(of: /^<([3467])>/)
                #expect(priorities ? prefix != nil : line.hasPrefix("{"), "\(line)")
                let object = try Fleet.json(String(line.dropFirst(prefix.map { $0.output.0.count } ?? 0)))
                if let prefix {
                    let levels: [Substring: String] = ["3": "error", "4": "warning", "6": "info", "7": "debug"]
                    #expect(levels[prefix.output.1] == object["level"] as? String, "\(line)")
                }
                #expect(object["worker.id"] is String, "no worker id: \(line)")
                seen.insert(object["msg"] as? String ?? "")
            }
            #expect(
                seen.isSuperset(of: ["worker.started", "worker.registered", "apns.request", "worker.finished"]),
                "\(run.stderr)")
        }
    }
}
