/// The development provider key under `Config/dev/` (public on purpose, not a secret) and its ids.
public enum DevCredentials {
    public static let privateKeyFile = RepositoryPaths.file("Config/dev/dev-provider-key.p8")
    public static let publicKeyFile = RepositoryPaths.file("Config/dev/dev-provider-key.pub.pem")
    public static let keyID = "DEVKEY0001"
    public static let teamID = "DEVTEAM001"
}
