import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// nghttpd (nghttp2's reference server) over TLS on a loopback port, serving an empty file for POSTs to
/// `/3/device/<okToken>` with 200 and 404 for other paths. With `verbose`, its frame log goes to `logFile`.
/// With `requireClientCertificate` (`--verify-client`) it ends any handshake without a client certificate; it does
/// not check the certificate's issuer, but TLS makes the client prove it holds the certificate's key.
final class NGHTTPD: @unchecked Sendable {
    static let path = "/usr/sbin/nghttpd"
    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: path) }
    static let okToken = String(repeating: "ab", count: 32)

    let port: Int
    let logFile: String
    private var process: ChildProcess!

    init(
        pki: TestPKI, directory: TempDirectory, port: Int? = nil, verbose: Bool = false,
        maxConcurrentStreams: Int = 1000,
        requireClientCertificate: Bool = false
    ) throws {
        let docroot = directory.file("docroot")
        try FileManager.default.createDirectory(atPath: docroot + "/3/device", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: docroot + "/3/device/" + Self.okToken, contents: Data())
        self.port = port ?? Ports.free()
        logFile = directory.file("nghttpd-\(self.port)-\(UUID().uuidString.prefix(8)).log")
        process = try ChildProcess(
            Self.path,
            (verbose ? ["-v"] : []) + (requireClientCertificate ? ["--verify-client"] : []) + [
                "-a", "127.0.0.1", "-d", docroot, "-m", String(maxConcurrentStreams),
                String(self.port), pki.keyFile, pki.certificateFile,
            ], stdout: .file(logFile), stderr: .standardOutput)
        guard Ports.waitUntilListening(self.port) else {
            stop()
            throw NSError(
                domain: "NGHTTPD", code: 1,
                userInfo: [NSLocalizedDescriptionKey: "nghttpd did not listen on \(self.port)"])
        }
    }

    var baseURL: String { "https://127.0.0.1:\(port)" }

    /// SIGTERM (nghttpd flushes its log), then wait.
    func stop() { process.stop(signal: SIGTERM) }

    /// SIGKILL: the server vanishes without GOAWAY.
    func kill() { process.stop(signal: SIGKILL) }

    /// Times (seconds since start, as nghttpd logs them, ms resolution) at which request HEADERS arrived.
    /// Needs `verbose`.
    func requestTimes() throws -> [Double] {
        let text = try String(contentsOfFile: logFile, encoding: .utf8)
        var times: [Double] = []
        for line in text.split(separator: "\n") where line.contains("recv HEADERS frame") {
            guard let open = line.firstIndex(of: "["),
                let second = line[line.index(after: open)...].firstIndex(of: "["),
                let close = line[second...].firstIndex(of: "]")
            else { continue }
            if let t = Double(line[line.index(after: second)..<close].trimmingCharacters(in: .whitespaces)) {
                times.append(t)
            }
        }
        return times
    }
}
