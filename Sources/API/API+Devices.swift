import APNs
import Foundation
import HTTPServer
import Intake
import QueueModel

extension API {
    /// `PUT /v1/devices/{token}`: registers or refreshes (reactivates) a device; `replaces` deactivates the old
    /// token with reason `Replaced`; `kind` (device, activity, pushToStart) and `activityType` (required for the two
    /// Live Activity kinds, refused for device) say what the token is for. 201 when new, 200 when it was known.
    func putDevice(_ request: APIRequest) async throws(APIError) -> HTTPResponse {
        let token = try pathToken(request)
        var body = try JSONBody.parse(request.http.body, contentType: request.http.headers["Content-Type"])
        guard let topic = try body.string("topic") ?? settings.defaultTopic else {
            throw .invalid("no topic: give topic, or set apns.topic", field: "topic")
        }
        do { try Topic.validate(topic) } catch { throw .invalid("\(error)", field: "topic") }
        let environment: Environment
        do { environment = try (try body.string("environment")).map(Environment.parse) ?? .production } catch {
            throw .invalid("\(error)", field: "environment")
        }
        let user = try body.string("user").map { (text: String) throws(APIError) in
            try NotificationFields.user(text, field: "user")
        }
        let replaces = try body.string("replaces").map { (text: String) throws(APIError) in
            try NotificationFields.token(text, field: "replaces")
        }
        let kind = try Self.deviceKind(body.string("kind"), field: "kind") ?? .device
        let activityType = try body.string("activityType")
        try body.finish()
        if replaces == token { throw .invalid("a token cannot replace itself", field: "replaces") }
        let registration = DeviceRegistration(
            token: token, topic: topic, environment: environment, user: user, replaces: replaces,
            kind: kind, activityType: activityType)
        do { _ = try registration.checked() } catch .invalidDevice(let why) {
            throw .invalid(why, field: "activityType")
        } catch {
            throw .store(error)
        }
        do {
            let result = try await store.registerDevice(registration, now: Date())
            return JSONResponse.make(result.isNew ? 201 : 200, result.device.json.description)
        } catch {
            throw .store(error)
        }
    }

    /// `GET /v1/devices/{token}[?topic=]`: the device, as `apnsd device list --json` shows it.
    func getDevice(_ request: APIRequest) async throws(APIError) -> HTTPResponse {
        try Self.allowOnly(["topic"], request)
        let token = try pathToken(request)
        var devices: [Device]
        do { devices = try await store.devices(token: token) } catch { throw .store(error) }
        if let topic = request.query("topic") { devices = devices.filter { $0.topic == topic } }
        guard devices.count <= 1 else {
            throw .invalid(
                "token is registered for several topics (\(devices.map(\.topic).joined(separator: ", "))): add ?topic=",
                field: "topic")
        }
        guard let device = devices.first else {
            throw Self.noDevice(request)
        }
        return JSONResponse.make(200, device.json.description)
    }

    /// `DELETE /v1/devices/{token}[?topic=]`: deactivates it with reason `Removed`; 204.
    func deleteDevice(_ request: APIRequest) async throws(APIError) -> HTTPResponse {
        try Self.allowOnly(["topic"], request)
        let token = try pathToken(request)
        let device: Device?
        do {
            device = try await store.deactivateDevice(
                token: token, topic: request.query("topic"), reason: .removed, now: Date())
        } catch {
            throw .store(error)
        }
        guard device != nil else { throw Self.noDevice(request) }
        return HTTPResponse(status: 204)
    }

    /// `GET /v1/devices?user=&active=true|false&kind=&limit=&after=`: a page of the registry in id order.
    func listDevices(_ request: APIRequest) async throws(APIError) -> HTTPResponse {
        try Self.allowOnly(["user", "active", "kind", "limit", "after"], request)
        let kind = try Self.deviceKind(request.query("kind"), field: "kind")
        let user = try request.query("user").map { (text: String) throws(APIError) in
            try NotificationFields.user(text, field: "user")
        }
        var active: Bool?
        if let text = request.query("active") {
            guard text == "true" || text == "false" else {
                throw .invalid("active must be true or false", field: "active")
            }
            active = text == "true"
        }
        let limit = try Self.limit(request, default: 100, maximum: 1000)
        let after = try Self.cursor(request)
        do {
            let page = try await store.devices(active: active, user: user, kind: kind, after: after, limit: limit)
            return JSONResponse.make(
                200,
                Self.page(
                    "devices", page.map(\.json.description),
                    next: page.count == limit ? page.last.map { String($0.id) } : nil))
        } catch {
            throw .store(error)
        }
    }

    /// `DELETE /v1/users/{user}/devices`: deactivates every active device of the user with reason `Removed`.
    func deleteUserDevices(_ request: APIRequest) async throws(APIError) -> HTTPResponse {
        let user = try NotificationFields.user(request.parameters["user"] ?? "", field: "user")
        do {
            let count = try await store.deactivateDevices(user: user, reason: .removed, now: Date())
            return JSONResponse.make(200, #"{"deactivated":\#(count)}"#)
        } catch {
            throw .store(error)
        }
    }

    /// A device kind (`device`, `activity`, `pushToStart`) given as `field`, if any; 400 otherwise.
    static func deviceKind(_ text: String?, field: String) throws(APIError) -> DeviceKind? {
        guard let text else { return nil }
        do { return try DeviceKind.parse(text) } catch .invalidDevice(let why) {
            throw .invalid(why, field: field)
        } catch { throw .store(error) }
    }

    /// 404 for a token that is not registered (for the `?topic=` asked, if any).
    private static func noDevice(_ request: APIRequest) -> APIError {
        .notFound("no device with this token\(request.query("topic").map { " for topic \($0)" } ?? "")")
    }

    private func pathToken(_ request: APIRequest) throws(APIError) -> DeviceToken {
        try NotificationFields.token(request.parameters["token"] ?? "", field: "token")
    }
}
