// SPDX-License-Identifier: LGPL-2.1-or-later
// SPDX-FileCopyrightText: 2026 The gio-procwatch authors
//
// The extension for GNOME 45 and later, which load extensions as ES modules
// whose default export extends Extension.

import Shell from 'gi://Shell';
import {Extension} from 'resource:///org/gnome/shell/extensions/extension.js';
import * as Main from 'resource:///org/gnome/shell/ui/main.js';

import {AppExitNotifier} from './app-exit-notifier.js';

export default class AppExitsExtension extends Extension {
    enable() {
        this._notifier = new AppExitNotifier({
            display: global.display,
            windows: global.get_window_actors().map(actor => actor.get_meta_window()),
            windowTracker: Shell.WindowTracker.get_default(),
            notify: (title, body) => Main.notify(title, body),
        });
    }

    disable() {
        // Everything enable() set up goes: here the notifier's signal
        // handlers and its monitor, which closes its file descriptors.
        this._notifier.destroy();
        this._notifier = null;
    }
}
