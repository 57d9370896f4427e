import TouchCore
import TouchInput
import TouchProtocol
import TouchSystem

extension Scene {
    /// Builds views and recognizers, then links names (requireToFail, simultaneousWith).
    package struct Builder {
        let reader: ConfigReader
        /// The scene file's directory, where files it names are read from (a stroke's templates); nil
        /// for a scene from the socket or a broker, which may name no file of the daemon's machine.
        package var filesDirectory: String?
        var views: [View] = []
        /// Views with `"passthrough": false`: touches whose hit-test view is one of them, or inside one,
        /// never reach a mirror.
        var reserved: [View] = []
        /// Every view with its JSON path, for warnings.
        var viewPaths: [(View, String)] = []
        /// What is legal but surely not meant (`Scene.warnings`).
        package var warnings: [String] = []
        package var recognizers: [(recognizer: GestureRecognizer, path: String, requireToFail: [String], simultaneous: SimultaneousSpec)] = []
        /// Each name's place in `recognizers`: names are checked and looked up in constant time, so that
        /// a scene of n recognizers loads in time linear in n (a kiosk's generated layout can be large).
        var recognizerIndex: [String: Int] = [:]
        let delegate = SceneDelegate()
        /// The layout keys actions are typed in, and the actions read.
        let keyboard: KeyboardNames
        var actions: [(recognizer: GestureRecognizer, action: Action)] = []
        /// The recognizers with `apps` or `exceptApps`, and their scopes.
        var scopes: [(recognizer: GestureRecognizer, scope: AppScope)] = []
        /// Errors met so far (a compiler's way: every one it can, `ConfigErrors.limit` at most); reading
        /// goes on past each with the next view, recognizer or entry.
        var errors: [ConfigError] = []
        /// Recognizers whose definition had an error, by name: naming them elsewhere is not a second one.
        var failedNames: Set<String> = []

        package enum SimultaneousSpec { case none, everyone, names([String]) }

        /// Throws what was kept: one error as itself, several together in the order of the file.
        package func finish() throws {
            if errors.count == 1 { throw errors[0] }
            if errors.count > 1 {
                let ordered = errors.enumerated().sorted { ($0.element.line ?? 0, $0.offset) < ($1.element.line ?? 0, $1.offset) }.map(\.element)
                throw ConfigErrors(errors: ordered, stoppedAtLimit: false)
            }
        }

        /// Keeps `error` and goes on, unless the limit is reached (then every error so far, thrown).
        package mutating func note(_ error: Error) throws {
            guard let e = error as? ConfigError else { throw error }
            errors.append(e)
            if errors.count >= ConfigErrors.limit { throw ConfigErrors(errors: errors, stoppedAtLimit: true) }
        }

        package init(reader: ConfigReader, keyboard: KeyboardNames) {
            self.reader = reader
            self.keyboard = keyboard
        }

        /// A view and what it holds, key by key as `ViewSchema` reads them: the required ones first (a
        /// view is made from its frame), then the rest in the file's order.
        package mutating func view(_ json: JSON, _ path: String) throws -> View {
            let r = reader
            let members = try r.object(json, path, allowed: ViewSchema.allowed)
            func member(_ k: String) -> JSON? { members.first { $0.0 == k }?.1 }
            let view = View(frame: .zero)
            for key in ViewSchema.required {
                guard let v = member(key.key) else { throw r.error(path, key.missing!) }
                try key.read(&self, view, v, r.join(path, key.key))
            }
            views.append(view)
            viewPaths.append((view, path))
            for (k, v) in members {
                guard let key = ViewSchema.byKey[k], key.missing == nil else { continue }   // required: read above
                try key.read(&self, view, v, r.join(path, k))
            }
            return view
        }

        mutating func recognizer(_ json: JSON, _ path: String) throws -> GestureRecognizer {
            let r = reader
            // The scene line's derived "inScope" is read past: a saved line reads as the file it is.
            var json = json
            let derived = [RecognizerSchema.activeKey, StrokeSchema.templateNamesKey]
            if case .object(let members) = json, members.contains(where: { derived.contains($0.0) }) {
                json = .object(members.filter { !derived.contains($0.0) })
            }
            let types = RecognizerSchema.typeNames
            guard let typeJSON = json[RecognizerSchema.typeKey] else { throw r.error(path, "missing \"type\" (one of \(types.joined(separator: ", ")))") }
            let type = try r.string(typeJSON, r.join(path, RecognizerSchema.typeKey))
            guard let schema = RecognizerSchema.named(type) else {
                let hint = DidYouMean.hint(type, in: types)
                throw r.error(r.join(path, RecognizerSchema.typeKey), "unknown recognizer type \"\(type)\"\(hint); one of \(types.joined(separator: ", "))")
            }
            let members = try r.object(json, path, allowed: schema.allowedKeys)
            guard let nameJSON = json[RecognizerSchema.nameKey] else { throw r.error(path, "missing \"name\"") }
            let name = try r.string(nameJSON, r.join(path, RecognizerSchema.nameKey))
            guard !name.isEmpty else { throw r.error(r.join(path, RecognizerSchema.nameKey), "must not be empty: the socket's lines name the recognizer") }
            if let other = recognizerIndex[name] {
                throw r.error(r.join(path, RecognizerSchema.nameKey), "\"\(name)\" is already the name of \(recognizers[other].path); recognizer names must be unique")
            }
            let g = schema.make()
            g.name = name
            var requireToFail: [String] = []
            var simultaneous = SimultaneousSpec.none
            var properties = PropertyReader(reader: r)
            properties.filesDirectory = filesDirectory
            var scope = AppScope()
            var shapeActions: [(Action, String)] = []
            for (k, v) in members {
                let p = r.join(path, k)
                switch k {
                case RecognizerSchema.nameKey, RecognizerSchema.typeKey: break
                case RecognizerSchema.requireToFailKey: requireToFail = try r.strings(v, p)
                case RecognizerSchema.actionKey:
                    let names = keyboard
                    let layout = { () throws(KeyboardError) in try KeyboardLayout.compiled(names) }
                    if let list = v.arrayValue, g is StrokeGestureRecognizer {
                        // A stroke's actions, one a shape ("on": SHAPE).
                        for (i, item) in list.enumerated() { shapeActions.append((try ActionSchema.read(item, "\(p)[\(i)]", for: g, r, layout: layout), "\(p)[\(i)]")) }
                    } else {
                        shapeActions.append((try ActionSchema.read(v, p, for: g, r, layout: layout), p))
                    }
                case RecognizerSchema.appsKey, RecognizerSchema.exceptAppsKey:
                    let patterns = try r.strings(v, p)
                    if let i = patterns.firstIndex(where: \.isEmpty) { throw r.error("\(p)[\(i)]", "must not be empty: an app id or a shell pattern of one (\"firefox\", \"org.mozilla.*\")") }
                    if patterns.isEmpty {
                        warnings.append("\(r.file): \(p): an empty list \(k == RecognizerSchema.appsKey ? "is no scope: the recognizer takes part in every app" : "leaves no app out")")
                    }
                    if k == RecognizerSchema.appsKey { scope.apps = patterns } else { scope.exceptApps = patterns }
                case RecognizerSchema.simultaneousKey:
                    if v.stringValue == "*" { simultaneous = .everyone } else {
                        guard v.arrayValue != nil else { throw r.error(p, "must be an array of recognizer names or \"*\"") }
                        simultaneous = .names(try r.strings(v, p))
                    }
                default:
                    // `object(_:allowed:)` let only the schema's keys through.
                    let property = (RecognizerSchema.common + schema.properties).first { $0.key == k }!
                    try property.read(g, v, p, &properties)
                }
            }
            warnings += properties.warnings
            if let problem = schema.check(g) { throw r.error(path, problem) }
            for (a, p) in shapeActions {
                if case .touchpad(let o) = a.kind, let problem = ActionSchema.checkTouchpad(o, g) {
                    throw r.error(r.join(p, "touchpad"), problem)
                }
                if let shape = a.shape, let s = g as? StrokeGestureRecognizer {
                    let drawn = s.shapes.isEmpty ? s.prepared.names : s.shapes
                    guard drawn.contains(shape) else {
                        throw r.error(r.join(p, "on"), "\"\(shape)\" is no shape of this stroke\(DidYouMean.hint(shape, in: drawn)); it draws \(drawn.joined(separator: ", "))")
                    }
                }
                actions.append((g, a))
            }
            if !scope.isEmpty { scopes.append((g, scope)) }
            g.delegate = delegate
            recognizerIndex[name] = recognizers.count
            recognizers.append((g, path, requireToFail, simultaneous))
            return g
        }

        /// Views no touch can reach: entirely outside their superview's bounds (H6), or the window's.
        func unreachable(in window: Window) -> [String] {
            viewPaths.compactMap { view, path in
                guard let parent = view.superview, !view.frame.intersects(parent.bounds) else { return nil }
                let whose = parent === window ? "the window" : "its superview"
                return "\(reader.file): \(path) \"\(view.name ?? "")\": entirely outside \(whose): no touch can reach it (H6)"
            }
        }


        /// Resolves names once every recognizer exists.
        package mutating func link() throws {
            let r = reader
            func find(_ name: String, _ path: String) throws -> GestureRecognizer {
                guard let g = recognizerIndex[name].map({ recognizers[$0].recognizer }) else {
                    let names = recognizers.compactMap { $0.recognizer.name }
                    let hint = DidYouMean.hint(name, in: names)
                    throw r.error(path, "no recognizer is named \"\(name)\"\(hint)")
                }
                return g
            }
            for entry in recognizers {
                for (i, name) in entry.requireToFail.enumerated() where !failedNames.contains(name) {
                    let p = "\(entry.path).requireToFail[\(i)]"
                    let other: GestureRecognizer
                    do { other = try find(name, p) } catch { try note(error); continue }
                    guard other !== entry.recognizer else { try note(r.error(p, "a recognizer cannot require its own failure")); continue }
                    entry.recognizer.require(toFail: other)
                    if other is HoverGestureRecognizer || entry.recognizer is HoverGestureRecognizer {
                        warnings.append("\(p): a hover follows the pencil outside touch sequences and never fails or waits (HV4): this requirement does nothing")
                    }
                }
                switch entry.simultaneous {
                case .none: break
                case .everyone: delegate.everyone.insert(ObjectIdentifier(entry.recognizer))
                case .names(let names):
                    for (i, name) in names.enumerated() where !failedNames.contains(name) {
                        let other: GestureRecognizer
                        do { other = try find(name, "\(entry.path).simultaneousWith[\(i)]") } catch { try note(error); continue }
                        delegate.allow(entry.recognizer, other)
                        delegate.declared[ObjectIdentifier(entry.recognizer), default: []].append(other)
                    }
                }
            }
        }
    }
}
