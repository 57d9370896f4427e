extension Ctl {
    /// `visualize`: the live page (VisualizeServer), whose address is printed once.
    static let visualize = Command("visualize", "serve a live page of the daemon's touches, views and recognizers", options: [
        .option("listen", "ADDR:PORT", "where the page is served (default \(VisualizeServer.defaultAddress)); an address\nother than loopback lets anyone who reaches it see every touch"),
        socketOption,
    ]) { a in
        try a.expect(0, "nothing")
        let log = Logger(program: "touchbridgectl visualize")
        let server = try VisualizeServer(address: a["listen"] ?? VisualizeServer.defaultAddress, socketPath: try socketPath(a), log: log)
        // The address once, on standard output, where a script can take it.
        var out = StandardOutput()
        out.line("touchbridgectl visualize: open \(server.url) in a browser (the daemon: \(server.socketPath))")
        out.flush()
        return try server.run()
    }
}
