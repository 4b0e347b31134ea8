/// Hides the values of metadata keys that look like they hold a secret. A safety net, not a
/// guarantee: a key is secret when one of its words (split at `_`, `-`, `.`, spaces and camelCase
/// humps, compared case-insensitively, plural `s` ignored) is `password`, `token`,
/// `authorization`, `key` or `secret`. So `device_token`, `apiKey` and `Authorization` are hidden;
/// `monkey`, `tokenizer` and `pool` are not. Secrets must still never be logged on purpose.
enum SecretKeyRedaction {
    /// What a secret value is replaced by.
    static let placeholder = "[REDACTED]"
    private static let secretWords: Set<String> = ["password", "token", "authorization", "key", "secret"]

    /// Whether `key` looks like it names a secret.
    static func isSecret(_ key: String) -> Bool {
        words(of: key).contains { word in
            secretWords.contains(word) || (word.hasSuffix("s") && secretWords.contains(String(word.dropLast())))
        }
    }

    /// The lowercased words of `key`.
    private static func words(of key: String) -> [String] {
        var words: [String] = []
        var current = ""
        var previousWasLowercase = false
        for character in key {
            if !(character.isLetter || character.isNumber) {
                words.append(current)
                current = ""
                previousWasLowercase = false
                continue
            }
            if character.isUppercase, previousWasLowercase {
                words.append(current)
                current = ""
            }
            current += character.lowercased()
            previousWasLowercase = character.isLowercase || character.isNumber
        }
        words.append(current)
        return words.filter { !$0.isEmpty }
    }
}
