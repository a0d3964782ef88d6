/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 */

#include "config.h"

#include "procwatch-version.h"

/* The PROCWATCH_*_VERSION macros tell an application which headers it was
 * compiled against; these functions tell it which library it runs with,
 * which may be newer (or, from a binding, the only version it can see). */

/**
 * procwatch_get_major_version:
 *
 * Gets the major version of the gio-procwatch library in use at run time.
 *
 * [const@Procwatch.MAJOR_VERSION] is the version of the headers a program
 * was compiled against; this is the library it has loaded, which may be
 * newer. Language bindings see only this one.
 *
 * Returns: the major version, as in 1 for 1.2.3
 *
 * Since: 1.2
 */
guint
procwatch_get_major_version (void)
{
  return PROCWATCH_MAJOR_VERSION;
}

/**
 * procwatch_get_minor_version:
 *
 * Gets the minor version of the gio-procwatch library in use at run time.
 *
 * See [func@Procwatch.get_major_version] for how it differs from
 * [const@Procwatch.MINOR_VERSION].
 *
 * Returns: the minor version, as in 2 for 1.2.3
 *
 * Since: 1.2
 */
guint
procwatch_get_minor_version (void)
{
  return PROCWATCH_MINOR_VERSION;
}

/**
 * procwatch_get_micro_version:
 *
 * Gets the micro version of the gio-procwatch library in use at run time.
 *
 * See [func@Procwatch.get_major_version] for how it differs from
 * [const@Procwatch.MICRO_VERSION].
 *
 * Returns: the micro version, as in 3 for 1.2.3
 *
 * Since: 1.2
 */
guint
procwatch_get_micro_version (void)
{
  return PROCWATCH_MICRO_VERSION;
}
