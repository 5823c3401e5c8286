import QueueModel

extension CampaignKind {
    /// The `deliveries.priority_class` value: lower is claimed first.
    package var priorityClass: Int { self == .single ? 0 : 1 }

    /// `campaigns.kind`: a verify campaign is stored as bulk (it is one), with `campaigns.verify` = 1.
    package var stored: String { self == .single ? "single" : "bulk" }

    /// The kind of a stored row: its `kind` column and its `verify` flag.
    package static func stored(_ raw: String, verify: Bool) throws -> CampaignKind {
        let kind = try Decode.campaignKind(raw)
        return kind == .bulk && verify ? .verify : kind
    }
}
