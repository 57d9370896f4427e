// Runs a KWin script as KWin's scripting does, for the KWin stand-in (mock_kwin.py): the script gets a
// `workspace` (KWin 6: windowActivated and activeWindow; KWin 5: clientActivated and activeClient) and
// `callDBus`, which prints each call as a JSON line for the stand-in to make on the bus. Lines on
// standard input drive the workspace: {"activate": [app, title]} (a window takes the focus; app "" for
// none), {"retitle": title} (the active window's caption changes).
//
//     node kwin_script_host.js SCRIPT 6|5 APP TITLE
'use strict';
const fs = require('fs');
const readline = require('readline');

const [file, api, app, title] = process.argv.slice(2);

function signal() {
    const handlers = [];
    return {
        connect: (f) => handlers.push(f),
        disconnect: (f) => { const i = handlers.indexOf(f); if (i >= 0) handlers.splice(i, 1); },
        emit: (...args) => handlers.slice().forEach((f) => f(...args)),
        get count() { return handlers.length; },
    };
}

function window(app, title) {
    return app ? { resourceClass: app, desktopFileName: '', caption: title, captionChanged: signal() } : null;
}

let active = window(app, title);
const workspace = api === '5'
    ? { clientActivated: signal(), get activeClient() { return active; } }
    : { windowActivated: signal(), get activeWindow() { return active; } };

function callDBus(service, path, iface, method, ...args) {
    process.stdout.write(JSON.stringify({ service, path, iface, method, args }) + '\n');
}

new Function('workspace', 'callDBus', fs.readFileSync(file, 'utf8'))(workspace, callDBus);

readline.createInterface({ input: process.stdin }).on('line', (line) => {
    const m = JSON.parse(line);
    if (m.activate) {
        active = window(m.activate[0], m.activate[1]);
        (api === '5' ? workspace.clientActivated : workspace.windowActivated).emit(active);
    } else if (m.retitle !== undefined && active) {
        active.caption = m.retitle;
        active.captionChanged.emit();
    }
});
