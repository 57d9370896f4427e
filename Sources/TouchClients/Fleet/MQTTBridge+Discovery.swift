import Glibc
import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem

/// Home Assistant discovery (docs/mqtt.md): retained configs for a device trigger per recognizer (and
/// one at a continuous gesture's end, and a stroke's one a shape), the wake trigger, the activity
/// sensors and, with control, a switch per recognizer; cleared when they go.
extension MQTTBridge {
    var deviceBlock: (inout JSONWriter) -> Void {
        { [config, nodeID] w in
            w.key("device"); w.beginObject()
            w.key("identifiers"); w.beginArray(); w.string("touchbridge_" + nodeID); w.endArray()
            w.key("name"); w.string("TouchBridge " + (config.prefix.split(separator: "/").last.map(String.init) ?? config.prefix))
            w.key("manufacturer"); w.staticString("TouchBridge")
            w.key("model"); w.staticString("touchbridged")
            w.key("sw_version"); w.string(Version.string)
            w.endObject()
        }
    }

    func availability(_ w: inout JSONWriter) {
        w.key("availability"); w.beginArray(); w.beginObject()
        w.key("topic"); w.string(statusTopic)
        w.key("payload_available"); w.staticString("online")
        w.key("payload_not_available"); w.staticString("offline")
        w.endObject(); w.endArray()
    }

    /// Publishes every discovery config (retained), and clears those of recognizers that went away.
    func announce() {
        guard let disc = config.discoveryPrefix else { return }
        var now: [String: [UInt8]] = [:]
        for recognizer in recognizers {
            let name = recognizer.name, level = MQTTConfig.topicLevel(name)
            // A trigger fires once a gesture: every line of a recognizer goes to its topic (a pan's
            // began, each changed, ended), so the trigger matches the line's state, `recognized` for a
            // tap or a swipe, `began` for the others; those also get a `gesture_ended` trigger.
            let topic = config.prefix + "/gesture/" + level, id = Self.objectID(name)
            now["\(disc)/device_automation/\(nodeID)/\(id)/config"] =
                deviceTrigger(topic: topic, type: "gesture", subtype: name, state: recognizer.discrete ? "recognized" : "began")
            if !recognizer.discrete {
                now["\(disc)/device_automation/\(nodeID)/\(id)_ended/config"] =
                    deviceTrigger(topic: topic, type: "gesture_ended", subtype: name, state: "ended")
            }
            // A stroke: a trigger a shape, on its line's "shape" (docs/strokes.md).
            for shape in recognizer.shapes {
                now["\(disc)/device_automation/\(nodeID)/\(id)_shape_\(Self.objectID(shape))/config"] =
                    deviceTrigger(topic: topic, type: "gesture_shape", subtype: "\(name) \(shape)", field: "shape", equals: shape)
            }
            if config.control {
                var s = JSONWriter()
                s.beginObject()
                s.key("name"); s.string(name)
                s.key("unique_id"); s.string("touchbridge_\(nodeID)_\(Self.objectID(name))")
                s.key("command_topic"); s.string(commandTopic)
                s.key("state_topic"); s.string(config.prefix + "/recognizer/" + level)
                s.key("payload_on"); s.string(Self.setCommand(recognizer: name, enabled: true))
                s.key("payload_off"); s.string(Self.setCommand(recognizer: name, enabled: false))
                s.key("state_on"); s.staticString("ON")
                s.key("state_off"); s.staticString("OFF")
                s.key("icon"); s.staticString("mdi:gesture-tap")
                availability(&s)
                deviceBlock(&s)
                s.endObject()
                now["\(disc)/switch/\(nodeID)/\(Self.objectID(name))/config"] = s.bytes
            }
        }
        if config.topics.contains(.devices) {
            now["\(disc)/device_automation/\(nodeID)/wake/config"] =
                deviceTrigger(topic: config.prefix + "/wake", type: "wake", subtype: "display")
        }
        // The panel's light (docs/display.md), brightness in percent; Home Assistant's lights need a
        // command topic, so without control it is a brightness sensor.
        if config.topics.contains(.devices), let d = display, d.brightness != nil {
            var w = JSONWriter()
            w.beginObject()
            w.key("name"); w.staticString("Display")
            w.key("unique_id"); w.string("touchbridge_\(nodeID)_display")
            w.key("state_topic"); w.string(displayTopic)
            if config.control {
                w.key("schema"); w.staticString("json")
                w.key("command_topic"); w.string(displayCommandTopic)
                w.key("brightness"); w.bool(true)
                w.key("brightness_scale"); w.int(100)
                w.key("supported_color_modes"); w.beginArray(); w.staticString("brightness"); w.endArray()
            } else {
                w.key("value_template"); w.staticString("{{ value_json.brightness }}")
                w.key("unit_of_measurement"); w.staticString("%")
            }
            w.key("icon"); w.staticString("mdi:tablet-dashboard")
            availability(&w)
            deviceBlock(&w)
            w.endObject()
            now["\(disc)/\(config.control ? "light" : "sensor")/\(nodeID)/display/config"] = w.bytes
        }
        if config.topics.contains(.activity) {
            now["\(disc)/sensor/\(nodeID)/last_touch/config"] = activityEntity("Last touch", id: "last_touch",
                template: "{{ value_json.lastTouch }}", deviceClass: "timestamp")
            now["\(disc)/binary_sensor/\(nodeID)/touching/config"] = activityEntity("Touching", id: "touching",
                template: "{{ 'ON' if value_json.touching else 'OFF' }}")
        }
        for topic in announced where now[topic] == nil { broker.publish(topic, [], retain: true, qos: 1) }   // gone: cleared
        for (topic, payload) in now.sorted(by: { $0.key < $1.key }) { broker.publish(topic, payload, retain: true, qos: 1) }
        announced = Set(now.keys)
    }

