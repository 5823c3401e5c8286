import APNs
import Testing

/// The channel management API's rules as values: hosts, paths, bodies, what is checked before a request.
@Suite struct ChannelManagementTests {
    @Test func hostsPathsAndTheCreateBody() {
        #expect(ChannelManagement.defaultBaseURL(.production) == "https://api-manage-broadcast.push.apple.com:2196")
        #expect(
            ChannelManagement.defaultBaseURL(.development) == "https://api-manage-broadcast.sandbox.push.apple.com:2195"
        )
        #expect(ChannelManagement.channelsPath(bundleID: "com.example.app") == "/1/apps/com.example.app/channels")
        #expect(
            ChannelManagement.allChannelsPath(bundleID: "com.example.app") == "/1/apps/com.example.app/all-channels")
        #expect(
            String(decoding: ChannelManagement.createBody(.none), as: UTF8.self)
                == #"{"message-storage-policy":0,"push-type":"LiveActivity"}"#)
        #expect(
            String(decoding: ChannelManagement.createBody(.latest), as: UTF8.self)
                == #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#)
    }

    @Test func storagePolicies() throws {
        #expect(ChannelStorage.none.messageStoragePolicy == 0 && ChannelStorage.latest.messageStoragePolicy == 1)
        #expect(ChannelStorage(messageStoragePolicy: 1) == .latest && ChannelStorage(messageStoragePolicy: 2) == nil)
        #expect(try ChannelStorage.parse("none") == .none)
        #expect(throws: APNsError.invalidChannel("storage 'Latest' is not none or latest")) {
            try ChannelStorage.parse("Latest")
        }
    }

    @Test func aSuffixedOrInvalidBundleIDIsRefused() throws {
        try ChannelManagement.validate(bundleID: "com.example.app")
        #expect(throws: APNsError.self) {
            try ChannelManagement.validate(bundleID: "com.example.app.push-type.liveactivity")
        }
        #expect(throws: APNsError.self) { try ChannelManagement.validate(bundleID: "com.example app") }
        do {
            try ChannelManagement.validate(bundleID: "com.example.app.push-type.liveactivity")
        } catch {
            #expect(error.description.contains("(e.g. com.example.app)"), "\(error)")
        }
    }

    @Test(arguments: [
        "dGhlIGZpcnN0IGNoYW5uZWw=", "c2Vjb25kL2NoYW5uZWwrMQ==", "QUJD", "12345678", String(repeating: "A", count: 256),
    ])
    func base64ChannelIDsOfAnyLengthAreAccepted(_ id: String) throws {
        try ChannelManagement.validate(channelID: id)
    }

    @Test(arguments: ["", "a=b", "abc===", "dGhl-IGZp", "dGhl_IGZp", "ab cd", String(repeating: "A", count: 257)])
    func otherChannelIDsAreRefused(_ id: String) {
        #expect(throws: APNsError.self) { try ChannelManagement.validate(channelID: id) }
    }

    @Test func readAndListBodies() {
        #expect(
            ChannelManagement.storage(
                ofReadBody: Array(#"{"message-storage-policy":0,"push-type":"LiveActivity"}"#.utf8))
                == ChannelStorage.none)
        #expect(ChannelManagement.storage(ofReadBody: Array(#"{"message-storage-policy":7}"#.utf8)) == nil)
        #expect(ChannelManagement.storage(ofReadBody: []) == nil)
        #expect(
            ChannelManagement.channelIDs(ofListBody: Array(#"{"channels":["QUJD","REVG"]}"#.utf8)) == ["QUJD", "REVG"])
        #expect(ChannelManagement.channelIDs(ofListBody: Array("{}".utf8)) == [], "no key: no channels")
        #expect(ChannelManagement.channelIDs(ofListBody: Array(#"{"channels":[1]}"#.utf8)) == nil)
        #expect(ChannelManagement.channelIDs(ofListBody: Array("[]".utf8)) == nil)
    }
}
