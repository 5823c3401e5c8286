extension Configuration {
    /// A setting the config file gives as a list, declared once like `Setting` (in `listSettings`): of strings or
    /// numbers, or of objects whose keys are `fields` (`"credentials": [{"teamId": …, "keyId": …}, …]`), of which
    /// `listFields` hold lists of strings (`"topics": ["com.example.app"]`). Only the file spells lists; no
    /// environment variable or flag does.
    public struct ListSetting: Sendable {
        public let key: String
        /// The keys each element may hold when the elements are objects (their values strings or numbers);
        /// nil when the elements are strings or numbers themselves.
        public let fields: [String]?
        /// The fields whose values are lists of strings or numbers.
        public let listFields: Set<String>
        public let help: String
        let set: @Sendable (inout Configuration, [ConfigurationValue]) throws -> Void

        init(
            _ key: String, fields: [String]?, listFields: Set<String> = [], _ help: String,
            _ set: @escaping @Sendable (inout Configuration, [ConfigurationValue]) throws -> Void
        ) {
            self.key = key
            self.fields = fields
            self.listFields = listFields
            self.help = help
            self.set = set
        }

        /// Checks each element's shape, naming the first wrong one by its path (`credentials[1].keyId`), then
        /// hands the list to the setting.
        func apply(_ configuration: inout Configuration, _ value: ConfigurationValue) throws(IntakeError) {
            guard case .list(let elements) = value else { throw IntakeError("'\(key)' must be a list") }
            for (index, element) in elements.enumerated() {
                let path = "\(key)[\(index)]"
                guard let fields else {
                    guard element.text != nil else { throw IntakeError("'\(path)' must be a string or a number") }
                    continue
                }
                guard let members = element.members else {
                    throw IntakeError("'\(path)' must be an object of \(fields.joined(separator: ", "))")
                }
                for (name, member) in members.sorted(by: { $0.key < $1.key }) {
                    guard fields.contains(name) else {
                        throw IntakeError(
                            "unknown setting '\(Configuration.printablePath("\(path).\(name)"))' (known in each \(key) entry: \(fields.joined(separator: ", ")))"
                        )
                    }
                    let memberPath = Configuration.printablePath("\(path).\(name)")
                    if listFields.contains(name) {
                        guard case .list(let items) = member else {
                            throw IntakeError("'\(memberPath)' must be a list of strings")
                        }
                        guard items.allSatisfy({ $0.text != nil }) else {
                            throw IntakeError("'\(memberPath)' must be a list of strings")
                        }
                    } else {
                        guard member.text != nil else {
                            throw IntakeError("'\(memberPath)' must be a string or a number")
                        }
                    }
                }
            }
            do { try set(&configuration, elements) } catch {
                throw (error as? IntakeError) ?? IntakeError("\(key): \(error)")
            }
        }
    }
}
