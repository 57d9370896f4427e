import CEvdev
import CLinux
import Glibc
import TouchClients
import TouchCore
import TouchDaemon
import TouchInput
import TouchProtocol
import TouchScene
import TouchSystem

// Loading a scene file: flat views, each with a tap (a kiosk's generated layout).

/// The time to parse and build a scene of `n` flat views, each with one tap recognizer (the best of
/// three), in milliseconds. Loading is linear: names are checked in a table, not against every other.
func sceneLoadMillis(_ n: Int) -> Double {
    var text = "{\"window\": {\"width\": 1000, \"height\": 1000}, \"views\": ["
    for i in 0..<n {
        if i > 0 { text += "," }
        text += "{\"name\": \"v\(i)\", \"frame\": [\((i % 100) * 10), \((i / 100) % 100 * 10), 10, 10], "
            + "\"recognizers\": [{\"type\": \"tap\", \"name\": \"t\(i)\"}]}"
    }
    text += "]}"
    var best = Double.infinity
    for _ in 0..<3 {
        let t0 = now()
        guard let scene = try? Scene.parse(text, file: "bench") else { fatalError("bench: the generated scene does not parse") }
        best = min(best, Double(now() - t0) / 1e6)
        precondition(scene.recognizers.count == n)
    }
    return best
}
