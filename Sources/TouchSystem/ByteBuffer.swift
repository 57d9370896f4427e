/// Growable bytes behind a pointer: what the JSON writer writes into and what a client's unsent lines
/// wait in. Appending costs no uniqueness check and no reference counting (an `[UInt8]` property pays
/// both on every append), and short copies are made here a word at a time rather than by a call to
/// memmove: under emulation every call and return is a jump-target lookup, and after each context
/// switch a cold one (BENCHMARKS.md, "What dominates under emulation").
package final class ByteBuffer {
    package private(set) var base: UnsafeMutablePointer<UInt8>
    /// Bytes in use, from `base`.
    package var count = 0
    package private(set) var capacity: Int

    package init(capacity: Int = 64) {
        self.capacity = max(64, capacity)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// Makes room for `n` more bytes (capacity doubles).
    @inline(__always)
    package func reserve(_ n: Int) {
        guard count + n > capacity else { return }
        grow(to: count + n)
    }

    @inline(never)
    private func grow(to needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.update(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    @inline(__always)
    package func append(_ b: UInt8) {
        reserve(1)
        base[count] = b
        count += 1
    }

    @inline(__always)
    package func append(_ p: UnsafeBufferPointer<UInt8>) {
        reserve(p.count)
        guard let src = p.baseAddress else { return }
        let dst = base + count
        let n = p.count
        if n > 256 {
            dst.update(from: src, count: n)
        } else {
            var i = 0
            while i + 8 <= n {
                UnsafeMutableRawPointer(dst + i).storeBytes(of: UnsafeRawPointer(src + i).loadUnaligned(as: UInt64.self),
                                                           as: UInt64.self)
                i += 8
            }
            while i < n {
                dst[i] = src[i]
                i += 1
            }
        }
        count += n
    }

    /// Drops the first `n` bytes, moving the rest to the front.
    package func removeFirst(_ n: Int) {
        precondition(n >= 0 && n <= count, "removeFirst(\(n)) of \(count) bytes")
        base.update(from: base + n, count: count - n)         // overlapping: update(from:) copies as memmove does
        count -= n
    }

    /// Empties the buffer; storage above `limit` bytes is given back rather than kept for next time.
    package func removeAll(keepingCapacityUpTo limit: Int) {
        count = 0
        if capacity > limit {
            base.deallocate()
            capacity = 64
            base = .allocate(capacity: capacity)
        }
    }
}
