import APNsMock
import CLITestSupport
import Foundation
import ProviderAuth
import TestSupport
import Testing

extension WorkerFleet {
    /// Nothing accepted into the queue is lost across kill -9 or SIGTERM: the real binary against apns-mock.
    @Suite
    struct CrashRecoveryTests {
        static let topic = "com.example.crash"
        static let devices = 3000

        /// A CLI whose worker talks to an in-process simulator, with 3000 registered devices and one campaign.
        func prepared() async throws -> (CLI, MockServer) {
            var cli = try CLI()
            let key = try SigningKey(contentsOfFile: CLI.fixture("keys/AuthKey_TESTKEY001.p8"))
            let identity = try TLSIdentity.throwaway()
            let ca = try cli.write("ca.pem", identity.caCertificatePEM!)
            let server = try MockServer(
                configuration: MockConfiguration(
                    identity: identity,
                    verifier: JWTVerifier(
                        key: key, credential: try ProviderCredential(keyId: "TESTKEY001", teamId: "TESTTEAM01")),
                    statsTokens: true))  // the test counts the devices that reached APNs
            let url = "https://127.0.0.1:\(server.port)"
            cli.environment.merge([
                "APNSD_KEY_FILE": CLI.fixture("keys/AuthKey_TESTKEY001.p8"), "APNSD_KEY_ID": "TESTKEY001",
                "APNSD_TEAM_ID": "TESTTEAM01",
                "APNSD_TOPIC": Self.topic, "APNSD_PRODUCTION_URL": url, "APNSD_DEVELOPMENT_URL": url,
                "APNSD_CA_FILE": ca,
                "APNSD_CONNECTIONS": "1", "APNSD_RATE": "500", "APNSD_RETRY_BASE": "0.05", "APNSD_RETRY_CAP": "0.5",
                "APNSD_WORKER_HEARTBEAT": "0.2", "APNSD_WORKER_LEASE": "1",
            ]) { $1 }
            try #require(await cli.run("init").status == 0)
            let tokens = (1...Self.devices).map { Tokens.hex($0) }.joined(separator: "\n")
            try #require(await cli.run(["device", "import", "-"], stdin: tokens).status == 0)
            try #require(
                await cli.run("campaign", "create", "--all", "--payload", #"{"aps":{"alert":"crash test"}}"#).status
                    == 0)
            return (cli, server)
        }

        func acceptedCount(_ cli: CLI) async throws -> Int {
            try await cli.run("log", "--status", "accepted", "--json").lines.count
        }

        @Test(.measuresTime) func killNineMidCampaignThenResume() async throws {
            let (cli, server) = try await prepared()
            defer {
                server.stop()
                cli.cleanUp()
            }
            let worker = try cli.start(["worker"])
            // At 500/s on one connection the campaign takes about 6 s; kill it part-way.
            #expect(try await Fleet.eventually(20, every: 0.2) { try await acceptedCount(cli) >= 800 })
            kill(worker.processIdentifier, SIGKILL)
            worker.waitUntilExit()
            #expect(worker.terminationReason == .uncaughtSignal)
            let acceptedAtKill = try await acceptedCount(cli)
            #expect(acceptedAtKill < Self.devices, "the kill came too late to test anything")

            // With the default heartbeat and lease, the dead worker's heartbeat is still fresh (under 2 × 5 s): only
            // seeing its process gone (this host, this pid namespace) lets this run take its leases over, at once.
            let resumed = try await cli.run(
                ["worker", "--until-idle"], environment: ["APNSD_WORKER_HEARTBEAT": "5", "APNSD_WORKER_LEASE": "30"])
            #expect(resumed.status == 0, "\(resumed.stderr)")
            #expect(resumed.stderr.contains("worker.dead_leases_taken_over"), "\(resumed.stderr)")
            let log = try await cli.run("log", "--json").lines
            #expect(log.count == Self.devices)
            #expect(log.allSatisfy { $0.contains(#""status":"accepted""#) })
            let tokens = Set(
                log.compactMap { line in line.range(of: #""token":""#).map { String(line[$0.upperBound...].prefix(64)) }
                })
            #expect(tokens.count == Self.devices, "each device has exactly one delivery row")

            let stats = server.stats()
            #expect(stats.tokens.count == Self.devices, "every device reached APNs")
            // Only what was in flight or answered in the last record interval (100 ms) at the kill goes out twice.
            #expect(stats.totals.tokensAcceptedTwice <= 150, "\(stats.totals.tokensAcceptedTwice) devices got two 200s")
        }

        @Test(.measuresTime) func sigtermFinishesInFlightWorkAndLosesNothing() async throws {
            let (cli, server) = try await prepared()
            defer {
                server.stop()
                cli.cleanUp()
            }
            let worker = try cli.start(["worker"])
            #expect(try await Fleet.eventually(20, every: 0.2) { try await acceptedCount(cli) >= 500 })
            let stopAsked = Date()
            worker.terminate()
            worker.waitUntilExit()
            #expect(worker.terminationStatus == 0)
            #expect(Date().timeIntervalSince(stopAsked) < 10)
            let afterStop = try await acceptedCount(cli)
            #expect(afterStop < Self.devices)
            // Everything the simulator accepted before the stop was recorded: nothing is sent twice on resume.
            #expect(server.stats().totals.statuses["200"] == afterStop)
            let resumed = try await cli.run("worker", "--until-idle")
            #expect(resumed.status == 0)
            #expect(try await acceptedCount(cli) == Self.devices)
            #expect(server.stats().totals.tokensAcceptedTwice == 0)
        }
    }
}
