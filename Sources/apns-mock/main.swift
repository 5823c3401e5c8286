import APNsMock
import ArgumentParsing
import Foundation
import ProviderAuth

#if canImport(Glibc)
    import Glibc
#endif

// SIGINT and SIGTERM end the simulator (writing --stats-out first). They are blocked before any thread starts, so
// every thread inherits the mask and one that arrives early stays pending until the main thread waits for it, after
// the listening line: a stop sent as soon as that line appears is never lost (it was, while a dispatch source was
// being armed) nor fatal.
var stopSignals = sigset_t()
sigemptyset(&stopSignals)
sigaddset(&stopSignals, SIGINT)
sigaddset(&stopSignals, SIGTERM)
pthread_sigmask(SIG_BLOCK, &stopSignals, nil)
MockServer.skipOpenSSLCleanupAtExit()

func fail(_ message: String, code: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data("apns-mock: error: \(message)\n".utf8))
    exit(code)
}

let options: MockOptions
do {
    guard let parsed = try MockOptions.parse(Array(CommandLine.arguments.dropFirst())) else {
        print(MockOptions.usage)
        exit(0)
    }
    options = parsed
} catch {
    fail("\(error.message) (see apns-mock --help)", code: 64)
}

let server: MockServer
do {
    var teams: [MockTeam] = []
    for team in options.teams {
        let key: SigningKey
        do { key = try SigningKey(contentsOfFile: team.keyFile) } catch { fail("key file \(team.keyFile): \(error)") }
        teams.append(
            MockTeam(
                key: key, credential: try ProviderCredential(keyId: team.keyID, teamId: team.teamID),
                topics: Set(team.topics)))
    }
    var clientCAPEM: String?
    if let path = options.clientCAFile {
        guard let pem = try? String(contentsOfFile: path, encoding: .utf8) else {
            fail("cannot read --client-ca \(path)")
        }
        clientCAPEM = pem
    }
    let identity: TLSIdentity
    if let cert = options.certFile, let keyFile = options.certKeyFile {
        identity = try TLSIdentity(certificateFile: cert, keyFile: keyFile)
    } else {
        identity = try TLSIdentity.throwaway()
    }
    if let caOut = options.caOut {
        guard let ca = identity.caCertificatePEM else {
            fail("--ca-out needs a generated certificate (drop --cert/--key)")
        }
        guard FileManager.default.createFile(atPath: caOut, contents: Data(ca.utf8)) else {
            fail("cannot write \(caOut)")
        }
    }
    let scenario = try options.scenarioFile.map(Scenario.load(path:)) ?? Scenario()
    server = try MockServer(
        configuration: MockConfiguration(
            host: options.host, port: options.port, identity: identity,
            verifier: JWTVerifier(teams: teams), scenario: scenario,
            tokenUpdateInterval: options.tokenUpdateInterval, threads: options.threads,
            tracksTokens: options.tracksTokens,
            statsTokens: options.statsTokens, handshakeTimeout: options.handshakeTimeout,
            idleTimeout: options.idleTimeout,
            arrivalsFile: options.arrivalsOut,
            environment: options.environment == "development" ? .development : .production,
            clientCAPEM: clientCAPEM, withoutBroadcast: Set(options.withoutBroadcast),
            maxChannelsPerApp: options.maxChannels))
} catch {
    fail("\(error)")
}

let host = options.host.contains(":") ? "[\(options.host)]" : options.host
if !["127.0.0.1", "::1", "localhost"].contains(options.host) && !options.host.hasPrefix("127.") {
    FileHandle.standardError.write(
        Data(
            "apns-mock: warning: listening on \(host), not loopback: anyone who can reach it may use it, and GET /_mock/stats needs no credentials\n"
                .utf8))
}
FileHandle.standardOutput.write(
    Data("apns-mock: listening on https://\(host):\(server.port)\(options.caOut.map { " (CA: \($0))" } ?? "")\n".utf8))

func shutdown() -> Never {
    server.stop()
    if let statsOut = options.statsOut {
        guard FileManager.default.createFile(atPath: statsOut, contents: Data(server.statsJSON())) else {
            fail("cannot write \(statsOut)")
        }
    }
    exit(0)
}

var received: Int32 = 0
while sigwait(&stopSignals, &received) != 0 {}
shutdown()
