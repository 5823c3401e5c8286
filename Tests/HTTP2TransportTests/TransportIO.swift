import Testing

/// Every test that talks to a real server. They run in parallel, each against its own server: what they wait for is a
/// condition, with room for a loaded machine (the two that measure time are skipped under sanitizers).
@Suite struct TransportIO {}
