import APNs
import Testing

/// docs/APNS.md, "Request headers" and "Topic suffixes": every push type and the suffix its topic needs.
private let documentedPushTypes: [(name: String, suffix: String?)] = [
    ("alert", nil), ("background", nil), ("location", ".location-query"), ("voip", ".voip"),
    ("complication", ".complication"), ("fileprovider", ".pushkit.fileprovider"), ("mdm", nil),
    ("liveactivity", ".push-type.liveactivity"), ("pushtotalk", ".voip-ptt"), ("controls", ".push-type.controls"),
    ("widgets", ".push-type.widgets"),
]

@Suite("PushType")
struct PushTypeTests {
    @Test("every documented push type parses and carries its topic suffix", arguments: documentedPushTypes)
    func suffix(name: String, suffix: String?) throws {
        let type = try PushType.parse(name)
        #expect(type.rawValue == name)
        #expect(PushType(rawValue: name) == type)
        #expect(type.topicSuffix == suffix)
    }

    @Test("PushType.all is exactly the documented set")
    func all() {
        #expect(Set(PushType.all.map(\.rawValue)) == Set(documentedPushTypes.map(\.name)))
        #expect(PushType.all.count == documentedPushTypes.count)
    }

    @Test("topic(forBundleID:) appends the suffix once and is idempotent", arguments: documentedPushTypes)
    func topic(name: String, suffix: String?) throws {
        let type = try PushType.parse(name)
        let bundle = "com.example.app"
        let expected = bundle + (suffix ?? "")
        #expect(type.topic(forBundleID: bundle) == expected)
        #expect(type.topic(forBundleID: expected) == expected)
        #expect(type.topic(forBundleID: type.topic(forBundleID: bundle)) == expected)
        #expect(type.accepts(topic: expected))
        if suffix != nil { #expect(!type.accepts(topic: bundle)) }
    }

    @Test(
        "an unknown push type is refused with an error listing every valid one",
        arguments: ["", "bogus", "alerts", "push-to-talk", "VoIP "])
    func unknown(name: String) {
        #expect(PushType(rawValue: name) == nil)
        #expect {
            try PushType.parse(name)
        } throws: { error in
            guard let error = error as? APNsError, case .invalidPushType(let value) = error, value == name else {
                return false
            }
            let text = error.description
            return documentedPushTypes.allSatisfy { text.contains($0.name) }
        }
    }

    @Test("payload limit: 5120 bytes for voip, 4096 for every other type", arguments: documentedPushTypes.map(\.name))
    func payloadLimit(name: String) throws {
        #expect(try PushType.parse(name).payloadLimit == (name == "voip" ? 5120 : 4096))
    }

    @Test("a bundle id with its own push type's suffix, or none, is accepted", arguments: documentedPushTypes)
    func ownSuffix(name: String, suffix: String?) throws {
        let type = try PushType.parse(name)
        try type.validate(bundleID: "com.example.app")
        try type.validate(bundleID: "com.example.app" + (suffix ?? ""))
        try type.validate(bundleID: "com.example.pushtype.voip")
    }

    @Test(
        "a bundle id carrying another push type's .push-type. suffix is refused with the topic to write",
        arguments: documentedPushTypes)
    func otherSuffix(name: String, suffix: String?) throws {
        let type = try PushType.parse(name)
        for other in PushType.all where other != type {
            guard let carried = other.topicSuffix, carried.hasPrefix(".push-type.") else { continue }
            #expect {
                try type.validate(bundleID: "com.example.app" + carried)
            } throws: { error in
                guard let error = error as? APNsError, case .invalidTopic(let why) = error else { return false }
                return why.contains("give the bundle id com.example.app")
                    && why.hasSuffix("or send it as push type \(other)")
                    && (suffix == nil || why.contains("push to com.example.app\(suffix!)"))
            }
        }
        // Spelt another way, a suffix APNs does not know is refused too.
        #expect(throws: APNsError.self) { try type.validate(bundleID: "com.example.app.PUSH-TYPE.liveactivity2") }
    }

    @Test("background defaults to priority 5, everything else to 10", arguments: documentedPushTypes.map(\.name))
    func defaultPriority(name: String) throws {
        #expect(try PushType.parse(name).defaultPriority.rawValue == (name == "background" ? 5 : 10))
    }
}
