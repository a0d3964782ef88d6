/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * Watching cgroups: the tests make their own cgroups under the cgroup2
 * mount, move real processes in and end them in the orders that matter.
 * Built against the library's internals (for the mountinfo parser and
 * the count of cgroup.events reads); every cgroup made lies below one
 * root that a supervising parent process removes, also when a test fails.
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gio-procwatch/procwatch.h>

#include "procwatch-cgroup-files-private.h"
#include "procwatch-cgroup-private.h"
#include "procwatch-cgroup-watch-private.h"
#include "procwatch-test-cgroup.h"
#include "procwatch-test-seam-private.h"
#include "procwatch-test-util.h"

/* A child that waits to be killed, in @cgroup. */
static GPid
spawn_in (TestCgroup *cgroup)
{
  GPid pid = fork ();

  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      for (;;)
        pause ();
    }

  test_cgroup_move (cgroup, pid);
  return pid;
}

static int
kill_and_reap (GPid pid)
{
  int status;

  g_assert_no_errno (kill (pid, SIGKILL));
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  return status;
}

/* Records what a monitor says about cgroups. */
typedef struct
{
  guint n_emptied;
  guint n_notify;
  ProcwatchCgroup *last_emptied;
} CgroupRecorder;

static void
on_cgroup_emptied (ProcwatchProcessMonitor *monitor,
                   ProcwatchCgroup         *cgroup,
                   gpointer                 user_data)
{
  CgroupRecorder *recorder = user_data;

  /* Already false, before the signal. */
  g_assert_false (procwatch_cgroup_get_populated (cgroup));
  recorder->n_emptied++;
  recorder->last_emptied = cgroup;
}

static void
on_populated_notify (GObject    *object,
                     GParamSpec *pspec,
                     gpointer    user_data)
{
  CgroupRecorder *recorder = user_data;

  recorder->n_notify++;
}

static ProcwatchProcessMonitor *
new_monitor (CgroupRecorder *recorder)
{
  ProcwatchProcessMonitor *monitor = procwatch_process_monitor_new ();
  const char *expected = test_expected_backend ();

  if (expected != NULL)
    g_assert_cmpstr (procwatch_process_monitor_get_backend (monitor), ==, expected);

  if (recorder != NULL)
    g_signal_connect (monitor, "cgroup-emptied", G_CALLBACK (on_cgroup_emptied), recorder);
  return monitor;
}

static ProcwatchCgroup *
watch (ProcwatchProcessMonitor *monitor,
       const char              *path,
       CgroupRecorder          *recorder)
{
  g_autoptr(GError) error = NULL;
  ProcwatchCgroup *cgroup = procwatch_process_monitor_watch_cgroup (monitor, path, &error);

  g_assert_no_error (error);
  g_assert_nonnull (cgroup);
  if (recorder != NULL)
    g_signal_connect (cgroup, "notify::populated", G_CALLBACK (on_populated_notify), recorder);
  return cgroup;
}

/* Iterates until @cgroup is no longer watched; fails after a deadline. */
static gboolean
on_deadline (gpointer user_data)
{
  g_error ("Timed out waiting for a cgroup watch to end");
  return G_SOURCE_REMOVE;
}

static void
run_until_unwatched (ProcwatchCgroup *cgroup)
{
  g_autoptr(GSource) deadline = g_timeout_source_new_seconds (60);

  g_source_set_callback (deadline, on_deadline, NULL, NULL);
  g_source_attach (deadline, NULL);
  while (procwatch_cgroup_get_watch (cgroup) != NULL)
    g_main_context_iteration (NULL, TRUE);
  g_source_destroy (deadline);
}

static void
run_until_populated (ProcwatchCgroup *cgroup)
{
  g_autoptr(GSource) deadline = g_timeout_source_new_seconds (60);

  g_source_set_callback (deadline, on_deadline, NULL, NULL);
  g_source_attach (deadline, NULL);
  while (!procwatch_cgroup_get_populated (cgroup))
    g_main_context_iteration (NULL, TRUE);
  g_source_destroy (deadline);
}

/* The kernel's own view from /proc/<pid>/cgroup. */
static char *
read_cgroup_of (GPid pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/cgroup", (int) pid);
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  guint i;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], "0::"))
      return g_strdup (lines[i] + 3);

  g_assert_not_reached ();
}

static void
test_parse_mountinfo (void)
{
  const char *text =
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime shared:9 - cgroup cgroup rw,name=systemd\n"
    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime shared:10 master:3 - cgroup2 cgroup2 rw\n"
    "42 23 0:38 /app.slice /mnt/with\\040space rw - cgroup2 none rw\n"
    "43 23 0:39 / /mnt/fake rw - ext4 /dev/sda1 rw,cgroup2\n";
  g_autoptr(GPtrArray) mounts = procwatch_cgroup_parse_mountinfo (text, strlen (text));
  g_autoptr(GPtrArray) none = procwatch_cgroup_parse_mountinfo ("", 0);
  ProcwatchCgroupMount *mount;

  g_assert_cmpuint (mounts->len, ==, 2);
  mount = g_ptr_array_index (mounts, 0);
  g_assert_cmpstr (mount->mount_point, ==, "/sys/fs/cgroup/unified");
  g_assert_cmpstr (mount->root, ==, "/");
  mount = g_ptr_array_index (mounts, 1);
  g_assert_cmpstr (mount->mount_point, ==, "/mnt/with space");
  g_assert_cmpstr (mount->root, ==, "/app.slice");
  g_assert_cmpuint (none->len, ==, 0);
}

