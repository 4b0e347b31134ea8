/// Facts about librdkafka property names, for code outside this module (configuration loading)
/// that must apply the same rules as the clients.
public enum KafkaProperty {
    /// Whether a property holds a secret (passwords, client secrets, private keys, OAuth settings),
    /// which stays out of files, descriptions and logs.
    public static func isSecret(_ name: String) -> Bool {
        RDKafkaProperties.isSecret(name)
    }
}
