// sway's IPC (sway-ipc(7); i3 speaks the same) for follow-rotation and follow-focus: one non-blocking
// connection on the client's event loop, events and replies on the same socket.
import Glibc
import TouchProtocol
import TouchSystem

/// sway's IPC: "i3-ipc", the payload's length and the message type as 32-bit numbers in the host's
/// order, then JSON. Events have the type's high bit set; replies come in the order of the requests,
/// between events. Nothing here waits: requests queue when the socket is full, and what sway sent is
/// taken as it comes, whole messages handed out.
package final class SwayIPC {
    package let fd: FileDescriptor
    private var buffer: [UInt8] = []
    private let output = OutputQueue()
    private var chunk = [UInt8](repeating: 0, count: 65536)
    /// A message larger than this is no output list: the peer is not sway (16 MiB).
    private static let largest = 16 << 20

    package static let subscribe: UInt32 = 2, getOutputs: UInt32 = 3, getTree: UInt32 = 4
    package static let workspaceEvent: UInt32 = 0x8000_0000, outputEvent: UInt32 = 0x8000_0001,
                       windowEvent: UInt32 = 0x8000_0003, shutdownEvent: UInt32 = 0x8000_0006

    package init(path: String) throws {
        do { fd = try UnixSocket.connect(to: try UnixSocketAddress(path), nonBlocking: true) } catch {
            throw SocketError("sway's IPC socket \(path): \(error) (is sway running? SWAYSOCK names its socket)")
        }
    }

    deinit { fd.close() }

    /// Queues a request and sends what the socket takes; false when the socket failed. Whether bytes
    /// still wait is `isWaiting` (then `flush` when writable).
    package func send(_ type: UInt32, _ payload: String) -> Bool {
        var bytes = Array("i3-ipc".utf8)
        withUnsafeBytes(of: UInt32(payload.utf8.count)) { bytes += $0 }
        withUnsafeBytes(of: type) { bytes += $0 }
        bytes += Array(payload.utf8)
        guard output.append(bytes, limit: 1 << 20) else { return false }
        return flush()
    }

    /// Sends what waits; false when the socket failed.
    package func flush() -> Bool {
        if case .failed = output.flush(to: fd) { return false }
        return true
    }

    package var isWaiting: Bool { output.count > 0 }

    /// The whole messages sway sent that have arrived (reading without waiting); nil when sway closed
    /// the socket or sent what is not its protocol.
    package func receive() -> [(type: UInt32, payload: JSON?)]? {
        var messages: [(type: UInt32, payload: JSON?)] = []
        while true {
            switch chunk.withUnsafeMutableBytes({ UnixSocket.receive(fd, into: $0, dontWait: true) }) {
            case .failure, .success(0?): return nil
            case .success(nil): return messages
            case .success(let n?):
                buffer += chunk.prefix(n)
                while buffer.count >= 14 {
                    guard buffer.starts(with: Array("i3-ipc".utf8)) else { return nil }
                    let length = Int(buffer[6..<10].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })
                    let type = buffer[10..<14].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
                    guard length < SwayIPC.largest else { return nil }
                    guard buffer.count >= 14 + length else { break }
                    let payload = Array(buffer[14..<(14 + length)])
                    buffer.removeFirst(14 + length)
                    messages.append((type, try? JSONParser.parse(String(decoding: payload, as: UTF8.self))))
                }
            }
        }
    }
}
