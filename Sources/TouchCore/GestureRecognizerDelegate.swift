/// Fine-tunes a recognizer's behaviour (UIGestureRecognizerDelegate). Every method is optional: the
/// extension below gives UIKit's defaults.
public protocol GestureRecognizerDelegate: AnyObject {
    /// Asked when the recognizer is about to leave `possible`; false makes it fail (S5). Default true.
    func gestureRecognizerShouldBegin(_ gestureRecognizer: GestureRecognizer) -> Bool
    /// Whether the two may be recognized at the same time; either delegate saying true is enough (X2).
    /// Default false.
    func gestureRecognizer(_ gestureRecognizer: GestureRecognizer,
                           shouldRecognizeSimultaneouslyWith other: GestureRecognizer) -> Bool
    /// True: `gestureRecognizer` waits for `other` to fail (F2). Default false.
    func gestureRecognizer(_ gestureRecognizer: GestureRecognizer,
                           shouldRequireFailureOf other: GestureRecognizer) -> Bool
    /// True: `other` waits for `gestureRecognizer` to fail (F2). Default false.
    func gestureRecognizer(_ gestureRecognizer: GestureRecognizer,
                           shouldBeRequiredToFailBy other: GestureRecognizer) -> Bool
    /// Asked before a new touch is delivered; false keeps the touch out of the gesture (P2). Default true.
    func gestureRecognizer(_ gestureRecognizer: GestureRecognizer, shouldReceive touch: Touch) -> Bool

    /// Not in UIKit; for scenes of many recognizers. Whether this delegate may say yes to
    /// `shouldRequireFailureOf` or `shouldBeRequiredToFailBy` (F2): those are asked for every pair of
    /// recognizers taking part in a sequence, and a delegate that never says yes saves them all by
    /// answering false. Default true (every pair is asked).
    var answersFailureRequirements: Bool { get }
    /// Not in UIKit; for scenes of many recognizers. True when `shouldRecognizeSimultaneouslyWith` says
    /// yes for `gestureRecognizer` whatever the other one (X2): it then neither prevents nor is
    /// prevented by anyone, and no pair of it is asked. Default false.
    func recognizesSimultaneouslyWithEveryone(_ gestureRecognizer: GestureRecognizer) -> Bool
}

extension GestureRecognizerDelegate {
    public func gestureRecognizerShouldBegin(_ gestureRecognizer: GestureRecognizer) -> Bool { true }
    public func gestureRecognizer(_ gestureRecognizer: GestureRecognizer,
                                  shouldRecognizeSimultaneouslyWith other: GestureRecognizer) -> Bool { false }
    public func gestureRecognizer(_ gestureRecognizer: GestureRecognizer,
                                  shouldRequireFailureOf other: GestureRecognizer) -> Bool { false }
    public func gestureRecognizer(_ gestureRecognizer: GestureRecognizer,
                                  shouldBeRequiredToFailBy other: GestureRecognizer) -> Bool { false }
    public func gestureRecognizer(_ gestureRecognizer: GestureRecognizer, shouldReceive touch: Touch) -> Bool { true }
    public var answersFailureRequirements: Bool { true }
    public func recognizesSimultaneouslyWithEveryone(_ gestureRecognizer: GestureRecognizer) -> Bool { false }
}
