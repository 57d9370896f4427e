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
        .flag("focus", "also the focused app, now and whenever it changes"),
        DaemonSocket.option,
    ]) { a in
        try a.expect(0, "nothing")
        // Gestures always; the other topics as asked (each flag is named after its topic).
        let loop = try EventLoop()
        let daemon = try DaemonConnection(path: try DaemonSocket.path(a),
                                          topics: ["gestures"] + Topics.names.filter { $0 != "gestures" && a.has($0) },
                                          loop: loop, reconnects: false)
        var out = StandardOutput()
        // Written as it comes: a slow reader of stdout holds this process back, and the daemon's
        // bounded queue for it then drops this connection, not the others.
        daemon.onLine = { line in
            out.line(line.array)
            out.flush()
        }
        try daemon.runOnce(loop)
        // A pipe's reader sees the end of the stream; a supervisor sees a failure and restarts it.
        FileHandleStandardError.write("touchbridgectl listen: the daemon closed the connection\n")
        return 1
    }
}
