import IntentCore

/// Why bytes are not a valid `pushline.tokens` record: the intent decoder's error type, so dead
/// letters of both topics carry one vocabulary of codes (`MalformedJSON`, `MissingField`, …), a
/// JSON path (`$.token`) and the reason in words.
public typealias TokenRegistrationDecodingError = IntentDecodingError
