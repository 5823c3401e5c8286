import CLITestSupport
import Foundation
import Testing

/// `./apnsd.json` in the working folder is read when nothing else names a config file: the binary, run in its scratch
/// folder (a command run in process has the test runner's working folder).
@Suite(.offThePool) struct WorkingFolderTests {
    @Test func theWorkingFoldersConfigFileIsReadWhenNoneIsNamed() throws {
        var cli = try CLI()
        defer { cli.cleanUp() }
        let database = cli.path("file.sqlite")
        _ = try cli.write("apnsd.json", #"{"database":"\#(database)"}"#)
        cli.environment["APNSD_DATABASE"] = nil
        let result = try cli.exec("init")
        #expect(result.status == 0 && result.stdout.contains("file.sqlite"), "\(result.stdout)\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: database))
    }
}
