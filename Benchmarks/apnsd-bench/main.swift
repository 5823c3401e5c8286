// apnsd-bench — the Swift half of Benchmarks/run. Loopback only; every key it touches is a throwaway.
//
//   apnsd-bench mint-jwt   --key-file K.p8 --key-id ID --team-id TEAM
//   apnsd-bench send       --url URL --ca-file CA --jwt-file F (--requests M | --seconds S)
//                          [--inflight N] [--connections C] [--rate R] [--device HEX] [--topic T]
//   apnsd-bench mock-stats FILE.json
//   apnsd-bench gen-tokens COUNT [--seed S]
//   apnsd-bench metrics    --database FILE [--devices N] [--repeat R]
//   apnsd-bench parse-batch FILE [--repeat N]
//
// Output is `key value` lines (one per figure) so the shell script can pick what it needs.
import APNs
import APNsMock
import ArgumentParsing
import Foundation
import HTTP2Transport
import ProviderAuth
import Synchronization

let usage = """
    USAGE: apnsd-bench <command> [options]     (a benchmark tool — never point it at a real Apple key or host)

    COMMANDS:
      mint-jwt --key-file K.p8 --key-id ID --team-id TEAM
          Prints an ES256 provider token (JWT) for the benchmark's own THROWAWAY key, so h2load and the bare C
          loop can authenticate to apns-mock. Benchmark use only: never run it with a real Apple .p8 key.

      send --url https://127.0.0.1:PORT --ca-file CA.pem --jwt-file F (--requests M | --seconds S)
           [--inflight N] [--connections C] [--rate R] [--device HEX] [--topic T]
          Sends POST /3/device/HEX through apnsd's transport (ConnectionPool of C APNsConnections, R req/s per
          connection, 0 = unthrottled, N requests in flight per connection), either M requests or for S seconds.
          Prints: requests, seconds, rate, statuses, failures, and for --seconds the completions inside the window.

      mock-stats FILE.json
          Summarises apns-mock statistics (GET /_mock/stats or --stats-out): totals, per-connection request
          counts and maximum one-second windows, distinct tokens, tokens answered 200 exactly once.

      gen-tokens COUNT [--seed S]
          Writes COUNT distinct pseudo-random 64-hex device tokens as "token,user" lines to stdout.

      metrics --database FILE [--devices N] [--repeat R]
          Fills a new database FILE with N devices (default 1000000) and a bulk campaign expanded to one delivery
          each (some leased, answered, retried), then times the store's gauge query and a whole /metrics render
          R times each (default 1000). Prints the fill times, the gauges, and median/p99/max in microseconds.

      write-deferred --database FILE [--page N] [--notifications M]
          Writes the notifications waiting in FILE's deferred batches (large API batches; all, or the first M) as
          campaigns and deliveries, N per transaction (default 1000, like the worker); prints how many, how fast.

      parse-batch FILE [--repeat N]
          Parses and validates FILE as a POST /v1/notifications/batch body with the route's own code, N times (default
          20). Prints the items, and the best and mean microseconds per item.
    """

func fail(_ message: String, code: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data("apnsd-bench: \(message)\n".utf8))
    exit(code)
}

/// A command's options and positionals, parsed by ArgumentParsing; a usage error ends the tool with exit 64.
struct Options {
    private let arguments: Arguments

    init(_ words: ArraySlice<String>, valued: Set<String>) {
        do { arguments = try Arguments(Array(words), valued: valued, flagNames: []) } catch {
            fail(error.message, code: 64)
        }
    }

    var positionals: [String] { arguments.positionals }

    func optional(_ name: String) -> String? {
        do { return try arguments.value(name) } catch { fail(error.message, code: 64) }
    }

    func string(_ name: String) -> String {
        do { return try arguments.required(name) } catch { fail(error.message, code: 64) }
    }

    func int(_ name: String, default fallback: Int? = nil) -> Int {
        guard let text = optional(name) else {
            guard let fallback else { fail("--\(name) is required", code: 64) }
            return fallback
        }
        guard let value = Int(text) else { fail("--\(name) expects a whole number, got '\(text)'", code: 64) }
        return value
    }
}

func emit(_ key: String, _ value: CustomStringConvertible) { print("\(key) \(value)") }

// MARK: mint-jwt

func mintJWT(_ options: Options) {
    do {
        let key = try SigningKey(contentsOfFile: options.string("key-file"))
        let credential = try ProviderCredential(keyId: options.string("key-id"), teamId: options.string("team-id"))
        print(try ProviderToken.mint(key: key, credential: credential, issuedAt: Date()).value)
    } catch {
        fail("\(error)")
    }
}

