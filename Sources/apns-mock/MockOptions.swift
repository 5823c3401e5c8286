import ArgumentParsing
import Foundation

/// The command line of `apns-mock`.
struct MockOptions {
    /// One team from `--key-file/--key-id/--team-id` or a `--team` value.
    struct Team: Equatable {
        var keyFile: String
        var keyID: String
        var teamID: String
        /// Bundle ids the team may push to; empty: any.
        var topics: [String]
    }

    var host = "127.0.0.1"
    var port = 2197
    var caOut: String?
    var certFile: String?
    var certKeyFile: String?
    var teams: [Team] = []
    /// "production" (default) or "development".
    var environment = "production"
    var clientCAFile: String?
    var scenarioFile: String?
    var statsOut: String?
    var arrivalsOut: String?
    var threads = 1
    var tokenUpdateInterval: TimeInterval = 20 * 60
    var tracksTokens = true
    var statsTokens = false
    var handshakeTimeout: TimeInterval = 10
    var idleTimeout: TimeInterval = 300
    /// Bundle ids without the Broadcast capability.
    var withoutBroadcast: [String] = []
    var maxChannels = 10_000

    static let usage = """
        USAGE: apns-mock (--key-file KEY.p8 --key-id KEYID --team-id TEAMID | --team KEY.p8:KEYID:TEAMID[:TOPICS] ...
                          | --client-ca CA.pem) [options]

        A local APNs simulator: HTTP/2 over TLS, Apple's validation and error answers, provider-token (ES256 JWT)
        checks against your teams' keys, client certificates, scripted per-token behaviours and connection faults,
        and statistics. Device pushes (POST /3/device/TOKEN) and iOS 18 broadcast channels on the same listener:
        channel management (POST, GET, DELETE /1/apps/BUNDLE/channels with apns-channel-id; GET
        /1/apps/BUNDLE/all-channels) and broadcasts (POST /4/broadcasts/apps/BUNDLE), with Apple's error reasons.

        OPTIONS:
          --listen HOST:PORT          Address to serve on (default 127.0.0.1:2197, loopback only; port 0 picks a
                                      free one). The simulator has no access control: keep it off shared networks.
          --ca-out PATH               Generate a throwaway CA and server certificate; write the CA PEM here.
          --cert FILE --key FILE      Serve this certificate chain and key instead of a throwaway one.
          --key-file KEY.p8           A team's signing key; provider tokens must verify against it.
          --key-id KEYID              The 10-character key id its tokens must carry as "kid".
          --team-id TEAMID            The 10-character team id its tokens must carry as "iss" (these three go
                                      together and make one team that may push to any topic).
          --team KEY.p8:KEYID:TEAMID[:TOPIC,TOPIC...]
                                      One more team (repeatable; the key path must not contain ':'). A token is
                                      checked against the key its kid names (unknown kid: 403 InvalidProviderToken)
                                      and its iss must be that key's team. With TOPICs (bundle ids), a topic whose
                                      bundle id (push-type suffix such as .voip removed) is not listed gets 400
                                      TopicDisallowed; without, any topic is accepted.
          --environment ENV           production (default) or development: development adds apns-unique-id (a UUID)
                                      to every 200, as Apple's sandbox does; client certificates must be valid for it.
          --client-ca CA.pem          Ask for (not require) a TLS client certificate and verify it against these CA
                                      certificates. A connection that presented one may send requests without a
                                      token, judged by the certificate (its subject UID is the bundle id; Apple's
                                      extensions 1.2.840.113635.100.6.3.1/.2 mark development/production):
                                      403 BadCertificate when not from this CA, expired, or lacking the UID or both
                                      extensions; 403 BadCertificateEnvironment when issued for the other
                                      environment only; 400 TopicDisallowed for a topic other than the bundle id
                                      (with or without a push-type suffix). A request without apns-topic gets the
                                      bundle id; one with an authorization header is judged by its token.
          --no-broadcast BUNDLE[,BUNDLE...]
                                      Apps without the Broadcast capability (repeatable): their channel management
                                      and broadcast requests get 400 FeatureNotEnabled. Every other app has it.
          --max-channels N            Channels one app may hold (default 10000, Apple's limit; 1-10000): a create
                                      past it gets 400 CannotCreateChannelConfig.
          --scenario FILE.json        Per-token and per-app broadcast behaviours, connection faults (see README).
          --stats-out FILE.json       Write the statistics here on exit (SIGINT/SIGTERM).
          --arrivals-out FILE         Write one line per push request as it arrives: wall-clock nanoseconds since
                                      1970 and its apns-id ("-" without one), e.g. "1764577987123456789 <uuid>"
                                      (for latency benchmarks; written in batches, all of it by exit).
          --stats-tokens              List the statuses per device token in the statistics (GET /_mock/stats and
                                      --stats-out need no credentials, so device tokens are left out by default;
                                      totals such as tokensAcceptedTwice are always there).
          --no-token-stats            Do not count statuses per device token at all (for million-token
                                      benchmarks; tokensAcceptedTwice is then 0).
          --threads N                 Event-loop threads (default 1).
          --token-update-interval S   Seconds a connection must keep a token before switching (default 1200); a
                                      switch sooner gets 429 TooManyProviderTokenUpdates, and so does every later
                                      request on that connection, old token included, until the client reconnects.
          --handshake-timeout S       Seconds a connection has to complete its TLS handshake (default 10).
          --idle-timeout S            Seconds without a request after which a connection is sent GOAWAY
                                      {"reason":"IdleTimeout"} and closed (default 300; 0 = never).
          -h, --help                  Show this help.

        EXAMPLE:
          apns-mock --listen 127.0.0.1:2197 --ca-out /tmp/apns-ca.pem \\
                    --key-file AuthKey_TESTKEY001.p8 --key-id TESTKEY001 --team-id TESTTEAM01
          curl --http2 --cacert /tmp/apns-ca.pem https://127.0.0.1:2197/_mock/stats
        """

