import Foundation
import TestSupport

/// Runs the `openssl` command-line tool, an implementation independent of the code under test.
enum OpenSSLCLI {
    struct Result {
        let status: Int32
        let output: String
    }

    static func run(_ arguments: [String]) throws -> Result {
        let process = try ChildProcess(
            "/usr/bin/env", ["openssl"] + arguments, stdout: .pipe, stderr: .standardOutput)
        let output = process.readToEnd().stdout
        process.wait()
        return Result(status: process.terminationStatus, output: String(decoding: output, as: UTF8.self))
    }
}