// MARK: send

/// Hands out request numbers to the sending tasks.
final class Ticket: Sendable {
    private let issued = Atomic<Int>(0)
    func next() -> Int { issued.add(1, ordering: .relaxed).newValue }
}

struct Tally: Sendable {
    var statuses: [Int: Int] = [:]
    var failures: [String: Int] = [:]
    var inWindow = 0
    var total = 0

    mutating func add(_ result: TransportResult) {
        total += 1
        switch result {
        case .response(let status, _, _): statuses[status, default: 0] += 1
        case .failure(let error): failures[error.kind.rawValue, default: 0] += 1
        }
    }

    mutating func merge(_ other: Tally) {
        statuses.merge(other.statuses, uniquingKeysWith: +)
        failures.merge(other.failures, uniquingKeysWith: +)
        inWindow += other.inWindow
        total += other.total
    }
}

func nanoseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e9 + Double(duration.components.attoseconds) / 1e9
}

func send(_ options: Options) async {
    let url = options.string("url")
    let caFile = options.string("ca-file")
    let jwt: String
    do {
        jwt = try String(contentsOfFile: options.string("jwt-file"), encoding: .utf8).trimmingCharacters(
            in: .whitespacesAndNewlines)
    } catch {
        fail("cannot read --jwt-file: \(error.localizedDescription)")
    }
    let connections = options.int("connections", default: 1)
    let inflight = options.int("inflight", default: 100)
    let rate = options.int("rate", default: 0)
    let requests = options.optional("requests").map { _ in options.int("requests") }
    let seconds = options.optional("seconds").map { _ in options.int("seconds") }
    guard (requests == nil) != (seconds == nil) else { fail("give exactly one of --requests and --seconds", code: 64) }
    let device = options.optional("device") ?? String(repeating: "ab", count: 32)
    let topic = options.optional("topic") ?? "com.example.app"

    // The same request the bare C loop sends: same path, headers and body.
    let request = APNsRequest(
        path: "/3/device/\(device)",
        headers: [
            ("authorization", "bearer \(jwt)"), ("apns-topic", topic), ("apns-push-type", "alert"),
            ("apns-priority", "10"), ("content-type", "application/json"),
        ],
        body: Array(#"{"aps":{"alert":"bench"}}"#.utf8))

    let pool: ConnectionPool
    do {
        pool = try ConnectionPool(
            key: PoolKey(credentialID: "bench", environment: .production),
            configuration: ConnectionConfiguration(
                baseURL: url, caFile: caFile, ratePerSecond: rate, maxInFlight: inflight,
                label: "bench"),
            count: connections)
    } catch {
        fail("\(error)")
    }

    // One sending task per stream slot: each keeps one request in flight, as a caller awaiting `send` does.
    let senders = connections * inflight
    let ticket = Ticket()
    let clock = ContinuousClock()
    let started = clock.now
    let deadline = seconds.map { started + .seconds($0) }
    let tally = await withTaskGroup(of: Tally.self) { group in
        for _ in 0..<senders {
            group.addTask {
                var tally = Tally()
                while true {
                    if let requests {
                        guard ticket.next() <= requests else { break }
                    } else if let deadline, clock.now >= deadline {
                        break
                    }
                    let result = await pool.send(request)
                    tally.add(result)
                    if let deadline, clock.now <= deadline { tally.inWindow += 1 }
                }
                return tally
            }
        }
        var all = Tally()
        for await part in group { all.merge(part) }
        return all
    }
    let elapsed = nanoseconds(clock.now - started) / 1e9
    let poolStats = pool.stats
    await pool.shutdown(deadline: .now + .seconds(5))

    emit("connections", connections)
    emit("inflight", inflight)
    emit("target_rate", rate * connections)
    emit("requests", tally.total)
    emit("seconds", String(format: "%.3f", elapsed))
    emit("rate", String(format: "%.0f", Double(tally.total) / elapsed))
    if let seconds {
        emit("window_seconds", seconds)
        emit("window_requests", tally.inWindow)
        emit("window_rate", String(format: "%.0f", Double(tally.inWindow) / Double(seconds)))
    }
    emit("statuses", tally.statuses.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ","))
    emit(
        "failures",
        tally.failures.isEmpty
            ? "0" : tally.failures.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ","))
    emit("client_sent_per_connection", poolStats.map { String($0.sent) }.joined(separator: ","))
}

// MARK: mock-stats

