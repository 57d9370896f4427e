import TouchInput
import TouchSystem

/// A command as its line: the encoder that `ClientCommand.parse` reads back (a client writes every
/// command it sends through here; no line of the protocol is written by hand elsewhere).
extension ClientCommand {
    /// The command's line, without its newline.
    public var line: [UInt8] {
        var w = JSONWriter(capacity: 256)
        w.beginObject()
        switch self {
        case .subscribe(_, let names):
            w.key("subscribe"); w.beginArray()
            for n in names { w.string(n) }
            w.endArray()
        case .setRecognizers(let patterns, let enabled):
            w.key("set"); w.beginObject()
            w.key("recognizers"); w.beginArray()
            for p in patterns { w.string(p) }
            w.endArray()
            w.key("enabled"); w.bool(enabled)
            w.endObject()
        case .setDevice(let target, let change):
            w.key("set"); w.beginObject()
            w.key("device")
            switch target {
            case .index(let i): w.int(i)
            case .name(let pattern): w.string(pattern)
            case .all: w.string("*")
            }
            if let r = change.rotation { w.key("rotation"); w.int(r.rawValue) }
            if let f = change.flipX { w.key("flipX"); w.bool(f) }
            if let f = change.flipY { w.key("flipY"); w.bool(f) }
            if let c = change.calibration {
                w.key("calibration"); w.beginArray()
                for v in c { w.number(v) }
                w.endArray()
            }
            w.endObject()
        case .setDisplay(let on):
            w.key("set"); w.beginObject()
            w.key("display"); w.string(on ? "on" : "off")
            w.endObject()
        case .setBrightness(let f):
            w.key("set"); w.beginObject()
            w.key("brightness"); w.number(f)
            w.endObject()
        case .setFocus(let f):
            w.key("set"); w.beginObject()
            w.key("focus")
            if let f {
                w.beginObject()
                w.key("app"); w.string(f.app)
                if let t = f.title { w.key("title"); w.string(t) }
                if let s = f.source { w.key("source"); w.string(s) }
                if f.whileConnected { w.key("whileConnected"); w.bool(true) }
                w.endObject()
            } else {
                w.null()
            }
            w.endObject()
        case .scene(let name, let views):
            w.key("scene"); w.beginObject()
            w.key(string: ClientCommand.sceneNameKey); w.string(name)
            w.key(string: ClientCommand.sceneViewsKey); w.beginArray()
            for v in views { w.value(v) }
            w.endArray()
            w.endObject()
        }
        w.endObject()
        return w.bytes
    }

    /// `{"subscribe":[…]}` for topic names as given (unknown ones are the daemon's to refuse).
    public static func subscribeLine(_ names: [String]) -> [UInt8] {
        ClientCommand.subscribe(Topics(names: names), names: names).line
    }
}
