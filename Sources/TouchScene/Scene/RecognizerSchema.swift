import TouchCore
import TouchProtocol
import TouchSystem

/// One property of a recognizer as the scene format has it: its key, how a value is read onto a
/// recognizer (checked, with an error that names the JSON path), and how it is written back (the scene
/// line). The allowed keys, the parser, the writer and the did-you-mean all come from these, so adding
/// an option is one line in a `RecognizerSchema`.
package struct RecognizerProperty: Sendable {
    package let key: String
    /// Reads the value at `path` onto the recognizer.
    package let read: @Sendable (GestureRecognizer, JSON, String, inout PropertyReader) throws -> Void
    /// Writes `"key": value`, or nothing where the file would leave the key out.
    package let write: @Sendable (GestureRecognizer, inout JSONWriter) -> Void
    /// Said in a scene file even at its default, because it says what the recognizer is (a swipe's
    /// direction, an edge pan's edges).
    package var alwaysInFiles = false
    /// What kind of value it takes (SchemaDescription).
    package var form = ValueForm.json

    /// The recognizer as the class the property belongs to: the schema made it, so it is one.
    private static func typed<R: GestureRecognizer>(_ g: GestureRecognizer) -> R {
        guard let r = g as? R else { preconditionFailure("scene schema: \(g) is not a \(R.self)") }
        return r
    }

    package static func bool<R: GestureRecognizer>(_ key: String, _ kp: ReferenceWritableKeyPath<R, Bool> & Sendable) -> RecognizerProperty {
        RecognizerProperty(key: key, read: { g, v, p, r in (typed(g) as R)[keyPath: kp] = try r.reader.bool(v, p) },
                           write: { g, w in w.key(string: key); w.bool((typed(g) as R)[keyPath: kp]) }, form: .bool)
    }

    /// A whole number ≥ `min`; not written when it is `unwritten` (a default no file can give).
    package static func int<R: GestureRecognizer>(_ key: String, _ kp: ReferenceWritableKeyPath<R, Int> & Sendable, min: Int,
                                          unwritten: Int? = nil) -> RecognizerProperty {
        RecognizerProperty(key: key, read: { g, v, p, r in (typed(g) as R)[keyPath: kp] = try r.reader.integer(v, p, min: min) },
                           write: { g, w in
                               let n = (typed(g) as R)[keyPath: kp]
                               if n != unwritten { w.key(string: key); w.int(n) }
                           }, form: .integer(min: min))
    }

    /// A number ≥ 0 (seconds, points).
    package static func nonNegative<R: GestureRecognizer>(_ key: String, _ kp: ReferenceWritableKeyPath<R, Double> & Sendable) -> RecognizerProperty {
        RecognizerProperty(key: key, read: { g, v, p, r in
            let n = try r.reader.number(v, p)
            guard n >= 0 else { throw r.reader.error(p, "must not be negative, found \(n)") }
            (typed(g) as R)[keyPath: kp] = n
        }, write: { g, w in w.key(string: key); w.number((typed(g) as R)[keyPath: kp]) }, form: .number(min: 0))
    }

    /// A list of names of a `NamedOptions` set (`["left", "right"]`). An empty list is an error, or,
    /// with `whenEmpty`, a warning saying what that means.
    package static func names<R: GestureRecognizer, O: NamedOptions>(_ key: String, _ kp: ReferenceWritableKeyPath<R, O> & Sendable, what: String,
                                                              whenEmpty warning: String? = nil) -> RecognizerProperty {
        RecognizerProperty(key: key, read: { g, v, p, r in
            var set: O = []
            for (i, name) in try r.reader.strings(v, p).enumerated() {
                guard let member = O(name: name) else {
                    let hint = DidYouMean.hint(name, in: O.readableNames)
                    throw r.reader.error("\(p)[\(i)]", "unknown \(what) \"\(name)\"\(hint); one of \(O.readableNames.joined(separator: ", "))")
                }
                set.formUnion(member)
            }
            if set.isEmpty {
                guard let warning else { throw r.reader.error(p, "needs at least one \(what)") }
                r.warnings.append("\(r.reader.file): \(p): \(warning)")
            }
            (typed(g) as R)[keyPath: kp] = set
        }, write: { g, w in
            w.key(string: key)
            w.beginArray()
            for name in (typed(g) as R)[keyPath: kp].names { w.string(name) }
            w.endArray()
        }, alwaysInFiles: true, form: .names(O.readableNames))
    }
}

