import Testing

/// The end-to-end suites that run `apnsd worker` processes at a few hundred requests a second, kill them mid-campaign
/// or load `apnsd serve` heavily: one at a time, so that they do not take each other's CPU (the machine has two
/// cores). Suites that send a few notifications run beside them.
@Suite(.serialized) enum WorkerFleet {}