    /// A device trigger's discovery config: fires on each message of `topic`, or with `state` only on
    /// those whose `state` field says so (Home Assistant renders `value_template` and compares `payload`).
    private func deviceTrigger(topic: String, type: StaticString, subtype: String, state: StaticString? = nil,
                               field: String? = nil, equals: String? = nil) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.key("automation_type"); w.staticString("trigger")
        w.key("topic"); w.string(topic)
        w.key("type"); w.staticString(type)
        w.key("subtype"); w.string(subtype)
        if let state {
            w.key("value_template"); w.staticString("{{ value_json.state }}")
            w.key("payload"); w.staticString(state)
        } else if let field, let equals {
            w.key("value_template"); w.string("{{ value_json.\(field) }}")
            w.key("payload"); w.string(equals)
        }
        w.key("qos"); w.int(config.qos)
        deviceBlock(&w)
        w.endObject()
        return w.bytes
    }

    /// A sensor's discovery config reading the activity topic through `template`.
    private func activityEntity(_ name: StaticString, id: StaticString, template: StaticString, deviceClass: StaticString? = nil) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.key("name"); w.staticString(name)
        w.key("unique_id"); w.string("touchbridge_\(nodeID)_\(id)")
        w.key("state_topic"); w.string(config.prefix + "/activity")
        w.key("value_template"); w.staticString(template)
        if let deviceClass { w.key("device_class"); w.staticString(deviceClass) }
        availability(&w)
        deviceBlock(&w)
        w.endObject()
        return w.bytes
    }

    /// The `set` line that enables or disables one recognizer (the switch's command in discovery),
    /// by the command's own encoder: a name with quotes or backslashes stays one string (a name `t","*`
    /// is not a second pattern).
    public static func setCommand(recognizer name: String, enabled: Bool) -> String {
        String(decoding: ClientCommand.setRecognizers(patterns: [name], enabled: enabled).line, as: UTF8.self)
    }

    /// A discovery object id: letters, digits, _ and - only.
    package static func objectID(_ name: String) -> String {
        String(name.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") ? $0 : "_" })
    }
}
