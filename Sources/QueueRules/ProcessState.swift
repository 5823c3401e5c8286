/// What this host sees of a process by its pid (`kill(pid, 0)`, `/proc/PID/stat`), the fact `Liveness` is fed.
package enum ProcessState: Hashable, Sendable {
    /// No such process, or only its zombie: it has exited.
    case gone
    /// A process runs under that pid, started `startTime` clock ticks after boot (nil: unreadable).
    case running(startTime: Int64?)
}
