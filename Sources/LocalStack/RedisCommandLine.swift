/// `redis-cli` (Debian package redis-tools) against a server on 127.0.0.1: a check that shares no
/// code with Pushline's client, for the test kit's deployments.
public enum RedisCommandLine {
    /// What `redis-cli -p port arguments…` prints; throws when it exits with an error.
    public static func run(port: Int, _ arguments: [String]) throws -> String {
        let cli = try ExternalCommand.locate("redis-cli", package: "redis-tools")
        let result = try ExternalCommand.run(cli, ["-h", "127.0.0.1", "-p", String(port)] + arguments)
        guard result.status == 0 else { throw LocalStackError("redis-cli -p \(port) \(arguments.joined(separator: " ")) failed: \(result.standardError)") }
        return result.standardOutput
    }
}
