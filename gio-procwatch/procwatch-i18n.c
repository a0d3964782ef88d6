/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 */

#include "config.h"

#include "procwatch-i18n-private.h"

/* Binds the domain once, from whichever thread asks first: a monitor may
 * live in any thread. UTF-8 whatever the locale's charset, as GError
 * messages are UTF-8. */
static void
ensure_text_domain (void)
{
  static gsize initialized = 0;

  if (g_once_init_enter (&initialized))
    {
      bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
      bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
      g_once_init_leave (&initialized, 1);
    }
}

/* The translation of @msgid for the current locale, from the library's
 * domain. g_dgettext, unlike dgettext, leaves an English message alone in
 * a program that is itself untranslated for this locale. */
const char *
procwatch_gettext (const char *msgid)
{
  ensure_text_domain ();
  return g_dgettext (GETTEXT_PACKAGE, msgid);
}
