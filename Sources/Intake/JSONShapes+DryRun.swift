import QueueModel

extension AudienceCount {
    /// A dry run's answer (`campaign create --dry-run`, `"dryRun": true`): how many devices, by environment.
    public var dryRunJSON: String {
        let audience = JSONLine(["production": .int(production), "development": .int(development)])
        return JSONLine(["dryRun": .bool(true), "audience": .raw(audience.description)]).description
    }
}
