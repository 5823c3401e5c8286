import Foundation
import Threads

#if canImport(Glibc)
    import Glibc
#endif

/// An opt-in record of when each push request arrived: one line per request to `/3/device/…`,
/// `<wall-clock nanoseconds since 1970> <apns-id>` (`-` when the request carried no valid apns-id), in the order the
/// event loops finished reading the requests. For latency measurements that correlate a request with the moment a
/// client sent the work behind it (the same host, so the same wall clock).
///
/// Lines are gathered in memory and written when 64 KiB have gathered, when the oldest unwritten line is 50 ms old
/// (checked as the next request arrives), and on `close()` (the server's `stop()`).
final class ArrivalLog: @unchecked Sendable {
    static let flushBytes = 64 * 1024
    static let flushAgeNanoseconds: UInt64 = 50_000_000

    private let lock = NSLock()
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var oldest: UInt64 = 0
    private var closed = false

    /// Creates (or truncates) the file at `path`.
    init(path: String) throws {
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw MockError.file("cannot write arrivals to \(path): \(String(cString: strerror(errno)))")
        }
        buffer.reserveCapacity(Self.flushBytes + 128)
    }

    /// Notes a request that arrived now, with its apns-id (the header's bytes) if it had a valid one.
    func record(apnsID: [UInt8]?) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let nanoseconds = UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
        let monotonic = MonotonicClock.nanoseconds()
        lock.lock()
        defer { lock.unlock() }
        guard !closed else { return }
        if buffer.isEmpty { oldest = monotonic }
        buffer.append(contentsOf: String(nanoseconds).utf8)
        buffer.append(UInt8(ascii: " "))
        if let apnsID { buffer.append(contentsOf: apnsID) } else { buffer.append(UInt8(ascii: "-")) }
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count >= Self.flushBytes || monotonic &- oldest >= Self.flushAgeNanoseconds { writeBuffer() }
    }

    /// Writes what is gathered and closes the file; later requests are not recorded.
    func close() {
        lock.lock()
        defer { lock.unlock() }
        guard !closed else { return }
        writeBuffer()
        closed = true
        Glibc.close(fd)
    }

    /// Call with the lock held.
    private func writeBuffer() {
        var offset = 0
        buffer.withUnsafeBytes { bytes in
            while offset < bytes.count {
                let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return  // a full disk or a vanished file loses the log, never the simulator
                }
                offset += written
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
