import APNs
import Foundation
import Intake

/// A token file for `campaign create --tokens`: one token per line (anything after a comma is ignored),
/// blank lines and `#` comments skipped. Yields each token or the error of its line, streaming.
struct TokenFile: Sequence, IteratorProtocol {
    private var lines: LineReader
    private let path: String
    private var lineNumber = 0

    init(path: String) throws(CLIError) {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw .usage("cannot read token file \(path)") }
        self.path = path
        lines = LineReader(handle: handle)
    }

    mutating func next() -> Result<DeviceToken, CLIError>? {
        while let line = lines.next() {
            lineNumber += 1
            do {
                guard let token = try ImportLine.tokenOnly(line) else { continue }
                return .success(token)
            } catch {
                return .failure(.usage("\(path):\(lineNumber): \(error); nothing was created"))
            }
        }
        return nil
    }
}
