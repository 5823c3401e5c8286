import CLITestSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension CLI {
    /// Runs apnsd as `nobody` (`OtherUser`), in groups `groups` only, from a copy of the binary in the scratch
    /// folder: nobody may not be able to reach the build folder (a checkout under /root).
    @discardableResult
    func runAsOtherUser(_ arguments: String..., groups: [gid_t] = []) throws -> Result {
        let copy = try Self.copyForOtherUsers.get()
        return try execute(
            URL(fileURLWithPath: OtherUser.setpriv), OtherUser.arguments(groups: groups) + [copy.binary] + arguments,
            environment: copy.sanitizerOptions)
    }

    /// The apnsd binary copied once to a folder any user may enter (the build folder may not be: a clone in a
    /// `mktemp -d` folder is 0700), with the sanitizer suppression files a sanitized apnsd reads (the options
    /// rewritten to point at the copies). Written through close-on-exec descriptors, so that no process another test
    /// spawns meanwhile inherits one and keeps the copy busy.
    private static let copyForOtherUsers:
        Swift.Result<(binary: String, sanitizerOptions: [String: String]), any Error> = Swift.Result {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apnsd-bin-\(getpid())")
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            let binary = folder.appendingPathComponent("apnsd").path
            try copy(binaries.appendingPathComponent("apnsd").path, to: binary, mode: 0o755)
            var options: [String: String] = [:]
            for name in ["TSAN_OPTIONS", "ASAN_OPTIONS", "LSAN_OPTIONS"] {
                guard let value = ProcessInfo.processInfo.environment[name] else { continue }
                options[name] = try value.split(separator: ":").map { option in
                    guard option.hasPrefix("suppressions=") else { return String(option) }
                    let source = String(option.dropFirst("suppressions=".count))
                    let target = folder.appendingPathComponent("\(name).supp").path
                    try copy(source, to: target, mode: 0o644)
                    return "suppressions=" + target
                }.joined(separator: ":")
            }
            return (binary, options)
        }

    private static func copy(_ source: String, to target: String, mode: mode_t) throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: source))
        let fd = open(target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw CocoaError(.fileWriteNoPermission) }
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == bytes.count else { throw CocoaError(.fileWriteUnknown) }
    }
}
