import Testing

/// Every test that talks to a real server, one at a time: they measure rates and timeouts on a small
/// machine, and the simulator's sliding window is only as good as the CPU time its thread gets.
@Suite(.serialized) struct TransportIO {}
