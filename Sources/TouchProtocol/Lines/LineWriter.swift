import TouchSystem

/// The writer the hot lines (gestures, touches) are made with: a JSON writer that keeps the last
/// timestamp it formatted, since every line of an event carries the same one.
package struct LineWriter {
    package init() {}

    package var json = JSONWriter(capacity: 512)
    private var lastTime = Double.nan
    /// The last time as written, in fixed storage.
    private static let timeCapacity = 40
    private let lastTimeBytes = UnsafeMutablePointer<UInt8>.allocate(capacity: LineWriter.timeCapacity)
    private var lastTimeCount = 0

    /// Frees the time's storage: call once, when the owner goes away.
    package func free() { lastTimeBytes.deallocate() }

    /// Writes `t` (seconds) as a JSON number, formatting it only when it differs from the last one.
    @inline(__always)
    package mutating func time(_ t: Double) {
        if t == lastTime {
            json.raw(UnsafeBufferPointer(start: lastTimeBytes, count: lastTimeCount))
            return
        }
        let start = json.count
        json.number(t)
        let count = json.count - start
        if count <= LineWriter.timeCapacity {
            json.withBytes { lastTimeBytes.update(from: $0.baseAddress! + start, count: count) }
            lastTimeCount = count
            lastTime = t
        }
    }
}
