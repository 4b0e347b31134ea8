import CLI

/// `pushline tokens register`: one device token into the registry, as the token feed would apply it.
enum TokensRegisterCommand: Command {
    static let name = "tokens register"
    static let summary = "register a device token for a user in the token registry (Redis)"
    static let help = """
        Usage: pushline tokens register --config FILE --app APP (--sandbox | --production) --user USER
                                        --token HEX [--locale TAG] [--time-zone ZONE] [--at MS]

        Writes the registration straight into the token registry in the Redis of FILE, with the
        rules of the token feed (docs/tokens.md): a token registered later (by this user or another)
        stands; a token registered before by another user moves to USER. Prints what it did.

        Exit status: 0 when the token is registered, 1 when a later registration stands or FILE is
        invalid or Redis cannot be reached, 2 on usage errors.

        Options:
        \(TokensCommandArguments.deviceHelp)
        """
    static let arguments = TokensCommandArguments.spec()

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let registration = try TokensCommandArguments.registration(arguments, action: .register)
        guard let configuration = try TokensCommandArguments.configuration(arguments, command: name) else { return 1 }
        return try TokensCommandArguments.applyDirectly(registration, configuration)
    }
}
