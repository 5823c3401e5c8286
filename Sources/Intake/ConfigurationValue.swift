import APNs
import Foundation

/// A value of the config file as a setting receives it: a string or a number (kept as its text, which the
/// setting parses), true or false (for the settings that are switches), a list, or an object. JSON's null is refused.
public indirect enum ConfigurationValue: Sendable, Equatable {
    case scalar(String)
    case boolean(Bool)
    case list([ConfigurationValue])
    case object([String: ConfigurationValue])

    /// The text of a string or number, else nil.
    public var text: String? {
        if case .scalar(let text) = self { return text }
        return nil
    }

    /// The members of an object, else nil.
    public var members: [String: ConfigurationValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// Converts the value at node `index` of a config file's tree, found at `path` (`apns.keyId`,
    /// `credentials[1].keyId`) `depth` levels below the file's top object; deeper than
    /// `Configuration.maximumFileDepth` is refused.
    init(_ tree: JSONTree, _ index: Int, path: String, depth: Int) throws(IntakeError) {
        guard depth <= Configuration.maximumFileDepth else {
            throw IntakeError(
                "'\(Configuration.printablePath(path))' is nested deeper than \(Configuration.maximumFileDepth) levels")
        }
        switch tree[index].kind {
        case .string:
            self = .scalar(tree.string(index))
        case .number:
            self = .scalar(Self.numberText(tree.string(index)))
        case .array:
            var elements: [ConfigurationValue] = []
            for (position, element) in tree.children(of: index).enumerated() {
                elements.append(try ConfigurationValue(tree, element, path: "\(path)[\(position)]", depth: depth + 1))
            }
            self = .list(elements)
        case .object:
            var members: [String: ConfigurationValue] = [:]
            for key in tree.children(of: index) {
                let name = tree.string(key)
                members[name] = try ConfigurationValue(tree, key + 1, path: "\(path).\(name)", depth: depth + 1)
            }
            self = .object(members)
        case .bool:
            self = .boolean(tree.bool(index) ?? false)
        case .null:
            throw IntakeError("'\(Configuration.printablePath(path))' must be a string or a number")
        }
    }

    /// A number as a setting reads it: an integer as written, any other as the text of its double (as Foundation
    /// gave it when it read config files).
    private static func numberText(_ written: String) -> String {
        if Int64(written) != nil { return written }
        return Double(written).map { NSNumber(value: $0).stringValue } ?? written
    }
}
