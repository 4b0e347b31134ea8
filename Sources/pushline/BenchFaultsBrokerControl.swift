/// How the fault matrix takes a Kafka broker of the local cluster down and brings it back: the
/// interface the `kafka-broker-down` row needs from `pushline dev-kafka`, which offers no way to do
/// it from outside yet (docs/RELIABILITY.md); until it does, the row reports "not supported yet".
protocol BenchFaultsBrokerControl {
    /// Takes broker `broker` (from 1) down, or brings it back up.
    func setBroker(_ broker: Int, up: Bool) throws
}