/* No cgroup2 mount at all: NOT_SUPPORTED, whatever the path. */
static void
test_resolve_without_cgroup2 (void)
{
  g_autoptr(GPtrArray) none = procwatch_cgroup_parse_mountinfo ("", 0);
  g_autoptr(GError) error = NULL;
  char *relative = NULL;
  char *absolute = NULL;

  g_assert_false (procwatch_cgroup_resolve (none, "/user.slice", &relative, &absolute, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
  g_assert_null (relative);
  g_assert_null (absolute);
}

static void
test_parse_populated (void)
{
  g_assert_cmpint (procwatch_cgroup_parse_populated ("populated 1\nfrozen 0\n", 21), ==, 1);
  g_assert_cmpint (procwatch_cgroup_parse_populated ("frozen 1\npopulated 0\n", 21), ==, 0);
  g_assert_cmpint (procwatch_cgroup_parse_populated ("populated 10\n", 13), ==, -1);
  g_assert_cmpint (procwatch_cgroup_parse_populated ("", 0), ==, -1);
}

/* The process that was launched is the last to leave. */
static void
test_launched_exits (void)
{
  g_autoptr(TestCgroup) dir = NULL;
  g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
  g_autoptr(ProcwatchCgroup) cgroup = NULL;
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GError) error = NULL;
  CgroupRecorder recorder = { 0, };
  g_autofree char *seen = NULL;
  GPid pid;

  if (test_cgroups_skip ())
    return;

  dir = test_cgroup_new ("launched");
  pid = spawn_in (dir);
  monitor = new_monitor (&recorder);
  cgroup = watch (monitor, dir->relative, &recorder);
  g_assert_cmpstr (procwatch_cgroup_get_path (cgroup), ==, dir->relative);
  g_assert_true (procwatch_cgroup_get_populated (cgroup));

  /* The process knows the cgroup it was moved to, as the kernel says. */
  process = procwatch_process_monitor_watch_pid (monitor, pid, &error);
  g_assert_no_error (error);
  seen = read_cgroup_of (pid);
  g_assert_cmpstr (seen, ==, dir->relative);
  g_assert_cmpstr (procwatch_process_get_cgroup (process), ==, dir->relative);

  test_drain_context (NULL);
  g_assert_cmpuint (recorder.n_emptied, ==, 0);
  g_assert_cmpuint (recorder.n_notify, ==, 0);

  g_assert_no_errno (kill (pid, SIGKILL));
  test_run_until_count (NULL, &recorder.n_emptied, 1);
  g_assert_true (recorder.last_emptied == cgroup);
  g_assert_false (procwatch_cgroup_get_populated (cgroup));

  g_assert_cmpint (waitpid (pid, NULL, 0), ==, pid);
  test_drain_context (NULL);
  g_assert_cmpuint (recorder.n_emptied, ==, 1);
  g_assert_cmpuint (recorder.n_notify, ==, 1);

  /* Its cgroup survives its exit and does not follow the process. */
  g_assert_cmpstr (procwatch_process_get_cgroup (process), ==, dir->relative);
  g_assert_true (procwatch_process_monitor_unwatch_cgroup (monitor, cgroup));
  g_assert_false (procwatch_process_monitor_unwatch_cgroup (monitor, cgroup));
}

static void
on_exited_reap (ProcwatchProcessMonitor *monitor,
                ProcwatchProcess        *process,
                gpointer                 user_data)
{
  GPid *launched = user_data;

  if (procwatch_process_get_pid (process) == *launched)
    g_assert_cmpint (waitpid (*launched, NULL, 0), ==, *launched);
}

static void
on_reaped_flag (ProcwatchProcessMonitor *monitor,
                ProcwatchProcess        *process,
                gpointer                 user_data)
{
  *(gboolean *) user_data = TRUE;
}

/* A launch script: forks the application, which moves nowhere, and exits.
 * The cgroup stays populated until the orphan has gone too. */
static void
test_double_fork_orphan (void)
{
  g_autoptr(TestCgroup) dir = NULL;
  g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
  g_autoptr(ProcwatchCgroup) cgroup = NULL;
  g_autoptr(ProcwatchProcess) launched_process = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *procs = NULL;
  CgroupRecorder recorder = { 0, };
  gboolean launched_reaped = FALSE;
  int orphan_pipe[2], go_pipe[2];
  GPid launched, orphan;
  char go;

  if (test_cgroups_skip ())
    return;

  dir = test_cgroup_new ("double-fork");
  procs = g_build_filename (dir->absolute, "cgroup.procs", NULL);
  g_assert_no_errno (pipe2 (orphan_pipe, O_CLOEXEC));
  g_assert_no_errno (pipe2 (go_pipe, O_CLOEXEC));

  launched = fork ();
  g_assert_cmpint (launched, >=, 0);
  if (launched == 0)
    {
      /* Moves itself, as a launcher does before exec. */
      int fd = open (procs, O_WRONLY | O_CLOEXEC);
      GPid child;

      if (fd < 0 || write (fd, "0", 1) != 1)
        _exit (2);
      close (fd);
      /* Else the orphan would keep the pipe open. */
      close (go_pipe[1]);

      child = fork ();
      if (child == 0)
        {
          close (go_pipe[0]);
          for (;;)
            pause ();
        }
      if (write (orphan_pipe[1], &child, sizeof child) != sizeof child)
        _exit (3);
      if (read (go_pipe[0], &go, 1) < 0)
        _exit (4);
      _exit (0);
    }
  close (orphan_pipe[1]);
  close (go_pipe[0]);
  g_assert_cmpint (read (orphan_pipe[0], &orphan, sizeof orphan), ==, sizeof orphan);
  close (orphan_pipe[0]);

  monitor = new_monitor (&recorder);
  cgroup = watch (monitor, dir->relative, &recorder);
  g_assert_true (procwatch_cgroup_get_populated (cgroup));
  launched_process = procwatch_process_monitor_watch_pid (monitor, launched, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (procwatch_process_get_cgroup (launched_process), ==, dir->relative);
  g_signal_connect (monitor, "exited", G_CALLBACK (on_exited_reap), &launched);
  g_signal_connect (monitor, "reaped", G_CALLBACK (on_reaped_flag), &launched_reaped);

  /* The launched process exits first: reaped, the cgroup still holds the
   * orphan. */
  close (go_pipe[1]);
  test_run_until (NULL, &launched_reaped);
  test_drain_context (NULL);
  g_assert_true (procwatch_cgroup_get_populated (cgroup));
  g_assert_cmpuint (recorder.n_emptied, ==, 0);
  g_assert_cmpuint (recorder.n_notify, ==, 0);

  /* The orphan came to us, the subreaper. */
  kill_and_reap (orphan);
  test_run_until_count (NULL, &recorder.n_emptied, 1);
  test_drain_context (NULL);
  g_assert_false (procwatch_cgroup_get_populated (cgroup));
  g_assert_cmpuint (recorder.n_emptied, ==, 1);
  g_assert_cmpuint (recorder.n_notify, ==, 1);
}

/* A parent cgroup is populated as long as any cgroup below it is. */
static void
test_nested (void)
{
  g_autoptr(TestCgroup) outer_dir = NULL;
  g_autoptr(TestCgroup) inner_dir = NULL;
  g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
  g_autoptr(ProcwatchCgroup) outer = NULL;
  g_autoptr(ProcwatchCgroup) inner = NULL;
  CgroupRecorder recorder = { 0, };
  CgroupRecorder outer_notify = { 0, };
  CgroupRecorder inner_notify = { 0, };
  GPid in_outer, in_inner;

  if (test_cgroups_skip ())
    return;

  outer_dir = test_cgroup_new ("nested");
  inner_dir = test_cgroup_new ("nested/inner");
  in_inner = spawn_in (inner_dir);

  monitor = new_monitor (&recorder);
  outer = watch (monitor, outer_dir->relative, &outer_notify);
  inner = watch (monitor, inner_dir->relative, &inner_notify);
  g_assert_true (procwatch_cgroup_get_populated (outer));
  g_assert_true (procwatch_cgroup_get_populated (inner));

  /* The inner one empties, the outer one stays populated by a process of
   * its own. */
  in_outer = spawn_in (outer_dir);
  kill_and_reap (in_inner);
  test_run_until_count (NULL, &recorder.n_emptied, 1);
  test_drain_context (NULL);
  g_assert_true (recorder.last_emptied == inner);
  g_assert_true (procwatch_cgroup_get_populated (outer));
  g_assert_cmpuint (outer_notify.n_notify, ==, 0);

  /* The inner one fills again, then the last process of the outer one's
   * own goes: still populated through the inner one. */
  in_inner = spawn_in (inner_dir);
  test_run_until_count (NULL, &inner_notify.n_notify, 2);
  g_assert_true (procwatch_cgroup_get_populated (inner));
  kill_and_reap (in_outer);
  test_drain_context (NULL);
  g_assert_true (procwatch_cgroup_get_populated (outer));

  /* The last process of the subtree: both empty, once each. */
  kill_and_reap (in_inner);
  test_run_until_count (NULL, &recorder.n_emptied, 3);
  test_drain_context (NULL);
  g_assert_cmpuint (recorder.n_emptied, ==, 3);
  g_assert_false (procwatch_cgroup_get_populated (outer));
  g_assert_false (procwatch_cgroup_get_populated (inner));
  g_assert_cmpuint (outer_notify.n_notify, ==, 1);
  g_assert_cmpuint (inner_notify.n_notify, ==, 3);
}

/* Populated and emptied again: once per transition. */
static void
test_refill (void)
{
  g_autoptr(TestCgroup) dir = NULL;
  g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
  g_autoptr(ProcwatchCgroup) cgroup = NULL;
  CgroupRecorder recorder = { 0, };
  guint round;

  if (test_cgroups_skip ())
    return;

  dir = test_cgroup_new ("refill");
  monitor = new_monitor (&recorder);
  cgroup = watch (monitor, dir->relative, &recorder);
  g_assert_false (procwatch_cgroup_get_populated (cgroup));

  for (round = 1; round <= 3; round++)
    {
      GPid pid = spawn_in (dir);

      test_run_until_count (NULL, &recorder.n_notify, 2 * round - 1);
      g_assert_true (procwatch_cgroup_get_populated (cgroup));
      kill_and_reap (pid);
      test_run_until_count (NULL, &recorder.n_emptied, round);
      test_drain_context (NULL);
      g_assert_cmpuint (recorder.n_notify, ==, 2 * round);
      g_assert_cmpuint (recorder.n_emptied, ==, round);
    }
}

/* Every way to name one cgroup gives the one object. */
static void
test_path_forms (void)
{
  g_autoptr(TestCgroup) dir = NULL;
  g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
  g_autoptr(ProcwatchCgroup) by_relative = NULL;
  g_autoptr(ProcwatchCgroup) by_absolute = NULL;
  g_autoptr(ProcwatchCgroup) by_no_slash = NULL;
  g_autoptr(ProcwatchCgroup) by_untidy = NULL;
  g_autofree char *untidy = NULL;

  if (test_cgroups_skip ())
    return;

  dir = test_cgroup_new ("forms");
  monitor = new_monitor (NULL);

  by_absolute = watch (monitor, dir->absolute, NULL);
  g_assert_cmpstr (procwatch_cgroup_get_path (by_absolute), ==, dir->relative);
  by_relative = watch (monitor, dir->relative, NULL);
  by_no_slash = watch (monitor, dir->relative + 1, NULL);
  untidy = g_strdup_printf ("/.%s//./", dir->relative);
  by_untidy = watch (monitor, untidy, NULL);
  g_assert_true (by_relative == by_absolute);
  g_assert_true (by_no_slash == by_absolute);
  g_assert_true (by_untidy == by_absolute);
}

static void
assert_watch_error (ProcwatchProcessMonitor *monitor,
                    const char              *path,
                    GIOErrorEnum             code)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(ProcwatchCgroup) cgroup = procwatch_process_monitor_watch_cgroup (monitor, path, &error);

  g_assert_error (error, G_IO_ERROR, (int) code);
  g_assert_null (cgroup);
}

static void
assert_watch_error_message (ProcwatchProcessMonitor *monitor,
                            const char              *path,
                            GIOErrorEnum             code,
                            const char              *says)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(ProcwatchCgroup) cgroup = procwatch_process_monitor_watch_cgroup (monitor, path, &error);

  g_assert_error (error, G_IO_ERROR, (int) code);
  g_assert_nonnull (strstr (error->message, says));
  g_assert_null (cgroup);
}

