import APNsCore
import CLI

/// `pushline validate payload`: checks a payload file against the APNs rules for a push type.
enum ValidatePayloadCommand: Command {
    static let name = "validate payload"
    static let summary = "check a payload file against the APNs rules for a push type"
    static let help = """
        Usage: pushline validate payload FILE --push-type TYPE [--topic TOPIC] [--priority 10|5|1]
                                         [--collapse-id ID] [--device-token HEX] [--broadcast]

        Checks the bytes of FILE exactly as they would be sent: size against the push type's limit
        (4096 bytes; 5120 for voip and broadcast), JSON shape, the aps keys and their types, and the
        rules that tie payload, push type and headers together.

        Prints "valid (N bytes)" and exits 0, or prints one line per violation,
        "invalid: <Reason>: <detail>", and exits 1. Usage errors exit 2.

        Options:
          --push-type TYPE     \(PushType.all.map(\.rawValue).joined(separator: ", "))
          --topic TOPIC        apns-topic; checked against the push type's suffix
          --priority N         apns-priority (default: the push type's)
          --collapse-id ID     apns-collapse-id (at most 64 bytes)
          --device-token HEX   the device token of the path (hex, even length)
          --broadcast          validate for a broadcast channel (5120-byte limit)
          -h, --help           show this help
        """
    static let arguments = ArgumentSpec(
        valueOptions: ["--push-type", "--topic", "--priority", "--collapse-id", "--device-token"],
        flagOptions: ["--broadcast"],
        positionalNames: ["FILE"]
    )

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let pushTypeName = try arguments.required("--push-type")
        guard let pushType = PushType(rawValue: pushTypeName) else {
            let known = PushType.all.map(\.rawValue).joined(separator: ", ")
            throw UsageError(message: "--push-type \"\(pushTypeName)\" is not one of \(known)")
        }
        var priority: APNsPriority?
        if let value = try arguments.optionalInteger("--priority") {
            guard let known = APNsPriority(rawValue: Int(value)) else {
                throw UsageError(message: "--priority must be 10, 5 or 1, got \(value)")
            }
            priority = known
        }
        let path = arguments.positionals[0]
        let request = NotificationRequest(
            destination: arguments.flags.contains("--broadcast") ? .broadcast : .device(token: arguments.optional("--device-token")),
            pushType: pushType,
            topic: arguments.optional("--topic"),
            priority: priority,
            collapseID: arguments.optional("--collapse-id"),
            payload: try readFile(path, purpose: "payload")
        )
        let violations = NotificationValidator.violations(in: request)
        guard violations.isEmpty else {
            for violation in violations { print("invalid: \(violation)") }
            return 1
        }
        print("valid (\(request.payload.count) bytes)")
        return 0
    }
}
