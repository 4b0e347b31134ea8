/// One record of `pushline.tokens`: a token registration, or a recipient's encryption key.
public enum TokenFeedRecord: Sendable, Equatable {
    case registration(TokenRegistration)
    case key(EncryptionKeyRecord)
}
