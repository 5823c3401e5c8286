import Foundation

// EmbedText INPUT OUTPUT NAME: writes OUTPUT, a Swift file declaring `EmbeddedText.NAME`: the text of INPUT as a raw
// string literal, or, when INPUT is a folder, a dictionary of its files' names to their texts. The build runs it
// (EmbedTextPlugin) for each entry of a target's `Embedded` folder, so a document such as the OpenAPI description,
// or the console's pages, is kept as data files and still compiled into the binary.
let arguments = CommandLine.arguments
guard arguments.count == 4 else {
    FileHandle.standardError.write(Data("usage: EmbedText INPUT OUTPUT NAME\n".utf8))
    exit(64)
}
let (input, output, name) = (arguments[1], arguments[2], arguments[3])

/// `text` as a raw string literal: enough #s that no `"` or `\` followed by them occurs in it, so that it can neither
/// end early nor escape.
func literal(_ text: String) -> String {
    var hashes = "#"
    while text.contains("\"" + hashes) || text.contains("\\" + hashes) { hashes += "#" }
    return "\(hashes)\"\"\"\n\(text.hasSuffix("\n") ? String(text.dropLast()) : text)\n\"\"\"\(hashes)"
}

do {
    var isFolder: ObjCBool = false
    _ = FileManager.default.fileExists(atPath: input, isDirectory: &isFolder)
    let value: String
    if isFolder.boolValue {
        let files = try FileManager.default.contentsOfDirectory(atPath: input).filter { !$0.hasPrefix(".") }.sorted()
        let entries = try files.map { file in
            let text = try String(contentsOfFile: input + "/" + file, encoding: .utf8)
            return "\"\(file)\": \(literal(text)),"
        }
        value = "[\n" + entries.joined(separator: "\n") + "\n]"
    } else {
        value = literal(try String(contentsOfFile: input, encoding: .utf8))
    }
    let type = isFolder.boolValue ? ": [String: String]" : ""
    let source = """
        // Generated at build time from \(URL(fileURLWithPath: input).lastPathComponent) by EmbedText; edit that.
        extension EmbeddedText {
            static let \(name)\(type) = \(value)
        }

        """
    try source.write(toFile: output, atomically: true, encoding: .utf8)
} catch {
    FileHandle.standardError.write(Data("EmbedText: \(input): \(error)\n".utf8))
    exit(1)
}
