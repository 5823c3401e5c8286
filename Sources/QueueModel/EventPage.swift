/// One answer of the event feed: events in id order and the cursor to ask with next.
public struct EventPage: Hashable, Sendable {
    public var events: [Event]
    /// The last event's id, or the cursor asked with when there were none.
    public var next: EventID

    public init(events: [Event], next: EventID) {
        self.events = events
        self.next = next
    }
}
