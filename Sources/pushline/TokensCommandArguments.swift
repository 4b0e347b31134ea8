import APNsCore
import CLI
import Enrichment
import Foundation
import Pipeline
import PushlineConfiguration
import Redis
import Runtime

/// What the `pushline tokens` commands share: their options, the configuration they load, the
/// record they describe, and how they write it to the registry and report what happened.
enum TokensCommandArguments {
    /// The options of a command that names one device: `--config`, `--app`, `--user`, `--token`,
    /// `--locale`, `--time-zone`, `--at`, and `--sandbox` or `--production`.
    static func spec(valueOptions: Set<String> = deviceOptions) -> ArgumentSpec {
        ArgumentSpec(valueOptions: valueOptions.union(["--config", "--app", "--user"]), flagOptions: ["--sandbox", "--production"])
    }

    /// The value options of a command that names one device, besides `--config`, `--app` and `--user`.
    static let deviceOptions: Set<String> = ["--token", "--locale", "--time-zone", "--at"]

    /// The options' help lines, in `spec`'s terms.
    static let deviceHelp = """
          --config FILE     the worker settings (Redis, Kafka), e.g. Config/pushline.yaml; PUSHLINE_… variables apply
          --app APP         the app's bundle id
          --sandbox | --production
                            the APNs environment the token belongs to
          --user USER       the user the token belongs to
          --token HEX       the device token
          --locale TAG      also set the user's profile locale (BCP 47)
          --time-zone ZONE  also set the user's profile time zone (IANA, e.g. Europe/Berlin): quiet hours are kept in it
          --at MS           when the device did it, Unix milliseconds (default: now)
          -h, --help        show this help
        """

    /// The worker settings of `--config`, as `pushline run` loads them; nil when they are invalid,
    /// after printing every problem to standard error.
    static func configuration(_ arguments: ParsedArguments, command: String) throws -> PushlineConfiguration? {
        do {
            return try PushlineConfiguration.load(file: try arguments.required("--config"), environment: ProcessInfo.processInfo.environment)
        } catch let error as InvalidConfiguration {
            for problem in error.errors { printError("pushline \(command): \(problem)") }
            return nil
        }
    }

    static func environment(_ arguments: ParsedArguments) throws(UsageError) -> Intent.Environment {
        switch (arguments.flags.contains("--sandbox"), arguments.flags.contains("--production")) {
        case (true, false): .sandbox
        case (false, true): .production
        default: throw UsageError(message: "give --sandbox or --production: a token belongs to one APNs environment")
        }
    }

    /// The record the options describe, checked by the same decoder the token feed uses; a mistake
    /// names its option.
    static func registration(_ arguments: ParsedArguments, action: TokenRegistration.Action) throws(UsageError) -> TokenRegistration {
        var object: JSONObject = [
            "action": .string(action.rawValue), "app": .string(try arguments.required("--app")),
            "environment": .string(try environment(arguments).rawValue), "user": .string(try arguments.required("--user")),
            "token": .string(try arguments.required("--token")),
            "occurred_at": .integer(try arguments.optionalInteger("--at") ?? WallClock.millisecondsSinceEpoch()),
        ]
        if let locale = arguments.optional("--locale") { object.members.append(.init("locale", .string(locale))) }
        if let zone = arguments.optional("--time-zone") { object.members.append(.init("time_zone", .string(zone))) }
        do {
            return try TokenRegistrationDecoder.decode(object)
        } catch {
            throw UsageError(message: "\(option(for: error.path)): \(error.reason)")
        }
    }

    /// The option that gave the record's field at `path`.
    private static func option(for path: String) -> String {
        switch path {
        case "$.occurred_at": "--at"
        case "$.environment": "--sandbox/--production"
        case "$.time_zone": "--time-zone"
        default: "--" + path.dropFirst(2)
        }
    }

    /// Applies `registration` to the registry of `configuration`'s Redis and prints what it did;
    /// exit status 0 when the registry now holds what was asked, 1 when a later registration stands.
    static func applyDirectly(_ registration: TokenRegistration, _ configuration: PushlineConfiguration) throws -> Int32 {
        let registry = TokenRegistry(connection: try RedisConnection(configuration: configuration.redis))
        let effect = try registry.apply([registration])[0]
        let device = "\(registration.token.hex) for \(registration.user) (\(registration.app), \(registration.environment.rawValue))"
        switch (effect, registration.action) {
        case (.applied, .register):
            print("registered \(device) at \(timestamp(registration.occurredAt))")
        case (.applied, .unregister):
            print("unregistered \(device)")
        case (.notRegistered, _):
            print("not registered: \(device); nothing to do")
        case (.superseded, _):
            print("not \(registration.action.rawValue)ed: \(device) has a registration later than \(timestamp(registration.occurredAt)), which stands")
            return 1
        }
        if let locale = registration.locale { print("profile locale of \(registration.user): \(locale)") }
        if let zone = registration.timeZone { print("profile time zone of \(registration.user): \(zone)") }
        return 0
    }

    /// Unix milliseconds as ISO 8601 in UTC, with milliseconds.
    static func timestamp(_ milliseconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }
}
