import Foundation

/// A throwaway PostgreSQL cluster for tests: `initdb` in a temporary folder, a server listening only on a Unix socket
/// in that folder (no TCP port to collide on), trust authentication for its superuser `apnsd`. Run as `nobody`
/// when the tests run as root (CI does; PostgreSQL refuses to run as root). Stopped at process exit.
///
/// Which engines the store and end-to-end suites run on: `APNSD_TEST_ENGINES` (comma-separated, `sqlite,postgres`
/// by default; `sqlite` for a quick run without a cluster).
public final class PostgresCluster: @unchecked Sendable {
    /// The folder holding the data directory, the socket and the server log.
    public let folder: String
    public var dataDirectory: String { folder + "/data" }
    public var logFile: String { folder + "/server.log" }
    private let lock = NSLock()
    private var databases = 0

    /// The cluster the whole test process shares, started at first use.
    public static var shared: PostgresCluster {
        get throws {
            try sharedLock.withLock {
                if let cluster = sharedCluster { return cluster }
                let cluster = try PostgresCluster()
                sharedCluster = cluster
                return cluster
            }
        }
    }
    nonisolated(unsafe) private static var sharedCluster: PostgresCluster?
    private static let sharedLock = NSLock()
    nonisolated(unsafe) private static var running: [String] = []
    private static let runningLock = NSLock()

    /// Whether the PostgreSQL engine is among those the tests run on.
    public static var enabled: Bool {
        let engines = ProcessInfo.processInfo.environment["APNSD_TEST_ENGINES"] ?? "sqlite,postgres"
        return engines.split(separator: ",").contains("postgres")
    }

    /// Creates and starts a new cluster of its own (for tests that stop and start the server). `durable`: keep
    /// PostgreSQL's default durability (fsync, synchronous commit), so that a crash (`stop(mode: "immediate")`)
    /// loses nothing that was acknowledged; otherwise commits return before their WAL is written (faster tests,
    /// and an acknowledged commit may be lost in a crash).
    public init(durable: Bool = false) throws {
        folder =
            FileManager.default.temporaryDirectory.appendingPathComponent("apnsd-pg-\(UUID().uuidString.prefix(8))")
            .path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        if Self.asNobody {
            try FileManager.default.setAttributes(
                [.ownerAccountID: 65534, .groupOwnerAccountID: 65534], ofItemAtPath: folder)
        }
        try Self.tool(
            "initdb", ["-D", dataDirectory, "-U", "apnsd", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"])
        let settings = """

            listen_addresses = ''
            unix_socket_directories = '\(folder)'
            port = 5432
            \(durable ? "" : "fsync = off\nsynchronous_commit = off\nfull_page_writes = off")
            max_connections = 200
            shared_buffers = 128MB
            """
        let config = dataDirectory + "/postgresql.conf"
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: config))
        handle.seekToEndOfFile()
        handle.write(Data(settings.utf8))
        try handle.close()
        try start()
        Self.runningLock.withLock {
            if Self.running.isEmpty { atexit { PostgresCluster.stopAll() } }
            Self.running.append(dataDirectory)
        }
    }

    /// Starts the server and waits until it accepts connections.
    public func start() throws {
        // Not through ToolRun: the daemonized server keeps pg_ctl's standard output and error, so pipes from them
        // would never end.
        var arguments = [Self.binDirectory + "/pg_ctl", "-D", dataDirectory, "-l", logFile, "-w", "-t", "60", "start"]
        if Self.asNobody { arguments = ["/usr/sbin/runuser", "-u", "nobody", "--"] + arguments }
        let status = try Self.spawnAndWait(arguments)
        guard status == 0 else {
            let log = (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? ""
            throw ClusterError(description: "pg_ctl start failed (\(status)): \(log.suffix(2000))")
        }
    }

    /// Runs a program and waits for it; its output goes to /dev/null.
    private static func spawnAndWait(_ arguments: [String]) throws -> Int32 {
        let child = try ChildProcess(arguments[0], Array(arguments.dropFirst()))
        child.wait()
        return child.terminationReason == .exit ? child.terminationStatus : 128 + child.terminationStatus
    }

    /// Stops the server (`immediate`: like a crash, recovery at the next start; `fast`: a clean shutdown).
    public func stop(mode: String = "fast") throws {
        try Self.tool("pg_ctl", ["-D", dataDirectory, "-m", mode, "-w", "-t", "60", "stop"])
    }

    /// `pg_ctl restart -m MODE` in the background (`fast`: every session is ended, then a clean shutdown and a
    /// start); the process returned ends once the server accepts connections again (status 0) or gave up.
    public func beginRestart(mode: String = "fast") throws -> ChildProcess {
        var arguments = [
            Self.binDirectory + "/pg_ctl", "-D", dataDirectory, "-l", logFile, "-m", mode, "-w", "-t", "60", "restart",
        ]
        if Self.asNobody { arguments = ["/usr/sbin/runuser", "-u", "nobody", "--"] + arguments }
        return try ChildProcess(arguments[0], Array(arguments.dropFirst()))
    }

    /// The URL of the database `name`, through the socket.
    public func url(_ name: String) -> String {
        "postgresql:///\(name)?host=\(folder)&port=5432&user=apnsd"
    }

    /// A new empty database; returns its URL.
    public func createDatabase() throws -> String {
        let name = lock.withLock {
            databases += 1
            return "t\(getpid())_\(databases)"
        }
        try Self.tool("createdb", ["-h", folder, "-p", "5432", "-U", "apnsd", name])
        return url(name)
    }

    /// Runs SQL with psql against the database at `url` (tests that look under the store): the rows, unaligned,
    /// `|` between columns, one per line.
    public static func query(_ url: String, _ sql: String) throws -> String {
        try tool("psql", ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql], asServerUser: false)
    }

    /// Removes the cluster's folder (the server must be stopped).
    public func remove() {
        try? FileManager.default.removeItem(atPath: folder)
    }

    private static func stopAll() {
        let directories = runningLock.withLock { running }
        for directory in directories {
            _ = try? tool("pg_ctl", ["-D", directory, "-m", "immediate", "-w", "stop"])
            try? FileManager.default.removeItem(atPath: (directory as NSString).deletingLastPathComponent)
        }
    }

    static var asNobody: Bool { geteuid() == 0 }

    /// PostgreSQL's programs: `pg_config --bindir` (Debian keeps them out of PATH).
    static let binDirectory: String = {
        if let outcome = try? ToolRun.run("/usr/bin/env", ["pg_config", "--bindir"]), outcome.status == 0 {
            return outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return "/usr/lib/postgresql/15/bin"
    }()

    @discardableResult
    private static func tool(_ name: String, _ arguments: [String], asServerUser: Bool = true) throws -> String {
        let path = binDirectory + "/" + name
        let outcome: ToolRun.Outcome
        if asNobody && asServerUser {
            outcome = try ToolRun.run("/usr/sbin/runuser", ["-u", "nobody", "--", path] + arguments)
        } else {
            outcome = try ToolRun.run(path, arguments)
        }
        guard outcome.status == 0 else {
            throw ClusterError(
                description:
                    "\(name) \(arguments.joined(separator: " ")) failed (\(outcome.status)): \(outcome.stderr)\(outcome.stdout)"
            )
        }
        return outcome.stdout
    }

    public struct ClusterError: Error, CustomStringConvertible {
        public let description: String
    }
}
