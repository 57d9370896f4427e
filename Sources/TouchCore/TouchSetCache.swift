/// The `Set<Touch>` handed to a recognizer for one phase, kept from one event to the next.
///
/// A recognizer's touches… methods take sets (UIKit's API), and building a set hashes every touch.
/// While fingers move, each event delivers the same touches as the last one, so the set is kept with
/// the touches it was made of, in order, and handed out again when they match: comparing identities
/// costs a load per touch, hashing costs a hundred instructions. The cache holds its touches until
/// the next event that differs, or until `clear()` at the end of the sequence (S4).
struct TouchSetCache {
    private var members: [Touch] = []
    private var cached: Set<Touch> = []

    /// The set of those `touches` that are in `phase` (and, with `serial`, part of that event).
    mutating func set(of touches: [Touch], phase: Touch.Phase, serial: Int?) -> Set<Touch> {
        let same = touches.withUnsafeBufferPointer { given in
            members.withUnsafeBufferPointer { kept in
                var count = 0
                for i in 0..<given.count {
                    // Not retained (both arrays hold their touches for the loop): this runs per
                    // recognizer and phase on every frame (ObjectArrays.swift, `forEachUnretained`).
                    unowned(unsafe) let t = given[i]
                    guard t.phase == phase && (serial == nil || t.lastEventSerial == serial) else { continue }
                    if count >= kept.count || kept[count] !== t { return false }
                    count += 1
                }
                return count == kept.count && count > 0
            }
        }
        if same { return cached }
        members.removeAll(keepingCapacity: true)
        for t in touches where t.phase == phase && (serial == nil || t.lastEventSerial == serial) {
            members.append(t)
        }
        // The old set's storage is refilled when no recognizer kept that set (the usual case): no
        // allocation, and no runtime lookup of the storage's generic metadata that a new one costs.
        cached.removeAll(keepingCapacity: true)
        for t in members { cached.insert(t) }
        return cached
    }

    /// Lets go of the touches.
    mutating func clear() {
        members = []
        cached = []
    }
}
