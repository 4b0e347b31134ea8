/// Where Redis Sentinel is asked for the master: `SENTINEL get-master-addr-by-name <masterName>`
/// on each sentinel in turn until one names a server that answers `ROLE` as a master.
public struct RedisSentinelConfiguration: Sendable, Equatable {
    /// The name the sentinels monitor the master under (`sentinel monitor <name> …`).
    public var masterName: String
    /// The sentinels, asked in this order. They are reached without `AUTH`, with the connection's TLS.
    public var sentinels: [RedisConfiguration.Endpoint]

    public init(masterName: String, sentinels: [RedisConfiguration.Endpoint]) {
        self.masterName = masterName
        self.sentinels = sentinels
    }
}
