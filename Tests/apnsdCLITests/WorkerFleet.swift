import Testing

/// The end-to-end suites that run `apnsd worker` processes at a few hundred requests a second, kill them mid-campaign
/// or load `apnsd serve` heavily: one at a time, so that they do not take each other's CPU (the machine has two
/// cores). The PostgreSQL fleet is a serialized suite of its own that runs beside this one; suites that send a few
/// notifications run beside both.
@Suite(.serialized) enum WorkerFleet {}