extension RecognizerProperty {
    /// `"allowedTouchTypes": ["pencil"]` (P5): written only when not every type, as UIKit's default is.
    package static func touchTypes(_ key: String) -> RecognizerProperty {
        RecognizerProperty(key: key, read: { g, v, p, r in
            var set: TouchTypes = []
            for (i, name) in try r.reader.strings(v, p).enumerated() {
                guard let member = TouchTypes(name: name) else {
                    let hint = DidYouMean.hint(name, in: TouchTypes.readableNames)
                    throw r.reader.error("\(p)[\(i)]", "unknown touch type \"\(name)\"\(hint); one of \(TouchTypes.readableNames.joined(separator: ", "))")
                }
                set.formUnion(member)
            }
            guard !set.isEmpty else { throw r.reader.error(p, "needs at least one touch type (an empty list takes no touch at all)") }
            g.allowedTouchTypes = set
        }, write: { g, w in
            guard g.allowedTouchTypes != .all else { return }
            w.key(string: key)
            w.beginArray()
            for name in g.allowedTouchTypes.names { w.string(name) }
            w.endArray()
        }, form: .names(TouchTypes.readableNames))
    }
}

/// What a property reads with: the scene's reader (errors with paths and lines) and its warnings.
package struct PropertyReader {
    package let reader: ConfigReader
    package var warnings: [String] = []
    /// Where a file the scene names (a stroke's templates) is read from: the scene file's directory;
    /// nil where no file may be read (a client scene, from the socket or a broker).
    package var filesDirectory: String? = nil
}

