import TouchCore
import TouchScene

/// The focused app (docs/focus.md): which recognizers take part. A recognizer with `apps` takes part
/// only while one of them is focused, one with `exceptApps` only while none is (AppScope); while an app
/// of a device entry's `passthroughApps` is focused, that device's touches reach no recognizer (FO3). A
/// change takes effect when no finger is down on the window, at once or when the last lifts: a gesture
/// under way finishes as it began, as a rotation does (FO2).
extension Pipeline {
    /// The focused app, as last told (nil: none known); what the scopes follow once no finger is down.
    public var focusedApp: String? { focusState.told }

    /// Tells the pipeline the focused app (nil: none known).
    public func setFocus(app: String?) {
        focusState.told = app
        applyFocusWhenIdle()
    }

    /// The scopes follow the focus told, if no finger is down (called before each frame too).
    func applyFocusWhenIdle() {
        guard focusState.told != focusState.applied, application.activeTouches.isEmpty else { return }
        focusState.applied = focusState.told
        let scoped = applyScopes(scene.scopes + clientScenes.flatMap(\.scopes))
        if applyPassthroughApps() || scoped { onSceneChanged?() }
    }

    /// FO3: the devices whose entry's `passthroughApps` names the focus applied reach no recognizer
    /// with their new touches; whether that set changed (logged when it did).
    @discardableResult
    func applyPassthroughApps() -> Bool {
        var devices: Set<Int> = []
        if let app = focusState.applied {
            for (device, config) in deviceConfigs where config.passthroughApps.contains(where: { AppScope.matches($0, app) }) {
                devices.insert(device)
            }
        }
        guard devices != application.devicesWithoutRecognizers else { return false }
        let before = application.devicesWithoutRecognizers
        application.devicesWithoutRecognizers = devices
        for d in devices.subtracting(before).sorted() {
            log.info("device \(d): \(focusState.applied ?? "") is focused, one of its passthroughApps: its touches reach no recognizer, only the app")
        }
        for d in before.subtracting(devices).sorted() where deviceConfigs[d] != nil {
            log.info("device \(d): recognizers take part again")
        }
        return true
    }

    /// Scopes the recognizers by the focus applied (a new scene's and client scene's at once: they
    /// take part in nothing yet); whether any changed.
    @discardableResult
    func applyScopes(_ scopes: [(recognizer: GestureRecognizer, scope: AppScope)]) -> Bool {
        var changed = false
        for (r, scope) in scopes {
            let out = !scope.allows(focusState.applied)
            if r.isScopedOut != out {
                r.isScopedOut = out
                changed = true
            }
        }
        return changed
    }
}

/// The focus told and the one the scopes follow (one owner: the pipeline).
struct FocusState {
    var told: String?
    var applied: String?
}
