import Foundation

/// Listening TCP sockets, read from /proc/net/tcp.
enum ListeningSockets {
    /// The local IPv4 addresses (hex, as /proc/net/tcp writes them) with a socket listening on `port`. The kernel
    /// writes that table a page at a time, so a read while other tests open and close connections can miss a row:
    /// the union of a few reads.
    static func addresses(port: Int) throws -> [String] {
        var seen = Set<String>()
        for _ in 0..<5 {
            let table = try String(contentsOfFile: "/proc/net/tcp", encoding: .utf8)
            for line in table.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                guard fields.count > 3, fields[3] == "0A" else { continue }
                let local = fields[1].split(separator: ":")
                guard local.count == 2, Int(local[1], radix: 16) == port else { continue }
                seen.insert(String(local[0]))
            }
        }
        return seen.sorted()
    }
}
