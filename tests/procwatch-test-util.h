/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * Real processes whose exit and reaping a test controls, as a child of the
 * test or as a grandchild held by an intermediate parent.
 */

#pragma once

#include <sys/resource.h>

#include <gio-procwatch/procwatch.h>

G_BEGIN_DECLS

typedef enum
{
  TEST_PROCESS_CHILD,
  TEST_PROCESS_GRANDCHILD,
  /* A grandchild whose parent ignores SIGCHLD: reaped by the kernel at exit. */
  TEST_PROCESS_GRANDCHILD_AUTOREAP,
} TestProcessKind;

typedef struct _TestProcess TestProcess;

TestProcess *test_process_spawn        (TestProcessKind  kind);
GPid         test_process_get_pid      (TestProcess     *process);
void         test_process_exit         (TestProcess     *process,
                                        int              code);
void         test_process_kill         (TestProcess     *process,
                                        int              sig);
void         test_process_await_exit   (TestProcess     *process);
int          test_process_reap         (TestProcess     *process);
void         test_process_free         (TestProcess     *process);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TestProcess, test_process_free)

/* Iterates @context until *@flag becomes true; fails the test after a
 * generous deadline instead of hanging. */
void         test_run_until            (GMainContext    *context,
                                        const gboolean  *flag);
void         test_run_until_count      (GMainContext    *context,
                                        const guint     *counter,
                                        guint            target);
/* Dispatches everything that is ready now, without blocking. */
void         test_drain_context        (GMainContext    *context);

guint        test_count_open_fds       (void);

/* A thread of the test that has started and waits to be let go, so that
 * its task id can be watched; release lets it end and joins it. */
typedef struct _TestParkedThread TestParkedThread;

TestParkedThread *test_parked_thread_new      (void);
GPid              test_parked_thread_get_tid  (TestParkedThread *thread);
void              test_parked_thread_release  (TestParkedThread *thread);

/* Records every signal of a monitor, in order. */
typedef struct
{
  GPid pid;
  ProcwatchProcess *process;
  ProcwatchProcessState state;   /* "exited" or "reaped" */
  gboolean had_status;
  int status;
  GThread *thread;
} TestEvent;

typedef struct
{
  ProcwatchProcessMonitor *monitor;
  GArray *events;   /* TestEvent */
  guint n_exited;
  guint n_reaped;
} TestRecorder;

TestRecorder *test_recorder_new           (ProcwatchProcessMonitor *monitor);
void          test_recorder_free          (TestRecorder            *recorder);
guint         test_recorder_count         (TestRecorder            *recorder,
                                           GPid                     pid,
                                           ProcwatchProcessState    state);
TestEvent    *test_recorder_find          (TestRecorder            *recorder,
                                           GPid                     pid,
                                           ProcwatchProcessState    state);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TestRecorder, test_recorder_free)

void          test_init                   (int                     *argc,
                                           char                  ***argv);
/* Adds @func as PREFIX/child/NAME and PREFIX/non-child/NAME, with the
 * TestProcessKind as its data. */
void          test_add_for_each_kind      (const char              *prefix,
                                           const char              *name,
                                           GTestDataFunc            func);

/* Adds @func as PREFIX/child/NAME and PREFIX/non-child/NAME, with the
 * TestProcessKind as its data. */
void          test_add_for_each_kind      (const char              *prefix,
                                           const char              *name,
                                           GTestDataFunc            func);

G_END_DECLS

G_BEGIN_DECLS
/* What a test of one process starts from: a monitor, a recorder of its
 * signals and, with test_fixture_set_up_target(), a process of the kind the
 * test was added for (its data), which the test makes exit and reaps. */
typedef struct
{
  TestProcessKind kind;
  ProcwatchProcessMonitor *monitor;
  TestRecorder *recorder;
  TestProcess *target;
  GPid pid;
} TestFixture;

void          test_fixture_set_up           (TestFixture             *fixture,
                                             gconstpointer            data);
void          test_fixture_set_up_target    (TestFixture             *fixture,
                                             gconstpointer            data);
void          test_fixture_tear_down        (TestFixture             *fixture,
                                             gconstpointer            data);
gboolean      test_fixture_is_child         (TestFixture             *fixture);
/* Makes the target exit and reaps it; once @sentinel (a recorder of another
 * monitor watching it) has seen the reap, which comes from the same kernel
 * event, checks that @fixture's monitor reported nothing. */
