import Runtime

/// The development provider key under `Config/dev/` (public on purpose, not a secret) and its ids.
public enum DevCredentials {
    public static let privateKeyFile = SharedFiles.path("Config/dev/dev-provider-key.p8")
    public static let publicKeyFile = SharedFiles.path("Config/dev/dev-provider-key.pub.pem")
    public static let keyID = "DEVKEY0001"
    public static let teamID = "DEVTEAM001"
}
