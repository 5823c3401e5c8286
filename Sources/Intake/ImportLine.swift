import APNs

/// One line of a device file (`device import`): `token[,user[,environment]]`, fields trimmed of spaces and tabs;
/// blank lines and `#` comments are skipped. Parsed from bytes, without Foundation strings, because imports
/// run to millions of lines.
public struct ImportLine: Hashable, Sendable {
    public var token: DeviceToken
    public var user: String?
    /// nil: the import's default environment.
    public var environment: Environment?

    /// Lines longer than this are refused (the longest valid line is about 350 bytes).
    public static let maximumBytes = 1024

    /// The line's values; nil for a blank or comment line.
    public static func parse(_ line: ArraySlice<UInt8>) throws(IntakeError) -> ImportLine? {
        guard line.count <= maximumBytes else { throw IntakeError("line longer than \(maximumBytes) bytes") }
        if isSkippable(line) { return nil }
        let fields = fields(line)
        guard fields.count <= 3 else {
            throw IntakeError("expected token[,user[,environment]], got \(fields.count) fields")
        }
        let token = try token(fields.first)
        let user = fields.count > 1 && !fields.second.isEmpty ? try UserID.decode(fields.second) : nil
        var environment: Environment?
        if fields.count > 2 && !fields.third.isEmpty {
            do { environment = try Environment.parse(String(decoding: fields.third, as: UTF8.self)) } catch {
                throw IntakeError("\(error)")
            }
        }
        return ImportLine(token: token, user: user, environment: environment)
    }

    /// The token of a token-file line (anything after a comma is ignored); nil for a blank or comment line.
    public static func tokenOnly(_ line: ArraySlice<UInt8>) throws(IntakeError) -> DeviceToken? {
        guard line.count <= maximumBytes else { throw IntakeError("line longer than \(maximumBytes) bytes") }
        if isSkippable(line) { return nil }
        let field = line.firstIndex(of: UInt8(ascii: ",")).map { trimmed(line[..<$0]) } ?? trimmed(line)
        return try token(field)
    }

    private static func token(_ field: ArraySlice<UInt8>) throws(IntakeError) -> DeviceToken {
        if let token = DeviceToken(normalizedHex: field) { return token }
        do { return try DeviceToken(String(decoding: field, as: UTF8.self)) } catch {
            throw IntakeError(Printable.escaped("\(error)"))
        }
    }

    static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        return bytes[start..<end]
    }

    static func isSkippable(_ line: ArraySlice<UInt8>) -> Bool {
        let content = trimmed(line)
        return content.isEmpty || content.first == UInt8(ascii: "#")
    }

    /// The first three comma-separated fields of a line, trimmed, and how many fields it has: no array per line
    /// (an import parses millions).
    static func fields(_ line: ArraySlice<UInt8>) -> (
        first: ArraySlice<UInt8>, second: ArraySlice<UInt8>, third: ArraySlice<UInt8>, count: Int
    ) {
        var fields = (first: line[line.endIndex...], second: line[line.endIndex...], third: line[line.endIndex...])
        var count = 0
        var start = line.startIndex
        while true {
            let comma = line[start...].firstIndex(of: UInt8(ascii: ","))
            let field = trimmed(line[start..<(comma ?? line.endIndex)])
            switch count {
            case 0: fields.first = field
            case 1: fields.second = field
            case 2: fields.third = field
            default: break
            }
            count += 1
            guard let comma else { break }
            start = comma + 1
        }
        return (fields.first, fields.second, fields.third, count)
    }
}
