import LocalStack

/// How the fault matrix takes a Kafka broker of the local cluster down and brings it back
/// (`pushline-dev dev-kafka` reads `down N` / `up N` on standard input, docs/kafka.md).
protocol BenchFaultsBrokerControl {
    /// Takes broker `broker` (from 1) down, or brings it back up.
    func setBroker(_ broker: Int, up: Bool) throws
}

extension DevKafkaProcess: BenchFaultsBrokerControl {}
