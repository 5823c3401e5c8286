import APNs
import Foundation
import Intake

#if canImport(Glibc)
    import Glibc
#endif

/// The lines of a `device import`, put in token order in flat memory, whatever the file's size: an external sort.
///
/// Lines are gathered in runs of `runLines`; each full run is sorted and written to a spool file, and the runs are
/// then merged, token by token, each device once (its lines merged as if registered one after the other: its last
/// environment, its last user given). The store then inserts every device in index order, one sweep over the
/// `(token, topic)` index however many lines there are, which is what made big in-memory batches fast, without
/// holding them. A file of one run is never spooled. The spool file is unlinked as soon as it is created, so that
/// nothing is left behind, even by kill -9; it takes about 80 bytes a line, in `$TMPDIR` (default /tmp).
struct ImportSpool {
    /// One line's values and its place in the file (the later of two lines for a device wins).
    struct Line {
        var token: DeviceToken
        var user: String?
        var environment: Environment?
        var number: Int

        static func precedes(_ a: Line, _ b: Line) -> Bool {
            a.token != b.token ? a.token < b.token : a.number < b.number
        }
    }

    /// One device, its lines merged.
    struct Device {
        var token: DeviceToken
        var user: String?
        var environment: Environment?
    }

    /// Lines sorted in memory at once.
    static let runLines = 125_000

    private let runLines: Int
    private var run: [Line] = []
    private var spool: Int32 = -1
    private var spooled = 0
    private var runs: [Range<Int>] = []
    /// The run being sorted and written on another thread while the next one is gathered; its end offset.
    private var writing: Task<Int, any Error>?

    /// `runLines`: lines sorted in memory at once (small in tests, to spool a few lines).
    init(runLines: Int = Self.runLines) {
        self.runLines = runLines
        run.reserveCapacity(runLines)
    }

    /// Adds one line (`number`: its line number in the file).
    mutating func add(_ line: ImportLine, number: Int) async throws(CLIError) {
        run.append(Line(token: line.token, user: line.user, environment: line.environment, number: number))
        if run.count == runLines { try await spill() }
    }

    /// The indices of `run` in `Line.precedes` order. Sorting keys of plain words, not the lines (whose strings
    /// would be retained and released at every move), when every token is the usual 64 characters.
    private static func sortedIndices(_ run: [Line]) -> [Int] {
        struct Key {
            var words: (UInt64, UInt64, UInt64, UInt64)
            var number: Int
            var index: Int
        }
        var keys: [Key] = []
        keys.reserveCapacity(run.count)
        for (index, line) in run.enumerated() {
            guard let words = line.token.words else {
                return run.indices.sorted { Line.precedes(run[$0], run[$1]) }
            }
            keys.append(Key(words: words, number: line.number, index: index))
        }
        keys.sort { a, b in
            a.words != b.words ? a.words < b.words : a.number < b.number
        }
        return keys.map(\.index)
    }

    /// Hands the lines gathered to another thread, which sorts them and writes them to the spool as one more run,
    /// once the run before has been written.
    private mutating func spill() async throws(CLIError) {
        if spool < 0 { spool = try Self.openSpool() }
        try await finishWriting()
        let full = run
        let spool = spool
        let start = spooled
        writing = Task.detached { try Self.write(full, to: spool, at: start) }
        run = []
        run.reserveCapacity(runLines)
    }

    /// Waits for the run being written, and records it.
    private mutating func finishWriting() async throws(CLIError) {
        guard let writing else { return }
        self.writing = nil
        do {
            let end = try await writing.value
            runs.append(spooled..<end)
            spooled = end
        } catch let error as CLIError {
            throw error
        } catch {
            throw .failure("\(error)")
        }
    }