void          test_fixture_assert_silent_to_the_end (TestFixture  *fixture,
                                                     TestRecorder *sentinel);

gboolean      test_have_pidfd               (void);
gboolean      test_skip_without_pidfd       (void);
/* Skips the test saying what this system lacks (cgroups to write, root, a
 * program); where every test must run (PROCWATCH_TEST_REQUIRE_ALL=1, CI)
 * fails it instead. Not for what the kernel lacks: a kernel lane runs with
 * it set, and a kernel without a feature is no broken system. */
void          test_skip_for_system          (const char *format,
                                             ...) G_GNUC_PRINTF (1, 2);
/* Watches @pid through a pidfd opened for the call and closed after it. */
ProcwatchProcess *test_watch_by_pidfd       (ProcwatchProcessMonitor *monitor,
                                             GPid                     pid);

/* A step of setting up namespaces: returns NULL on success, or what failed
 * with errno set. */
typedef const char *(*TestNamespaceSetup) (gconstpointer user_data);

gboolean      test_write_proc_file          (const char              *path,
                                             const char              *text);
int           test_unshare                  (int                      flags);
const char   *test_mount_private_proc       (const char              *options);
gboolean      test_can_unshare              (int                      flags,
                                             TestNamespaceSetup       setup,
                                             gconstpointer            user_data,
                                             char                   **why);
/* Whether @monitor learns the status of a process it saw only once it had
 * been reaped: on the pidfd backend, where the kernel keeps it
 * (PIDFD_INFO_EXIT, Linux 6.15+), found out by trying it. */
gboolean      test_status_known_after_reap  (ProcwatchProcessMonitor *monitor);
/* Whether the kernel keeps the status of a reaped process for holders of a
 * pidfd (PIDFD_INFO_EXIT, Linux 6.15+, and the ioctl not filtered), which
 * every backend reads where it holds a pidfd. */
gboolean      test_kernel_keeps_exit_status (void);
/* Raises the soft RLIMIT_NOFILE to @needed if it is lower (1024 where
 * systemd starts the session); false if the hard limit is lower still. */
gboolean      test_raise_fd_limit           (rlim_t needed);
/* Whether the test runs under PROCWATCH_DEBUG=no-pidfs, the library's
 * simulation of kernels before 6.9: pidfds with no pidfs inode. */
gboolean      test_simulating_no_pidfs      (void);
/* Whether a pidfd polls POLLHUP once its process is reaped (Linux 6.9+),
 * as the library sees it: not under PROCWATCH_DEBUG=no-pollhup or
 * no-pidfs, the simulations of older kernels. */
gboolean      test_kernel_reports_reap_hangup (void);
/* Whether /proc/<pid> directories poll (kernel/: the 2012 patch): then
 * /proc/self, a live task, does not poll readable. */
gboolean      test_kernel_has_pollable_proc (void);
/* The backend this run's monitors must use: PROCWATCH_TEST_EXPECT_BACKEND,
 * except that where pidfds are refused (a seccomp variant) on a kernel with
 * pollable /proc directories, the fallback is procfs, not poll. NULL when
 * the run expects nothing. */
const char   *test_expected_backend         (void);
/* What poll() shows on @fd for POLLIN, without the POLLHUP that the
 * simulation of kernels older than 6.9 hides from the library too. */
gushort       test_pidfd_revents            (int fd);
/* Whether the kernel names a pidfd of ours by a pidfs file handle (Linux
 * 6.14) and opens the handle again, asked apart from the library. */
gboolean      test_kernel_has_file_handles  (void);

/* Runs @scenario as pid 2 of a new pid namespace with its own /proc, where
 * pid 1 reaps orphans, and exits with its outcome: call it in a
 * g_test_trap_subprocess() child, after test_can_pid_namespace(). */
G_GNUC_NORETURN
void          test_run_in_pid_namespace     (void                   (*scenario) (void));
/* Whether test_run_in_pid_namespace() works here; else says why in *@why. */
gboolean      test_can_pid_namespace        (char                   **why);
/* A GTestDataFunc: runs the scenario (a void (*) (void)) with
 * test_run_in_pid_namespace() in a subprocess, or skips saying why. */
void          test_in_pid_namespace         (gconstpointer            scenario);
/* In a private pid namespace: makes the next new process get @pid. */
void          test_set_next_pid             (GPid                     pid);
G_END_DECLS
