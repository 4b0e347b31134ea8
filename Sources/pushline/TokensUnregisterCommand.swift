import CLI

/// `pushline tokens unregister`: one device token out of the registry, unless it was registered again later.
enum TokensUnregisterCommand: Command {
    static let name = "tokens unregister"
    static let summary = "remove a user's device token from the token registry, unless registered again later"
    static let help = """
        Usage: pushline tokens unregister --config FILE --app APP (--sandbox | --production) --user USER
                                          --token HEX [--locale TAG] [--time-zone ZONE] [--at MS]

        Removes USER's token from the token registry in the Redis of FILE, with the rules of the
        token feed (docs/tokens.md): a registration later than MS (default: now) stands. Prints
        what it did.

        Exit status: 0 when the user no longer has the token (also when they never had it), 1 when
        a later registration stands or FILE is invalid or Redis cannot be reached, 2 on usage errors.

        Options:
        \(TokensCommandArguments.deviceHelp)
        """
    static let arguments = TokensCommandArguments.spec()

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let registration = try TokensCommandArguments.registration(arguments, action: .unregister)
        guard let configuration = try TokensCommandArguments.configuration(arguments, command: name) else { return 1 }
        return try TokensCommandArguments.applyDirectly(registration, configuration)
    }
}
