import APNsCore
import Enrichment
import Testing

private let templates = """
    default_locale: en
    templates:
      note:
        priority: 5
        interruption_level: passive
        category: NOTE
        thread_id: "thread-{{topic}}"
        collapse_id: "note-{{topic}}"
        mutable_content: true
        sound: chime.caf
        relevance_score: 0.25
        alert:
          title: "{{title}}"
          subtitle: "{{#subtitle}}{{subtitle}}{{/subtitle}}"
          body: "{{body}}"
        custom:
          topic: "{{topic}}"
          count: "{{count}}"
          link: "app://note/{{topic}}"
      sync:
        push_type: background
        custom:
          scope: "{{scope}}"
      tracker:
        push_type: liveactivity
        alert:
          title: "{{title}}"
        live_activity:
          attributes_type: TrackerAttributes
    """

@Suite("Payload composition")
struct EnricherTests {
    private let fixture: CatalogFixture

    init() throws {
        fixture = try CatalogFixture(templates: templates)
    }

    private let noteArgs = #""args":{"title":"T","body":"B","topic":"x","count":3}"#

    @Test("a template sets headers and every aps key it names")
    func templateKeys() throws {
        let delivery = try #require(try fixture.deliveries(#""template":"note",\#(noteArgs)"#).first)
        #expect(delivery.topic == CatalogFixture.app)
        #expect(delivery.pushType == .alert)
        #expect(delivery.priority == .powerConsiderate)
        #expect(delivery.collapseID == "note-x")
        #expect(delivery.expiration == .unspecified)
        #expect(delivery.notificationID == NotificationID.derived(intentID: "intent-1", deviceToken: try DeviceToken(CatalogFixture.token)))
        #expect(String(decoding: delivery.payload, as: UTF8.self) == """
            {"aps":{"alert":{"title":"T","subtitle":"","body":"B"},"sound":"chime.caf","thread-id":"thread-x","category":"NOTE",\
            "mutable-content":1,"interruption-level":"passive","relevance-score":0.25},"topic":"x","count":3,"link":"app://note/x"}
            """)
    }

    @Test("intent overrides win over the template")
    func overrides() throws {
        let delivery = try #require(try fixture.deliveries("""
            "template":"note",\(noteArgs),"priority":10,"collapse_id":"c","thread_id":"t","interruption_level":"time-sensitive",
            "relevance_score":1,"badge":7,"sound":"other.caf","category":"OTHER","expiration":1800000000,"custom":{"count":"many","extra":true}
            """).first)
        #expect(delivery.priority == .immediate)
        #expect(delivery.collapseID == "c")
        #expect(delivery.expiration == .at(unixSeconds: 1_800_000_000))
        guard case .object(let payload) = try JSONParser.parse(delivery.payload) else { Issue.record("not an object"); return }
        #expect(payload.at("aps.thread-id") == "t")
        #expect(payload.at("aps.interruption-level") == "time-sensitive")
        #expect(payload.at("aps.badge") == 7)
        #expect(payload.at("aps.sound") == "other.caf")
        #expect(payload.at("aps.category") == "OTHER")
        #expect(payload.at("count") == "many")
        #expect(payload.at("extra") == true)
    }

    @Test("hostile arguments stay inside their strings", arguments: [
        #"","aps":{"badge":99},"x":""#,
        "quote \" backslash \\ slash / end",
        "control \u{0}\u{1}\u{8}\u{1B}\n\r\t\u{7F}",
        "emoji 👩‍👩‍👧‍👦🏳️‍🌈 and rtl \u{202E}مرحبا بالعالم\u{202C} שלום",
        "{{body}} {{#x}}",
        "\u{2028}\u{2029}\u{FEFF}",
    ])
    func hostileArguments(hostile: String) throws {
        var escaped: [UInt8] = []
        JSONWriter.appendString(hostile, to: &escaped)
        let json = String(decoding: escaped, as: UTF8.self)
        let payload = try fixture.payload(#""template":"note","collapse_id":"c","args":{"title":\#(json),"body":\#(json),"topic":\#(json),"count":\#(json)}"#)
        #expect(payload.members.map(\.key) == ["aps", "topic", "count", "link"])
        #expect(payload.at("aps.alert.title")?.stringValue == hostile)
        #expect(payload.at("aps.alert.body")?.stringValue == hostile)
        #expect(payload.at("aps.thread-id")?.stringValue == "thread-" + hostile)
        #expect(payload.at("topic")?.stringValue == hostile)
        #expect(payload.at("aps.badge") == nil)
    }

    @Test("a background template gets content-available and priority 5 and no alert")
    func background() throws {
        let delivery = try #require(try fixture.deliveries(#""template":"sync","args":{"scope":"inbox"}"#).first)
        #expect(delivery.pushType == .background)
        #expect(delivery.priority == .powerConsiderate)
        #expect(String(decoding: delivery.payload, as: UTF8.self) == #"{"aps":{"content-available":1},"scope":"inbox"}"#)
    }

    @Test("a notification that breaks APNs rules reports each violation")
    func violations() throws {
        #expect {
            try fixture.deliveries(#""template":"sync","args":{"scope":"s"},"badge":1,"priority":10"#)
        } throws: { error in
            guard let error = error as? EnrichmentError else { return false }
            let reasons = Set(error.violations.map(\.reason))
            return error.code == .invalidNotification && reasons == [.backgroundPriority, .backgroundWithAlertSoundOrBadge]
                && error.problems.allSatisfy { $0.hasPrefix("Background") }
        }
    }

    @Test("a raw payload is validated and sent as given")
    func rawPayload() throws {
        let delivery = try #require(try fixture.deliveries(#""payload":{"aps":{"alert":"hi"},"k":[1,2]},"push_type":"alert","priority":5"#).first)
        #expect(String(decoding: delivery.payload, as: UTF8.self) == #"{"aps":{"alert":"hi"},"k":[1,2]}"#)
        #expect(delivery.priority == .powerConsiderate)
        #expect { try fixture.deliveries(#""payload":{"aps":{"alert":"hi"}},"push_type":"background""#) } throws: {
            ($0 as? EnrichmentError)?.code == .invalidNotification
        }
    }

    @Test("an unknown app or template is named")
    func unknownAppOrTemplate() throws {
        #expect { try fixture.deliveries(#""template":"nope""#) } throws: {
            ($0 as? EnrichmentError)?.code == .unknownTemplate && "\($0)".contains("nope")
        }
        let intent = try IntentDecoder.decode(Array(#"{"id":"i","app":"com.other","tokens":["00"],"template":"t"}"#.utf8))
        #expect { try Enricher(catalog: try fixture.catalog()).deliveries(for: intent) } throws: {
            ($0 as? EnrichmentError)?.code == .unknownApp
        }
    }

    @Test("user recipients need the token registry; resolved devices each get a delivery")
    func userRecipients() throws {
        let intent = try IntentDecoder.decode(Array(#"{"id":"i","app":"\#(CatalogFixture.app)","user":"u-1","template":"sync","args":{"scope":"s"}}"#.utf8))
        let enricher = Enricher(catalog: try fixture.catalog())
        #expect { try enricher.deliveries(for: intent) } throws: { ($0 as? EnrichmentError)?.code == .recipientsNeedRegistry }
        let tokens = [try DeviceToken("aa"), try DeviceToken("bb")]
        let deliveries = try enricher.deliveries(for: intent, devices: tokens.map { RecipientDevice(token: $0, environment: .sandbox) })
        #expect(deliveries.map(\.token) == tokens)
        #expect(deliveries[0].notificationID != deliveries[1].notificationID)
        #expect(deliveries[0].payload == deliveries[1].payload)
    }

    @Test("a Live Activity start carries timestamp, content-state, attributes and its topic suffix")
    func liveActivityStart() throws {
        let delivery = try #require(try fixture.deliveries("""
            "template":"tracker","args":{"title":"Out for delivery","eta":12},"created_at":1700000000999,
            "live_activity":{"event":"start","stale_date":1700003600,"attributes":{"order":"77"}}
            """).first)
        #expect(delivery.pushType == .liveActivity)
        #expect(delivery.topic == CatalogFixture.app + ".push-type.liveactivity")
        #expect(String(decoding: delivery.payload, as: UTF8.self) == """
            {"aps":{"alert":{"title":"Out for delivery"},"timestamp":1700000000,"event":"start",\
            "content-state":{"title":"Out for delivery","eta":12},"stale-date":1700003600,\
            "attributes-type":"TrackerAttributes","attributes":{"order":"77"}}}
            """)
    }

    @Test("Live Activity update and end carry no attributes; end may carry a dismissal date")
    func liveActivityUpdateAndEnd() throws {
        let update = try fixture.payload(#""template":"tracker","args":{"title":"Near"},"created_at":2000,"live_activity":{"event":"update"}"#)
        #expect(update.at("aps.event") == "update")
        #expect(update.at("aps.timestamp") == 2)
        #expect(update.at("aps.attributes") == nil)
        #expect(update.at("aps.attributes-type") == nil)
        let end = try fixture.payload(#""template":"tracker","args":{"title":"Done"},"created_at":3000,"live_activity":{"event":"end","dismissal_date":9}"#)
        #expect(end.at("aps.event") == "end")
        #expect(end.at("aps.dismissal-date") == 9)
        #expect(end.at("aps.content-state") == .object(["title": "Done"]))
    }

    @Test("a Live Activity intent makes a liveactivity push even from an alert template")
    func liveActivityPushType() throws {
        let delivery = try #require(try fixture.deliveries(#""template":"note",\#(noteArgs),"created_at":1000,"live_activity":{"event":"update"}"#).first)
        #expect(delivery.pushType == .liveActivity)
        #expect(delivery.topic.hasSuffix(".push-type.liveactivity"))
    }
}
