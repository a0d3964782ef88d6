/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * What tests of the internals look at, compiled only into the internal
 * archive those tests link (PROCWATCH_TEST_SEAM), never into the shipped
 * library.
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

#ifdef PROCWATCH_TEST_SEAM

/* Times cgroup.events was read for an epoll event, for tests that hold the
 * cost of a dispatch independent of the number of cgroups watched. */
extern guint procwatch_test_seam_cgroup_event_reads;
/* Times an empty cgroup was read by its probe, for tests of the backoff. */
extern guint procwatch_test_seam_cgroup_probe_reads;

/* Times a watch read /proc/<pid>/cgroup (not found by cgroup id), and the
 * number of cgroup ids whose path is known now (procwatch-shared-string.c),
 * for tests of the path cache. */
extern guint procwatch_test_seam_cgroup_path_reads;
extern guint procwatch_test_seam_cgroup_ids_known;
/* Times the pidfd backend asked the kernel PIDFD_GET_INFO, and times a
 * process's parent was read from /proc/<pid>/status, for the test that
 * holds a watch and an exit on kernels without PIDFD_GET_INFO to neither. */
extern guint procwatch_test_seam_pidfd_info_asks;
extern guint procwatch_test_seam_parent_reads;
/* Called by a watch by pid between the opening of its handle and its reads
 * of /proc, for a test that reuses the pid there. */
extern void (*procwatch_test_seam_before_identity_read) (GPid pid);

struct procwatch_pidfd_info;
/* Rewrites every PIDFD_GET_INFO answer the kernel gave, before the library
 * reads it, and replaces uname ()'s release: what no seccomp filter can
 * change, for tests of how ProcwatchFeatures are decided (a kernel that
 * lists its supported bits, one that does not echo PIDFD_INFO_COREDUMP,
 * one of another release). NULL: the kernel's own. */
extern void (*procwatch_test_seam_pidfd_info_answer) (struct procwatch_pidfd_info *info);
extern const char *procwatch_test_seam_kernel_release;

/* The cgroup signal: the freeze limit in milliseconds (0: the default),
 * SIGKILL through the freeze as kernels before 5.14 have it, and a
 * freeze that never settles (the kernel's ways to make one need a file
 * system that hangs). */
extern guint procwatch_test_seam_freeze_limit_ms;
extern gboolean procwatch_test_seam_no_cgroup_kill;
extern gboolean procwatch_test_seam_freeze_never_settles;
/* Called when the freeze is taken to have settled, before the first
 * process is signalled, with the cgroup directory: for a test that reads
 * what the kernel says of every cgroup of the tree at that moment. */
extern void (*procwatch_test_seam_before_tree_signal) (int dir_fd);

#define PROCWATCH_TEST_SEAM_COUNT(counter) \
  g_atomic_int_inc ((gint *) &procwatch_test_seam_ ## counter)

#else

#define PROCWATCH_TEST_SEAM_COUNT(counter) G_STMT_START { } G_STMT_END

#endif

G_END_DECLS