func mockStats(_ options: Options) {
    guard let path = options.positionals.first else { fail("mock-stats needs a FILE", code: 64) }
    guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
    let stats: MockStats
    do {
        stats = try JSONDecoder().decode(MockStats.self, from: data)
    } catch {
        fail("\(path) is not apns-mock statistics: \(error)")
    }
    let used = stats.connections.filter { $0.requests > 0 }
    emit("requests", stats.totals.requests)
    emit(
        "statuses",
        stats.totals.statuses.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ","))
    emit("connections", used.count)
    emit("connection_requests", used.map { String($0.requests) }.joined(separator: ","))
    emit("connection_max_window", used.map { String($0.maxRequestsPerSecond) }.joined(separator: ","))
    emit("max_window", used.map(\.maxRequestsPerSecond).max() ?? 0)
    emit("distinct_provider_tokens", used.map { String($0.distinctProviderTokens) }.joined(separator: ","))
    emit("goaway_sent", used.filter(\.goawaySent).count)
    emit("tokens", stats.tokens.count)
    emit("tokens_accepted_once", stats.tokens.values.filter { ($0["200"] ?? 0) == 1 }.count)
    emit("tokens_accepted_twice", stats.totals.tokensAcceptedTwice)
    emit("der_signatures", stats.totals.derSignatures)
    emit(
        "validation_failures",
        stats.validationFailures.isEmpty
            ? "0"
            : stats.validationFailures.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value.count)" }.joined(
                separator: ","))
}

// MARK: gen-tokens

/// SplitMix64: a bijection of its counter, so distinct counters give distinct first words (hence distinct tokens).
func splitmix(_ x: UInt64) -> UInt64 {
    var z = x &+ 0x9E37_79B9_7F4A_7C15
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
}

func genTokens(_ options: Options) {
    guard let text = options.positionals.first, let count = Int(text), count >= 0 else {
        fail("gen-tokens needs a COUNT", code: 64)
    }
    let seed = UInt64(options.int("seed", default: 1))
    let hex = Array("0123456789abcdef".utf8)
    var buffer: [UInt8] = []
    buffer.reserveCapacity(1 << 20)
    let out = FileHandle.standardOutput
    for i in 0..<count {
        let base = (UInt64(i) << 2) ^ (seed << 40)
        for word in 0..<4 {
            // Word 0 is splitmix of a distinct counter per token: unique across the file.
            var value = splitmix(base &+ UInt64(word))
            if word == 0 { value = splitmix(UInt64(i) &+ seed &* 0x1_0000_0000) }
            for shift in stride(from: 60, through: 0, by: -4) {
                buffer.append(hex[Int((value >> UInt64(shift)) & 0xF)])
            }
        }
        buffer.append(UInt8(ascii: ","))
        buffer.append(contentsOf: "user\(i % 100_000)".utf8)
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count > (1 << 20) - 128 {
            out.write(Data(buffer))
            buffer.removeAll(keepingCapacity: true)
        }
    }
    if !buffer.isEmpty { out.write(Data(buffer)) }
}

// MARK: main

let arguments = CommandLine.arguments
guard arguments.count >= 2, !["-h", "--help", "help"].contains(arguments[1]) else {
    print(usage)
    exit(arguments.count >= 2 ? 0 : 64)
}
let words = arguments.dropFirst(2)
switch arguments[1] {
case "mint-jwt": mintJWT(Options(words, valued: ["key-file", "key-id", "team-id"]))
case "send":
    await send(
        Options(
            words,
            valued: [
                "url", "ca-file", "jwt-file", "requests", "seconds", "inflight", "connections", "rate",
                "device", "topic",
            ]))
case "mock-stats": mockStats(Options(words, valued: []))
case "gen-tokens": genTokens(Options(words, valued: ["seed"]))
case "metrics":
    let options = Options(words, valued: ["database", "devices", "repeat"])
    await MetricsBenchmark.run(
        database: options.string("database"), devices: options.int("devices", default: 1_000_000),
        repeats: max(1, options.int("repeat", default: 1000)))
case "write-deferred":
    let options = Options(words, valued: ["database", "page", "notifications"])
    await DeferredWriteBenchmark.run(
        database: options.string("database"), page: max(1, options.int("page", default: 1000)),
        upTo: max(1, options.int("notifications", default: Int.max)))
case "parse-batch":
    let options = Options(words, valued: ["repeat"])
    guard let path = options.positionals.first else { fail("parse-batch needs a FILE", code: 64) }
    ParseBatchBenchmark.run(path: path, repeats: max(1, options.int("repeat", default: 20)))
default: fail("unknown command '\(arguments[1])' (see apnsd-bench --help)", code: 64)
}
