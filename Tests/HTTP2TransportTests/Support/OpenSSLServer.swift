import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `openssl s_server` on a loopback port, requiring a client certificate issued by `clientCAFile` (`-Verify`):
/// its log shows the subject of each certificate a client presented and whether it verified. It speaks no
/// HTTP/2, so requests sent to it get no response; it is here to see what a client presents.
final class OpenSSLServer: @unchecked Sendable {
    let port: Int
    let logFile: String
    private var process: ChildProcess!

    init(pki: TestPKI, clientCAFile: String, directory: TempDirectory) throws {
        port = Ports.free()
        logFile = directory.file("s_server-\(port).log")
        // -www: answers from the connection only, never reading its standard input (/dev/null would end it).
        process = try ChildProcess(
            "/usr/bin/openssl",
            [
                "s_server", "-accept", "127.0.0.1:\(port)", "-cert", pki.certificateFile, "-key", pki.keyFile,
                "-Verify", "2", "-CAfile", clientCAFile, "-verify_return_error", "-www",
            ], stdout: .file(logFile), stderr: .standardOutput)
        guard Ports.waitUntilListening(port) else {
            stop()
            throw NSError(
                domain: "OpenSSLServer", code: 1,
                userInfo: [NSLocalizedDescriptionKey: "openssl s_server did not listen on \(port)"])
        }
    }

    var baseURL: String { "https://127.0.0.1:\(port)" }

    func stop() { process.stop(signal: SIGTERM) }

    /// The server's log so far.
    func log() throws -> String { try String(contentsOfFile: logFile, encoding: .utf8) }
}
