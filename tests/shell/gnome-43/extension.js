// SPDX-License-Identifier: LGPL-2.1-or-later
// SPDX-FileCopyrightText: 2026 The gio-procwatch authors
//
// The test extension for GNOME 43 and 44 (see watch-pids.js), loading the
// shared ES module with import() as the example does.

'use strict';

class PidWatcherExtension {
    constructor(metadata) {
        this._moduleUri = metadata.dir.get_child('watch-pids.js').get_uri();
        this._watcher = null;
        this._enabled = false;
    }

    enable() {
        this._enabled = true;
        import(this._moduleUri).then(({PidWatcher}) => {
            if (this._enabled && !this._watcher)
                this._watcher = new PidWatcher();
        }).catch(error => logError(error, 'procwatch-test: cannot start'));
    }

    disable() {
        this._enabled = false;
        this._watcher?.destroy();
        this._watcher = null;
    }
}

function init(metadata) {
    return new PidWatcherExtension(metadata);
}