    static let valued: Set<String> = [
        "listen", "ca-out", "cert", "key", "key-file", "key-id", "team-id", "team", "environment",
        "client-ca", "scenario", "stats-out", "arrivals-out", "no-broadcast", "max-channels",
        "threads", "token-update-interval", "handshake-timeout", "idle-timeout",
    ]
    static let flagNames: Set<String> = ["help", "stats-tokens", "no-token-stats"]

    /// The options in `arguments`, or nil when they ask for help (`-h`, `--help`).
    static func parse(_ arguments: [String]) throws(UsageError) -> MockOptions? {
        let parsed = try Arguments(arguments, valued: valued, flagNames: flagNames, shortFlags: ["h": "help"])
        if parsed.flag("help") { return nil }
        if let stray = parsed.positionals.first { throw UsageError("unknown option '\(stray)'") }
        var options = MockOptions()
        if let address = try parsed.value("listen") {
            guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]),
                (0...65535).contains(port)
            else {
                throw UsageError("--listen expects HOST:PORT, got '\(address)'")
            }
            options.host = String(address[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            options.port = port
        }
        options.caOut = try parsed.value("ca-out")
        options.certFile = try parsed.value("cert")
        options.certKeyFile = try parsed.value("key")
        options.scenarioFile = try parsed.value("scenario")
        options.statsOut = try parsed.value("stats-out")
        options.arrivalsOut = try parsed.value("arrivals-out")
        if let text = try parsed.value("threads") {
            guard let threads = Int(text), (1...64).contains(threads) else {
                throw UsageError("--threads expects 1…64, got '\(text)'")
            }
            options.threads = threads
        }
        if let text = try parsed.value("token-update-interval") {
            guard let seconds = TimeInterval(text), seconds >= 0 else {
                throw UsageError("--token-update-interval expects seconds ≥ 0, got '\(text)'")
            }
            options.tokenUpdateInterval = seconds
        }
        if let text = try parsed.value("handshake-timeout") {
            guard let seconds = TimeInterval(text), seconds > 0, seconds <= 86_400 else {
                throw UsageError("--handshake-timeout expects seconds > 0 (at most 86400), got '\(text)'")
            }
            options.handshakeTimeout = seconds
        }
        if let text = try parsed.value("idle-timeout") {
            guard let seconds = TimeInterval(text), seconds >= 0, seconds <= 31_536_000 else {
                throw UsageError("--idle-timeout expects seconds ≥ 0 (0 = never), got '\(text)'")
            }
            options.idleTimeout = seconds
        }
        for value in parsed.values("no-broadcast") {
            for bundleID in value.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
                guard !bundleID.isEmpty, bundleID.utf8.allSatisfy(isBundleIDByte) else {
                    throw UsageError(
                        "--no-broadcast expects bundle ids (letters, digits, '-' and '.'), got '\(bundleID)'")
                }
                options.withoutBroadcast.append(bundleID)
            }
        }
        if let text = try parsed.value("max-channels") {
            guard let count = Int(text), (1...10_000).contains(count) else {
                throw UsageError("--max-channels expects 1…10000, got '\(text)'")
            }
            options.maxChannels = count
        }
        options.statsTokens = parsed.flag("stats-tokens")
        options.tracksTokens = !parsed.flag("no-token-stats")
        let single = (try parsed.value("key-file"), try parsed.value("key-id"), try parsed.value("team-id"))
        if let keyFile = single.0, let keyID = single.1, let teamID = single.2 {
            options.teams.append(Team(keyFile: keyFile, keyID: keyID, teamID: teamID, topics: []))
        } else if single.0 != nil || single.1 != nil || single.2 != nil {
            throw UsageError("--key-file, --key-id and --team-id go together")
        }
        for value in parsed.values("team") { options.teams.append(try Self.team(value)) }
        if let text = try parsed.value("environment") {
            switch text.lowercased() {
            case "production": options.environment = "production"
            case "development", "sandbox": options.environment = "development"
            default: throw UsageError("--environment expects production or development, got '\(text)'")
            }
        }
        options.clientCAFile = try parsed.value("client-ca")
        if options.teams.isEmpty && options.clientCAFile == nil {
            throw UsageError("no team: give --key-file, --key-id and --team-id, or --team, or --client-ca")
        }
        if options.statsTokens && !options.tracksTokens {
            throw UsageError("--stats-tokens and --no-token-stats contradict each other")
        }
        if (options.certFile == nil) != (options.certKeyFile == nil) {
            throw UsageError("--cert and --key go together")
        }
        return options
    }

    /// Parses `KEY.p8:KEYID:TEAMID[:TOPIC,TOPIC...]`.
    static func team(_ value: String) throws(UsageError) -> Team {
        let parts = value.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard (3...4).contains(parts.count), !parts[0].isEmpty, !parts[1].isEmpty, !parts[2].isEmpty else {
            throw UsageError("--team expects KEY.p8:KEYID:TEAMID[:TOPIC,TOPIC...], got '\(value)'")
        }
        var topics: [String] = []
        if parts.count == 4 {
            topics = parts[3].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            for topic in topics where topic.isEmpty || !topic.utf8.allSatisfy(isBundleIDByte) {
                throw UsageError("--team topic '\(topic)' is not a bundle id (letters, digits, '-' and '.')")
            }
        }
        return Team(keyFile: parts[0], keyID: parts[1], teamID: parts[2], topics: topics)
    }

    private static func isBundleIDByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."):
            return true
        default:
            return false
        }
    }
}
