// SPDX-License-Identifier: LGPL-2.1-or-later
// SPDX-FileCopyrightText: 2026 The gio-procwatch authors
//
// The test extension for GNOME 45 and later (see watch-pids.js).

import {Extension} from 'resource:///org/gnome/shell/extensions/extension.js';

import {PidWatcher} from './watch-pids.js';

export default class PidWatcherExtension extends Extension {
    enable() {
        this._watcher = new PidWatcher();
    }

    disable() {
        this._watcher.destroy();
        this._watcher = null;
    }
}
