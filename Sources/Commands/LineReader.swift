import Foundation
import Intake

/// Reads a file or stdin as lines in 1 MiB chunks, so a million-line import never sits in memory whole.
/// Lines come as bytes (CR LF or LF endings, the CR dropped); callers parse them without Foundation strings,
/// which keeps `device import` fast.
///
/// A line longer than `maximumLineBytes` comes back cut to `maximumLineBytes + 1` bytes (so the caller can tell
/// and refuse it) and the rest of it is skipped while reading: a file without newlines costs one chunk of memory.
struct LineReader: Sequence, IteratorProtocol {
    /// Longer lines are cut (no token, user and environment line comes near it).
    static let maximumLineBytes = ImportLine.maximumBytes
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var offset = 0
    /// Where the search for the next newline resumes (bytes before it hold none).
    private var searched = 0
    private var finished = false

    init(handle: FileHandle) { self.handle = handle }

    mutating func next() -> ArraySlice<UInt8>? {
        while true {
            if let newline = buffer[Swift.max(offset, searched)...].firstIndex(of: UInt8(ascii: "\n")) {
                searched = newline + 1
                var end = newline
                if end > offset && buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                let line = buffer[offset..<end]
                offset = newline + 1
                return line
            }
            if finished {
                guard offset < buffer.count else { return nil }
                let line = buffer[offset...]
                offset = buffer.count
                return line.count > Self.maximumLineBytes ? line.prefix(Self.maximumLineBytes + 1) : line
            }
            if buffer.count - offset > Self.maximumLineBytes {
                return skipOverlongLine()
            }
            buffer.removeFirst(offset)
            offset = 0
            searched = buffer.count
            let chunk = handle.readData(ofLength: 1 << 20)
            if chunk.isEmpty { finished = true } else { buffer.append(contentsOf: chunk) }
        }
    }

    /// The line at `offset` has no newline within `maximumLineBytes`: keeps its start, drops the rest of it.
    private mutating func skipOverlongLine() -> ArraySlice<UInt8> {
        let head = Array(buffer[offset..<(offset + Self.maximumLineBytes + 1)])
        buffer.removeAll(keepingCapacity: true)
        offset = 0
        searched = 0
        while !finished {
            let chunk = handle.readData(ofLength: 1 << 20)
            guard !chunk.isEmpty else {
                finished = true
                break
            }
            if let newline = chunk.firstIndex(of: UInt8(ascii: "\n")) {
                buffer.append(contentsOf: chunk[(newline + 1)...])
                break
            }
        }
        return head[...]
    }
}
