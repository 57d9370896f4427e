import Testing
import TouchInput
@testable import TouchClients
@testable import TouchDaemon
@testable import TouchScene
@testable import TouchProtocol
@testable import TouchSystem

/// `touchbridgectl bind`'s bindings: a file's, and lisgd-style `-g NAME=COMMAND` ones.
@Suite("Bindings: files, -g one-liners, programs looked up at start")
struct BindingsTests {
    @Test("A -g command is split into words as a shell would: blanks, quotes, backslashes")
    func words() throws {
        #expect(try Bindings.words("playerctl next") == ["playerctl", "next"])
        #expect(try Bindings.words(#"notify-send "two words" 'it''s' a\ b"#) == ["notify-send", "two words", "its", "a b"])
        #expect(try Bindings.words(#"sh -c "echo \"q\" \$HOME""#) == ["sh", "-c", #"echo "q" $HOME"#])
        #expect(try Bindings.words(#"x "" y"#) == ["x", "", "y"])
        #expect(throws: BindingsError.self) { try Bindings.words("echo 'open") }
    }

    @Test("-g NAME=COMMAND and name:state, checked as a file's are")
    func gestures() throws {
        let b = try Bindings.parse(gestures: ["swipeLeft=playerctl next", "pan:began=notify-send 'pan: on'", "x=a=b"])
        #expect(b.commands.map(\.key) == ["swipeLeft", "pan:began", "x"])
        #expect(b.commands.map(\.argv) == [["playerctl", "next"], ["notify-send", "pan: on"], ["a=b"]])
        #expect(b.matches(recognizer: "swipeLeft", state: "recognized") == [["playerctl", "next"]])
        #expect(throws: BindingsError.self) { try Bindings.parse(gestures: ["pan:begun=true"]) }
        #expect(throws: BindingsError.self) { try Bindings.parse(gestures: ["nothing"]) }
    }

    @Test("Programs not on the PATH are found at start, each once with its binding")
    func missing() throws {
        let b = try Bindings.parse(gestures: ["a=sh -c true", "b=no-such-program-here x", "c=no-such-program-here", "d=/bin/sh", "e=/no/such"])
        let missing = b.missingPrograms(path: "/usr/bin:/bin")
        #expect(missing.map(\.key) == ["b", "c", "e"])
        #expect(missing.map(\.program) == ["no-such-program-here", "no-such-program-here", "/no/such"])
    }

    @Test("A bindings file's errors name the file, the line and the key, every one at once")
    func fileErrors() throws {
        let text = "{\n  \"doubleTap\": [\"xdotool\", \"key\", \"F11\"],\n  \"pan:begun\": [\"true\"],\n  \"swipe\": \"playerctl next\"\n}"
        do {
            _ = try Bindings.parse(text, file: "b.json")
            Issue.record("parsed")
        } catch let e as ConfigErrors {
            #expect(e.errors.map(\.description) == [
                #"b.json:3: pan:begun: unknown state "begun" (did you mean "began"?); one of recognized, began, changed, ended, cancelled, value"#,
                "b.json:4: swipe: must be a non-empty array of strings (the program and its arguments; no shell)",
            ])
        }
        #expect(try Bindings.parse(#"{"pan:ended": ["true"]}"#, file: "b.json").commands.map(\.key) == ["pan:ended"])
    }

    @Test("A slider's values: its name alone or name:value runs on each value, not on its pan's end; $TOUCHBRIDGE_VALUE is put in the argv")
    func sliderValues() throws {
        let b = try Bindings.parse(gestures: ["volume=wpctl set-volume @DEFAULT_AUDIO_SINK@ $TOUCHBRIDGE_VALUE", "light:value=echo ${TOUCHBRIDGE_VALUE}%"])
        #expect(b.matches(recognizer: "volume", state: Bindings.valueState) == [["wpctl", "set-volume", "@DEFAULT_AUDIO_SINK@", "$TOUCHBRIDGE_VALUE"]])
        #expect(b.matches(recognizer: "light", state: Bindings.valueState).count == 1)
        #expect(b.matches(recognizer: "volume", state: "ended", slider: true) == [])
        #expect(b.matches(recognizer: "volume", state: "ended").count == 1)          // a plain pan's name: its end
        #expect(Bindings.expand(["wpctl", "$TOUCHBRIDGE_VALUE", "${TOUCHBRIDGE_VALUE}%", "$HOME", "$TOUCHBRIDGE_VALUES"],
                                ["TOUCHBRIDGE_VALUE": "0.42"]) == ["wpctl", "0.42", "0.42%", "$HOME", "$TOUCHBRIDGE_VALUES"])
    }
}
