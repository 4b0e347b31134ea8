import APNsCore

/// Why an intent cannot become a valid notification: a machine-readable code and a detail naming
/// the template, key or argument at fault; for ``Code/invalidNotification``, every APNs rule the
/// composed request breaks.
public struct EnrichmentError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The raw value is the word outcome events, metrics and `pushline render` print.
    public enum Code: String, Sendable, CaseIterable {
        /// The intent names a `user`; only the pipeline can resolve it, through the token registry.
        case recipientsNeedRegistry = "RecipientsNeedRegistry"
        case unknownApp = "UnknownApp"
        case unknownTemplate = "UnknownTemplate"
        /// A placeholder outside a section it is guarded by has no value in `args`.
        case missingArgument = "MissingArgument"
        /// A placeholder names an object or array; only strings, numbers and booleans become text.
        case argumentNotText = "ArgumentNotText"
        /// A localization key is in no locale the catalog has for the app.
        case missingLocalization = "MissingLocalization"
        /// A `%d`/`%lld` argument or a plural's count is not an integer.
        case badFormatArgument = "BadFormatArgument"
        /// Too large even with the alert text shortened: the custom data and other keys alone exceed the limit.
        case payloadTooLarge = "PayloadTooLarge"
        /// The composed request breaks APNs rules; see ``EnrichmentError/violations``.
        case invalidNotification = "InvalidNotification"
        /// The template encrypts, no key is registered for the device or its user, and the template's
        /// `without_key` is `invalid`.
        case missingEncryptionKey = "MissingEncryptionKey"
        /// The template's attachment argument is missing, not https, too long, or its host is not allowed.
        case badAttachmentURL = "BadAttachmentURL"
        /// OpenSSL could not seal (its random generator failed).
        case encryptionFailed = "EncryptionFailed"
    }

    public let code: Code
    public let detail: String
    /// For ``Code/invalidNotification``: each broken rule.
    public let violations: [Violation]

    /// An error with its code and detail; `violations` for ``Code/invalidNotification``.
    public init(_ code: Code, _ detail: String, violations: [Violation] = []) {
        self.code = code
        self.detail = detail
        self.violations = violations
    }

    /// One `<Reason>: <detail>` line per problem: the violations' own reasons when there are any.
    public var problems: [String] {
        violations.isEmpty ? [description] : violations.map(\.description)
    }

    public var description: String { "\(code.rawValue): \(detail)" }
}
