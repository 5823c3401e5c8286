/// Which process a worker is, as its row records it: where it runs, and what tells on that host whether the process
/// still lives (all three read from `/proc` when the worker starts; nil where they could not be read, or in rows
/// written before they were recorded).
public struct ProcessIdentity: Hashable, Sendable {
    /// The host name the worker runs on.
    public var host: String
    public var pid: Int
    /// `/proc/sys/kernel/random/boot_id`: the same on a host until it reboots.
    public var bootID: String?
    /// The inode of `/proc/self/ns/pid`: pids are comparable only within one pid namespace.
    public var pidNamespace: Int64?
    /// When the process started, in clock ticks after boot (`/proc/self/stat`, field 22): a pid used again by
    /// another process has another start time.
    public var startTime: Int64?

    public init(host: String, pid: Int, bootID: String? = nil, pidNamespace: Int64? = nil, startTime: Int64? = nil) {
        self.host = host
        self.pid = pid
        self.bootID = bootID
        self.pidNamespace = pidNamespace
        self.startTime = startTime
    }
}
