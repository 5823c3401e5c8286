import Foundation

/// How a connection opens its file: to write, or only to read — and then whether it may join the other
/// connections' WAL index (`-shm`) or must read the file as it is.
enum ConnectionAccess: Equatable {
    /// `SQLITE_OPEN_READWRITE`, WAL mode. Refused when SQLite could only open the file read-only.
    case readWrite
    /// `SQLITE_OPEN_READONLY`: reads through the `-wal` and `-shm` files the writers keep next to the file.
    case readOnly
    /// `SQLITE_OPEN_READONLY` with `immutable=1`: reads the main file alone, takes no locks and creates nothing.
    case immutable

    /// The read-only access for the database at `path`, chosen from what is next to it.
    ///
    /// A read-only connection needs the `-shm` file (SQLite ≥ 3.22 reads one it cannot write). When it does not
    /// exist, SQLite creates `-shm` and `-wal` — and leaves them behind, owned by this user and read-only for
    /// everyone else, so the owner's next write fails — or, in a directory it cannot write, refuses
    /// (SQLITE_READONLY_DIRECTORY). So `.readOnly` is used only while a connection has the file open (its
    /// `-wal` exists) or when this user may write both the file and its directory (whatever it creates is the
    /// owner's to use). Otherwise no connection has the file open, every commit is in the main file, and
    /// `immutable` reads it without touching anything; a writer that starts during that read can make the read
    /// fail or miss its commits, never corrupt anything.
    static func readOnly(for path: String) -> ConnectionAccess {
        if FileManager.default.fileExists(atPath: path + "-wal") { return .readOnly }
        let directory = (path as NSString).deletingLastPathComponent
        return isWritable(path) && isWritable(directory.isEmpty ? "." : directory) ? .readOnly : .immutable
    }

    /// Whether this process (its effective ids, as the kernel checks them on open) may write `path`.
    private static func isWritable(_ path: String) -> Bool {
        faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) == 0
    }

    /// The file name SQLite is given: `immutable` needs a URI (`file:` with `?`, `#` and `%` escaped, and an
    /// empty authority before an absolute path, so that `//x` is not read as a host).
    func filename(for path: String) -> String {
        guard self == .immutable else { return path }
        var escaped = ""
        for character in path.unicodeScalars {
            switch character {
            case "%": escaped += "%25"
            case "?": escaped += "%3f"
            case "#": escaped += "%23"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return (path.hasPrefix("/") ? "file://" : "file:") + escaped + "?immutable=1"
    }
}
