import APNs
import HTTP2Transport
import QueueModel

/// Why a channel operation failed, as one line. Nothing is written locally when APNs did not succeed.
public enum ChannelError: Error, Sendable, CustomStringConvertible {
    /// The request was refused before anything was sent (a suffixed bundle id, an unknown storage policy…).
    case invalid(String)
    /// No credential sends for the bundle id (TopicRoutes).
    case noCredential(String)
    /// No local channel has this number or APNs id.
    case unknownChannel(ChannelReference)
    /// The channel is deleted already (`delete` of a deleted channel).
    case alreadyDeleted(Channel)
    /// APNs answered with an error: its status, Apple's reason (nil when the body had none) and the request id.
    case apns(operation: String, status: Int, reason: String?, requestID: String)
    /// APNs answered 2xx but not as documented (a create without `apns-channel-id`, a body that does not parse).
    case badAnswer(operation: String, String)
    /// No answer: the connection or TLS failed, or the request timed out.
    case transport(operation: String, TransportError)
    /// The local table could not be read or written.
    case store(StoreError)

    public var description: String {
        switch self {
        case .invalid(let why), .noCredential(let why):
            return why
        case .unknownChannel(let reference):
            return "no channel \(reference) (see apnsd channel list)"
        case .alreadyDeleted(let channel):
            return "channel \(channel.id) (\(channel.channelID)) is already deleted"
        case .apns(let operation, let status, let reason, let requestID):
            return
                "APNs refused the channel \(operation): \(status) \(reason ?? "(no reason)") (apns-request-id \(requestID))"
        case .badAnswer(let operation, let why):
            return "APNs answered the channel \(operation) unexpectedly: \(why)"
        case .transport(let operation, let error):
            return "the channel \(operation) did not reach APNs: \(error)"
        case .store(let error):
            return "\(error)"
        }
    }

    /// Apple's reason when APNs refused the request.
    public var reason: String? {
        if case .apns(_, _, let reason, _) = self { return reason }
        return nil
    }
}
