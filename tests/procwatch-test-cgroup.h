/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * Scratch cgroups for tests that use only the public API: found through
 * /proc/self/mountinfo, made below one root per run that a supervising
 * process removes, also when a test fails or is killed.
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Call first in main(), before the test framework: makes the run's root
 * and forks; the caller goes on as the tests, while the supervisor waits
 * for them, cleans up and exits with their status. Test subprocesses
 * (g_test_trap_subprocess()) find the root through the environment and
 * start no supervisor of their own. Without a writable cgroup2 mount it
 * does nothing and remembers why. */
void        test_cgroups_set_up      (void);
/* Skips the test, saying why, where cgroups cannot be made; fails it
 * instead when PROCWATCH_TEST_REQUIRE_CGROUP=1 (a lane that provides them)
 * or PROCWATCH_TEST_REQUIRE_ALL is set (CI). */
gboolean    test_cgroups_skip        (void);
/* The cgroup2 mount point, and the run's root as /proc/<pid>/cgroup names
 * it: valid once test_cgroups_skip() is false. */
const char *test_cgroups_get_mount_point (void);
const char *test_cgroups_get_root        (void);
/* The run's root as a directory under the mount point. */
const char *test_cgroups_get_directory   (void);

typedef struct
{
  char *absolute;
  char *relative;   /* as /proc/<pid>/cgroup names it */
} TestCgroup;

TestCgroup *test_cgroup_new          (const char *name);
/* Removes it; it must be empty by then (the supervisor removes what a
 * failed test leaves). */
void        test_cgroup_free         (TestCgroup *cgroup);
void        test_cgroup_move         (TestCgroup *cgroup,
                                      GPid        pid);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TestCgroup, test_cgroup_free)

G_END_DECLS
