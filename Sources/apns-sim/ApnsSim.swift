import CLI

/// `apns-sim`, a faithful local APNs.
@main
enum ApnsSim {
    static func main() {
        CommandLineTool(name: "apns-sim", summary: "A faithful local APNs.", commands: [SimulatorCommand.self]).main()
    }
}
