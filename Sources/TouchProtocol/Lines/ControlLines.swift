import TouchCore
import TouchInput
import TouchSystem

/// The protocol's other lines (docs/protocol.md), each type's fields written here and nowhere else.

/// `{"event":"hello","version":V,"protocol":P}`: the first line every client gets.
package enum HelloLine {
    package static func encode(version: String, protocolVersion: Int) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.key("event"); w.staticString("hello")
        w.key("version"); w.string(version)
        w.key("protocol"); w.int(protocolVersion)
        w.endObject()
        return w.bytes
    }
}

/// `{"event":"subscribed","topics":[…]}`: the answer to a subscribe command, topics in protocol order.
package enum SubscribedLine {
    package static func encode(topics: [String]) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.key("event"); w.staticString("subscribed")
        w.key("topics"); w.beginArray()
        for t in topics { w.string(t) }
        w.endArray()
        w.endObject()
        return w.bytes
    }
}

/// `{"event":"error","message":M}`: a client line that was refused (nothing of it was done), or a
/// connection refused.
package enum ErrorLine {
    package static func encode(_ message: String) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.key("event"); w.staticString("error")
        w.key("message"); w.string(message)
        w.endObject()
        return w.bytes
    }
}

/// `{"event":"device","action":"added"|"removed","node":N,"name":D}`: a touchscreen (or a replay
/// playing as one) came or went, for clients subscribed to devices.
package enum DeviceLine {
    /// `{"event":"device","action":"added"|"removed","device":I,"node":N,"name":D}`: I is the index the
    /// device's touch lines carry.
    package static func encode(action: StaticString, device index: Int, node: String, name: String) -> [UInt8] {
        var w = opening(action: action, index: index, node: node, name: name)
        w.endObject()
        return w.bytes
    }

    /// `{"event":"device","action":"changed","device":I,"node":N,"name":D,"mapping":{…}}`: a `set device`
    /// took effect (at the start of the device's next touch sequence); the mapping as it is now:
    /// `rotation` (degrees clockwise), `flipX`, `flipY`, `calibration` (libinput's six numbers).
    package static func changed(index: Int, node: String, name: String, mapping m: CoordinateMapping) -> [UInt8] {
        var w = opening(action: "changed", index: index, node: node, name: name)
        w.key("mapping")
        w.beginObject()
        w.key("rotation"); w.int(m.rotation.rawValue)
        w.key("flipX"); w.bool(m.flipX)
        w.key("flipY"); w.bool(m.flipY)
        w.key("calibration")
        w.beginArray()
        for c in m.calibration { w.number(c) }
        w.endArray()
        w.endObject()
        w.endObject()
        return w.bytes
    }

    /// The fields every device line starts with, the object left open for the rest.
    private static func opening(action: StaticString, index: Int, node: String, name: String) -> JSONWriter {
        var w = JSONWriter()
        w.beginObject()
        w.key("event"); w.staticString("device")
        w.key("action"); w.staticString(action)
        w.key("device"); w.int(index)
        w.key("node"); w.string(node)
        w.key("name"); w.string(name)
        return w
    }
}

/// `{"event":"ok","command":C}`: a control command (`set`, `scene`) was carried out; with `"warning"`
/// when it was, but may not do what the sender expects (`set display` with no panel grabbed).
package enum OkLine {
    package static func encode(command: String, warning: String? = nil) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.key("event"); w.staticString("ok")
        w.key("command"); w.string(command)
        if let warning { w.key("warning"); w.string(warning) }
        w.endObject()
        return w.bytes
    }
}

/// `{"event":"wake","time":T,"device":D,"x":X,"y":Y}` (topic `devices`): a touch sequence began while the
/// display was off; it was swallowed (no view, recognizer or mirror heard it). `x`, `y`: where its first
/// finger landed, in window points.
package enum WakeLine {
    package static func encode(time: Double, device: Int, at p: Point) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.key("event"); w.staticString("wake")
        w.key("time"); w.number(time)
        w.key("device"); w.int(device)
        w.key("x"); w.number(p.x)
        w.key("y"); w.number(p.y)
        w.endObject()
        return w.bytes
    }
}

/// `{"event":"display","time":T,"state":"on"|"dimmed"|"off","brightness":F,"cause":"idle"|"touch"|"command"}`:
/// the panel's backlight changed (docs/display.md), on the devices topic; `brightness` (a fraction of
/// the backlight's maximum) only where a backlight is known.
package enum DisplayLine {
    package static func encode(time: Double, state: String, brightness: Double?, cause: String) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.key("event"); w.staticString("display")
        w.key("time"); w.number(time)
        w.key("state"); w.string(state)
        if let b = brightness { w.key("brightness"); w.number((b * 10_000).rounded() / 10_000) }
        w.key("cause"); w.string(cause)
        w.endObject()
        return w.bytes
    }
}

/// `{"event":"pencil","time":T,"device":D,"button":1|2,"state":"pressed"|"released","x":X,"y":Y}`: a pen's
/// barrel button (docs/protocol.md), on the gestures topic.
package enum PencilLine {
    package static func encode(time: Double, device: Int, button: Int, pressed: Bool, at p: Point) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.key("event"); w.staticString("pencil")
        w.key("time"); w.number(time)
        w.key("device"); w.int(device)
        w.key("button"); w.int(button)
        w.key("state"); w.staticString(pressed ? "pressed" : "released")
        w.key("x"); w.number(p.x)
        w.key("y"); w.number(p.y)
        w.endObject()
        return w.bytes
    }
}

/// `{"event":"activity","time":T,"device":D,"touching":B}`: a device's first finger landed (true) or
/// its last lifted (false), on the activity topic.
package enum ActivityLine {
    package static func encode(time: Double, device: Int, touching: Bool) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.key("event"); w.staticString("activity")
        w.key("time"); w.number(time)
        w.key("device"); w.int(device)
        w.key("touching"); w.bool(touching)
        w.endObject()
        return w.bytes
    }
}

/// `{"event":"action","time":T,"device":D,"recognizer":R,"state":S,"action":A,…}`: what an action wrote
/// to the action devices (the actions topic); `fields` adds the action's own (keys, codes, dx…).
package enum ActionLine {
    package static func write(into w: inout JSONWriter, time: Double, device: Int?, recognizer: String, state: StaticString,
                              action: StaticString, _ fields: (inout JSONWriter) -> Void) {
        w.reset()
        w.beginObject()
        w.key("event"); w.staticString("action")
        w.key("time"); w.number(time)
        w.key("device"); if let d = device { w.int(d) } else { w.null() }
        w.key("recognizer"); w.string(recognizer)
        w.key("state"); w.staticString(state)
        w.key("action"); w.staticString(action)
        fields(&w)
        w.endObject()
    }
}
