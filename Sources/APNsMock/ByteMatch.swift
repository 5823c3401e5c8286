#if canImport(Glibc)
    import Glibc
#endif

/// A fixed byte string for the simulator's hot path, compared with memcmp instead of generic collection code.
/// Its storage is allocated once and never freed: make these only for static tables.
struct ByteString: @unchecked Sendable {
    let buffer: UnsafeBufferPointer<UInt8>

    init(_ string: StaticString) {
        buffer = UnsafeBufferPointer(start: string.utf8Start, count: string.utf8CodeUnitCount)
    }

    var count: Int { buffer.count }
    var pointer: UnsafePointer<UInt8> { buffer.baseAddress! }
    var bytes: [UInt8] { Array(buffer) }

    /// Whether `other` is exactly these bytes.
    func matches(_ other: UnsafeBufferPointer<UInt8>) -> Bool {
        other.count == count && isPrefix(of: other)
    }

    /// Whether `other` starts with these bytes.
    func isPrefix(of other: UnsafeBufferPointer<UInt8>) -> Bool {
        guard other.count >= count else { return false }
        return count == 0 || memcmp(pointer, other.baseAddress!, count) == 0
    }

    /// Whether `other` ends with the UTF-8 of `suffix` (cold path: the topic suffix rule).
    static func suffix(_ suffix: String, of other: UnsafeBufferPointer<UInt8>) -> Bool {
        let bytes = Array(suffix.utf8)
        guard other.count >= bytes.count else { return false }
        return other.suffix(bytes.count).elementsEqual(bytes)
    }
}

extension Array where Element == UInt8 {
    /// memcmp equality against a buffer.
    func equals(_ other: UnsafeBufferPointer<UInt8>) -> Bool {
        guard count == other.count else { return false }
        return count == 0 || withUnsafeBufferPointer { memcmp($0.baseAddress!, other.baseAddress!, count) == 0 }
    }
}
