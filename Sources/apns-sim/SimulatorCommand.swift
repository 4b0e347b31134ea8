import APNsSimulator
import APNsSimulatorServer
import CLI
import Foundation
import Runtime
import TLS

/// Parses the flags into a simulator, serves until SIGINT or SIGTERM, then drains and prints stats.
enum SimulatorCommand: Command {
    static let name = ""
    static let summary = "serve the APNs provider API locally"
    static let help = """
        Usage: apns-sim [options]

        A local APNs: the provider API over TLS and HTTP/2 (ALPN h2, or prior knowledge), with
        APNs' statuses, reasons, limits and connection behaviour, fault injection, and a device
        inbox. Runs until SIGINT or SIGTERM, then sends GOAWAY to clients, prints its counts and
        exits 0. See docs/apns-sim.md.

        Network:
          --host ADDR                   address to listen on (default 127.0.0.1)
          --port N                      device pushes and broadcasts (default 2197; 0 = any free)
          --management-port N           broadcast channel management (default 2195; 0 = any free)
          --admin-port N                plain-HTTP admin API: GET /inbox, GET /stats, POST /devices,
                                        POST /faults (default 2198; 0 = any free; -1 = off)
          --certificate FILE            server certificate chain (PEM); without it a self-signed
          --private-key FILE            certificate for localhost is generated and its path printed
          --event-loops N               threads serving connections (default 2)

        APNs behaviour:
          --environment NAME            sandbox (default; sends apns-unique-id) or production
          --team-id TEAM                team of the --provider-key options
          --provider-key KEY_ID=FILE    trust a .p8 key or PEM public key (repeatable)
          --no-dev-key                  do not trust the development key of Config/dev/
          --devices FILE                device registry (JSON); default: any well-formed token
          --max-concurrent-streams N    stream limit after the first valid token (default 1000)
          --collapse-streams            limit falls to 1 after a rejection, returns after an acceptance
          --auth-failures-before-goaway N
                                        GOAWAY after N authentication failures (default 10; 0 = never)
          --inbox FILE                  append every accepted notification as a JSON line
          --seed N                      seed of fault draws, jitter and generated ids

        Faults (repeatable --fault NAME=VALUE; also at run time with POST /faults):
          \(SimulatorFaults.settingNames.joined(separator: ", "))

          -h, --help                    show this help
        """
    static let arguments = ArgumentSpec(
        valueOptions: ["--host", "--port", "--management-port", "--admin-port", "--certificate", "--private-key",
                       "--event-loops", "--environment", "--team-id", "--devices", "--max-concurrent-streams",
                       "--auth-failures-before-goaway", "--inbox", "--seed"],
        flagOptions: ["--no-dev-key", "--collapse-streams"],
        repeatableOptions: ["--provider-key", "--fault"]
    )

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        // Before the server starts its event loops, so they inherit the mask.
        let signals = TerminationSignals()
        let configuration = try makeConfiguration(arguments)
        let simulator = try APNsSimulator(configuration: configuration)
        let (certificateFile, keyFile) = try serverCertificate(arguments)
        let tls = try TLSContext.server(certificateFile: certificateFile, privateKeyFile: keyFile, alpn: ["h2"],
                                        requestClientCertificate: true)
        let host = arguments.optional("--host") ?? "127.0.0.1"
        let server = try SimulatorServer(
            simulator: simulator, tls: tls, host: host,
            devicePort: try port(arguments, "--port", default: 2197),
            managementPort: try port(arguments, "--management-port", default: 2195),
            eventLoops: Int(try arguments.optionalInteger("--event-loops") ?? 2))
        let adminPort = try arguments.optionalInteger("--admin-port") ?? 2198
        let admin = adminPort < 0 ? nil : try SimulatorAdminAPI(simulator: simulator).start(port: try portValue(adminPort, "--admin-port"))
        say("apns-sim: device API https://\(host):\(server.devicePort)")
        say("apns-sim: channel management https://\(host):\(server.managementPort)")
        if let admin { say("apns-sim: admin API http://127.0.0.1:\(admin.port)") }
        say("apns-sim: certificate \(certificateFile)")
        say("apns-sim: \(configuration.environment.rawValue) environment; stop with SIGINT or SIGTERM")

        let received = signals.wait()
        say("apns-sim: signal \(received), sending GOAWAY and draining")
        server.shutdown()
        admin?.stop()
        say(simulator.statsSummary())
        return 0
    }

    private static func makeConfiguration(_ arguments: ParsedArguments) throws -> SimulatorConfiguration {
        var configuration = SimulatorConfiguration()
        if let name = arguments.optional("--environment") {
            guard let environment = SimulatorEnvironment(name: name) else {
                throw UsageError(message: "--environment must be sandbox or production, got \"\(name)\"")
            }
            configuration.environment = environment
        }
        let keys = arguments.all("--provider-key")
        if !keys.isEmpty {
            let teamID = try arguments.required("--team-id")
            for key in keys {
                let parts = key.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                    throw UsageError(message: "--provider-key must be KEY_ID=FILE, got \"\(key)\"")
                }
                try configuration.trustKey(id: parts[0], teamID: teamID, pemFile: parts[1])
            }
        }
        configuration.trustsDevelopmentKey = !arguments.flags.contains("--no-dev-key")
        if let file = arguments.optional("--devices") { configuration.devices = try DeviceRegistry(file: file) }
        if let limit = try arguments.optionalInteger("--max-concurrent-streams") {
            guard limit >= 1 else { throw UsageError(message: "--max-concurrent-streams must be at least 1, got \(limit)") }
            configuration.maxConcurrentStreams = Int(limit)
        }
        configuration.collapseStreams = arguments.flags.contains("--collapse-streams")
        if let count = try arguments.optionalInteger("--auth-failures-before-goaway") {
            configuration.authFailuresBeforeGoAway = Int(count)
        }
        configuration.inboxFile = arguments.optional("--inbox")
        if let seed = try arguments.optionalInteger("--seed") { configuration.randomSeed = UInt64(bitPattern: seed) }
        for setting in arguments.all("--fault") {
            configuration.faults = try configuration.faults.applying(setting: setting, source: "--fault")
        }
        return configuration
    }

    /// Writes a line to standard output at once (unbuffered), so a supervisor or test reading a
    /// pipe sees the start-up lines before the simulator blocks.
    private static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    private static func port(_ arguments: ParsedArguments, _ name: String, default value: Int64) throws -> UInt16 {
        try portValue(try arguments.optionalInteger(name) ?? value, name)
    }

    private static func portValue(_ value: Int64, _ name: String) throws -> UInt16 {
        guard let port = UInt16(exactly: value) else { throw UsageError(message: "\(name) must be 0…65535, got \(value)") }
        return port
    }

    /// The certificate from the flags, or a fresh self-signed one for localhost in a temporary folder.
    private static func serverCertificate(_ arguments: ParsedArguments) throws -> (String, String) {
        switch (arguments.optional("--certificate"), arguments.optional("--private-key")) {
        case (let certificate?, let key?):
            return (certificate, key)
        case (nil, nil):
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("apns-sim-\(getpid())")
            return try SelfSignedCertificate(commonName: "apns-sim").write(to: directory)
        default:
            throw UsageError(message: "--certificate and --private-key go together")
        }
    }
}
