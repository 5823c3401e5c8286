import APNs
import HTTPServer
import Intake
import QueueModel

extension API {
    /// `POST /v1/broadcasts`: a Live Activity update or end on a broadcast channel, named by its local number or the id
    /// APNs gave it (`channel`, a string), validated against the channel (as `apnsd send --channel`) before it is
    /// enqueued; 202 with its id, like a notification.
    func postBroadcast(_ request: APIRequest) async throws(APIError) -> HTTPResponse {
        var body = try JSONBody.parse(request.http.body, contentType: request.http.headers["Content-Type"])
        guard let reference = try body.string("channel"), !reference.isEmpty else {
            throw .invalid(
                "channel is required: the channel's number or the id APNs gave it, as a string", field: "channel")
        }
        let input = try NotificationFields.input(&body)
        try body.finish()
        guard let channels = store as? any ChannelStore else {
            throw APIError(503, "channels_unavailable", "this store keeps no channels")
        }
        let found: Channel?
        do { found = try await channels.channel(ChannelReference(reference)) } catch { throw .store(error) }
        guard let channel = found else {
            throw .invalid(
                "no channel \(Printable.escaped(String(reference.prefix(120)))) (GET /v1/channels)", field: "channel")
        }
        let content: NotificationContent
        do { content = try input.validateBroadcast(channel: channel) } catch {
            throw .invalid(error.message, field: error.field.rawValue)
        }
        if let refusal = channel.broadcastRefusal(for: content) { throw .invalid(refusal, field: "channel") }
        // A broadcast is no device push: only its app's route is checked.
        if let refusal = settings.topicRoutes?.refusal(for: channel.topic) { throw .invalid(refusal, field: "topic") }
        let spec = CampaignSpec(kind: .single, audience: .channel(channel.id), content: content)
        let done = try await enqueue(
            EnqueueRequest(specs: [spec], idempotency: try idempotency(request)), source: "broadcasts")
        return accepted(
            done, json: #"{"id":"\#(done.ids[0])","channel":"\#(channel.id)","deliveries":\#(done.deliveries[0])}"#)
    }
}
