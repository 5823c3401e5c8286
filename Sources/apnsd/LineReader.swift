import Foundation

/// Reads a file or stdin as lines in 1 MiB chunks, so a million-line import never sits in memory whole.
struct LineReader: Sequence, IteratorProtocol {
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var offset = 0
    private var finished = false

    init(handle: FileHandle) { self.handle = handle }

    mutating func next() -> String? {
        while true {
            if let newline = buffer[offset...].firstIndex(of: UInt8(ascii: "\n")) {
                var end = newline
                if end > offset && buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                let line = String(decoding: buffer[offset..<end], as: UTF8.self)
                offset = newline + 1
                return line
            }
            if finished {
                guard offset < buffer.count else { return nil }
                let line = String(decoding: buffer[offset...], as: UTF8.self)
                offset = buffer.count
                return line
            }
            buffer.removeFirst(offset)
            offset = 0
            let chunk = handle.readData(ofLength: 1 << 20)
            if chunk.isEmpty { finished = true } else { buffer.append(contentsOf: chunk) }
        }
    }
}
