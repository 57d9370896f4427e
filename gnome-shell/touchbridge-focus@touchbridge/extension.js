// TouchBridge focus: says which window is focused to `touchbridgectl follow-focus gnome` (docs/focus.md).
// Mutter tells the focused window to nobody outside the shell, so this extension exports one object on
// GNOME Shell's own session-bus connection, the one that owns org.gnome.Shell (the follower believes no
// other sender):
//   /org/touchbridge/Focus  org.touchbridge.Focus
//     Get() -> (s app, s title)              the focused window now
//     signal FocusChanged(s app, s title)    at each change of window, and of its title
// The app is the window's Wayland app id, or its X11 class under Xwayland (Meta.Window's wm_class); ""
// when no window is focused (the overview, the lock screen). Nothing else is read or changed.
import GLib from 'gi://GLib';
import Gio from 'gi://Gio';
import {Extension} from 'resource:///org/gnome/shell/extensions/extension.js';

const INTERFACE = `
<node>
  <interface name="org.touchbridge.Focus">
    <method name="Get">
      <arg type="s" direction="out" name="app"/>
      <arg type="s" direction="out" name="title"/>
    </method>
    <signal name="FocusChanged">
      <arg type="s" name="app"/>
      <arg type="s" name="title"/>
    </signal>
  </interface>
</node>`;

export default class TouchBridgeFocus extends Extension {
    enable() {
        this._object = Gio.DBusExportedObject.wrapJSObject(INTERFACE, this);
        this._object.export(Gio.DBus.session, '/org/touchbridge/Focus');
        this._window = null;
        this._titleId = 0;
        this._focusId = global.display.connect('notify::focus-window', () => this._focusChanged());
        this._focusChanged();
    }

    disable() {
        global.display.disconnect(this._focusId);
        this._watch(null);
        // The follower clears its focus: no window is known from here on.
        this._object.emit_signal('FocusChanged', new GLib.Variant('(ss)', ['', '']));
        this._object.unexport();
        this._object = null;
    }

    // org.touchbridge.Focus.Get
    Get() {
        return this._current();
    }

    _current() {
        const w = global.display.focus_window;
        if (!w)
            return ['', ''];
        return [w.get_wm_class() || w.get_gtk_application_id() || '', w.get_title() || ''];
    }

    _focusChanged() {
        this._watch(global.display.focus_window);
        this._tell();
    }

    // Follows the focused window's title (a terminal's command, a browser's page).
    _watch(window) {
        if (this._window && this._titleId)
            this._window.disconnect(this._titleId);
        this._window = window;
        this._titleId = window ? window.connect('notify::title', () => this._tell()) : 0;
    }

    _tell() {
        this._object.emit_signal('FocusChanged', new GLib.Variant('(ss)', this._current()));
    }
}
