import APNs
import Foundation

/// A value of the config file as a setting receives it: a string or a number (kept as its text, which the
/// setting parses), a list, or an object. JSON's true, false and null are refused: no setting takes them.
public indirect enum ConfigurationValue: Sendable, Equatable {
    case scalar(String)
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

    /// Converts Foundation's parse of the value at `path` (`apns.keyId`, `credentials[1].keyId`), `depth` levels
    /// below the file's top object; deeper than `Configuration.maximumFileDepth` is refused.
    init(json: Any, path: String, depth: Int) throws(IntakeError) {
        guard depth <= Configuration.maximumFileDepth else {
            throw IntakeError(
                "'\(Configuration.printablePath(path))' is nested deeper than \(Configuration.maximumFileDepth) levels")
        }
        switch json {
        case let string as String:
            self = .scalar(string)
        case let number as NSNumber where String(cString: number.objCType) != "c":  // "c": a JSON true/false
            self = .scalar(number.stringValue)
        case let array as [Any]:
            var elements: [ConfigurationValue] = []
            for (index, element) in array.enumerated() {
                elements.append(try ConfigurationValue(json: element, path: "\(path)[\(index)]", depth: depth + 1))
            }
            self = .list(elements)
        case let object as [String: Any]:
            var members: [String: ConfigurationValue] = [:]
            for (key, member) in object {
                members[key] = try ConfigurationValue(json: member, path: "\(path).\(key)", depth: depth + 1)
            }
            self = .object(members)
        default:
            throw IntakeError("'\(Configuration.printablePath(path))' must be a string or a number")
        }
    }
}
