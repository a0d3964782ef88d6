/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * The version an application compiles against and the one it runs with:
 * the macros of procwatch-version.h and the getters of the shared library.
 * What the availability macros make the compiler say is checked by
 * check-version-macros.sh, which compiles programs.
 */

#include <gio-procwatch/procwatch.h>

static void
test_runtime_matches_headers (void)
{
  /* Built in the same tree, so the library and the headers agree. */
  g_assert_cmpuint (procwatch_get_major_version (), ==, PROCWATCH_MAJOR_VERSION);
  g_assert_cmpuint (procwatch_get_minor_version (), ==, PROCWATCH_MINOR_VERSION);
  g_assert_cmpuint (procwatch_get_micro_version (), ==, PROCWATCH_MICRO_VERSION);
}

static void
test_matches_project (void)
{
  g_autofree char *runtime = g_strdup_printf ("%u.%u.%u",
                                              procwatch_get_major_version (),
                                              procwatch_get_minor_version (),
                                              procwatch_get_micro_version ());

  /* meson.build's project version, passed in by tests/meson.build. */
  g_assert_cmpstr (runtime, ==, PROJECT_VERSION);
  g_assert_cmpstr (PROCWATCH_VERSION_S, ==, PROJECT_VERSION);
}

static void
test_check_version (void)
{
  g_assert_true (PROCWATCH_CHECK_VERSION (PROCWATCH_MAJOR_VERSION,
                                          PROCWATCH_MINOR_VERSION,
                                          PROCWATCH_MICRO_VERSION));
  g_assert_true (PROCWATCH_CHECK_VERSION (1, 0, 0));
  g_assert_false (PROCWATCH_CHECK_VERSION (PROCWATCH_MAJOR_VERSION,
                                           PROCWATCH_MINOR_VERSION,
                                           PROCWATCH_MICRO_VERSION + 1));
  g_assert_false (PROCWATCH_CHECK_VERSION (PROCWATCH_MAJOR_VERSION,
                                           PROCWATCH_MINOR_VERSION + 1, 0));
  g_assert_false (PROCWATCH_CHECK_VERSION (PROCWATCH_MAJOR_VERSION + 1, 0, 0));
#if !PROCWATCH_CHECK_VERSION (1, 2, 0)
  g_assert_not_reached ();
#endif
}

static void
test_default_bounds (void)
{
  /* The next stable release, for a development snapshot (odd minor). */
  guint stable_minor = PROCWATCH_MINOR_VERSION + PROCWATCH_MINOR_VERSION % 2;

  g_assert_cmpuint (PROCWATCH_VERSION_1_0, <, PROCWATCH_VERSION_1_2);
  g_assert_cmpuint (PROCWATCH_VERSION_1_2, <, PROCWATCH_VERSION_1_4);
  g_assert_cmpuint (PROCWATCH_VERSION_MIN_REQUIRED, ==,
                    G_ENCODE_VERSION (PROCWATCH_MAJOR_VERSION, stable_minor));
  g_assert_cmpuint (PROCWATCH_VERSION_MAX_ALLOWED, ==, PROCWATCH_VERSION_MIN_REQUIRED);
  /* So an application that sets nothing may use everything declared. */
  g_assert_cmpuint (PROCWATCH_VERSION_MAX_ALLOWED, >=, PROCWATCH_VERSION_1_4);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/version/runtime-matches-headers", test_runtime_matches_headers);
  g_test_add_func ("/version/matches-project", test_matches_project);
  g_test_add_func ("/version/check-version", test_check_version);
  g_test_add_func ("/version/default-bounds", test_default_bounds);

  return g_test_run ();
}
