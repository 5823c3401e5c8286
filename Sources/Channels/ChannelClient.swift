import APNs
import Foundation
import HTTP2Transport
import ProviderAuth

/// Apple's channel management API over HTTP/2 (one short request each: channel management is rare and not worth a
/// pool). Every request carries a fresh `apns-request-id`, quoted in errors so Apple can find it.
public struct ChannelClient: Sendable {
    /// The management base URL per environment (`apns.channelProductionURL`, `apns.channelDevelopmentURL`).
    public var baseURLs: [Environment: String]
    /// An extra CA to trust (`apns.caFile`, the simulator's).
    public var caFile: String?
    public var timeout: Duration
    /// `apns.proxy`, as for pushes.
    public var proxy: Proxy

    public init(
        baseURLs: [Environment: String] = [:], caFile: String? = nil, timeout: Duration = .seconds(30),
        proxy: Proxy = .none
    ) {
        self.baseURLs = baseURLs
        self.caFile = caFile
        self.timeout = timeout
        self.proxy = proxy
    }

    /// The base URL for `environment`, Apple's when none is set.
    public func baseURL(_ environment: Environment) -> String {
        var url = baseURLs[environment] ?? ChannelManagement.defaultBaseURL(environment)
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }

    /// Creates a channel; its id as APNs gave it.
    public func create(
        bundleID: String, storage: ChannelStorage, environment: Environment,
        credential: ChannelCredential
    ) async throws(ChannelError) -> String {
        let response = try await exchange(
            "create", .post, bundleID: bundleID, path: ChannelManagement.channelsPath(bundleID: bundleID),
            channelID: nil, body: ChannelManagement.createBody(storage), environment: environment,
            credential: credential)
        guard let id = response.header("apns-channel-id"), !id.isEmpty else {
            throw .badAnswer(operation: "create", "\(response.status) without an apns-channel-id")
        }
        return id
    }

    /// Reads a channel's storage policy.
    public func read(
        bundleID: String, channelID: String, environment: Environment,
        credential: ChannelCredential
    ) async throws(ChannelError) -> ChannelStorage {
        let response = try await exchange(
            "read", .get, bundleID: bundleID, path: ChannelManagement.channelsPath(bundleID: bundleID),
            channelID: channelID, body: [], environment: environment, credential: credential)
        guard let storage = ChannelManagement.storage(ofReadBody: response.body) else {
            throw .badAnswer(operation: "read", "the body has no message-storage-policy 0 or 1")
        }
        return storage
    }

    /// Deletes a channel.
    public func delete(
        bundleID: String, channelID: String, environment: Environment,
        credential: ChannelCredential
    ) async throws(ChannelError) {
        _ = try await exchange(
            "delete", .delete, bundleID: bundleID, path: ChannelManagement.channelsPath(bundleID: bundleID),
            channelID: channelID, body: [], environment: environment, credential: credential)
    }

    /// Every channel id of the app in `environment`.
    public func list(bundleID: String, environment: Environment, credential: ChannelCredential)
        async throws(ChannelError) -> [String]
    {
        let response = try await exchange(
            "list", .get, bundleID: bundleID, path: ChannelManagement.allChannelsPath(bundleID: bundleID),
            channelID: nil, body: [], environment: environment, credential: credential)
        guard let ids = ChannelManagement.channelIDs(ofListBody: response.body) else {
            throw .badAnswer(
                operation: "list", "the body is not {\"channels\": [...]} (or over \(Self.listBodyLimit) bytes)")
        }
        return ids
    }

    /// Room for 10,000 ids (Apple's limit per app and environment) of any reasonable length.
    static let listBodyLimit = 4 << 20

    private func exchange(
        _ operation: String, _ method: HTTPExchange.Method, bundleID: String, path: String, channelID: String?,
        body: [UInt8], environment: Environment, credential: ChannelCredential
    ) async throws(ChannelError) -> HTTPExchangeResponse {
        let requestID = UUID().uuidString.lowercased()
        var headers: [(name: String, value: String)] = [("apns-request-id", requestID)]
        if let channelID { headers.append(("apns-channel-id", channelID)) }
        if method == .post { headers.append(("content-type", "application/json")) }
        var http = HTTPExchange(
            timeout: timeout, connectTimeout: .seconds(10), caFile: caFile, requireHTTP2: true,
            maximumResponseBody: Self.listBodyLimit)
        http.proxy = proxy
        switch credential.authentication {
        case .token(let cache):
            // The token goes in the header only: never into an error or a log line.
            do { headers.insert(("authorization", try await cache.token().authorizationHeader), at: 0) } catch {
                throw .invalid("credential '\(credential.name)' cannot sign a provider token: \(error)")
            }
        case .certificate(let identity):
            http.clientIdentity = identity
        }
        let response: HTTPExchangeResponse
        do {
            response = try await http.send(method, url: baseURL(environment) + path, headers: headers, body: body)
        } catch {
            throw .transport(operation: operation, error)
        }
        guard response.isSuccess else {
            let reason = ErrorResponse(status: response.status, body: response.body).reason?.rawValue
            throw .apns(
                operation: operation, status: response.status, reason: reason,
                requestID: response.header("apns-request-id") ?? requestID)
        }
        return response
    }
}