    /// Sorts `run` and writes it to `spool` from `offset` on; returns where it ends.
    private static func write(_ run: [Line], to spool: Int32, at offset: Int) throws(CLIError) -> Int {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 20)
        var end = offset
        for index in sortedIndices(run) {
            encode(run[index], into: &buffer)
            if buffer.count >= 1 << 20 { try flush(&buffer, to: spool, at: &end) }
        }
        try flush(&buffer, to: spool, at: &end)
        return end
    }

    private static func flush(_ buffer: inout [UInt8], to spool: Int32, at end: inout Int) throws(CLIError) {
        var offset = 0
        while offset < buffer.count {
            let written = buffer[offset...].withUnsafeBytes { pwrite(spool, $0.baseAddress, $0.count, off_t(end)) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else {
                throw .failure(
                    "device import: cannot write its sort spool in \(directory): \(String(cString: strerror(errno))); "
                        + "nothing was imported (set TMPDIR to a folder with about 80 bytes a line free)")
            }
            offset += written
            end += written
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Calls `body` with the devices in token order, `chunk` at a time, each device once.
    mutating func devices(chunk: Int, _ body: ([Device]) async throws -> Void) async throws {
        var merged: [Device] = []
        merged.reserveCapacity(chunk)
        var last: Device?
        func take(_ line: Line) async throws {
            if var device = last, device.token == line.token {
                if let environment = line.environment { device.environment = environment }
                if let user = line.user { device.user = user }
                last = device
                return
            }
            if let device = last {
                merged.append(device)
                if merged.count == chunk {
                    try await body(merged)
                    merged.removeAll(keepingCapacity: true)
                }
            }
            last = Device(token: line.token, user: line.user, environment: line.environment)
        }
        if runs.isEmpty && writing == nil {
            for index in Self.sortedIndices(run) { try await take(run[index]) }
            run = []
        } else {
            if !run.isEmpty { try await spill() }
            try await finishWriting()
            run = []
            var readers = runs.map { RunReader(spool: spool, range: $0) }
            // A binary heap of the readers by their current line.
            var heap: [Int] = []
            for index in readers.indices where try readers[index].advance() { heap.append(index) }
            func below(_ a: Int, _ b: Int) -> Bool { Line.precedes(readers[a].current!, readers[b].current!) }
            func siftDown(_ from: Int) {
                var parent = from
                while true {
                    let left = 2 * parent + 1
                    guard left < heap.count else { return }
                    var least = left
                    if left + 1 < heap.count, below(heap[left + 1], heap[left]) { least = left + 1 }
                    guard below(heap[least], heap[parent]) else { return }
                    heap.swapAt(least, parent)
                    parent = least
                }
            }
            for index in stride(from: heap.count / 2, through: 0, by: -1) { siftDown(index) }
            while let top = heap.first {
                try await take(readers[top].current!)
                if try readers[top].advance() {
                    siftDown(0)
                } else {
                    heap.swapAt(0, heap.count - 1)
                    heap.removeLast()
                    siftDown(0)
                }
            }
        }
        if let device = last { merged.append(device) }
        if !merged.isEmpty { try await body(merged) }
    }

    /// Closes the spool (already unlinked: its space is freed).
    func close() {
        if spool >= 0 { Glibc.close(spool) }
    }

    /// `$TMPDIR`, or /tmp.
    static var directory: String { FileManager.default.temporaryDirectory.path }

    private static func openSpool() throws(CLIError) -> Int32 {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("apnsd-import-\(UUID().uuidString)")
            .path
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw .failure(
                "device import: cannot create its sort spool in \(directory): \(String(cString: strerror(errno))); "
                    + "nothing was imported (set TMPDIR to a writable folder)")
        }
        unlink(path)
        return descriptor
    }

    /// A line as spooled: the token (0 and its 32 bytes for the usual 64 characters, else its hex's length and hex),
    /// environment (0 none, 1 production, 2 development), user length (0xFFFF none) and bytes, line number.
    private static func encode(_ line: Line, into buffer: inout [UInt8]) {
        if let words = line.token.words {
            buffer.append(0)
            let littleEndian = (words.0.littleEndian, words.1.littleEndian, words.2.littleEndian, words.3.littleEndian)
            withUnsafeBytes(of: littleEndian) { buffer.append(contentsOf: $0) }
        } else {
            line.token.withHexBytes { hex in
                buffer.append(UInt8(hex.count))
                buffer.append(contentsOf: hex)
            }
        }
        buffer.append(line.environment.map { $0 == .production ? 1 : 2 } ?? 0)
        if let user = line.user {
            let bytes = user.utf8
            buffer.append(UInt8(bytes.count >> 8))
            buffer.append(UInt8(bytes.count & 0xFF))
            buffer.append(contentsOf: bytes)
        } else {
            buffer.append(0xFF)
            buffer.append(0xFF)
        }
        withUnsafeBytes(of: UInt64(line.number).littleEndian) { buffer.append(contentsOf: $0) }
    }

    /// Reads one run back, a buffer at a time.
    private struct RunReader {
        let spool: Int32
        var next: Int
        let end: Int
        var buffer: [UInt8] = []
        var offset = 0
        var current: Line?

        init(spool: Int32, range: Range<Int>) {
            self.spool = spool
            next = range.lowerBound
            end = range.upperBound
        }

        /// Reads the run's next line into `current`; false at the run's end.
        mutating func advance() throws -> Bool {
            // The longest record: 1 + 200 + 1 + 2 + 256 + 8 bytes.
            if buffer.count - offset < 512, next < end { try refill() }
            guard offset < buffer.count else {
                current = nil
                return false
            }
            let length = Int(buffer[offset])
            let token: DeviceToken
            var at: Int
            if length == 0 {
                func word(_ i: Int) -> UInt64 {
                    var value: UInt64 = 0
                    for byte in 0..<8 { value |= UInt64(buffer[offset + 1 + 8 * i + byte]) << (8 * UInt64(byte)) }
                    return value
                }
                token = DeviceToken(words: (word(0), word(1), word(2), word(3)))
                at = offset + 33
            } else {
                guard let parsed = DeviceToken(normalizedHex: buffer[(offset + 1)..<(offset + 1 + length)]) else {
                    throw ImportSpoolError()
                }
                token = parsed
                at = offset + 1 + length
            }
            let environment: Environment? = buffer[at] == 0 ? nil : buffer[at] == 1 ? .production : .development
            let userLength = Int(buffer[at + 1]) << 8 | Int(buffer[at + 2])
            at += 3
            var user: String?
            if userLength != 0xFFFF {
                user = String(decoding: buffer[at..<(at + userLength)], as: UTF8.self)
                at += userLength
            }
            var number: UInt64 = 0
            for i in 0..<8 { number |= UInt64(buffer[at + i]) << (8 * UInt64(i)) }
            offset = at + 8
            current = Line(token: token, user: user, environment: environment, number: Int(number))
            return true
        }

        private mutating func refill() throws {
            buffer.removeFirst(offset)
            offset = 0
            let want = min(64 << 10, end - next)
            let start = buffer.count
            buffer.append(contentsOf: repeatElement(0, count: want))
            var got = 0
            while got < want {
                let count = buffer.withUnsafeMutableBytes {
                    pread(spool, $0.baseAddress! + start + got, want - got, off_t(next + got))
                }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { throw ImportSpoolError() }
                got += count
            }
            next += want
        }
    }
}

/// The spool could not be read back as written (a disk error).
struct ImportSpoolError: Error, CustomStringConvertible {
    var description: String { "device import: its sort spool could not be read back" }
}
