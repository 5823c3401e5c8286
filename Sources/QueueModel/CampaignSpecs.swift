/// The specs of one enqueue request, in order: held as values, or made again one at a time from what the request
/// was read from (a large API batch: validated once as it is read, then made again as the store writes it, so its
/// specs never all exist at once besides the body they come from).
public struct CampaignSpecs: RandomAccessCollection, Sendable {
    private enum Storage: Sendable {
        case values([CampaignSpec])
        case made(count: Int, spec: @Sendable (Int) -> CampaignSpec)
    }

    private let storage: Storage

    public init(_ specs: [CampaignSpec]) { storage = .values(specs) }

    /// `count` specs, each made by `spec` whenever it is read, the same every time; every one is a single send to
    /// tokens or users, due now (`areSingleSendsDueNow`), as the notifications of a batch are.
    public init(singleSendsDueNow count: Int, spec: @escaping @Sendable (Int) -> CampaignSpec) {
        storage = .made(count: count, spec: spec)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int {
        switch storage {
        case .values(let specs): specs.count
        case .made(let count, _): count
        }
    }

    public subscript(position: Int) -> CampaignSpec {
        switch storage {
        case .values(let specs): specs[position]
        case .made(_, let spec): spec(position)
        }
    }

    /// True when every spec is known to be a single send to tokens or users due now without making them all
    /// (specs made again); nil when that takes reading them.
    public var areSingleSendsDueNow: Bool? {
        if case .made = storage { return true }
        return nil
    }

    /// The specs as an array: the values held, or every spec made once.
    public var values: [CampaignSpec] {
        switch storage {
        case .values(let specs): specs
        case .made(let count, let spec): (0..<count).map(spec)
        }
    }
}
