import APNs
import Channels
import Foundation
import HTTPServer
import Intake
import QueueModel

extension API {
    /// `POST /v1/channels` `{"topic", "storage": "none"|"latest", "environment"}`: creates a broadcast channel at
    /// APNs, records it, 201 with the channel (as `apnsd channel create --json`). Nothing is recorded when APNs
    /// refuses (422 with its reason).
    func postChannel(_ request: APIRequest) async throws(APIError) -> HTTPResponse {
        let manager = try channelManager()
        var body = try JSONBody.parse(request.http.body, contentType: request.http.headers["Content-Type"])
        guard let topic = try body.string("topic") ?? settings.defaultTopic else {
            throw .invalid("no topic: give topic, or set apns.topic", field: "topic")
        }
        let storage: ChannelStorage
        do { storage = try (try body.string("storage")).map(ChannelStorage.parse) ?? Self.defaultChannelStorage } catch
        {
            throw .invalid("\(error)", field: "storage")
        }
        let environment: Environment
        do { environment = try (try body.string("environment")).map(Environment.parse) ?? .production } catch {
            throw .invalid("\(error)", field: "environment")
        }
        try body.finish()
        do {
            let channel = try await manager.create(topic: topic, storage: storage, environment: environment)
            return JSONResponse.make(201, channel.json.description)
        } catch {
            throw Self.channelError(error)
        }
    }

    /// `storage` when not given: as `apnsd channel create` (APNs keeps the latest message, as for device pushes).
    static let defaultChannelStorage = ChannelStorage.latest

    /// `GET /v1/channels?topic=&environment=&deleted=true`: `{"channels": [...]}`, the local table in id order (not
    /// deleted ones unless `deleted=true`; readable without a credential). With `topic`, APNs's list for that app is read too (in `environment`, or in
    /// each environment the app has channels in; production when none): each channel gains `atAPNs`, and
    /// `notRecorded` lists the channels APNs has that are not recorded here.
    func listChannels(_ request: APIRequest) async throws(APIError) -> HTTPResponse {
        try Self.allowOnly(["topic", "environment", "deleted"], request)
        var includeDeleted = false
        if let text = request.query("deleted") {
            guard text == "true" || text == "false" else {
                throw .invalid("deleted must be true or false", field: "deleted")
            }
            includeDeleted = text == "true"
        }
        let environment: Environment?
        do { environment = try request.query("environment").map(Environment.parse) } catch {
            throw .invalid("\(error)", field: "environment")
        }
        let listing: ChannelListing
        if channels == nil, request.query("topic") == nil, environment == nil, let local = store as? any ChannelStore {
            // Without a credential the local table is still readable (as `apnsd channel list`); asking APNs is not.
            let rows: [Channel]
            do { rows = try await local.channels(topic: nil, includeDeleted: includeDeleted) } catch {
                throw .store(error)
            }
            listing = ChannelListing(
                rows: rows.map { .init(channel: $0, atAPNs: nil) }, notRecorded: [], compared: false)
        } else {
            let manager = try channelManager()
            do {
                listing = try await manager.list(
                    topic: request.query("topic"), environment: environment, includeDeleted: includeDeleted)
            } catch .invalid(let why) where request.query("topic") == nil {
                throw .invalid(why, field: "environment")
            } catch {
                throw Self.channelError(error)
            }
        }
        let rows = listing.rows.map { row in
            row.atAPNs.map { row.channel.json.adding([("atAPNs", .bool($0))]) }?.description
                ?? row.channel.json.description
        }
        var body = "{\"channels\":\(JSONResponse.array(rows))"
        if listing.compared {
            let extra = listing.notRecorded.map {
                JSONLine([
                    "channelId": .string($0.channelID), "topic": .string($0.topic),
                    "environment": .string($0.environment.rawValue),
                ]).description
            }
            body += ",\"notRecorded\":\(JSONResponse.array(extra))"
        }
        return JSONResponse.make(200, body + "}")
    }

    /// `GET /v1/channels/{id}`: the channel (local number or APNs id; in a path, an id with '/' is written in
    /// base64url: '-' for '+', '_' for '/') with `apnsStorage`, its policy as APNs reads it now (null once deleted).
    func getChannel(_ request: APIRequest) async throws(APIError) -> HTTPResponse {
        try Self.allowOnly([], request)
        let reference = try Self.channelReference(request)
        let manager = try channelManager()
        do {
            let shown = try await manager.show(reference)
            return JSONResponse.make(
                200, shown.channel.json.adding([("apnsStorage", .string(shown.apnsStorage?.rawValue))]).description)
        } catch {
            throw Self.channelError(error)
        }
    }

    /// `DELETE /v1/channels/{id}`: deletes the channel at APNs, then marks its row deleted (kept); 200 with the row.
    func deleteChannel(_ request: APIRequest) async throws(APIError) -> HTTPResponse {
        try Self.allowOnly([], request)
        let reference = try Self.channelReference(request)
        let manager = try channelManager()
        do {
            let channel = try await manager.delete(reference)
            return JSONResponse.make(200, channel.json.description)
        } catch {
            throw Self.channelError(error)
        }
    }

    private func channelManager() throws(APIError) -> ChannelManager {
        guard let channels else {
            throw APIError(
                503, "channels_unavailable",
                "broadcast channels need a credential (apns.keyFile/keyId/teamId or apns.credentials)")
        }
        return channels
    }

    /// The `{id}` of a channel path: digits name the local number; base64url spelling is read as base64.
    /// A local number is canonical decimal (`+1` and `0001` are refused, not read as 1).
    static func channelReference(_ request: APIRequest) throws(APIError) -> ChannelReference {
        let text = request.parameters["id"] ?? ""
        if CanonicalNumber.isNonCanonicalNumber(text) {
            throw .invalid(
                "'\(text)' is not a channel's local number (digits only, no leading zero) nor an APNs channel id",
                field: "id")
        }
        return ChannelReference(String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 }))
    }

    /// A channel failure as an API error: APNs's 4xx refusals (FeatureNotEnabled, ChannelNotRegistered, a provider
    /// token refused…) are 422 with Apple's status and reason in the message, as the request cannot be carried out
    /// as it stands; APNs's own failures, an answer that is not APNs's, or no answer are 502.
    static func channelError(_ error: ChannelError) -> APIError {
        switch error {
        case .invalid(let why), .noCredential(let why): return .invalid(why, field: "topic")
        case .unknownChannel: return .notFound("\(error)")
        case .alreadyDeleted: return APIError(409, "conflict", "\(error)")
        case .apns(_, let status, _, _) where (400..<500).contains(status):
            return APIError(422, "apns_refused", "\(error)")
        case .apns: return APIError(502, "apns_failed", "\(error)")
        case .badAnswer: return APIError(502, "apns_bad_answer", "\(error)")
        case .transport: return APIError(502, "apns_unreachable", "\(error)")
        case .store(let error): return .store(error)
        }
    }
}
