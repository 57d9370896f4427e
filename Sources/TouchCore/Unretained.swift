extension Array where Element: AnyObject {
    // Loops that run on every frame (ten touches, a dozen recognizers) without a retain and a release
    // per element: with dynamic dispatch in the body the compiler cannot prove the array keeps its
    // elements alive, and retains each one. `Unmanaged._withUnsafeGuaranteedRef` tells it the caller
    // does. (`unowned(unsafe) let element = …` does not help: using the reference makes a strong copy,
    // with an atomic retain.) Under emulation (the lab) every call is a jump-target lookup, so these
    // matter more than their native instruction counts say.
    //
    // Safe only while the array itself is kept alive and unchanged for the whole loop: the caller's
    // `let`, or a property that nothing called from `body` can replace. Where `body` may run someone
    // else's code (a delegate, a view, a client being dropped), walk a local copy of the property: the
    // copy holds the storage, and changing the property meanwhile is then no exclusivity violation.
    //
    // The loops are written out each: expressed through one another (`forEach` as `all`), the
    // nested closures are not inlined, and a frame passes 11 more call sites (scripts/callsites.py).

    /// Calls `body` with each element without retaining it.
    @inlinable @inline(__always)
    public func forEachUnretained(_ body: (Element) -> Void) {
        withUnsafeBufferPointer { elements in
            for i in 0..<elements.count {
                Unmanaged.passUnretained(elements[i])._withUnsafeGuaranteedRef(body)
            }
        }
    }

    /// Calls `body` with each element without retaining it, until it returns false; returns false then.
    @inlinable @inline(__always)
    public func allUnretained(_ body: (Element) -> Bool) -> Bool {
        withUnsafeBufferPointer { elements in
            for i in 0..<elements.count {
                if !Unmanaged.passUnretained(elements[i])._withUnsafeGuaranteedRef(body) { return false }
            }
            return true
        }
    }

    /// `allUnretained`, last element first.
    @inlinable @inline(__always)
    public func allUnretainedReversed(_ body: (Element) -> Bool) -> Bool {
        withUnsafeBufferPointer { elements in
            var i = elements.count
            while i > 0 {
                i -= 1
                if !Unmanaged.passUnretained(elements[i])._withUnsafeGuaranteedRef(body) { return false }
            }
            return true
        }
    }

    /// `contains(where:)` without retaining the elements.
    @inlinable @inline(__always)
    public func containsUnretained(where predicate: (Element) -> Bool) -> Bool {
        withUnsafeBufferPointer { elements in
            for i in 0..<elements.count {
                if Unmanaged.passUnretained(elements[i])._withUnsafeGuaranteedRef(predicate) { return true }
            }
            return false
        }
    }

    /// Whether `object` is an element (by identity), without retaining any.
    @inlinable @inline(__always)
    public func containsIdentical(_ object: Element) -> Bool {
        withUnsafeBufferPointer { elements in
            for i in 0..<elements.count where elements[i] === object { return true }
            return false
        }
    }
}
