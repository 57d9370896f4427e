import TouchProtocol
import TouchScene
import TouchSystem

extension Ctl {
    /// `listen`: prints the daemon's lines until it goes away (exit 1, so that a supervisor restarts it).
    package static let listen = Command("listen", "print the daemon's lines: gestures, and the topics asked for; exits 1 when\nthe daemon goes away", options: [
        .flag("touches", "also every touch of every frame"),
        .flag("devices", "also touchscreens coming, going and changing mapping"),
        .flag("recognizers", "also every recognizer's transitions, with their causes"),
        .flag("scene", "also the scene being served, now and whenever it changes"),
        .flag("actions", "also every action written to the keyboard and pointer devices"),
        .flag("activity", "also a line when a device's first finger lands and when its last lifts"),
        DaemonSocket.option,
    ]) { a in
        try a.expect(0, "nothing")
        let client = try SocketClient(path: try DaemonSocket.path(a))
        // Gestures always; the other topics as asked (each flag is named after its topic).
        try client.subscribe(["gestures"] + ClientCommand.topicNames.filter { $0 != "gestures" && a.has($0) })
        var out = StandardOutput()
        while let line = client.readLine() {
            out.line(line)
            out.flush()
        }
        // A pipe's reader sees the end of the stream; a supervisor sees a failure and restarts it.
        FileHandleStandardError.write("touchbridgectl listen: the daemon closed the connection\n")
        return 1
    }
}
