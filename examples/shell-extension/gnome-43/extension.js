// SPDX-License-Identifier: LGPL-2.1-or-later
// SPDX-FileCopyrightText: 2026 The gio-procwatch authors
//
// The extension for GNOME 43 and 44, which load extensions as scripts: init()
// returns an object with enable() and disable(), and modules come from
// `imports`. The shared code, an ES module, is loaded with import(), which
// GJS allows in scripts; enable() therefore completes a moment later, from
// the main loop, and disable() may come first.

'use strict';

const {Shell} = imports.gi;
const Main = imports.ui.main;

class AppExitsExtension {
    constructor(metadata) {
        this._moduleUri = metadata.dir.get_child('app-exit-notifier.js').get_uri();
        this._notifier = null;
        this._enabled = false;
    }

    enable() {
        this._enabled = true;
        import(this._moduleUri).then(({AppExitNotifier}) => {
            // Disabled again, or enabled twice, before the module came.
            if (!this._enabled || this._notifier)
                return;
            this._notifier = new AppExitNotifier({
                display: global.display,
                windows: global.get_window_actors().map(actor => actor.get_meta_window()),
                windowTracker: Shell.WindowTracker.get_default(),
                notify: (title, body) => Main.notify(title, body),
            });
        }).catch(error => logError(error, 'app-exits: cannot start'));
    }

    disable() {
        // Everything enable() set up goes: here the notifier's signal
        // handlers and its monitor, which closes its file descriptors.
        this._enabled = false;
        this._notifier?.destroy();
        this._notifier = null;
    }
}

function init(metadata) {
    return new AppExitsExtension(metadata);
}
