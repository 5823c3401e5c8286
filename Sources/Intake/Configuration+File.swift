import APNs
import Foundation

extension Configuration {
    /// The settings the config file gives as lists.
    public static let listSettings: [ListSetting] = [
        ListSetting(
            "apns.credentials", fields: CredentialSetting.fields, listFields: ["topics"],
            "credentials for several apps or teams: `[{\"name\", \"teamId\", \"keyId\", \"keyFile\" | \"certificate\", \"password\"/\"passwordFile\", \"topics\": [bundle ids]}]`"
        ) { c, elements in
            var credentials: [CredentialSetting] = []
            for (index, element) in elements.enumerated() {
                credentials.append(
                    try CredentialSetting(entry: element.members ?? [:], path: "apns.credentials[\(index)]"))
            }
            c.credentials = credentials
        }
    ]

    /// Values in the config file sit at most this many levels below its top object.
    public static let maximumFileDepth = 8

    /// Applies a config file's JSON: an object of settings by their dotted keys, written flat (`"apns.rate"`),
    /// nested (`{"apns":{"rate":500}}`) or both, and lists for the list settings. Unknown keys, a setting given
    /// twice and values of the wrong type are refused, naming the key's path.
    public mutating func apply(fileBytes: [UInt8]) throws(IntakeError) {
        try apply(fileBytes: fileBytes, settings: Self.settings, lists: Self.listSettings)
    }

    /// `apply(fileBytes:)` against the given declarations (tests declare list settings of their own).
    mutating func apply(fileBytes: [UInt8], settings: [Setting], lists: [ListSetting]) throws(IntakeError) {
        let tree: JSONTree
        do { tree = try JSONReader.read(fileBytes) } catch { throw IntakeError("not a valid JSON object (\(error))") }
        guard tree[tree.root].kind == .object else {
            throw IntakeError("not a valid JSON object (an object is needed)")
        }

        let keys = settings.map(\.key) + lists.map(\.key)
        var found: [String: ConfigurationValue] = [:]
        // Objects are opened while their path leads to a declared key, so the walk is as deep as the deepest key.
        func walk(_ object: Int, _ prefix: String, _ depth: Int) throws(IntakeError) {
            let members = tree.children(of: object).map { (name: tree.string($0), value: $0 + 1) }
            for (name, value) in members.sorted(by: { $0.name < $1.name }) {
                let path = prefix.isEmpty ? name : "\(prefix).\(name)"
                if keys.contains(path) {
                    guard found[path] == nil else { throw IntakeError("'\(Self.printablePath(path))' is given twice") }
                    found[path] = try ConfigurationValue(tree, value, path: path, depth: depth)
                } else if tree[value].kind == .object, keys.contains(where: { $0.hasPrefix(path + ".") }) {
                    try walk(value, path, depth + 1)
                } else {
                    throw IntakeError(
                        "unknown setting '\(Self.printablePath(path))' (known: \(keys.joined(separator: ", ")))")
                }
            }
        }
        try walk(tree.root, "", 1)

        for (path, value) in found.sorted(by: { $0.key < $1.key }) {
            if let setting = settings.first(where: { $0.key == path }) {
                if setting.isSwitch, case .boolean(let flag) = value {
                    try setting.apply(&self, String(flag))
                    continue
                }
                guard let text = value.text else {
                    throw IntakeError(
                        "'\(path)' must be \(setting.isSwitch ? "true or false" : "a string or a number")")
                }
                try setting.apply(&self, text)
            } else if let list = lists.first(where: { $0.key == path }) {
                try list.apply(&self, value)
            }
        }
    }

    /// A key path from the file as an error shows it: escaped, and cut short.
    static func printablePath(_ path: String) -> String { Printable.escaped(String(path.prefix(120))) }
}
