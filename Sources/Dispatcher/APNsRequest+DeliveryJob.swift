import HTTP2Transport
import Store

extension APNsRequest {
    /// The APNs request for a claimed delivery. Built straight from the job (its payload was validated when
    /// it was enqueued) so the hot path does not parse JSON again. Single sends are expedited: they pass the
    /// campaign requests already waiting on the connection.
    init(job: DeliveryJob, authorization: String) {
        var headers: [(name: String, value: String)] = [
            ("authorization", authorization),
            ("apns-topic", job.pushType.topic(forBundleID: job.topic)),
            ("apns-push-type", job.pushType.rawValue),
            ("apns-priority", String(job.priority.rawValue)),
        ]
        if let expiration = job.expiration { headers.append(("apns-expiration", String(expiration.secondsSince1970))) }
        if let collapseID = job.collapseID { headers.append(("apns-collapse-id", collapseID.value)) }
        self.init(path: "/3/device/" + job.token.hex, headers: headers, body: job.payload, isExpedited: job.kind == .single,
                  group: job.campaignID.rawValue)
    }
}
