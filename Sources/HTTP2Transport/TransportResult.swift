import APNs

/// What one `send` ended with: an HTTP response from the server, or a transport failure.
public enum TransportResult: Sendable, Hashable {
    /// The server answered: its status, the `apns-id` header, and the body as parsed once by the transport (the
    /// `reason` and `timestamp` of Apple's JSON; neither on 200).
    case response(status: Int, apnsID: String?, body: ErrorResponse)
    /// No HTTP response: the connection failed, timed out, or the transport was shut down.
    case failure(TransportError)

    /// The status when there was a response.
    public var status: Int? {
        if case .response(let status, _, _) = self { return status }
        return nil
    }

    /// The failure, if any.
    public var error: TransportError? {
        if case .failure(let error) = self { return error }
        return nil
    }

    /// The APNs view of a response: status plus the parsed `reason` / `timestamp` (nil for failures).
    public var errorResponse: ErrorResponse? {
        if case .response(_, _, let body) = self { return body }
        return nil
    }
}
