import APNs
import HTTP2Transport
import QueueModel

extension APNsRequest {
    /// The APNs request for a claimed delivery: the job's content (validated when it was enqueued, so the hot path
    /// parses no JSON) with its headers, and the provider token. Single sends are expedited: they pass the
    /// campaign requests already waiting on the connection. The campaign id groups requests for `withdraw`.
    /// `authorization` nil: the connection's client certificate authenticates the request.
    init(job: DeliveryJob, authorization: String?) {
        var headers = job.content.headers
        if let authorization { headers.insert((HeaderName.authorization, authorization), at: 0) }
        self.init(path: "/3/device/" + job.token.hex, headers: headers, body: job.content.payload.bytes,
                  isExpedited: job.kind == .single, group: job.campaignID.rawValue)
    }
}
