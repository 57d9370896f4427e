/// Counts quick successive taps at about the same place across touch objects (UITouch.tapCount, T7).
///
/// A new touch continues a count when it begins at most 0.35 s after an earlier touch of the same
/// device lifted, at most 45 pt from where that touch was, and the earlier touch was a tap: it travelled
/// at most 45 pt and was held at most 0.75 s. Otherwise the count starts again at 1. Each finished tap
/// continues at most one later touch, so a two-finger double tap gives both second fingers count 2.
struct TapCounter {
    /// T7: the longest pause between a lift and the next touch-down (s), UITapRecognizer's
    /// maximumIntervalBetweenSuccessiveTaps.
    static let maximumInterval = 0.35
    /// T7: how far apart successive taps may be, and how far a tap may travel (pt); undocumented.
    static let maximumDistance = 45.0
    /// T7: the longest a tap may be held (s), UITapRecognizer's maximumSingleTapDuration.
    static let maximumTapDuration = 0.75

    private struct FinishedTap {
        var device: Int
        var location: Point
        var liftTime: Double
        var tapCount: Int
    }

    private var recent: [FinishedTap] = []

    /// The tapCount for a touch of `device` beginning at `location` at `time`.
    mutating func tapCount(device: Int, location: Point, time: Double) -> Int {
        recent.removeAll { time - $0.liftTime > TapCounter.maximumInterval }
        var best: Int?
        var bestDistance = Double.infinity
        for (i, tap) in recent.enumerated() where tap.device == device {
            let d = tap.location.distance(to: location)
            if d <= TapCounter.maximumDistance && d < bestDistance {
                best = i
                bestDistance = d
            }
        }
        guard let best else { return 1 }
        let count = recent[best].tapCount + 1
        recent.remove(at: best)
        return count
    }

    /// Records a touch that ended (not cancelled); only a tap can continue a count.
    mutating func touchEnded(_ touch: Touch, at time: Double) {
        guard touch.maximumTravel <= TapCounter.maximumDistance,
              time - touch.startTimestamp <= TapCounter.maximumTapDuration else { return }
        recent.append(FinishedTap(device: touch.device, location: touch.screenLocation,
                                  liftTime: time, tapCount: touch.tapCount))
    }
}
