import APNsCore
import Foundation
import LocalStack
import Pipeline

/// What `pushline-dev bench e2e` publishes, intent by intent; each intent follows from its index alone.
///
/// - `tokens`: the example app's `chat_message` in English, each to its own device tokens.
/// - `sealed`: `tokens` with every delivery sealed for a Notification Service Extension
///   (`chat_message_sealed`: the text sealed with each device's key, the sender's identifiers and a
///   photo URL; docs/service-extension.md), a device key registered for every token beforehand.
/// - `unsealed`: `sealed`'s intents with `chat_message_unsealed`, its template without `encrypt`
///   (the photo URL and the sender in the clear, no keys): encryption off, the run `sealed` is
///   held to.
/// - `users`: the same `chat_message`, addressed to a user of the token registry with as many
///   devices as `tokens` gives each intent: the same fan-out, so the CPU per delivery of the two
///   compares addressing alone.
/// - `mixed`, what backends publish: 70 % to users with 1–4 devices each, spread over eight locales
///   (`cart_reminder`, rendered in the user's locale with a plural); 20 % to a token (`chat_message`);
///   10 % to a token with a collapse id (`order_update`); within those, 3 % are copies of the intent
///   before them (`suppressed`/`DuplicateIntent`) and 1 % name a template the app does not have
///   (`invalid`/`UnknownTemplate`).
enum BenchWorkload: String, CaseIterable {
    case tokens
    case sealed
    case unsealed
    case users
    case mixed

    /// What one intent of a workload is.
    enum Kind: Equatable {
        /// To `tokens` device tokens of its own.
        case tokens
        /// To registry user `user`.
        case user(Int)
        /// To one token, with a collapse id.
        case collapsing
        /// The same bytes as the intent before it.
        case duplicate
        /// A template the app does not have.
        case invalid
    }

    /// The outcomes a range of intents must end with.
    struct Expectation: Equatable {
        var byStatus: [String: Int] = [:]
        var outcomes: Int { byStatus.values.reduce(0, +) }
    }

    /// The workloads whose runs of the same round this one's rate and worker CPU are set beside:
    /// `tokens`, and for `sealed` also `unsealed` (the same intents with encryption off).
    var baselines: [BenchWorkload] {
        self == .sealed ? [.tokens, .unsealed] : [.tokens]
    }

    /// What the workload's rate is held to against `baseline`'s in the same round: sealing every
    /// delivery keeps ≥ 85 % of the rate with encryption off (issue 19).
    func rateGoal(against baseline: BenchWorkload) -> RatiosOverRounds.Goal? {
        self == .sealed && baseline == .unsealed ? .atLeast(0.85) : nil
    }

    /// What the rate ratio against `baseline`'s is also read with the machine's speed taken out by:
    /// `sealed` and `unsealed` publish the same intents and end in as many outcomes, so the bench's
    /// own process (mock Kafka, reader) does the same work per delivery in both (their requests
    /// differ, so the server is no meter for them).
    func speedMeter(against baseline: BenchWorkload) -> SpeedMeter? {
        self == .sealed && baseline == .unsealed ? .benchProcess : nil
    }

    /// What the worker's CPU per delivery is held to against `baseline`'s: user-addressed
    /// deliveries cost ≤ 1.3 × token-addressed ones (issue 15).
    func workerCPUGoal(against baseline: BenchWorkload) -> RatiosOverRounds.Goal? {
        (self == .users || self == .mixed) && baseline == .tokens ? .atMost(1.3) : nil
    }

    /// The locales of the mixed workload's users (the example app has strings for each).
    static let locales = ["en", "de", "ja", "ar", "fr", "es", "pt-BR", "ru"]
    /// Registry users, reused in turn by the intents addressed to users.
    static let userCount = 50_000
    /// Device numbers of users start here, far above those of token-addressed intents.
    private static let userDeviceBase = 1_000_000_000

    /// What intent `index` is.
    func kind(_ index: Int) -> Kind {
        switch self {
        case .tokens, .sealed, .unsealed: return .tokens
        case .users: return .user(index % Self.userCount)
        case .mixed:
            switch index % 100 {
            case 99: return .invalid
            case 19, 49, 79: return .duplicate
            case 0..<70: return .user(index % Self.userCount)
            case 70..<90: return .tokens
            default: return .collapsing
            }
        }
    }

    /// The devices of registry user `user`: `tokensPerIntent` of them, or 1–4 in the mixed workload.
    func devices(ofUser user: Int, tokensPerIntent: Int) -> [String] {
        (0..<deviceCount(ofUser: user, tokensPerIntent: tokensPerIntent)).map { IntentLoad.token(Self.userDeviceBase + user * 4 + $0) }
    }