static void
test_errors (void)
{
  g_autoptr(TestCgroup) dir = NULL;
  g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
  g_autofree char *dotdot = NULL;
  g_autofree char *absolute_dotdot = NULL;
  g_autofree char *file = NULL;
  g_autofree char *relative_file = NULL;
  g_autofree char *below_file = NULL;
  g_autofree char *missing = NULL;
  guint fds;

  if (test_cgroups_skip ())
    return;

  dir = test_cgroup_new ("errors");
  monitor = new_monitor (NULL);
  /* The epoll fd exists from the first watch on. */
  g_clear_object (&monitor);
  fds = test_count_open_fds ();
  monitor = new_monitor (NULL);

  dotdot = g_strconcat (dir->relative, "/..", NULL);
  absolute_dotdot = g_strconcat (dir->absolute, "/../errors", NULL);
  file = g_build_filename (dir->absolute, "cgroup.procs", NULL);
  relative_file = g_strconcat (dir->relative, "/cgroup.procs", NULL);
  below_file = g_strconcat (dir->relative, "/cgroup.procs/x", NULL);
  missing = g_strconcat (dir->relative, "/missing", NULL);

  assert_watch_error (monitor, "", G_IO_ERROR_INVALID_ARGUMENT);
  assert_watch_error (monitor, dotdot, G_IO_ERROR_INVALID_ARGUMENT);
  assert_watch_error (monitor, absolute_dotdot, G_IO_ERROR_INVALID_ARGUMENT);
  assert_watch_error (monitor, "/tmp", G_IO_ERROR_INVALID_ARGUMENT);
  assert_watch_error (monitor, g_get_tmp_dir (), G_IO_ERROR_INVALID_ARGUMENT);
  assert_watch_error (monitor, missing, G_IO_ERROR_NOT_FOUND);
  /* The root has no cgroup.events: it is never empty. */
  assert_watch_error (monitor, "/", G_IO_ERROR_INVALID_ARGUMENT);
  /* A file in a cgroup exists but is no cgroup v2 directory, by either
   * spelling; a path going on below a file names nothing. */
  assert_watch_error_message (monitor, file, G_IO_ERROR_INVALID_ARGUMENT,
                              "is not a cgroup v2 directory");
  assert_watch_error_message (monitor, relative_file, G_IO_ERROR_INVALID_ARGUMENT,
                              "is not a cgroup v2 directory");
  assert_watch_error (monitor, below_file, G_IO_ERROR_NOT_FOUND);
  assert_watch_error (monitor, test_cgroups_get_mount_point (), G_IO_ERROR_INVALID_ARGUMENT);
  /* Only the epoll fd was kept: a failed call changes nothing else. */
  g_assert_cmpuint (test_count_open_fds (), ==, fds + 1);

  procwatch_process_monitor_close (monitor);
  assert_watch_error (monitor, dir->relative, G_IO_ERROR_CLOSED);
  g_clear_object (&monitor);
  g_assert_cmpuint (test_count_open_fds (), ==, fds);
}

