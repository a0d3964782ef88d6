/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * The library's messages go through gettext in its own text domain
 * (GETTEXT_PACKAGE, "gio-procwatch-1.0"), never the application's. As in
 * GLib (glibintl.h), _() binds that domain to its catalogues on first use:
 * a message is made wherever an error is, not only after some type's
 * class_init has run.
 */

#pragma once

#include "config.h"   /* GETTEXT_PACKAGE, before gi18n-lib.h needs it */

#include <glib/gi18n-lib.h>

G_BEGIN_DECLS

const char *procwatch_gettext (const char *msgid) G_GNUC_FORMAT (1);

G_END_DECLS

#undef _
#define _(String) procwatch_gettext (String)