    /// How many devices registry user `user` has, without formatting their tokens.
    func deviceCount(ofUser user: Int, tokensPerIntent: Int) -> Int {
        self == .mixed ? user % 4 + 1 : tokensPerIntent
    }

    /// The profile locale of registry user `user`.
    func locale(ofUser user: Int) -> String {
        self == .mixed ? Self.locales[(user / 4) % Self.locales.count] : "en"
    }

    /// The registrations of every user the workload addresses, for the token registry.
    func registrations(tokensPerIntent: Int) throws -> [TokenRegistration] {
        guard self == .users || self == .mixed else { return [] }
        return try (0..<Self.userCount).flatMap { user in
            try devices(ofUser: user, tokensPerIntent: tokensPerIntent).map { token in
                TokenRegistration(action: .register, app: LocalPipeline.app, environment: .sandbox, user: "bench-user-\(user)",
                                  token: try DeviceToken(token), occurredAt: 1_700_000_000_000, locale: locale(ofUser: user))
            }
        }
    }

    /// Intent `index`, created at `createdAt` (Unix ms); `tokenNumber` names device token `n` of
    /// a token-addressed intent (a server that accepts only known tokens maps it onto its pool).
    func intent(_ index: Int, tokensPerIntent: Int, createdAt: Int64, tokenNumber: (Int) -> Int) -> String {
        let head = #"{"schema_version":1,"id":"bench-\#(index)","app":"\#(LocalPipeline.app)","environment":"sandbox","#
        let forExtension = self == .sealed || self == .unsealed
        let sealedArguments = forExtension ? #","sender_id":"u-anna","photo":"https://media.example.com/p/\#(index).jpg""# : ""
        let template = forExtension ? "chat_message_\(self)" : "chat_message"
        let chat = #""template":"\#(template)","locale":"en","#
            + #""args":{"sender":"Anna","chat":{"id":"4521","name":"Climbing crew"},"message_id":"m-\#(index)","#
            + #""text":"Rope is in the car"\#(sealedArguments)},"created_at":\#(createdAt)}"#
        switch kind(index) {
        case .tokens:
            let tokens = (0..<tokensPerIntent).map { "\"" + IntentLoad.token(tokenNumber(index * tokensPerIntent + $0)) + "\"" }
            return head + #""tokens":[\#(tokens.joined(separator: ","))],"# + chat
        case .user(let user) where self == .users:
            return head + #""user":"bench-user-\#(user)","# + chat
        case .user(let user):
            return head + #""user":"bench-user-\#(user)","template":"cart_reminder","#
                + #""args":{"cart":{"id":"c-\#(index)","items":\#(index % 12)}},"created_at":\#(createdAt)}"#
        case .collapsing:
            return head + #""tokens":["\#(IntentLoad.token(tokenNumber(index)))"],"template":"order_update","#
                + #""args":{"order":{"id":"o-\#(index)","items":\#(index % 5 + 1)},"carrier":"DHL"},"created_at":\#(createdAt)}"#
        case .duplicate:
            return intent(index - 1, tokensPerIntent: tokensPerIntent, createdAt: createdAt, tokenNumber: tokenNumber)
        case .invalid:
            return head + #""tokens":["\#(IntentLoad.token(tokenNumber(index)))"],"template":"no_such_template","created_at":\#(createdAt)}"#
        }
    }

    /// The outcomes intents `range` must end with: one per delivery, `accepted` unless the intent
    /// is a copy (`suppressed`, one per delivery of the intent it copies) or invalid (one `invalid`).
    func expectation(_ range: Range<Int>, tokensPerIntent: Int) -> Expectation {
        var expectation = Expectation()
        for index in range {
            switch kind(index) {
            case .invalid: expectation.byStatus["invalid", default: 0] += 1
            case .duplicate: expectation.byStatus["suppressed", default: 0] += deliveries(index - 1, tokensPerIntent: tokensPerIntent)
            default: expectation.byStatus["accepted", default: 0] += deliveries(index, tokensPerIntent: tokensPerIntent)
            }
        }
        return expectation
    }

    /// Deliveries of an intent that is neither a copy nor invalid.
    private func deliveries(_ index: Int, tokensPerIntent: Int) -> Int {
        switch kind(index) {
        case .tokens: tokensPerIntent
        case .user(let user): deviceCount(ofUser: user, tokensPerIntent: tokensPerIntent)
        default: 1
        }
    }
}
