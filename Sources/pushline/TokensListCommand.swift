import CLI
import Pipeline
import Redis

/// `pushline tokens list`: a user's registered devices for one app and environment.
enum TokensListCommand: Command {
    static let name = "tokens list"
    static let summary = "print a user's registered device tokens, oldest registration first"
    static let help = """
        Usage: pushline tokens list --config FILE --app APP (--sandbox | --production) --user USER

        Reads the token registry in the Redis of FILE and prints one line per device of USER for APP
        in that environment, oldest registration first:

          <token> <environment> <registered at, ISO 8601 UTC>

        and on standard error how many there are and the user's profile locale and time zone. Exit status 0 (also
        when there are none), 1 when FILE is invalid or Redis cannot be reached, 2 on usage errors.

        Options:
          --config FILE     the worker settings (Redis), e.g. Config/pushline.yaml; PUSHLINE_… variables apply
          --app APP         the app's bundle id
          --sandbox | --production
                            the APNs environment
          --user USER       the user
          -h, --help        show this help
        """
    static let arguments = TokensCommandArguments.spec(valueOptions: [])

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let app = try arguments.required("--app")
        let user = try arguments.required("--user")
        let environment = try TokensCommandArguments.environment(arguments)
        guard let configuration = try TokensCommandArguments.configuration(arguments, command: name) else { return 1 }
        let registry = TokenRegistry(connection: try RedisConnection(configuration: configuration.redis))
        let devices = try registry.devices(users: [user], app: app, environment: environment.rawValue)[0]
        let profile = try registry.profiles(users: [user])[0]
        for device in devices.sorted(by: { ($0.registeredAt, $0.token.hex) < ($1.registeredAt, $1.token.hex) }) {
            print("\(device.token.hex) \(environment.rawValue) \(TokensCommandArguments.timestamp(device.registeredAt))")
        }
        printError("pushline \(name): \(devices.count) device(s) of \(user) (\(app), \(environment.rawValue)); "
            + "profile locale: \(profile.locale ?? "none"); time zone: \(profile.timeZone ?? "none")")
        return 0
    }
}
