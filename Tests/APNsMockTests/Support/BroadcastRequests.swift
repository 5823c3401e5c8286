import Foundation

/// Requests to the simulator's broadcast paths (channel management and broadcast sends), with valid defaults.
extension CurlRequest {
    static let bundleID = "com.example.app"
    static let updatePayload = Array(
        #"{"aps":{"event":"update","timestamp":1764460800,"content-state":{"score":"1-0"}}}"#.utf8)

    /// `POST /1/apps/<bundle>/channels` with `{"message-storage-policy": policy, "push-type": "LiveActivity"}`.
    static func createChannel(
        _ authorization: String?, bundleID: String = bundleID, policy: Int = 1,
        body: [UInt8]? = nil
    ) -> CurlRequest {
        CurlRequest(
            path: "/1/apps/\(bundleID)/channels", headers: authorization.map { [("authorization", $0)] } ?? [],
            body: body ?? Array(#"{"message-storage-policy":\#(policy),"push-type":"LiveActivity"}"#.utf8))
    }

    /// `GET` (read) or `DELETE` of one channel: `/1/apps/<bundle>/channels` with `apns-channel-id`.
    static func channel(_ method: String, _ channelID: String?, _ authorization: String?, bundleID: String = bundleID)
        -> CurlRequest
    {
        var headers: [(name: String, value: String)] = authorization.map { [("authorization", $0)] } ?? []
        if let channelID { headers.append(("apns-channel-id", channelID)) }
        return CurlRequest(method: method, path: "/1/apps/\(bundleID)/channels", headers: headers, body: nil)
    }

    /// `GET /1/apps/<bundle>/all-channels`.
    static func listChannels(_ authorization: String?, bundleID: String = bundleID) -> CurlRequest {
        CurlRequest(
            method: "GET", path: "/1/apps/\(bundleID)/all-channels",
            headers: authorization.map { [("authorization", $0)] } ?? [], body: nil)
    }

    /// `POST /4/broadcasts/apps/<bundle>` to `channelID`, push type LiveActivity, priority 10, an update payload.
    static func broadcast(
        _ channelID: String?, _ authorization: String?, bundleID: String = bundleID,
        body: [UInt8]? = updatePayload, extra: [(name: String, value: String)] = []
    ) -> CurlRequest {
        var headers: [(name: String, value: String)] = authorization.map { [("authorization", $0)] } ?? []
        if let channelID { headers.append(("apns-channel-id", channelID)) }
        headers += [("apns-push-type", "LiveActivity"), ("apns-priority", "10")]
        return CurlRequest(path: "/4/broadcasts/apps/\(bundleID)", headers: headers + extra, body: body)
    }
}

extension MockHarness {
    /// Creates a channel with the harness's token and returns its id.
    func createChannel(bundleID: String = CurlRequest.bundleID, policy: Int = 1) throws -> String {
        let answer = try send(.createChannel(authorization, bundleID: bundleID, policy: policy))
        guard answer.status == 201, let id = answer.header("apns-channel-id") else {
            throw HarnessError("create answered \(answer.status): \(answer.bodyText)")
        }
        return id
    }
}
