import APNsClient
import APNsCore
import CLI
import Foundation
import Runtime
import Synchronization

/// `pushline send`: one payload to one or more devices, through the real sender, printing what
/// APNs answered for each — the first step of every debugging session.
enum SendCommand: Command {
    static let name = "send"
    static let summary = "send a payload to devices through APNs and print each answer"
    static let help = """
        Usage: pushline send (--key FILE --key-id KID --team-id TEAM | --cert FILE [--cert-key FILE])
                             (--sandbox | --production | --host HOST --port PORT) [--ca-file FILE | --insecure]
                             --topic TOPIC --push-type TYPE [--priority N] [--expiration UNIX]
                             [--collapse-id ID] [--apns-id UUID] --token HEX [--token HEX ...] PAYLOAD_FILE

        Validates the payload with the same rules as "pushline validate payload", then sends it to
        every token and prints one line per token:

          <token> <status> <apns-id> [<reason> [<timestamp>]]

        Exit status: 0 when APNs accepted every notification, 1 when it rejected any, 2 on usage or
        connection errors (a line "<token> failed <apns-id> <why>").

        Credentials (one of):
          --key FILE --key-id KID --team-id TEAM
                            provider-token auth with a .p8 key
          --cert FILE [--cert-key FILE]
                            certificate auth: PEM (the key defaults to the certificate file), or
                            PKCS#12 (.p12/.pfx) opened with $PUSHLINE_CERT_PASSWORD (default empty)
        Where:
          --sandbox         api.sandbox.push.apple.com:443
          --production      api.push.apple.com:443
          --host HOST --port PORT
                            any APNs-compatible server, such as apns-sim
          --ca-file FILE    trust this CA instead of the system's (apns-sim prints its certificate)
          --insecure        do not verify the server's certificate (local testing only)
        Notification:
          --topic TOPIC     apns-topic (the bundle id, with the push type's suffix)
          --push-type TYPE  \(PushType.all.map(\.rawValue).joined(separator: ", "))
          --priority N      10, 5 or 1 (default: the push type's)
          --expiration UNIX apns-expiration, UNIX seconds (0 = deliver once or drop)
          --collapse-id ID  apns-collapse-id (at most 64 bytes)
          --apns-id UUID    apns-id (default: a random UUID per token)
          --token HEX       a device token (repeatable)
          -h, --help        show this help
        """
    static let arguments = ArgumentSpec(
        valueOptions: ["--key", "--key-id", "--team-id", "--cert", "--cert-key", "--host", "--port", "--ca-file",
                       "--topic", "--push-type", "--priority", "--expiration", "--collapse-id", "--apns-id"],
        flagOptions: ["--sandbox", "--production", "--insecure"],
        repeatableOptions: ["--token"],
        positionalNames: ["PAYLOAD_FILE"]
    )

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let notifications = try makeNotifications(arguments)
        let credentials = try makeCredentials(arguments)
        var configuration = SenderConfiguration()
        configuration.minimumConnections = 1
        configuration.maximumConnections = 1
        configuration.maximumAttempts = 3
        configuration.maximumHoldMilliseconds = 10_000
        configuration.caFile = arguments.optional("--ca-file")
        configuration.insecureSkipVerification = arguments.flags.contains("--insecure")
        if configuration.caFile != nil && configuration.insecureSkipVerification {
            throw UsageError(message: "--ca-file and --insecure exclude each other")
        }
        let sender = try APNsSender(configuration: configuration)
        defer { sender.shutdown() }
        try sender.addPool(named: "send", credentials: credentials, environment: try environment(arguments))
        let results = wait { try await sender.send(notifications, pool: "send") }
        var status: Int32 = 0
        for result in try results.get() {
            print(line(for: result))
            switch result.outcome {
            case .accepted: break
            case .rejected: status = max(status, 1)
            case .failed, .expired, .uncertain: status = 2
            }
        }
        return status
    }

    static func line(for result: DeliveryResult) -> String {
        let apnsID = (result.apnsID ?? result.id).description
        switch result.outcome {
        case .accepted, .rejected:
            var fields = [result.deviceToken.hex, result.status.map(String.init) ?? "-", apnsID]
            if let reason = result.reason { fields.append(reason.rawValue) }
            if let timestamp = result.timestamp { fields.append(String(timestamp)) }
            return fields.joined(separator: " ")
        case .failed, .expired, .uncertain:
            let why = result.failureDetail ?? result.reason?.rawValue ?? result.outcome.rawValue
            return "\(result.deviceToken.hex) failed \(apnsID) \(why)"
        }
    }

    private static func makeNotifications(_ arguments: ParsedArguments) throws -> [APNsNotification] {
        let pushTypeName = try arguments.required("--push-type")
        guard let pushType = PushType(rawValue: pushTypeName) else {
            throw UsageError(message: "--push-type \"\(pushTypeName)\" is not one of \(PushType.all.map(\.rawValue).joined(separator: ", "))")
        }
        let topic = try arguments.required("--topic")
        let tokens = arguments.all("--token")
        guard !tokens.isEmpty else { throw UsageError(message: "--token is required") }
        var priority: APNsPriority?
        if let value = try arguments.optionalInteger("--priority") {
            guard let known = APNsPriority(rawValue: Int(value)) else { throw UsageError(message: "--priority must be 10, 5 or 1, got \(value)") }
            priority = known
        }
        var expiration = APNsExpiration.unspecified
        if let text = arguments.optional("--expiration") {
            guard let parsed = APNsExpiration(headerValue: text) else {
                throw UsageError(message: "--expiration must be UNIX seconds, got \"\(text)\"")
            }
            expiration = parsed
        }
        var apnsID: NotificationID?
        if let text = arguments.optional("--apns-id") {
            guard let parsed = NotificationID(text) else { throw UsageError(message: "--apns-id must be a UUID, got \"\(text)\"") }
            apnsID = parsed
        }
        let path = arguments.positionals[0]
        let payload = try readFile(path, purpose: "payload")
        let collapseID = arguments.optional("--collapse-id")
        var violations: [String] = []
        for token in tokens {
            let request = NotificationRequest(destination: .device(token: token), pushType: pushType, topic: topic,
                                              priority: priority, collapseID: collapseID, payload: payload)
            violations += NotificationValidator.violations(in: request).map { "invalid: \($0)" }
        }
        guard violations.isEmpty else {
            throw UsageError(message: "not sent:\n" + Array(Set(violations)).sorted().joined(separator: "\n"))
        }
        return try tokens.map { hex in
            let token = try DeviceToken(hex)
            return APNsNotification(deviceToken: token, pushType: pushType, topic: topic, priority: priority,
                                    expiration: expiration, collapseID: try collapseID.map { try CollapseID($0) },
                                    id: apnsID ?? .random(), payload: payload)
        }
    }

    private static func makeCredentials(_ arguments: ParsedArguments) throws -> APNsCredentials {
        switch (arguments.optional("--key"), arguments.optional("--cert")) {
        case (let keyFile?, nil):
            let pem = String(decoding: try readFile(keyFile, purpose: "key"), as: UTF8.self)
            let credentials: ProviderTokenCredentials
            do {
                credentials = try ProviderTokenCredentials(keyID: try arguments.required("--key-id"),
                                                           teamID: try arguments.required("--team-id"), p8: pem)
            } catch let error as UsageError {
                throw error
            } catch {
                throw UsageError(message: "--key \"\(keyFile)\" is not a usable ES256 key")
            }
            return .token(ProviderTokenSource(credentials: credentials))
        case (nil, let certificateFile?):
            if certificateFile.hasSuffix(".p12") || certificateFile.hasSuffix(".pfx") {
                // The password comes from the environment, never from the command line (ps shows it).
                return .pkcs12(file: certificateFile, password: ProcessInfo.processInfo.environment["PUSHLINE_CERT_PASSWORD"] ?? "")
            }
            return .certificate(certificateFile: certificateFile, privateKeyFile: arguments.optional("--cert-key") ?? certificateFile)
        case (nil, nil):
            throw UsageError(message: "credentials are required: --key with --key-id and --team-id, or --cert")
        default:
            throw UsageError(message: "--key and --cert exclude each other")
        }
    }

    private static func environment(_ arguments: ParsedArguments) throws -> APNsEnvironment {
        let sandbox = arguments.flags.contains("--sandbox")
        let production = arguments.flags.contains("--production")
        let host = arguments.optional("--host")
        switch (sandbox, production, host) {
        case (true, false, nil): return .sandbox
        case (false, true, nil): return .production
        case (false, false, let host?):
            let port = try arguments.optionalInteger("--port") ?? 443
            guard let port = UInt16(exactly: port) else { throw UsageError(message: "--port must be 1…65535, got \(port)") }
            return APNsEnvironment(host: host, port: port)
        case (false, false, nil):
            throw UsageError(message: "say where to send: --sandbox, --production, or --host with --port")
        default:
            throw UsageError(message: "--sandbox, --production and --host exclude each other")
        }
    }
}
