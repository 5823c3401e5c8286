internal import COpenSSL

/// Reads and empties this thread's OpenSSL error queue, so errors land in messages instead of leaking into later calls.
public enum OpenSSLErrorQueue {
    /// The queued errors as one "; "-separated line, or a fallback when OpenSSL queued nothing.
    public static func drain() -> String {
        text(of: drainEntries())
    }

    /// Empties the queue without reading it, after a failure that is an answer (a signature that does not verify).
    public static func clear() {
        ERR_clear_error()
    }

    /// The queued errors with their codes, for callers that tell failures apart by reason; empties the queue.
    static func drainEntries() -> [(code: UInt, text: String)] {
        var entries: [(code: UInt, text: String)] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            entries.append(
                (code, String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)))
        }
        return entries
    }

    /// `entries` as one "; "-separated line, or a fallback when there are none.
    static func text(of entries: [(code: UInt, text: String)]) -> String {
        entries.isEmpty ? "no OpenSSL error queued" : entries.map(\.text).joined(separator: "; ")
    }
}
