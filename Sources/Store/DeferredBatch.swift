import APNs
import Foundation
import QueueModel
import QueueRules

/// The stored form of a deferred batch's notifications (`deferred_batches.items`): one record per notification,
/// each prefixed by its length so a reader can skip to any of them. Compact binary rather than JSON because a
/// 10,000-notification batch is written in one statement at enqueue and read back page by page by the worker.
///
/// Record: audience kind (0 tokens, 1 users) · environment (0 none, 1 production, 2 development) · recipients
/// (count, then each as text) · bundle id · push type · priority · flags (1 expiration, 2 collapse id, 4 apns-id)
/// and those values · payload. Integers are LEB128 varints; text and bytes are a varint length, then the bytes.
enum DeferredBatch {
    static func encode(_ specs: some Collection<CampaignSpec>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(specs.count * 128)
        var record: [UInt8] = []
        for spec in specs { append(spec, to: &out, scratch: &record) }
        return out
    }

    /// Appends `spec`'s record, length first, to `out` (`record` is scratch space, kept between calls).
    static func append(_ spec: CampaignSpec, to out: inout [UInt8], scratch record: inout [UInt8]) {
        record.removeAll(keepingCapacity: true)
        let content = spec.content
        switch spec.audience {
        case .tokens(let tokens, let environment):
            record.append(0)
            record.append(code(environment))
            appendVarint(UInt64(tokens.count), to: &record)
            for token in tokens {
                token.withHexBytes { hex in
                    appendVarint(UInt64(hex.count), to: &record)
                    record.append(contentsOf: hex)
                }
            }
        case .users(let users, let environment):
            record.append(1)
            record.append(code(environment))
            appendVarint(UInt64(users.count), to: &record)
            for user in users { appendText(user, to: &record) }
        case .all, .activities, .channel:
            preconditionFailure(
                "a deferred single send never targets every device, activities or a channel (Store.defers)")
        }
        appendText(content.bundleID, to: &record)
        appendText(content.pushType.rawValue, to: &record)
        appendVarint(UInt64(content.priority.rawValue), to: &record)
        let flags: UInt8 =
            (content.expiration == nil ? 0 : 1) | (content.collapseID == nil ? 0 : 2)
            | (content.apnsID == nil ? 0 : 4)
        record.append(flags)
        if let expiration = content.expiration {
            appendVarint(UInt64(bitPattern: expiration.secondsSince1970), to: &record)
        }
        if let collapseID = content.collapseID { appendText(collapseID.value, to: &record) }
        if let apnsID = content.apnsID { appendText(apnsID.uuidString, to: &record) }
        appendVarint(UInt64(content.payload.bytes.count), to: &record)
        record.append(contentsOf: content.payload.bytes)
        appendVarint(UInt64(record.count), to: &out)
        out.append(contentsOf: record)
    }

    /// Reads records from `offset` on; a record that does not decode is `StoreError.corruptValue`.
    struct Reader {
        let bytes: [UInt8]
        private(set) var offset: Int

        init(_ bytes: [UInt8], offset: Int = 0) {
            self.bytes = bytes
            self.offset = offset
        }

        /// Moves past the next record without decoding it.
        mutating func skip() throws {
            let length = try Int(varint())
            guard length <= bytes.count - offset else { throw Self.corrupt }
            offset += length
        }

        /// The next record, as the single send it was enqueued as.
        mutating func next() throws -> CampaignSpec {
            let length = try Int(varint())
            guard length <= bytes.count - offset else { throw Self.corrupt }
            let end = offset + length
            let audienceKind = try byte()
            let environment = try Self.environment(try byte())
            let count = try Int(varint())
            guard count <= length else { throw Self.corrupt }
            let audience: Audience
            if audienceKind == 0 {
                var tokens: [DeviceToken] = []
                tokens.reserveCapacity(count)
                for _ in 0..<count {
                    let range = try field()
                    guard let token = DeviceToken(normalizedHex: bytes[range]) else { throw Self.corrupt }
                    tokens.append(token)
                }
                audience = .tokens(tokens, environment: environment)
            } else if audienceKind == 1 {
                var users: [String] = []
                users.reserveCapacity(count)
                for _ in 0..<count { users.append(try text()) }
                audience = .users(users, environment: environment)
            } else {
                throw Self.corrupt
            }
            let bundleID = try text()
            let pushType = try Decode.pushType(try text())
            let priority = try Decode.priority(Int(try varint()))
            let flags = try byte()
            let expiration = flags & 1 == 0 ? nil : try Decode.expiration(Int64(bitPattern: try varint()))
            let collapseID = flags & 2 == 0 ? nil : CollapseID(trusted: try text())
            let apnsID = flags & 4 == 0 ? nil : NotificationID(trusted: try text())
            let payload = Array(bytes[try field()])
            guard offset == end else { throw Self.corrupt }
            let content = NotificationContent(
                trusted: bundleID, pushType: pushType, priority: priority, expiration: expiration,
                collapseID: collapseID, apnsID: apnsID, payload: Payload(trusted: payload))
            return CampaignSpec(kind: .single, audience: audience, content: content)
        }

        private static let corrupt = StoreError.corruptValue("a deferred batch's notification record")

        private static func environment(_ code: UInt8) throws -> Environment? {
            switch code {
            case 0: nil
            case 1: .production
            case 2: .development
            default: throw corrupt
            }
        }

        private mutating func byte() throws -> UInt8 {
            guard offset < bytes.count else { throw Self.corrupt }
            defer { offset += 1 }
            return bytes[offset]
        }

        private mutating func varint() throws -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let next = try byte()
                guard shift < 64 else { throw Self.corrupt }
                value |= UInt64(next & 0x7f) << shift
                if next & 0x80 == 0 { return value }
                shift += 7
            }
        }

        /// The byte range of a length-prefixed field.
        private mutating func field() throws -> Range<Int> {
            let length = try varint()
            guard length <= UInt64(bytes.count - offset) else { throw Self.corrupt }
            defer { offset += Int(length) }
            return offset..<offset + Int(length)
        }

        private mutating func text() throws -> String {
            let range = try field()
            return String(decoding: bytes[range], as: UTF8.self)
        }
    }

    private static func code(_ environment: Environment?) -> UInt8 {
        guard let environment else { return 0 }
        return environment == .production ? 1 : 2
    }

    private static func appendVarint(_ value: UInt64, to out: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            out.append(UInt8(value & 0x7f) | 0x80)
            value >>= 7
        }
        out.append(UInt8(value))
    }

    private static func appendText(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { utf8 in
            appendVarint(UInt64(utf8.count), to: &out)
            out.append(contentsOf: utf8)
        }
    }
}
