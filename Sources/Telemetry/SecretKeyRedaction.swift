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

    /// The lowercased words of `key`: separators end a word, and so does a hump (`apiKey` → api,
    /// key; `HTTPAuthorization` → http, authorization).
    private static func words(of key: String) -> [String] {
        let characters = Array(key)
        var words: [String] = []
        var current = ""
        for (index, character) in characters.enumerated() {
            guard character.isLetter || character.isNumber else {
                words.append(current)
                current = ""
                continue
            }
            if character.isUppercase, index > 0, !current.isEmpty {
                let previous = characters[index - 1]
                let nextIsLowercase = index + 1 < characters.count && characters[index + 1].isLowercase
                if !previous.isUppercase || nextIsLowercase {
                    words.append(current)
                    current = ""
                }
            }
            current += character.lowercased()
        }
        words.append(current)
        return words.filter { !$0.isEmpty }
    }
}