static void
on_wait_done (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  GError **error = user_data;
  gboolean empty = procwatch_cgroup_wait_empty_finish (PROCWATCH_CGROUP (object), result, error);

  g_assert_true (empty == (*error == NULL));
  if (*error == NULL)
    g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_EXISTS, "done: empty");
}

/* A wait's outcome: G_IO_ERROR_EXISTS for success (see on_wait_done). */
typedef struct
{
  GError *error;
} Wait;

static void
start_wait (ProcwatchCgroup *cgroup,
            GCancellable    *cancellable,
            Wait            *wait)
{
  wait->error = NULL;
  procwatch_cgroup_wait_empty_async (cgroup, cancellable, on_wait_done, &wait->error);
  /* Never from inside the call. */
  g_assert_null (wait->error);
}

static void
finish_wait (Wait        *wait,
             GIOErrorEnum expected)
{
  g_autoptr(GSource) deadline = g_timeout_source_new_seconds (60);

  g_source_set_callback (deadline, on_deadline, NULL, NULL);
  g_source_attach (deadline, NULL);
  while (wait->error == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_source_destroy (deadline);

  g_assert_error (wait->error, G_IO_ERROR, (int) expected);
  g_clear_error (&wait->error);
}

static void
test_wait_empty (void)
{
  g_autoptr(TestCgroup) dir = NULL;
  g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
  g_autoptr(ProcwatchCgroup) cgroup = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  Wait first, second, cancelled, unwatched, closed;
  GPid pid;

  if (test_cgroups_skip ())
    return;

  dir = test_cgroup_new ("wait");
  monitor = new_monitor (NULL);
  cgroup = watch (monitor, dir->relative, NULL);

  /* Empty already: at once, from the main loop. */
  start_wait (cgroup, NULL, &first);
  finish_wait (&first, G_IO_ERROR_EXISTS);

  /* Populated: when it empties; a cancelled one fails. */
  pid = spawn_in (dir);
  run_until_populated (cgroup);
  start_wait (cgroup, NULL, &first);
  start_wait (cgroup, NULL, &second);
  start_wait (cgroup, cancellable, &cancelled);
  g_cancellable_cancel (cancellable);
  finish_wait (&cancelled, G_IO_ERROR_CANCELLED);
  kill_and_reap (pid);
  finish_wait (&first, G_IO_ERROR_EXISTS);
  finish_wait (&second, G_IO_ERROR_EXISTS);

  /* Unwatched while populated: cancelled; then closed at once. */
  pid = spawn_in (dir);
  run_until_populated (cgroup);
  start_wait (cgroup, NULL, &unwatched);
  g_assert_true (procwatch_process_monitor_unwatch_cgroup (monitor, cgroup));
  finish_wait (&unwatched, G_IO_ERROR_CANCELLED);
  start_wait (cgroup, NULL, &unwatched);
  finish_wait (&unwatched, G_IO_ERROR_CLOSED);

  /* The monitor closed while populated: cancelled. */
  g_clear_object (&cgroup);
  cgroup = watch (monitor, dir->relative, NULL);
  g_assert_true (procwatch_cgroup_get_populated (cgroup));
  start_wait (cgroup, NULL, &closed);
  procwatch_process_monitor_close (monitor);
  finish_wait (&closed, G_IO_ERROR_CANCELLED);
  kill_and_reap (pid);
}

/* rmdir of a watched cgroup: it was empty (the kernel refuses otherwise);
 * if the monitor had not seen it empty yet, "cgroup-emptied" comes first;
 * then the watch ends. */
static void
test_removed_unseen_empty (void)
{
  g_autoptr(TestCgroup) dir = NULL;
  g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
  g_autoptr(ProcwatchCgroup) cgroup = NULL;
  CgroupRecorder recorder = { 0, };
  Wait wait;
  GPid pid;

  if (test_cgroups_skip ())
    return;

  dir = test_cgroup_new ("removed-populated");
  pid = spawn_in (dir);
  monitor = new_monitor (&recorder);
  cgroup = watch (monitor, dir->relative, &recorder);
  start_wait (cgroup, NULL, &wait);

  /* Not a single iteration in between. */
  kill_and_reap (pid);
  g_assert_no_errno (rmdir (dir->absolute));

  test_run_until_count (NULL, &recorder.n_emptied, 1);
  finish_wait (&wait, G_IO_ERROR_EXISTS);
  g_assert_false (procwatch_cgroup_get_populated (cgroup));
  g_assert_null (procwatch_cgroup_get_watch (cgroup));
  g_assert_false (procwatch_process_monitor_unwatch_cgroup (monitor, cgroup));
  test_drain_context (NULL);
  g_assert_cmpuint (recorder.n_emptied, ==, 1);
  g_assert_cmpuint (recorder.n_notify, ==, 1);

  /* Gone: a new watch of that path fails. */
  assert_watch_error (monitor, dir->relative, G_IO_ERROR_NOT_FOUND);
}

static void
test_removed_empty (void)
{
  g_autoptr(TestCgroup) dir = NULL;
  g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
  g_autoptr(ProcwatchCgroup) cgroup = NULL;
  g_autoptr(ProcwatchCgroup) root = NULL;
  CgroupRecorder recorder = { 0, };
  guint fds;

  if (test_cgroups_skip ())
    return;

  dir = test_cgroup_new ("removed-empty");
  monitor = new_monitor (&recorder);
  /* Makes the epoll fd before counting. */
  root = watch (monitor, test_cgroups_get_root (), NULL);
  fds = test_count_open_fds ();
  cgroup = watch (monitor, dir->relative, &recorder);
  g_assert_cmpuint (test_count_open_fds (), ==, fds + 1);

  g_assert_no_errno (rmdir (dir->absolute));
  run_until_unwatched (cgroup);

  /* Seen empty all along: no signal, no notification; the fd is closed. */
  g_assert_cmpuint (recorder.n_emptied, ==, 0);
  g_assert_cmpuint (recorder.n_notify, ==, 0);
  g_assert_false (procwatch_process_monitor_unwatch_cgroup (monitor, cgroup));
  g_assert_cmpuint (test_count_open_fds (), ==, fds);
}

/* An empty cgroup is probed for its removal less and less often: each
 * probe doubles the interval (until the backend's maximum, far above what
 * six probes reach). */
static void
test_probe_backoff (void)
{
  g_autoptr(TestCgroup) dir = NULL;
  g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
  g_autoptr(ProcwatchCgroup) cgroup = NULL;
  guint probes;
  gint64 early;

  if (test_cgroups_skip ())
    return;

  dir = test_cgroup_new ("backoff");
  monitor = new_monitor (NULL);
  probes = procwatch_test_seam_cgroup_probe_reads;
  cgroup = watch (monitor, dir->relative, NULL);

  test_run_until_count (NULL, &procwatch_test_seam_cgroup_probe_reads, probes + 2);
  early = procwatch_cgroup_get_watch (cgroup)->probe.interval;
  test_run_until_count (NULL, &procwatch_test_seam_cgroup_probe_reads, probes + 6);
  g_assert_cmpint (procwatch_cgroup_get_watch (cgroup)->probe.interval, ==, 16 * early);
  g_assert_true (procwatch_probe_is_scheduled (&procwatch_cgroup_get_watch (cgroup)->probe));
}

/* After unwatch_cgroup and after close, nothing more is said. */
static void
test_unwatch_and_close (void)
{
  g_autoptr(TestCgroup) dir = NULL;
  g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
  g_autoptr(ProcwatchCgroup) cgroup = NULL;
  g_autoptr(ProcwatchCgroup) again = NULL;
  CgroupRecorder recorder = { 0, };
  guint fds;
  GPid pid;

  if (test_cgroups_skip ())
    return;

  dir = test_cgroup_new ("unwatch");
  pid = spawn_in (dir);
  fds = test_count_open_fds ();
  monitor = new_monitor (&recorder);
  cgroup = watch (monitor, dir->relative, &recorder);
  g_assert_true (procwatch_process_monitor_unwatch_cgroup (monitor, cgroup));
  g_assert_cmpuint (test_count_open_fds (), ==, fds + 1);   /* the epoll fd */

  /* A new watch is a new object. */
  again = watch (monitor, dir->relative, &recorder);
  g_assert_true (again != cgroup);

  kill_and_reap (pid);
  test_run_until_count (NULL, &recorder.n_emptied, 1);
  g_assert_true (recorder.last_emptied == again);
  g_assert_true (procwatch_cgroup_get_populated (cgroup));

  pid = spawn_in (dir);
  procwatch_process_monitor_close (monitor);
  g_assert_false (procwatch_process_monitor_unwatch_cgroup (monitor, again));
  g_assert_cmpuint (test_count_open_fds (), ==, fds);
  kill_and_reap (pid);
  test_drain_context (NULL);
  g_assert_cmpuint (recorder.n_emptied, ==, 1);

  /* Disposing ends them too. */
  g_clear_object (&monitor);
  monitor = new_monitor (&recorder);
  g_clear_object (&cgroup);
  cgroup = watch (monitor, dir->relative, NULL);
  g_clear_object (&monitor);
  g_assert_null (procwatch_cgroup_get_watch (cgroup));
  g_assert_cmpuint (test_count_open_fds (), ==, fds);
}

static void
on_emptied_close (ProcwatchProcessMonitor *monitor,
                  ProcwatchCgroup         *cgroup,
                  gpointer                 user_data)
{
  procwatch_process_monitor_close (monitor);
  *(guint *) user_data += 1;
}

static void
on_emptied_drop (ProcwatchProcessMonitor *monitor,
                 ProcwatchCgroup         *cgroup,
                 gpointer                 user_data)
{
  ProcwatchProcessMonitor **owner = user_data;

  g_clear_object (owner);
}

/* A handler of "cgroup-emptied" may close the monitor or drop its last
 * reference: the wait still pending succeeds (the cgroup was seen empty),
 * from the main loop, and nothing else is called. */
static void
test_handler_ends_monitor (void)
{
  g_autoptr(TestCgroup) dir = NULL;
  g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
  g_autoptr(ProcwatchCgroup) cgroup = NULL;
  guint n_closed = 0;
  Wait wait;
  GPid pid;

  if (test_cgroups_skip ())
    return;

  dir = test_cgroup_new ("handler");
  pid = spawn_in (dir);
  monitor = new_monitor (NULL);
  g_signal_connect (monitor, "cgroup-emptied", G_CALLBACK (on_emptied_close), &n_closed);
  cgroup = watch (monitor, dir->relative, NULL);
  start_wait (cgroup, NULL, &wait);
  kill_and_reap (pid);
  test_run_until_count (NULL, &n_closed, 1);
  finish_wait (&wait, G_IO_ERROR_EXISTS);
  g_assert_false (procwatch_process_monitor_unwatch_cgroup (monitor, cgroup));
  g_clear_object (&monitor);
  g_clear_object (&cgroup);

  pid = spawn_in (dir);
  monitor = new_monitor (NULL);
  g_signal_connect (monitor, "cgroup-emptied", G_CALLBACK (on_emptied_drop), &monitor);
  cgroup = watch (monitor, dir->relative, NULL);
  start_wait (cgroup, NULL, &wait);
  kill_and_reap (pid);
  finish_wait (&wait, G_IO_ERROR_EXISTS);
  g_assert_null (monitor);
  g_assert_null (procwatch_cgroup_get_watch (cgroup));
}

#define N_MANY 1000

/* One emptying among a thousand cgroups reads that one cgroup. */
static void
test_many (void)
{
  g_autoptr(TestCgroup) parent = NULL;
  g_autoptr(GPtrArray) dirs = g_ptr_array_new_with_free_func ((GDestroyNotify) test_cgroup_free);
  g_autoptr(GPtrArray) cgroups = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
  CgroupRecorder recorder = { 0, };
  TestCgroup *busy;
  guint reads;
  guint fds;
  guint i;
  GPid pid;

  if (test_cgroups_skip ())
    return;

  parent = test_cgroup_new ("many");
  for (i = 0; i < N_MANY; i++)
    {
      g_autofree char *name = g_strdup_printf ("many/%u", i);

      g_ptr_array_add (dirs, test_cgroup_new (name));
    }
  busy = g_ptr_array_index (dirs, N_MANY / 2);
  pid = spawn_in (busy);

  fds = test_count_open_fds ();
  monitor = new_monitor (&recorder);
  for (i = 0; i < N_MANY; i++)
    g_ptr_array_add (cgroups, watch (monitor, ((TestCgroup *) g_ptr_array_index (dirs, i))->relative,
                                     NULL));
  g_assert_cmpuint (test_count_open_fds (), ==, fds + N_MANY + 1);
  test_drain_context (NULL);
  g_assert_cmpuint (recorder.n_emptied, ==, 0);

  reads = procwatch_test_seam_cgroup_event_reads;
  kill_and_reap (pid);
  test_run_until_count (NULL, &recorder.n_emptied, 1);
  g_assert_true (recorder.last_emptied == g_ptr_array_index (cgroups, N_MANY / 2));
  g_assert_cmpuint (procwatch_test_seam_cgroup_event_reads - reads, ==, 1);

  g_clear_object (&monitor);
  g_assert_cmpuint (test_count_open_fds (), ==, fds);
  g_clear_pointer (&dirs, g_ptr_array_unref);
}

/* The process object's cgroup is the one when watching started. */
static void
test_process_cgroup (void)
{
  g_autoptr(TestCgroup) first = NULL;
  g_autoptr(TestCgroup) second = NULL;
  g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(ProcwatchProcess) self_process = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *own = read_cgroup_of (getpid ());
  g_autofree char *property = NULL;
  GPid pid;

  if (test_cgroups_skip ())
    return;

  first = test_cgroup_new ("process-first");
  second = test_cgroup_new ("process-second");
  pid = spawn_in (first);
  monitor = new_monitor (NULL);
  process = procwatch_process_monitor_watch_pid (monitor, pid, &error);
  g_assert_no_error (error);
  test_cgroup_move (second, pid);

  g_assert_cmpstr (procwatch_process_get_cgroup (process), ==, first->relative);
  g_object_get (process, "cgroup", &property, NULL);
  g_assert_cmpstr (property, ==, first->relative);

  /* Ours too, as the kernel writes it. */
  self_process = procwatch_process_monitor_watch_pid (monitor, getpid (), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (procwatch_process_get_cgroup (self_process), ==, own);

  kill_and_reap (pid);
}

/* Processes of one cgroup hold one copy of its path, whichever monitor
 * watches them (the memory target of bench/README.md counts on it), and
 * each copy lives as long as a process object holds it, also after the
 * monitors that made them are gone. */
static void
test_process_cgroup_shared (void)
{
  g_autoptr(TestCgroup) first = NULL;
  g_autoptr(TestCgroup) second = NULL;
  g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
  g_autoptr(ProcwatchProcessMonitor) other_monitor = NULL;
  g_autoptr(ProcwatchProcess) a = NULL;
  g_autoptr(ProcwatchProcess) b = NULL;
  g_autoptr(ProcwatchProcess) b_elsewhere = NULL;
  g_autoptr(ProcwatchProcess) c = NULL;
  g_autoptr(GError) error = NULL;
  GPid pids[3];
  guint i;

  if (test_cgroups_skip ())
    return;

  first = test_cgroup_new ("shared-first");
  second = test_cgroup_new ("shared-second");
  pids[0] = spawn_in (first);
  pids[1] = spawn_in (first);
  pids[2] = spawn_in (second);
  monitor = new_monitor (NULL);
  other_monitor = new_monitor (NULL);

  a = procwatch_process_monitor_watch_pid (monitor, pids[0], &error);
  g_assert_no_error (error);
  b = procwatch_process_monitor_watch_pid (monitor, pids[1], &error);
  g_assert_no_error (error);
  b_elsewhere = procwatch_process_monitor_watch_pid (other_monitor, pids[1], &error);
  g_assert_no_error (error);
  c = procwatch_process_monitor_watch_pid (monitor, pids[2], &error);
  g_assert_no_error (error);

  g_assert_cmpstr (procwatch_process_get_cgroup (a), ==, first->relative);
  g_assert_true (procwatch_process_get_cgroup (b) == procwatch_process_get_cgroup (a));
  g_assert_true (procwatch_process_get_cgroup (b_elsewhere) == procwatch_process_get_cgroup (a));
  g_assert_cmpstr (procwatch_process_get_cgroup (c), ==, second->relative);

  for (i = 0; i < G_N_ELEMENTS (pids); i++)
    kill_and_reap (pids[i]);

  g_clear_object (&monitor);
  g_clear_object (&other_monitor);
  g_clear_object (&b);
  g_clear_object (&b_elsewhere);
  g_clear_object (&c);
  g_assert_cmpstr (procwatch_process_get_cgroup (a), ==, first->relative);
}

/* Watches @pid, which must work. */
static ProcwatchProcess *
watch_process (ProcwatchProcessMonitor *monitor,
               GPid                     pid)
{
  g_autoptr(GError) error = NULL;
  ProcwatchProcess *process = procwatch_process_monitor_watch_pid (monitor, pid, &error);

  g_assert_no_error (error);
  return process;
}

/* Paths found by cgroup id: two processes of one cgroup, one of another,
 * and one moved from the first to the second before it is watched each
 * get their own path, and only the first process watched in each cgroup
 * reads /proc/<pid>/cgroup where the kernel tells cgroup ids (Linux 6.13;
 * elsewhere every watch reads it). An id is forgotten with the last
 * process object holding its path. */
static void
test_process_cgroup_by_id (void)
{
  g_autoptr(TestCgroup) first = NULL;
  g_autoptr(TestCgroup) second = NULL;
  g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
  g_autoptr(ProcwatchProcess) a = NULL;
  g_autoptr(ProcwatchProcess) a2 = NULL;
  g_autoptr(ProcwatchProcess) moved = NULL;
  g_autoptr(ProcwatchProcess) b = NULL;
  guint reads, ids;
  GPid pids[4];
  guint i;

  if (test_cgroups_skip ())
    return;

  first = test_cgroup_new ("by-id-first");
  second = test_cgroup_new ("by-id-second");
  pids[0] = spawn_in (first);
  pids[1] = spawn_in (first);
  pids[2] = spawn_in (first);
  pids[3] = spawn_in (second);
  monitor = new_monitor (NULL);

  reads = procwatch_test_seam_cgroup_path_reads;
  ids = procwatch_test_seam_cgroup_ids_known;

  a = watch_process (monitor, pids[0]);
  /* Moved after the first cgroup's path is known by its id. */
  test_cgroup_move (second, pids[2]);
  moved = watch_process (monitor, pids[2]);
  a2 = watch_process (monitor, pids[1]);
  b = watch_process (monitor, pids[3]);

  g_assert_cmpstr (procwatch_process_get_cgroup (a), ==, first->relative);
  g_assert_cmpstr (procwatch_process_get_cgroup (a2), ==, first->relative);
  g_assert_cmpstr (procwatch_process_get_cgroup (moved), ==, second->relative);
  g_assert_cmpstr (procwatch_process_get_cgroup (b), ==, second->relative);
  g_assert_true (procwatch_process_get_cgroup (a2) == procwatch_process_get_cgroup (a));
  g_assert_true (procwatch_process_get_cgroup (b) == procwatch_process_get_cgroup (moved));
  for (i = 0; i < 2; i++)
    {
      ProcwatchProcess *process = i == 0 ? a : b;
      g_autofree char *comm_path = g_strdup_printf ("/proc/%d/comm",
                                                    procwatch_process_get_pid (process));
      g_autofree char *comm = NULL;

      /* The kernel's own answer: under valgrind the processes are named
       * after it, not after this test. */
      g_assert_true (g_file_get_contents (comm_path, &comm, NULL, NULL));
      g_strchomp (comm);
      g_assert_cmpstr (procwatch_process_get_name (process), ==, comm);
    }

  if (procwatch_test_seam_cgroup_ids_known == ids)
    {
      g_test_message ("no cgroup ids here: every watch read the path");
      g_assert_cmpuint (procwatch_test_seam_cgroup_path_reads - reads, ==, 4);
    }
  else
    {
      g_assert_cmpuint (procwatch_test_seam_cgroup_path_reads - reads, ==, 2);
      g_assert_cmpuint (procwatch_test_seam_cgroup_ids_known - ids, ==, 2);

      /* The first cgroup's last process goes, and its object with it: so
       * does its id. The second's is kept by b. */
      g_assert_true (procwatch_process_monitor_unwatch (monitor, pids[0]));
      g_assert_true (procwatch_process_monitor_unwatch (monitor, pids[1]));
      g_clear_object (&a);
      g_assert_cmpuint (procwatch_test_seam_cgroup_ids_known - ids, ==, 2);
      g_clear_object (&a2);
      g_assert_cmpuint (procwatch_test_seam_cgroup_ids_known - ids, ==, 1);

      /* Watched again, its path is read again. */
      reads = procwatch_test_seam_cgroup_path_reads;
      a = watch_process (monitor, pids[0]);
      g_assert_cmpstr (procwatch_process_get_cgroup (a), ==, first->relative);
      g_assert_cmpuint (procwatch_test_seam_cgroup_path_reads - reads, ==, 1);
      g_assert_cmpuint (procwatch_test_seam_cgroup_ids_known - ids, ==, 2);
    }

  for (i = 0; i < G_N_ELEMENTS (pids); i++)
    kill_and_reap (pids[i]);
  g_clear_object (&monitor);
  g_clear_object (&a);
  g_clear_object (&a2);
  g_clear_object (&moved);
  g_clear_object (&b);
  g_assert_cmpuint (procwatch_test_seam_cgroup_ids_known, ==, ids);
}

/* A cgroup removed and made again at the same path has a new id: the path
 * is read again and known by the new id. */
static void
test_process_cgroup_remade (void)
{
  g_autoptr(TestCgroup) dir = NULL;
  g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
  g_autoptr(ProcwatchProcess) old_process = NULL;
  g_autoptr(ProcwatchProcess) new_process = NULL;
  guint reads;
  GPid pid;

  if (test_cgroups_skip ())
    return;

  monitor = new_monitor (NULL);
  dir = test_cgroup_new ("remade");
  pid = spawn_in (dir);
  old_process = watch_process (monitor, pid);
  kill_and_reap (pid);
  g_clear_pointer (&dir, test_cgroup_free);

  /* The old process object still holds the path. */
  dir = test_cgroup_new ("remade");
  pid = spawn_in (dir);
  reads = procwatch_test_seam_cgroup_path_reads;
  new_process = watch_process (monitor, pid);
  g_assert_cmpstr (procwatch_process_get_cgroup (new_process), ==, dir->relative);
  g_assert_true (procwatch_process_get_cgroup (new_process) ==
                 procwatch_process_get_cgroup (old_process));
  g_assert_cmpuint (procwatch_test_seam_cgroup_path_reads - reads, ==, 1);
  kill_and_reap (pid);
}

/* The pid reused between the watch's pidfd_open () and its reads of
 * /proc, by a process of another name in another cgroup: the reads find
 * the new process, and the check made after them (the PIDFD_GET_INFO that
 * finds the watched process only until its reap) must throw away what they
 * found. Checked before the reads, the new process's name and cgroup
 * would be reported as the watched one's. */
static TestCgroup *reuse_cgroup;
static GPid reuse_new_pid;

static GPid
spawn_named_with_pid (GPid        pid,
                      const char *name)
{
  guint attempt;

  for (attempt = 0; attempt < 10; attempt++)
    {
      int ready[2];
      GPid child;
      char byte;

      g_assert_no_errno (pipe2 (ready, O_CLOEXEC));
      test_set_next_pid (pid);
      child = fork ();
      g_assert_cmpint (child, >=, 0);
      if (child == 0)
        {
          prctl (PR_SET_NAME, name);
          if (write (ready[1], "", 1) != 1)
            _exit (1);
          for (;;)
            pause ();
        }
      close (ready[1]);
      g_assert_cmpint (read (ready[0], &byte, 1), ==, 1);
      close (ready[0]);
      if (child == pid)
        return child;

      /* Someone else forked in between: try again. */
      kill_and_reap (child);
    }

  g_error ("Could not make a process with pid %d", (int) pid);
}

static void
reuse_before_read (GPid pid)
{
  procwatch_test_seam_before_identity_read = NULL;
  kill_and_reap (pid);
  reuse_new_pid = spawn_named_with_pid (pid, "impostor");
  test_cgroup_move (reuse_cgroup, reuse_new_pid);
}

static void
reused_during_watch (void)
{
  g_autoptr(TestCgroup) first = NULL;
  g_autoptr(TestCgroup) second = NULL;
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
  g_autoptr(ProcwatchProcess) process = NULL;
  GPid pid;

  first = test_cgroup_new ("reused-first");
  second = test_cgroup_new ("reused-second");
  reuse_cgroup = second;
  pid = spawn_in (first);

  procwatch_test_seam_before_identity_read = reuse_before_read;
  process = watch_process (monitor, pid);
  g_assert_cmpint (reuse_new_pid, ==, pid);

  g_assert_null (procwatch_process_get_name (process));
  g_assert_null (procwatch_process_get_cgroup (process));

  /* The watched process is the one reaped. */
  test_run_until_count (NULL, &recorder->n_reaped, 1);
  g_assert_true (g_array_index (recorder->events, TestEvent, 0).process == process);
  kill_and_reap (reuse_new_pid);
  reuse_cgroup = NULL;
}

static void
test_process_cgroup_reused (void)
{
  if (test_cgroups_skip ())
    return;

  test_in_pid_namespace (reused_during_watch);
}

int
main (int    argc,
      char **argv)
{
  test_cgroups_set_up ();
  test_init (&argc, &argv);
  /* Its wakeup fd, made with the first monitor, is not the monitor's: it
   * exists before any test counts fds. */
  (void) g_main_context_default ();

  g_test_add_func ("/cgroup/files/mountinfo", test_parse_mountinfo);
  g_test_add_func ("/cgroup/files/no-cgroup2", test_resolve_without_cgroup2);
  g_test_add_func ("/cgroup/files/populated", test_parse_populated);
  g_test_add_func ("/cgroup/launched-exits", test_launched_exits);
  g_test_add_func ("/cgroup/double-fork-orphan", test_double_fork_orphan);
  g_test_add_func ("/cgroup/nested", test_nested);
  g_test_add_func ("/cgroup/refill", test_refill);
  g_test_add_func ("/cgroup/path-forms", test_path_forms);
  g_test_add_func ("/cgroup/errors", test_errors);
  g_test_add_func ("/cgroup/wait-empty", test_wait_empty);
  g_test_add_func ("/cgroup/removed/unseen-empty", test_removed_unseen_empty);
  g_test_add_func ("/cgroup/removed/empty", test_removed_empty);
  g_test_add_func ("/cgroup/removed/probe-backoff", test_probe_backoff);
  g_test_add_func ("/cgroup/unwatch-and-close", test_unwatch_and_close);
  g_test_add_func ("/cgroup/handler-ends-monitor", test_handler_ends_monitor);
  g_test_add_func ("/cgroup/many", test_many);
  g_test_add_func ("/cgroup/process-cgroup", test_process_cgroup);
  g_test_add_func ("/cgroup/process-cgroup-shared", test_process_cgroup_shared);
  g_test_add_func ("/cgroup/process-cgroup/by-id", test_process_cgroup_by_id);
  g_test_add_func ("/cgroup/process-cgroup/remade", test_process_cgroup_remade);
  g_test_add_func ("/cgroup/process-cgroup/pid-reused-during-watch", test_process_cgroup_reused);

  return g_test_run ();
}
