import Foundation

/// `apnsd init --group NAME`: the database shared by the users of one group, so that producers (`send`,
/// `campaign create`) and the worker may run as different users.
///
/// Every writer creates `-wal` and `-shm` next to the database, with the database file's mode, owned by itself
/// and, unless the directory says otherwise, by its own primary group — which the other users then cannot
/// open, and their writes fail. Hence a directory of the group with the setgid bit (2770: files created in it
/// get the directory's group) and a database file of the group, mode 0660.
struct DatabaseGroup {
    let name: String
    let id: gid_t

    /// The mode of the database's directory: setgid, read-write for owner and group, nothing for others.
    static let directoryMode: mode_t = 0o2770
    /// The mode of the database file (SQLite gives `-wal` and `-shm` the same).
    static let fileMode: mode_t = 0o660

    /// Looks the group up; an unknown name is a usage error, before anything is created.
    init(_ name: String) throws(CLIError) {
        guard !name.isEmpty, let entry = getgrnam(name) else {
            throw .usage("unknown group '\(name)' for --group (see 'getent group'; create it with groupadd)")
        }
        self.name = name
        self.id = entry.pointee.gr_gid
    }

    /// Creates the database's directory for the group, or gives an existing one to the group when it holds
    /// nothing but this database: a directory with other files in it (a home, /tmp) is not changed.
    func prepareDirectory(of database: String) throws(CLIError) {
        let directory = Self.directory(of: database)
        var info = stat()
        guard stat(directory, &info) == 0 else {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw .failure("cannot create directory \(directory) for the database: \(error.localizedDescription)")
            }
            return try share(directory, mode: Self.directoryMode)
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw .failure("\(directory) is not a directory: choose another database path")
        }
        let ready = info.st_gid == id && info.st_mode & 0o2070 == 0o2070
        if ready { return }
        let own = Set(Self.files(of: database).map { ($0 as NSString).lastPathComponent })
        let contents = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        guard contents.allSatisfy(own.contains) else {
            throw .failure(
                "directory \(directory) holds other files than the database, so init does not change it: give the database "
                    + "a directory of its own, or run 'chgrp \(name) \(directory) && chmod 2770 \(directory)' first")
        }
        try share(directory, mode: Self.directoryMode)
    }

    /// Gives the database file, and its `-wal`, `-shm` and `-journal` when present, to the group, mode 0660.
    func shareFiles(of database: String) throws(CLIError) {
        for file in Self.files(of: database) where FileManager.default.fileExists(atPath: file) {
            try share(file, mode: Self.fileMode)
        }
    }

    /// chown to the group first: chown by someone other than root clears the setgid bit that chmod then sets.
    private func share(_ path: String, mode: mode_t) throws(CLIError) {
        guard chown(path, uid_t.max, id) == 0, chmod(path, mode) == 0 else {
            throw .failure(
                "cannot give \(path) to group \(name) (mode \(String(mode, radix: 8))): \(String(cString: strerror(errno))); "
                    + "run 'apnsd init --group \(name)' as root, or as the owner of \(path) and a member of \(name)")
        }
    }

    static func directory(of database: String) -> String {
        let directory = (database as NSString).deletingLastPathComponent
        return directory.isEmpty ? "." : directory
    }

    static func files(of database: String) -> [String] {
        [database, database + "-wal", database + "-shm", database + "-journal"]
    }
}
