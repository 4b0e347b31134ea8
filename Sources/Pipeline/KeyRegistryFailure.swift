import Redis

/// Registering or reading one key failed: the key (or the key-encryption key), or Redis.
public enum KeyRegistryFailure: Error, Sendable, CustomStringConvertible {
    case key(KeyRegistryError)
    case redis(RedisError)

    public var description: String {
        switch self {
        case .key(let error): error.description
        case .redis(let error): "\(error)"
        }
    }
}
