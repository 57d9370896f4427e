import TouchProtocol
import TouchScene
import TouchSystem

extension Ctl {
    /// `visualize`: the live page (VisualizeServer), whose address is printed once.
    package static let visualize = Command("visualize", "serve a live page of the daemon's touches, views and recognizers", options: [
        .option("listen", "ADDR:PORT", "where the page is served (default \(VisualizeServer.defaultAddress)); an address\nother than loopback lets whoever reaches it and has the token see the page"),
        .flag("touches", "show the touches too (a touch stream shows what is typed on an on-screen\nkeyboard: asked for, as the socket's readers must ask)"),
        .flag("no-token", "serve without the token the printed address carries (a trusted kiosk only:\nevery local user and every page in a browser here may then read it)"),
        DaemonSocket.option,
    ]) { a in
        try a.expect(0, "nothing")
        let log = Logger(program: "touchbridgectl visualize")
        let server = try VisualizeServer(address: a["listen"] ?? VisualizeServer.defaultAddress, socketPath: try DaemonSocket.path(a),
                                         requireToken: !a.has("no-token"), touches: a.has("touches"), log: log)
        // The address once, on standard output, where a script can take it.
        var out = StandardOutput()
        out.line("touchbridgectl visualize: open \(server.url) in a browser (the daemon: \(server.socketPath))")
        out.flush()
        return try server.run()
    }
}
