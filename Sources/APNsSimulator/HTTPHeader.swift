import HTTPFields

/// One HTTP header field of a request or a response. Names are lower case, as HTTP/2 requires.
/// The transport's own type, so requests and responses cross it without conversion.
public typealias HTTPHeader = HTTPField
