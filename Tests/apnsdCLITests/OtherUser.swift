import CLITestSupport
import Foundation

/// Another user than the database's owner, for permission tests: `setpriv` (util-linux) drops root to `nobody`
/// and `nogroup`, with only the supplementary groups a test gives. CI runs the tests as root.
enum OtherUser {
    static let setpriv = "/usr/bin/setpriv"

    /// Why apnsd cannot be run as another user here, or nil when it can.
    static let unavailable: String? = {
        if geteuid() != 0 { return "runs apnsd as the user nobody, which needs root (CI runs the tests as root)" }
        if !FileManager.default.isExecutableFile(atPath: setpriv) {
            return "needs \(setpriv) (util-linux; scripts/setup installs it)"
        }
        if getpwnam("nobody") == nil || getgrnam("nogroup") == nil {
            return "needs the user nobody and the group nogroup"
        }
        return nil
    }()

    /// The `--group` the tests share a database with: a group that exists on Debian and is not nobody's own.
    static let sharedGroup: (name: String, id: gid_t)? = {
        for name in ["users", "staff"] {
            if let entry = getgrnam(name) { return (name, entry.pointee.gr_gid) }
        }
        return nil
    }()

    /// The uid apnsd runs with, as the error lines name it.
    static var uid: uid_t { getpwnam("nobody")?.pointee.pw_uid ?? 65534 }

    /// setpriv's arguments before the command.
    static func arguments(groups: [gid_t]) -> [String] {
        [
            "--reuid=nobody", "--regid=nogroup",
            groups.isEmpty ? "--clear-groups" : "--groups=" + groups.map(String.init).joined(separator: ","),
        ]
    }
}
