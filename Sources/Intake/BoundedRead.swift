import Foundation

/// Reads a file or stdin, refusing as soon as it holds more than a limit: memory never grows with the input.
public enum BoundedRead {
    /// The bytes of `handle` if there are at most `limit`; nil when there are more (reading stops at limit + 1).
    public static func read(_ handle: FileHandle, limit: Int) -> [UInt8]? {
        var bytes: [UInt8] = []
        while bytes.count <= limit {
            let chunk = handle.readData(ofLength: min(64 * 1024, limit + 1 - bytes.count))
            if chunk.isEmpty { return bytes }
            bytes.append(contentsOf: chunk)
        }
        return nil
    }

    /// The bytes of the file at `path`: nil when it holds more than `limit`; throws when it cannot be read.
    public static func file(_ path: String, limit: Int) throws(IntakeError) -> [UInt8]? {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw IntakeError("cannot read \(path)") }
        defer { try? handle.close() }
        return read(handle, limit: limit)
    }
}
