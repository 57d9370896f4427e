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

func now() -> UInt64 { MonotonicClock.nanoseconds() }

func format2(_ v: Double) -> String { String((v * 100).rounded() / 100) }

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}

func rssMiB() -> Double {
    guard let text = try? Files.readText("/proc/self/status") else { return 0 }
    for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        let kb = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Double($0) } ?? 0
        return kb / 1024
    }
    return 0
}

func say(_ s: String) {
    print(s)
    fflush(nil)
}


/// The lines a benchmark's pipeline makes, kept in a buffer that is emptied now and then (as a client's
/// socket would take them): encoding is measured, not memory.
final class LineSink {
    var output: [UInt8] = []
    var lines = 0
    init() { output.reserveCapacity(1 << 20) }

    func take(_ bytes: UnsafeBufferPointer<UInt8>) {
        output.append(contentsOf: bytes)
        output.append(0x0a)
        lines += 1
        if output.count > 1 << 19 { output.removeAll(keepingCapacity: true) }
    }
}
