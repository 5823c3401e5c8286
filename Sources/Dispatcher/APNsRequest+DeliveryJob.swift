import APNs
import HTTP2Transport
import QueueModel

extension APNsRequest {
    /// The APNs request for a claimed delivery: the job's content (validated when it was enqueued, so the hot path
    /// parses no JSON) with its headers, and the provider token. Single sends are expedited: they pass the
    /// campaign requests already waiting on the connection. The campaign id groups requests for `withdraw`.
    /// `authorization` nil: the connection's client certificate authenticates the request.
    /// A broadcast goes to its app's broadcast path with the channel's id.
    init(job: DeliveryJob, authorization: String?) {
        let path: String
        let headers: [(name: String, value: String)]
        switch job.target {
        case .device(let token):
            path = token.devicePath
            headers = job.content.headers
        case .channel(_, let channelID):
            path = job.content.broadcastPath
            headers = job.content.broadcastHeaders(channelID: channelID)
        }
        self.init(
            path: path, authorization: authorization, headers: headers, body: job.content.payload.bytes,
            isExpedited: job.kind == .single, group: job.campaignID.rawValue)
    }
}
