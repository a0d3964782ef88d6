/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * Preloaded into a test (LD_PRELOAD), this makes bindtextdomain() bind the
 * gio-procwatch domain to $PROCWATCH_TEST_LOCALEDIR instead of the install
 * prefix's locale directory: there meson builds the catalogues (po/ of the
 * build tree), so the library and the tool speak them uninstalled, each
 * binding its domain as it does when installed. Other domains, and every
 * call without the variable, go to the real bindtextdomain.
 */

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

char *bindtextdomain (const char *domain,
                      const char *dirname);

char *
bindtextdomain (const char *domain,
                const char *dirname)
{
  char *(*real_bindtextdomain) (const char *, const char *) = dlsym (RTLD_NEXT, "bindtextdomain");
  const char *test_dirname = getenv ("PROCWATCH_TEST_LOCALEDIR");

  /* A NULL dirname asks for the current binding: left alone. */
  if (test_dirname != NULL && dirname != NULL && domain != NULL &&
      strcmp (domain, GETTEXT_PACKAGE) == 0)
    dirname = test_dirname;

  return real_bindtextdomain (domain, dirname);
}