/// One recognizer type of the scene format (`"type": "tap"`): the class it makes and its properties.
package struct RecognizerSchema: Sendable {
    package let kind: RecognizerKind
    package let make: @Sendable () -> GestureRecognizer
    package let properties: [RecognizerProperty]
    /// A check across properties once all are read: what is wrong, or nil.
    package var check: @Sendable (GestureRecognizer) -> String? = { _ in nil }

    /// Every recognizer's own properties (UIGestureRecognizer's), in the order they are written.
    package static let common: [RecognizerProperty] = [
        .bool(enabledKey, \GestureRecognizer.isEnabled),
        .bool("cancelsTouchesInView", \GestureRecognizer.cancelsTouchesInView),
        .bool("delaysTouchesBegan", \GestureRecognizer.delaysTouchesBegan),
        .bool("delaysTouchesEnded", \GestureRecognizer.delaysTouchesEnded),
        .touchTypes("allowedTouchTypes"),
    ]

    /// Keys the scene builder reads itself: the name, the type, and the links between recognizers.
    package static let nameKey = "name", typeKey = "type", requireToFailKey = "requireToFail", simultaneousKey = "simultaneousWith"
    /// What the recognizer does on the desktop (Action, README "Actions").
    package static let actionKey = "action", enabledKey = "enabled"
    /// Where it takes part: the focused app's patterns (AppScope, docs/focus.md).
    package static let appsKey = "apps", exceptAppsKey = "exceptApps"
    /// The scene line's word on a scoped recognizer: in scope of the focused app now. Not a file's key.
    package static let activeKey = "inScope"

    package static let all: [RecognizerSchema] = [
        RecognizerSchema(kind: .tap, make: TapGestureRecognizer.init, properties: [
            .int("numberOfTapsRequired", \TapGestureRecognizer.numberOfTapsRequired, min: 1),
            .int("numberOfTouchesRequired", \TapGestureRecognizer.numberOfTouchesRequired, min: 1),
        ]),
        RecognizerSchema(kind: .longPress, make: LongPressGestureRecognizer.init, properties: [
            .nonNegative("minimumPressDuration", \LongPressGestureRecognizer.minimumPressDuration),
            .nonNegative("allowableMovement", \LongPressGestureRecognizer.allowableMovement),
            .int("numberOfTapsRequired", \LongPressGestureRecognizer.numberOfTapsRequired, min: 0),
            .int("numberOfTouchesRequired", \LongPressGestureRecognizer.numberOfTouchesRequired, min: 1),
        ]),
        RecognizerSchema(kind: .pan, make: PanGestureRecognizer.init, properties: [
            .int("minimumNumberOfTouches", \PanGestureRecognizer.minimumNumberOfTouches, min: 1),
            // Unlimited (Int.max) unless a file says otherwise: written only when it does.
            .int("maximumNumberOfTouches", \PanGestureRecognizer.maximumNumberOfTouches, min: 1, unwritten: Int.max),
        ], check: { g in
            guard let pan = g as? PanGestureRecognizer else { return nil }
            return pan.maximumNumberOfTouches < pan.minimumNumberOfTouches
                ? "maximumNumberOfTouches (\(pan.maximumNumberOfTouches)) is below minimumNumberOfTouches (\(pan.minimumNumberOfTouches))" : nil
        }),
        RecognizerSchema(kind: .screenEdgePan, make: ScreenEdgePanGestureRecognizer.init, properties: [
            .names("edges", \ScreenEdgePanGestureRecognizer.edges, what: "edge", whenEmpty: "no edges: this screenEdgePan never fires"),
        ]),
        RecognizerSchema(kind: .swipe, make: SwipeGestureRecognizer.init, properties: [
            .names("direction", \SwipeGestureRecognizer.direction, what: "direction"),
            .int("numberOfTouchesRequired", \SwipeGestureRecognizer.numberOfTouchesRequired, min: 1),
        ]),
        RecognizerSchema(kind: .pinch, make: PinchGestureRecognizer.init, properties: []),
        RecognizerSchema(kind: .rotation, make: RotationGestureRecognizer.init, properties: []),
        // Follows a pencil above its view (HV1–HV4); its allowedTouchTypes must let pencils in.
        RecognizerSchema(kind: .hover, make: HoverGestureRecognizer.init, properties: [], check: { g in
            g.allowedTouchTypes.allows(.pencil) ? nil : "allowedTouchTypes leaves out \"pencil\": this hover never follows anything"
        }),
        // A drawn shape among templates (ST1–ST6); the built-in shapes unless "templates" says others.
        RecognizerSchema(kind: .stroke, make: StrokeGestureRecognizer.init, properties: StrokeSchema.properties, check: StrokeSchema.check),
    ]

    /// The schema of a scene file's `"type"`.
    package static func named(_ type: String) -> RecognizerSchema? { all.first { $0.kind.name.description == type } }

    /// `"apps"` and `"exceptApps"`, each when not empty.
    package static func writeScope(_ scope: AppScope, _ w: inout JSONWriter) {
        for (key, patterns) in [(appsKey, scope.apps), (exceptAppsKey, scope.exceptApps)] where !patterns.isEmpty {
            w.key(string: key)
            w.beginArray()
            for p in patterns { w.string(p) }
            w.endArray()
        }
    }

    /// The schema of a recognizer's class (nil for a class the format does not know).
    package static func of(_ g: GestureRecognizer) -> RecognizerSchema? {
        let kind = RecognizerKind(g)
        return all.first { $0.kind == kind }
    }

    /// The keys a recognizer of this type may have, in the order error messages list them.
    package var allowedKeys: [String] {
        [Self.nameKey, Self.typeKey] + Self.common.map(\.key) + [Self.requireToFailKey, Self.simultaneousKey] + properties.map(\.key) + [Self.appsKey, Self.exceptAppsKey, Self.actionKey]
    }

    /// Every type's name, for messages.
    package static var typeNames: [String] { all.map { $0.kind.name.description } }

    /// The names of the discrete types (tap, swipe: one `recognized` line a gesture), for readers of
    /// scene lines that tell a gesture's one moment from a continuous gesture's began.
    package static let discreteTypeNames: Set<String> = Set(all.filter { $0.make().isDiscrete }.map { $0.kind.name.description })

    /// A scene file's entry for `g`, as a person writes one: the name, the type, the properties whose
    /// values are not its type's defaults, then the names it requires to fail and is simultaneous with:
    /// `{"name": "doubleTap", "type": "tap", "numberOfTapsRequired": 2}`.
    package static func fileEntry(_ g: GestureRecognizer, requireToFail: [String] = [], simultaneousWith: [String] = [],
                          simultaneousWithEveryone: Bool = false, action: Action? = nil, scope: AppScope = AppScope()) -> String {
        guard let schema = of(g) else { preconditionFailure("scene schema: \(g) has no scene type") }
        let fresh = schema.make()
        func written(_ p: RecognizerProperty, _ r: GestureRecognizer) -> [UInt8] {
            var w = JSONWriter()
            w.beginObject()
            p.write(r, &w)
            w.endObject()
            return w.bytes
        }
        var w = JSONWriter()
        w.beginObject()
        w.key(string: nameKey); w.string(g.name ?? "")
        w.key(string: typeKey); w.staticString(schema.kind.name)
        for p in common + schema.properties where p.alwaysInFiles || written(p, g) != written(p, fresh) { p.write(g, &w) }
        for (key, names) in [(requireToFailKey, requireToFail), (simultaneousKey, simultaneousWith)] where !names.isEmpty {
            w.key(string: key)
            w.beginArray()
            for n in names { w.string(n) }
            w.endArray()
        }
        if simultaneousWithEveryone { w.key(string: simultaneousKey); w.staticString("*") }
        writeScope(scope, &w)
        if let action { w.key(string: actionKey); ActionSchema.write(action, discrete: g.isDiscrete, &w) }
        w.endObject()
        // Names and keys are plain words: a space after each colon and comma reads as a person writes.
        return String(decoding: w.bytes, as: UTF8.self).replacingSeparators()
    }
}

private extension String {
    func replacingSeparators() -> String {
        var out = ""
        var inString = false
        for c in self {
            out.append(c)
            if c == "\"" { inString.toggle() }
            if !inString && (c == ":" || c == ",") { out.append(" ") }
        }
        return out
    }
}
