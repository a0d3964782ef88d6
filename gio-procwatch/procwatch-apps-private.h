/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * Applications as a desktop starts them: systemd units named after their
 * application id (systemd's "Desktop Environments" naming), the id read
 * back from a unit's name, and the units of one id found below a cgroup.
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

gboolean  procwatch_app_id_is_valid          (const char  *app_id);
char     *procwatch_app_id_from_path         (const char  *path);
char     *procwatch_apps_find_user_manager   (const char  *own_cgroup,
                                              guint        uid);
GStrv     procwatch_apps_find                (const char  *app_id,
                                              const char  *under,
                                              GError     **error);

G_END_DECLS
