import APNs
import Testing

/// docs/APNS.md: 10 = deliver now (default); 5 = as power allows; 1 = never wake. Background pushes must use 5.
@Suite("Priority")
struct PriorityTests {
    @Test("10, 5 and 1 are accepted", arguments: [10, 5, 1])
    func accepted(value: Int) throws {
        #expect(Priority(rawValue: value)?.rawValue == value)
        #expect(try Priority.parse(String(value)).rawValue == value)
    }

    @Test("named priorities match Apple's numbers")
    func named() {
        #expect(Priority.immediate.rawValue == 10)
        #expect(Priority.conservePower.rawValue == 5)
        #expect(Priority.low.rawValue == 1)
    }

    @Test("any other number is refused", arguments: [0, 2, 3, 4, 6, 9, 11, 100, -1, -10])
    func refusedNumbers(value: Int) {
        #expect(Priority(rawValue: value) == nil)
        #expect(throws: APNsError.invalidPriority(String(value))) { try Priority.parse(String(value)) }
    }

    @Test("text that is not a priority is refused", arguments: ["", "high", "10.0", " 10", "0x0a", "５"])
    func refusedText(text: String) {
        #expect(throws: APNsError.invalidPriority(text)) { try Priority.parse(text) }
    }

    @Test("background pushes must use 5")
    func background() throws {
        try Priority.conservePower.validate(for: .background)
        #expect(throws: APNsError.priorityNotAllowed(.immediate, .background)) {
            try Priority.immediate.validate(for: .background)
        }
        #expect(throws: APNsError.priorityNotAllowed(.low, .background)) { try Priority.low.validate(for: .background) }
    }

    @Test("Live Activity pushes take 10 or 5, not 1 (docs/APNS.md)")
    func liveActivity() throws {
        try Priority.immediate.validate(for: .liveactivity)
        try Priority.conservePower.validate(for: .liveactivity)
        #expect(throws: APNsError.priorityNotAllowed(.low, .liveactivity)) {
            try Priority.low.validate(for: .liveactivity)
        }
        #expect(
            APNsError.priorityNotAllowed(.low, .liveactivity).description
                == "priority 1 is not allowed for push type liveactivity (Live Activity pushes use 10 or 5)")
        #expect(
            APNsError.priorityNotAllowed(.immediate, .background).description
                == "priority 10 is not allowed for push type background (background pushes must use priority 5)")
    }

    @Test(
        "other push types take any of the three",
        arguments: PushType.all.filter { $0 != .background && $0 != .liveactivity })
    func others(type: PushType) throws {
        for priority in [Priority.immediate, .conservePower, .low] { try priority.validate(for: type) }
    }
}
