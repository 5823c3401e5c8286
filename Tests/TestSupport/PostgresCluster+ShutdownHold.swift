import Foundation

extension PostgresCluster {
    /// Holds the server's next shutdown, `fast` included, until `release()`: one session copies from a program that
    /// ignores SIGTERM (the postmaster signals each backend's process group) and ends only once a gate file exists,
    /// and the postmaster waits for every backend before it stops. Meanwhile every other session has been ended
    /// and new ones are refused ("the database system is shutting down"): the database is down, for its clients,
    /// for as long as a test needs to look at them, instead of the fraction of a second a restart takes.
    public final class ShutdownHold: Sendable {
        private let gate: String
        private let session: ChildProcess

        fileprivate init(gate: String, session: ChildProcess) {
            self.gate = gate
            self.session = session
        }

        /// Lets the shutdown go on (the held session then ends with the others).
        public func release() {
            _ = FileManager.default.createFile(atPath: gate, contents: nil)
        }

        deinit {
            release()
            session.stop()
        }
    }

    /// Starts the holding session and returns once the server runs it.
    public func holdShutdown() throws -> ShutdownHold {
        let gate = folder + "/shutdown-gate-\(UUID().uuidString.prefix(8))"
        let program = "trap \"\" TERM; while [ ! -e \(gate) ]; do sleep 0.05; done"
        let session = try ChildProcess(
            Self.binDirectory + "/psql",
            [
                "-X", "-q", "-d", url("postgres"), "-c",
                "CREATE TEMP TABLE held (x int); COPY held FROM PROGRAM '\(program)'",
            ])
        let hold = ShutdownHold(gate: gate, session: session)
        let deadline = Date().addingTimeInterval(60)
        while true {
            let running = try Self.query(
                url("postgres"),
                "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%COPY held FROM PROGRAM%' AND pid <> pg_backend_pid()"
            )
            if running.trimmingCharacters(in: .whitespacesAndNewlines) == "1" { return hold }
            guard session.isRunning, Date() < deadline else {
                throw ClusterError(description: "the session holding the shutdown did not start")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }
}
