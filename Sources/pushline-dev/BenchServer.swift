import CLI
import LocalStack

/// The APNs server `pushline-dev bench e2e` sends to (`--server`), as a process of its own: the
/// release `apns-sim` (checks every request as APNs does, keeps an inbox), or `nghttpd` (nghttp2's
/// own server, checks nothing: `200` for each device token it has a file for).
struct BenchServer {
    let name: String
    let process: any APNsServerProcess
    /// How many device tokens the intents must cycle through (the server accepts only those), or
    /// nil for any token.
    let tokenPool: Int?

    /// How many device tokens the intents cycle through for nghttpd, one file each in its htdocs.
    static let nghttpdTokenPool = 4096

    /// Starts the server named `name`.
    init(_ name: String) throws {
        self.name = name
        switch name {
        case "apns-sim":
            process = try SimulatorProcess(executable: try RepositoryPaths.builtExecutable("apns-sim"))
            tokenPool = nil
        case "nghttpd":
            process = try NghttpdProcess(deviceTokens: (0..<Self.nghttpdTokenPool).map(IntentLoad.token) + [H2LoadRate.deviceToken])
            tokenPool = Self.nghttpdTokenPool
        default:
            throw UsageError(message: "--server must be apns-sim or nghttpd, got \"\(name)\"")
        }
    }
}
