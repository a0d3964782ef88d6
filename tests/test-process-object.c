/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * The process object (API 1.2, issue 13), on real processes:
 * inode, name and status properties, dup_pidfd, send_signal, wait_async,
 * and the monitor's unwatch_process, lookup, watch_pid_inode and list
 * model. Each scenario runs in every backend variant (tests/meson.build),
 * for a child of the test and for a grandchild held by an intermediate
 * parent where that makes a difference; pid reuse is forced in a private
 * pid namespace.
 */

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procwatch-linux-private.h"
#include "procwatch-test-util.h"

/* From linux/magic.h, newer than Debian 12's headers. */
#define TEST_PIDFS_MAGIC 0x50494446

/* A name given to the test's targets: comm holds at most 15 bytes. */
#define TARGET_NAME "pw-handle-targ"

typedef TestFixture Fixture;

/* Starts a process of @kind named @name: a forked process inherits its
 * parent's comm, so the test takes the name while it forks. */
static TestProcess *
spawn_named (TestProcessKind  kind,
             const char      *name)
{
  char own_name[17] = { 0 };
  TestProcess *process;

  g_assert_no_errno (prctl (PR_GET_NAME, own_name));
  g_assert_no_errno (prctl (PR_SET_NAME, name));
  process = test_process_spawn (kind);
  g_assert_no_errno (prctl (PR_SET_NAME, own_name));

  return process;
}

static void
fixture_set_up_target (Fixture       *fixture,
                       gconstpointer  data)
{
  test_fixture_set_up (fixture, data);
  fixture->target = spawn_named (fixture->kind, TARGET_NAME);
  fixture->pid = test_process_get_pid (fixture->target);
}

static gboolean
backend_is_pidfd (ProcwatchProcessMonitor *monitor)
{
  return g_str_equal (procwatch_process_monitor_get_backend (monitor), "pidfd");
}

/* The pidfs inode of a pidfd, as the kernel shows it; 0 before pidfs
 * (Linux 6.9), where pidfds are anonymous inodes that all share one, and
 * in the library's simulation of those kernels. */
static guint64
pidfs_inode_of_fd (int pidfd)
{
  struct statfs fs;
  struct stat st;

  g_assert_no_errno (fstatfs (pidfd, &fs));
  if (fs.f_type != TEST_PIDFS_MAGIC || test_simulating_no_pidfs ())
    return 0;

  g_assert_no_errno (fstat (pidfd, &st));
  return st.st_ino;
}

/* Through a pidfd of our own; 0 where the test cannot open pidfds. */
static guint64
pidfs_inode_of_pid (GPid pid)
{
  int pidfd = procwatch_pidfd_open (pid, 0);
  guint64 inode;

  if (pidfd < 0)
    return 0;

  inode = pidfs_inode_of_fd (pidfd);
  close (pidfd);
  return inode;
}

static ProcwatchProcess *
watch_pid (ProcwatchProcessMonitor *monitor,
           GPid                     pid)
{
  g_autoptr(GError) error = NULL;
  ProcwatchProcess *process = procwatch_process_monitor_watch_pid (monitor, pid, &error);

  g_assert_no_error (error);
  g_assert_nonnull (process);
  return process;
}

/* Whether @pid, a child of the test, is still running: not even a zombie. */
static gboolean
child_is_running (GPid pid)
{
  siginfo_t info = { 0 };

  g_assert_no_errno (waitid (P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT));
  return info.si_pid == 0;
}

/* Whether @pid, any process, is still running: not even a zombie. */
static gboolean
process_is_running (GPid pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/stat", (int) pid);
  g_autofree char *contents = NULL;
  const char *end;

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return FALSE;

  /* The state follows the last ')': comm may hold anything. */
  end = strrchr (contents, ')');
  g_assert_nonnull (end);
  return end[1] == ' ' && end[2] != 'Z' && end[2] != 'X';
}

/* A wait on a process object, and how it ended. */
typedef struct
{
  gboolean done;
  gboolean ok;
  GError *error;
  ProcwatchProcessState state;
} Wait;

static void
wait_clear (Wait *wait)
{
  g_clear_error (&wait->error);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Wait, wait_clear)

static void
on_wait_done (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  Wait *wait = user_data;
  ProcwatchProcess *process = PROCWATCH_PROCESS (source);

  g_assert_false (wait->done);
  wait->ok = procwatch_process_wait_finish (process, result, &wait->error);
  g_assert_true (wait->ok == (wait->error == NULL));
  wait->state = procwatch_process_get_state (process);
  wait->done = TRUE;
}

static void
on_monitor_wait_done (GObject      *source,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  g_autoptr(ProcwatchProcess) process = NULL;
  Wait *wait = user_data;

  g_assert_false (wait->done);
  process = procwatch_process_monitor_wait_finish (PROCWATCH_PROCESS_MONITOR (source), result,
                                                   &wait->error);
  wait->ok = process != NULL;
  wait->done = TRUE;
}

/* Starts a wait and checks that it does not complete inside the call. */
static void
start_wait (ProcwatchProcess *process,
            GCancellable     *cancellable,
            Wait             *wait)
{
  procwatch_process_wait_async (process, cancellable, on_wait_done, wait);
  g_assert_false (wait->done);
}

/* Starts a wait that must end from the main loop with @code (or succeed,
 * for 0). */
static void
assert_wait_ends (ProcwatchProcess *process,
                  int               code)
{
  g_auto(Wait) wait = { 0 };

  start_wait (process, NULL, &wait);
  test_run_until (NULL, &wait.done);
  if (code == 0)
    g_assert_no_error (wait.error);
  else
    g_assert_error (wait.error, G_IO_ERROR, code);
}

static void
assert_dup_pidfd_fails (ProcwatchProcess *process,
                        int               code)
{
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (procwatch_process_dup_pidfd (process, &error), ==, -1);
  g_assert_error (error, G_IO_ERROR, code);
}

static void
assert_send_signal_fails (ProcwatchProcess *process,
                          int               signum,
                          int               code)
{
  g_autoptr(GError) error = NULL;

  g_assert_false (procwatch_process_send_signal (process, signum, &error));
  g_assert_error (error, G_IO_ERROR, code);
}

/* Exits or kills the target, then reaps it and waits for "reaped". */
static int
end_and_reap (Fixture *fixture,
              int      code)
{
  guint reaped = fixture->recorder->n_reaped;
  int status;

  test_process_exit (fixture->target, code);
  status = test_process_reap (fixture->target);
  test_run_until_count (NULL, &fixture->recorder->n_reaped, reaped + 1);
  return status;
}

/* get_inode: the pidfs inode where the backend holds a pidfd. */
static void
test_inode (Fixture       *fixture,
            gconstpointer  data)
{
  g_autoptr(ProcwatchProcessMonitor) other = procwatch_process_monitor_new ();
  g_autoptr(ProcwatchProcess) process = watch_pid (fixture->monitor, fixture->pid);
  guint64 expected = pidfs_inode_of_pid (fixture->pid);
  guint64 property = 1;

  g_object_get (process, "inode", &property, NULL);
  g_assert_cmpuint (property, ==, procwatch_process_get_inode (process));

  g_test_message ("%s backend, inode %" G_GUINT64_FORMAT ", pidfs inode %" G_GUINT64_FORMAT,
                  procwatch_process_monitor_get_backend (fixture->monitor),
                  procwatch_process_get_inode (process), expected);
  if (backend_is_pidfd (fixture->monitor))
    g_assert_cmpuint (procwatch_process_get_inode (process), ==, expected);
  else
    g_assert_cmpuint (procwatch_process_get_inode (process), ==, 0);

  /* Watched by a pidfd, every backend knows it. */
  if (test_have_pidfd ())
    {
      g_autoptr(ProcwatchProcess) by_pidfd = test_watch_by_pidfd (other, fixture->pid);

      g_assert_cmpuint (procwatch_process_get_inode (by_pidfd), ==, expected);
    }

  /* It is the identity of the process: it survives its end. */
  end_and_reap (fixture, 0);
  g_object_get (process, "inode", &property, NULL);
  g_assert_cmpuint (property, ==, backend_is_pidfd (fixture->monitor) ? expected : 0);
}

static char *
read_comm (GPid pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/comm", (int) pid);
  g_autofree char *contents = NULL;

  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  return g_strdup (g_strchomp (contents));
}

static void
assert_name (ProcwatchProcess *process,
             const char       *expected)
{
  g_autofree char *property = NULL;

  g_object_get (process, "name", &property, NULL);
  g_assert_cmpstr (procwatch_process_get_name (process), ==, expected);
  g_assert_cmpstr (property, ==, expected);
}

static void
check_name_at_event (ProcwatchProcessMonitor *monitor,
                     ProcwatchProcess        *process,
                     gpointer                 user_data)
{
  assert_name (process, TARGET_NAME);
}

/* get_name: comm when watching started, kept after exit and reap. */
static void
test_name (Fixture       *fixture,
           gconstpointer  data)
{
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autofree char *comm = read_comm (fixture->pid);

  g_assert_cmpstr (comm, ==, TARGET_NAME);
  process = watch_pid (fixture->monitor, fixture->pid);
  assert_name (process, comm);

  g_signal_connect (fixture->monitor, "exited", G_CALLBACK (check_name_at_event), NULL);
  g_signal_connect (fixture->monitor, "reaped", G_CALLBACK (check_name_at_event), NULL);
  end_and_reap (fixture, 0);
  g_assert_cmpuint (fixture->recorder->n_exited, ==, 1);
  assert_name (process, TARGET_NAME);
}

/* A comm of the full 15 bytes, and one that only fits once made valid
 * UTF-8 (each stray byte becomes a 3-byte U+FFFD): both names are whole,
 * and stay so after the monitor is gone. */
static void
test_name_lengths (void)
{
  const char *names[] = { "fifteen-bytes-x", "\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8" };
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  ProcwatchProcess *processes[G_N_ELEMENTS (names)];
  char *expected[G_N_ELEMENTS (names)];
  guint i;

  for (i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr(TestProcess) target = spawn_named (TEST_PROCESS_CHILD, names[i]);
      g_autofree char *comm = read_comm (test_process_get_pid (target));

      expected[i] = g_utf8_make_valid (comm, -1);
      processes[i] = watch_pid (monitor, test_process_get_pid (target));
      assert_name (processes[i], expected[i]);
      test_process_kill (target, SIGKILL);
      test_process_reap (target);
    }

  g_assert_cmpuint (strlen (expected[0]), ==, 15);
  g_assert_cmpuint (strlen (expected[1]), >, 15);

  g_clear_object (&monitor);
  for (i = 0; i < G_N_ELEMENTS (names); i++)
    {
      assert_name (processes[i], expected[i]);
      g_object_unref (processes[i]);
      g_free (expected[i]);
    }
}

/* Records the names of the properties notified, in order. */
static void
on_notify (GObject    *object,
           GParamSpec *pspec,
           GPtrArray  *log)
{
  g_ptr_array_add (log, (gpointer) g_param_spec_get_name (pspec));
}

static char *
join_log (GPtrArray *log)
{
  GString *joined = g_string_new (NULL);
  guint i;

  for (i = 0; i < log->len; i++)
    g_string_append_printf (joined, "%s%s", i > 0 ? " " : "", (const char *) log->pdata[i]);

  return g_string_free (joined, FALSE);
}

static void
assert_status_properties (ProcwatchProcess *process,
                          gboolean          has_status,
                          int               exit_status,
                          int               term_sig)
{
  gboolean has = !has_status;
  int code = -2;
  int sig = -2;

  g_object_get (process, "status-known", &has, "exit-status", &code, "term-sig", &sig, NULL);
  g_assert_cmpint (has, ==, has_status);
  g_assert_cmpint (has, ==, procwatch_process_has_status (process));
  g_assert_cmpint (code, ==, exit_status);
  g_assert_cmpint (sig, ==, term_sig);
}

/* The notifications expected when the status becomes known and the state
 * then changes: the status properties first (in either order), then the
 * state. */
static const char *
status_notifications (gboolean killed)
{
  return killed ? "status-known term-sig state|term-sig status-known state"
                : "status-known exit-status state|exit-status status-known state";
}

static void
assert_log (GPtrArray  *log,
            const char *alternatives)
{
  g_autofree char *joined = join_log (log);
  g_auto(GStrv) each = g_strsplit (alternatives, "|", -1);

  g_test_message ("notified: %s", joined);
  if (!g_strv_contains ((const char * const *) each, joined))
    g_error ("notified \"%s\", expected one of \"%s\"", joined, alternatives);
  g_ptr_array_set_size (log, 0);
}

/* The state when "status-known" is notified: before "state" is notified,
 * it has its new value already. */
static void
on_status_known_state (ProcwatchProcess      *process,
                       GParamSpec            *pspec,
                       ProcwatchProcessState *state)
{
  *state = procwatch_process_get_state (process);
}

/* status-known, exit-status, term-sig: values while running, at "exited" and
 * at "reaped", and their notifications before "state"'s. */
static void
check_status_properties (Fixture  *fixture,
                         gboolean  killed)
{
  g_autoptr(ProcwatchProcess) process = watch_pid (fixture->monitor, fixture->pid);
  g_autoptr(GPtrArray) log = g_ptr_array_new ();
  gboolean after_reap = test_status_known_after_reap (fixture->monitor);
  int exit_status = killed ? -1 : 7;
  int term_sig = killed ? SIGKILL : 0;
  ProcwatchProcessState state_when_known = PROCWATCH_PROCESS_STATE_RUNNING;
  int status;

  assert_status_properties (process, FALSE, -1, 0);
  g_signal_connect (process, "notify", G_CALLBACK (on_notify), log);
  g_signal_connect (process, "notify::status-known", G_CALLBACK (on_status_known_state),
                    &state_when_known);

  if (killed)
    test_process_kill (fixture->target, SIGKILL);
  else
    test_process_exit (fixture->target, 7);
  test_run_until_count (NULL, &fixture->recorder->n_exited, 1);

  if (test_fixture_is_child (fixture))
    {
      assert_log (log, status_notifications (killed));
      assert_status_properties (process, TRUE, exit_status, term_sig);
      g_assert_cmpint (state_when_known, ==, PROCWATCH_PROCESS_STATE_EXITED);
    }
  else
    {
      assert_log (log, "state");
      assert_status_properties (process, FALSE, -1, 0);
    }

  status = test_process_reap (fixture->target);
  g_assert_cmpint (status, ==, killed ? SIGKILL : 7 << 8);
  test_run_until_count (NULL, &fixture->recorder->n_reaped, 1);

  if (test_fixture_is_child (fixture) || !after_reap)
    assert_log (log, "state");
  else
    {
      assert_log (log, status_notifications (killed));
      g_assert_cmpint (state_when_known, ==, PROCWATCH_PROCESS_STATE_REAPED);
    }

  if (test_fixture_is_child (fixture) || after_reap)
    assert_status_properties (process, TRUE, exit_status, term_sig);
  else
    assert_status_properties (process, FALSE, -1, 0);
}

static void
test_status_exit (Fixture       *fixture,
                  gconstpointer  data)
{
  check_status_properties (fixture, FALSE);
}

static void
test_status_signal (Fixture       *fixture,
                    gconstpointer  data)
{
  check_status_properties (fixture, TRUE);
}

/* dup_pidfd: a new close-on-exec pidfd of the same process, polling as the
 * process does, while it is watched; CLOSED after; NOT_SUPPORTED without a
 * pidfd in the backend. */
static void
test_dup_pidfd (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(ProcwatchProcess) process = watch_pid (fixture->monitor, fixture->pid);
  guint n_fds;
  int own = -1;
  int fd;
  int again;

  if (!backend_is_pidfd (fixture->monitor))
    {
      /* Watched by pid, the /proc backends hold no pidfd. */
      assert_dup_pidfd_fails (process, G_IO_ERROR_NOT_SUPPORTED);
      g_assert_true (procwatch_process_monitor_unwatch_process (fixture->monitor, process));
      g_clear_object (&process);
      if (test_skip_without_pidfd ())
        return;
      process = test_watch_by_pidfd (fixture->monitor, fixture->pid);
    }

  own = procwatch_pidfd_open (fixture->pid, 0);
  g_assert_no_errno (own);
  n_fds = test_count_open_fds ();

  fd = procwatch_process_dup_pidfd (process, NULL);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (fcntl (fd, F_GETFD), ==, FD_CLOEXEC);
  g_assert_cmpuint (pidfs_inode_of_fd (fd), ==, pidfs_inode_of_fd (own));
  g_assert_cmpuint (pidfs_inode_of_fd (fd), ==, procwatch_process_get_inode (process));
  g_assert_cmpint (test_pidfd_revents (fd), ==, 0);
  g_assert_cmpint (test_pidfd_revents (own), ==, 0);

  again = procwatch_process_dup_pidfd (process, NULL);
  g_assert_cmpint (again, >=, 0);
  g_assert_cmpint (again, !=, fd);
  close (again);

  test_process_exit (fixture->target, 0);
  test_process_await_exit (fixture->target);
  g_assert_cmpint (test_pidfd_revents (own), ==, POLLIN);
  g_assert_cmpint (test_pidfd_revents (fd), ==, POLLIN);
  close (fd);

  /* Exited, not reaped: still watched, still has a pidfd. */
  test_run_until_count (NULL, &fixture->recorder->n_exited, 1);
  fd = procwatch_process_dup_pidfd (process, NULL);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (test_pidfd_revents (fd), ==, POLLIN);
  close (fd);
  g_assert_cmpuint (test_count_open_fds (), ==, n_fds);

  test_process_reap (fixture->target);
  test_run_until_count (NULL, &fixture->recorder->n_reaped, 1);
  assert_dup_pidfd_fails (process, G_IO_ERROR_CLOSED);
  g_assert_cmpint (test_pidfd_revents (own), ==,
                   test_kernel_reports_reap_hangup () ? POLLIN | POLLHUP : POLLIN);
  close (own);
}

/* send_signal: reaches the process; 0 checks; bad numbers refused;
 * NOT_FOUND once it has exited. */
static void
check_send_signal (Fixture          *fixture,
                   ProcwatchProcess *process)
{
  g_autoptr(GError) error = NULL;
  int status;

  g_assert_true (procwatch_process_send_signal (process, 0, &error));
  g_assert_no_error (error);
  assert_send_signal_fails (process, 1000, G_IO_ERROR_INVALID_ARGUMENT);
  assert_send_signal_fails (process, -1, G_IO_ERROR_INVALID_ARGUMENT);

  g_assert_true (procwatch_process_send_signal (process, SIGTERM, &error));
  g_assert_no_error (error);
  test_run_until_count (NULL, &fixture->recorder->n_exited, 1);
  if (test_fixture_is_child (fixture))
    assert_status_properties (process, TRUE, -1, SIGTERM);
  assert_send_signal_fails (process, SIGTERM, G_IO_ERROR_NOT_FOUND);
  assert_send_signal_fails (process, 0, G_IO_ERROR_NOT_FOUND);

  /* What its parent collects: the signal we sent, to this process. */
  status = test_process_reap (fixture->target);
  g_assert_true (WIFSIGNALED (status));
  g_assert_cmpint (WTERMSIG (status), ==, SIGTERM);
  test_run_until_count (NULL, &fixture->recorder->n_reaped, 1);
  if (procwatch_process_has_status (process))
    assert_status_properties (process, TRUE, -1, SIGTERM);
  assert_send_signal_fails (process, SIGTERM, G_IO_ERROR_NOT_FOUND);
}

static void
test_send_signal (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autoptr(ProcwatchProcess) process = watch_pid (fixture->monitor, fixture->pid);

  check_send_signal (fixture, process);
}

/* With the /proc backends, through the pidfd the monitor holds then. */
static void
test_send_signal_by_pidfd (Fixture       *fixture,
                           gconstpointer  data)
{
  g_autoptr(ProcwatchProcess) process = NULL;

  if (test_skip_without_pidfd ())
    return;

  process = test_watch_by_pidfd (fixture->monitor, fixture->pid);
  check_send_signal (fixture, process);
}

/* The process has exited, and the monitor has not dispatched that yet:
 * the kernel would accept a signal for the zombie; the library says it is
 * gone. */
static void
test_send_signal_exit_not_dispatched (Fixture       *fixture,
                                      gconstpointer  data)
{
  g_autoptr(ProcwatchProcess) process = watch_pid (fixture->monitor, fixture->pid);
  int status;

  test_process_kill (fixture->target, SIGKILL);
  test_process_await_exit (fixture->target);
  g_assert_cmpint (procwatch_process_get_state (process), ==, PROCWATCH_PROCESS_STATE_RUNNING);

  assert_send_signal_fails (process, 0, G_IO_ERROR_NOT_FOUND);
  assert_send_signal_fails (process, SIGTERM, G_IO_ERROR_NOT_FOUND);

  test_run_until_count (NULL, &fixture->recorder->n_exited, 1);
  status = test_process_reap (fixture->target);
  g_assert_cmpint (status, ==, SIGKILL);
  test_run_until_count (NULL, &fixture->recorder->n_reaped, 1);
}

/* EPERM: a process of root, signalled by the test after it dropped to
 * nobody. */
static void
test_send_signal_permission_denied (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
      g_autoptr(ProcwatchProcess) process = NULL;
      TestProcess *target = test_process_spawn (TEST_PROCESS_CHILD);
      GPid pid = test_process_get_pid (target);

      g_assert_no_errno (setgroups (0, NULL));
      g_assert_no_errno (setresgid (65534, 65534, 65534));
      g_assert_no_errno (setresuid (65534, 65534, 65534));

      monitor = procwatch_process_monitor_new ();
      process = watch_pid (monitor, pid);
      assert_send_signal_fails (process, SIGKILL, G_IO_ERROR_PERMISSION_DENIED);
      assert_send_signal_fails (process, 0, G_IO_ERROR_PERMISSION_DENIED);
      g_assert_true (child_is_running (pid));

      /* We may not kill it any more: it exits when told. */
      test_process_exit (target, 0);
      g_assert_cmpint (test_process_reap (target), ==, 0);
      test_process_free (target);
      return;
    }

  if (geteuid () != 0)
    {
      g_test_skip ("needs root, to start a process of root and then drop to another user");
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

static int signalled_tid_pipe = -1;

static void
report_signalled_tid (int signum)
{
  pid_t tid = (pid_t) syscall (SYS_gettid);

  if (write (signalled_tid_pipe, &tid, sizeof tid) != sizeof tid)
    _exit (1);
}

/* A watched thread gets the signal itself, with pidfds. */
static void
test_send_signal_thread (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GError) error = NULL;
  TestParkedThread *thread;
  struct sigaction action = { 0 };
  struct sigaction old_action;
  int fds[2];
  pid_t tid = 0;

  if (!backend_is_pidfd (monitor))
    {
      g_test_skip ("without pidfds a signal goes to the whole process (kill)");
      return;
    }

  thread = test_parked_thread_new ();
  process = procwatch_process_monitor_watch_pid (monitor, test_parked_thread_get_tid (thread), &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED))
    {
      test_parked_thread_release (thread);
      g_test_skip ("no thread pidfds on this kernel (before Linux 6.9)");
      return;
    }
  g_assert_no_error (error);

  g_assert_no_errno (pipe2 (fds, O_CLOEXEC));
  signalled_tid_pipe = fds[1];
  action.sa_handler = report_signalled_tid;
  action.sa_flags = SA_RESTART;
  g_assert_no_errno (sigaction (SIGUSR1, &action, &old_action));

  g_assert_true (procwatch_process_send_signal (process, SIGUSR1, &error));
  g_assert_no_error (error);
  g_assert_cmpint (read (fds[0], &tid, sizeof tid), ==, sizeof tid);
  g_assert_cmpint (tid, ==, test_parked_thread_get_tid (thread));

  g_assert_no_errno (sigaction (SIGUSR1, &old_action, NULL));
  close (fds[0]);
  close (fds[1]);
  test_parked_thread_release (thread);
}

/* wait_async: completes at the exit, before the reap; every wait. */
static void
test_wait (Fixture       *fixture,
           gconstpointer  data)
{
  g_autoptr(ProcwatchProcess) process = watch_pid (fixture->monitor, fixture->pid);
  g_auto(Wait) first = { 0 };
  g_auto(Wait) second = { 0 };

  start_wait (process, NULL, &first);
  start_wait (process, NULL, &second);
  test_drain_context (NULL);
  g_assert_false (first.done || second.done);

  test_process_exit (fixture->target, 4);
  test_run_until (NULL, &first.done);
  test_run_until (NULL, &second.done);
  g_assert_no_error (first.error);
  g_assert_no_error (second.error);
  g_assert_cmpint (first.state, ==, PROCWATCH_PROCESS_STATE_EXITED);
  g_assert_cmpint (second.state, ==, PROCWATCH_PROCESS_STATE_EXITED);
  g_assert_cmpuint (fixture->recorder->n_exited, ==, 1);
  if (test_fixture_is_child (fixture))
    assert_status_properties (process, TRUE, 4, 0);

  test_process_reap (fixture->target);
  test_run_until_count (NULL, &fixture->recorder->n_reaped, 1);
}

/* A process that has exited already: from the main loop, not inside. */
static void
test_wait_exited (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autoptr(ProcwatchProcess) process = watch_pid (fixture->monitor, fixture->pid);

  test_process_exit (fixture->target, 0);
  test_run_until_count (NULL, &fixture->recorder->n_exited, 1);
  assert_wait_ends (process, 0);

  test_process_reap (fixture->target);
  test_run_until_count (NULL, &fixture->recorder->n_reaped, 1);
  assert_wait_ends (process, 0);
}

/* CANCELLED: by the cancellable (during and before), by unwatch_process,
 * by close. */
static void
test_wait_cancel (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autoptr(ProcwatchProcess) process = watch_pid (fixture->monitor, fixture->pid);
  g_autoptr(ProcwatchProcess) again = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_auto(Wait) cancelled = { 0 };
  g_auto(Wait) cancelled_before = { 0 };
  g_auto(Wait) unwatched = { 0 };
  g_auto(Wait) closed = { 0 };

  start_wait (process, cancellable, &cancelled);
  g_cancellable_cancel (cancellable);
  test_run_until (NULL, &cancelled.done);
  g_assert_error (cancelled.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

  start_wait (process, cancellable, &cancelled_before);
  test_run_until (NULL, &cancelled_before.done);
  g_assert_error (cancelled_before.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

  start_wait (process, NULL, &unwatched);
  g_assert_true (procwatch_process_monitor_unwatch_process (fixture->monitor, process));
  g_assert_false (unwatched.done);
  test_run_until (NULL, &unwatched.done);
  g_assert_error (unwatched.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

  /* Watched anew: a new object, as for any process watched again. */
  again = watch_pid (fixture->monitor, fixture->pid);
  g_assert_true (again != process);
  start_wait (again, NULL, &closed);
  procwatch_process_monitor_close (fixture->monitor);
  g_assert_false (closed.done);
  test_run_until (NULL, &closed.done);
  g_assert_error (closed.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpint (procwatch_process_get_state (again), ==, PROCWATCH_PROCESS_STATE_RUNNING);
  g_assert_cmpuint (fixture->recorder->events->len, ==, 0);
}

/* unwatch_process: true once; not another monitor's process; nothing
 * emitted afterwards; the calls that act on it fail with CLOSED. */
static void
test_unwatch_process (Fixture       *fixture,
                      gconstpointer  data)
{
  g_autoptr(ProcwatchProcessMonitor) sentinel = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) sentinel_recorder = test_recorder_new (sentinel);
  g_autoptr(ProcwatchProcess) process = watch_pid (fixture->monitor, fixture->pid);
  g_autoptr(ProcwatchProcess) sentinel_process = watch_pid (sentinel, fixture->pid);
  g_autoptr(ProcwatchProcess) found = NULL;

  /* Each monitor stops only its own. */
  g_assert_false (procwatch_process_monitor_unwatch_process (sentinel, process));
  found = procwatch_process_monitor_lookup (fixture->monitor, fixture->pid);
  g_assert_true (found == process);
  g_clear_object (&found);

  g_assert_true (procwatch_process_monitor_unwatch_process (fixture->monitor, process));
  g_assert_false (procwatch_process_monitor_unwatch_process (fixture->monitor, process));
  g_assert_null (procwatch_process_monitor_lookup (fixture->monitor, fixture->pid));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (fixture->monitor)), ==, 0);
  g_assert_false (procwatch_process_monitor_unwatch (fixture->monitor, fixture->pid));

  assert_dup_pidfd_fails (process, G_IO_ERROR_CLOSED);
  assert_send_signal_fails (process, 0, G_IO_ERROR_CLOSED);
  assert_send_signal_fails (process, SIGKILL, G_IO_ERROR_CLOSED);
  assert_wait_ends (process, G_IO_ERROR_CLOSED);
  g_assert_true (process_is_running (fixture->pid));
  /* The other monitor still watches it, with its own process object. */
  g_assert_true (sentinel_process != process);
  found = procwatch_process_monitor_lookup (sentinel, fixture->pid);
  g_assert_true (found == sentinel_process);
  g_clear_object (&found);

  test_fixture_assert_silent_to_the_end (fixture, sentinel_recorder);
  g_assert_cmpint (procwatch_process_get_state (process), ==, PROCWATCH_PROCESS_STATE_RUNNING);
}

/* After close(): CLOSED for what acts on the process, nothing watched. */
static void
test_after_close (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autoptr(ProcwatchProcess) process = watch_pid (fixture->monitor, fixture->pid);
  g_autoptr(GError) error = NULL;
  guint64 inode = procwatch_process_get_inode (process);

  procwatch_process_monitor_close (fixture->monitor);

  assert_dup_pidfd_fails (process, G_IO_ERROR_CLOSED);
  assert_send_signal_fails (process, SIGKILL, G_IO_ERROR_CLOSED);
  assert_wait_ends (process, G_IO_ERROR_CLOSED);
  g_assert_false (procwatch_process_monitor_unwatch_process (fixture->monitor, process));
  g_assert_null (procwatch_process_monitor_lookup (fixture->monitor, fixture->pid));
  g_assert_null (procwatch_process_monitor_watch_pid_inode (fixture->monitor, fixture->pid,
                                                            inode != 0 ? inode : 1, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CLOSED);
}

/* After the reap: NOT_FOUND for signals (it has exited), CLOSED for a
 * pidfd, a wait completes at once. */
static void
test_after_reap (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autoptr(ProcwatchProcess) process = watch_pid (fixture->monitor, fixture->pid);

  end_and_reap (fixture, 0);

  assert_dup_pidfd_fails (process, G_IO_ERROR_CLOSED);
  assert_send_signal_fails (process, 0, G_IO_ERROR_NOT_FOUND);
  assert_wait_ends (process, 0);
  g_assert_false (procwatch_process_monitor_unwatch_process (fixture->monitor, process));
  g_assert_null (procwatch_process_monitor_lookup (fixture->monitor, fixture->pid));
}

static void
assert_not_listed_at_reaped (ProcwatchProcessMonitor *monitor,
                             ProcwatchProcess        *process,
                             gpointer                 user_data)
{
  g_assert_null (procwatch_process_monitor_lookup (monitor, procwatch_process_get_pid (process)));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (monitor)), ==, 0);
}

/* lookup: the watched process while watched, NULL otherwise. */
static void
test_lookup (Fixture       *fixture,
             gconstpointer  data)
{
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(ProcwatchProcess) found = NULL;

  g_assert_null (procwatch_process_monitor_lookup (fixture->monitor, fixture->pid));
  process = watch_pid (fixture->monitor, fixture->pid);

  found = procwatch_process_monitor_lookup (fixture->monitor, fixture->pid);
  g_assert_true (found == process);
  g_clear_object (&found);
  g_assert_null (procwatch_process_monitor_lookup (fixture->monitor, 0));
  g_assert_null (procwatch_process_monitor_lookup (fixture->monitor, -1));
  g_assert_null (procwatch_process_monitor_lookup (fixture->monitor, G_MININT));
  g_assert_null (procwatch_process_monitor_lookup (fixture->monitor, getpid ()));

  /* Exited, not reaped: still watched. */
  test_process_exit (fixture->target, 0);
  test_run_until_count (NULL, &fixture->recorder->n_exited, 1);
  found = procwatch_process_monitor_lookup (fixture->monitor, fixture->pid);
  g_assert_true (found == process);
  g_clear_object (&found);

  g_signal_connect (fixture->monitor, "reaped", G_CALLBACK (assert_not_listed_at_reaped), NULL);
  test_process_reap (fixture->target);
  test_run_until_count (NULL, &fixture->recorder->n_reaped, 1);
  g_assert_null (procwatch_process_monitor_lookup (fixture->monitor, fixture->pid));
}

static void
assert_watch_pid_inode_fails (ProcwatchProcessMonitor *monitor,
                              GPid                     pid,
                              guint64                  inode,
                              int                      code)
{
  g_autoptr(GError) error = NULL;
  guint n_items = g_list_model_get_n_items (G_LIST_MODEL (monitor));
  guint n_fds = test_count_open_fds ();

  g_assert_null (procwatch_process_monitor_watch_pid_inode (monitor, pid, inode, &error));
  g_assert_error (error, G_IO_ERROR, code);
  g_test_message ("watch_pid_inode (%d, %" G_GUINT64_FORMAT "): %s",
                  (int) pid, inode, error->message);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (monitor)), ==, n_items);
  g_assert_cmpuint (test_count_open_fds (), ==, n_fds);
}

/* watch_pid_inode: the right inode watches that process; a wrong one,
 * 0, or a backend without inodes are refused. */
static void
test_watch_pid_inode (Fixture       *fixture,
                      gconstpointer  data)
{
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(ProcwatchProcess) by_pid = NULL;
  g_autoptr(ProcwatchProcess) again = NULL;
  g_autoptr(GError) error = NULL;
  guint64 inode = pidfs_inode_of_pid (fixture->pid);
  guint64 own_inode = pidfs_inode_of_pid (getpid ());

  /* The monitor's own fds exist from its first watch on: counting fds
   * around the failed calls below must not count them. */
  g_object_unref (watch_pid (fixture->monitor, getpid ()));
  g_assert_true (procwatch_process_monitor_unwatch (fixture->monitor, getpid ()));

  assert_watch_pid_inode_fails (fixture->monitor, fixture->pid, 0, G_IO_ERROR_INVALID_ARGUMENT);
  assert_watch_pid_inode_fails (fixture->monitor, 0, 5, G_IO_ERROR_INVALID_ARGUMENT);
  assert_watch_pid_inode_fails (fixture->monitor, -1, 5, G_IO_ERROR_INVALID_ARGUMENT);

  if (!backend_is_pidfd (fixture->monitor) || inode == 0)
    {
      assert_watch_pid_inode_fails (fixture->monitor, fixture->pid, inode != 0 ? inode : 5,
                                    G_IO_ERROR_NOT_SUPPORTED);
      return;
    }

  /* Another process's inode: ours. */
  assert_watch_pid_inode_fails (fixture->monitor, fixture->pid, own_inode, G_IO_ERROR_NOT_FOUND);

  process = procwatch_process_monitor_watch_pid_inode (fixture->monitor, fixture->pid, inode, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (procwatch_process_get_inode (process), ==, inode);
  g_assert_cmpint (procwatch_process_get_pid (process), ==, fixture->pid);
  by_pid = watch_pid (fixture->monitor, fixture->pid);
  g_assert_true (by_pid == process);
  again = procwatch_process_monitor_watch_pid_inode (fixture->monitor, fixture->pid, inode, &error);
  g_assert_no_error (error);
  g_assert_true (again == process);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (fixture->monitor)), ==, 1);

  end_and_reap (fixture, 0);
  g_assert_true (test_recorder_find (fixture->recorder, fixture->pid,
                                     PROCWATCH_PROCESS_STATE_REAPED)->process == process);

  /* The pid is free now, or another process's. */
  assert_watch_pid_inode_fails (fixture->monitor, fixture->pid, inode, G_IO_ERROR_NOT_FOUND);
}

/* A process watched through a pidfd of a reaped process: pid 0, no name;
 * waits complete, and it can be stopped by its object. */
static void
test_pid_zero_reaped (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(ProcwatchProcess) unwatched = NULL;
  g_auto(Wait) wait = { 0 };
  int pidfds[2];
  guint i;

  if (test_skip_without_pidfd ())
    return;

  for (i = 0; i < G_N_ELEMENTS (pidfds); i++)
    {
      TestProcess *target = test_process_spawn (TEST_PROCESS_CHILD);

      pidfds[i] = procwatch_pidfd_open (test_process_get_pid (target), 0);
      g_assert_no_errno (pidfds[i]);
      test_process_exit (target, 3);
      test_process_reap (target);
      test_process_free (target);
    }

  process = procwatch_process_monitor_watch_pidfd (monitor, pidfds[0], NULL);
  g_assert_nonnull (process);
  g_assert_cmpint (procwatch_process_get_pid (process), ==, 0);
  assert_name (process, NULL);
  g_assert_cmpuint (procwatch_process_get_inode (process), ==, pidfs_inode_of_fd (pidfds[0]));
  g_assert_null (procwatch_process_monitor_lookup (monitor, 0));

  unwatched = procwatch_process_monitor_watch_pidfd (monitor, pidfds[1], NULL);
  g_assert_nonnull (unwatched);
  g_assert_cmpint (procwatch_process_get_pid (unwatched), ==, 0);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (monitor)), ==, 2);
  g_assert_false (procwatch_process_monitor_unwatch (monitor, 0));
  g_assert_true (procwatch_process_monitor_unwatch_process (monitor, unwatched));
  g_assert_false (procwatch_process_monitor_unwatch_process (monitor, unwatched));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (monitor)), ==, 1);

  start_wait (process, NULL, &wait);
  test_run_until (NULL, &wait.done);
  g_assert_no_error (wait.error);
  test_run_until_count (NULL, &recorder->n_reaped, 1);
  test_drain_context (NULL);
  g_assert_cmpuint (recorder->events->len, ==, 2);
  g_assert_true (g_array_index (recorder->events, TestEvent, 1).process == process);
  if (test_kernel_keeps_exit_status ())
    assert_status_properties (process, TRUE, 3, 0);

  for (i = 0; i < G_N_ELEMENTS (pidfds); i++)
    close (pidfds[i]);
}

/* Runs in a new pid namespace (pid 1), with pidfds of two running
 * processes outside it, which it cannot see: pid 0. */
static void
watch_outer_processes (int          pidfd,
                       int          other_pidfd,
                       TestProcess *outer)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(ProcwatchProcess) other = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(Wait) wait = { 0 };
  g_auto(Wait) cancelled = { 0 };

  g_assert_cmpint (getpid (), ==, 1);

  process = procwatch_process_monitor_watch_pidfd (monitor, pidfd, &error);
  if (!backend_is_pidfd (monitor))
    {
      /* The /proc backends refuse a process /proc does not show. */
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
      return;
    }

  g_assert_no_error (error);
  g_assert_cmpint (procwatch_process_get_pid (process), ==, 0);
  g_assert_cmpint (procwatch_process_get_state (process), ==, PROCWATCH_PROCESS_STATE_RUNNING);
  assert_name (process, NULL);
  g_assert_cmpuint (procwatch_process_get_inode (process), ==, pidfs_inode_of_fd (pidfd));

  other = procwatch_process_monitor_watch_pidfd (monitor, other_pidfd, &error);
  g_assert_no_error (error);
  g_assert_cmpint (procwatch_process_get_pid (other), ==, 0);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (monitor)), ==, 2);

  /* Stopped by its object; the other one with pid 0 stays. */
  start_wait (other, NULL, &cancelled);
  g_assert_true (procwatch_process_monitor_unwatch_process (monitor, other));
  g_assert_false (procwatch_process_monitor_unwatch_process (monitor, other));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (monitor)), ==, 1);
  test_run_until (NULL, &cancelled.done);
  g_assert_error (cancelled.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

  /* It lives in an ancestor pid namespace: out of reach of signals. */
  assert_send_signal_fails (process, 0, G_IO_ERROR_PERMISSION_DENIED);
  assert_send_signal_fails (process, SIGKILL, G_IO_ERROR_PERMISSION_DENIED);
  assert_send_signal_fails (process, 1000, G_IO_ERROR_INVALID_ARGUMENT);
  start_wait (process, NULL, &wait);
  test_process_exit (outer, 0);
  test_run_until (NULL, &wait.done);
  g_assert_no_error (wait.error);
  g_assert_cmpint (wait.state, ==, PROCWATCH_PROCESS_STATE_EXITED);
  g_assert_cmpuint (recorder->n_exited, ==, 1);
}

/* A running process with pid 0: one outside the monitor's pid namespace. */
static void
test_pid_zero_running (void)
{
  g_autofree char *why = NULL;

  if (g_test_subprocess ())
    {
      /* Static: in the namespace's first process, which exits with them
       * still allocated (they are the parent's to free), they are no leak. */
      static TestProcess *outer;
      static TestProcess *other;
      int pidfd;
      int other_pidfd;
      int status;
      pid_t pid;

      outer = test_process_spawn (TEST_PROCESS_CHILD);
      other = test_process_spawn (TEST_PROCESS_CHILD);
      pidfd = procwatch_pidfd_open (test_process_get_pid (outer), 0);
      other_pidfd = procwatch_pidfd_open (test_process_get_pid (other), 0);
      g_assert_no_errno (pidfd);
      g_assert_no_errno (other_pidfd);
      g_assert_no_errno (test_unshare (CLONE_NEWPID));

      pid = fork ();
      g_assert_cmpint (pid, >=, 0);
      if (pid == 0)
        {
          watch_outer_processes (pidfd, other_pidfd, outer);
          exit (0);
        }

      g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
      g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
      test_process_free (outer);
      test_process_free (other);

      /* Our new children would be in the namespace, now dead with its
       * first process: LeakSanitizer could not clone its checker at exit. */
      _exit (0);
    }

  if (test_skip_without_pidfd ())
    return;

  if (!test_can_unshare (CLONE_NEWPID, NULL, NULL, &why))
    {
      g_test_skip_printf ("cannot create a pid namespace here (%s)", why);
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

/* In a private pid namespace: a child that has exactly the pid @pid. */
static TestProcess *
spawn_with_pid (GPid pid)
{
  guint attempt;

  for (attempt = 0; attempt < 10; attempt++)
    {
      TestProcess *process;

      test_set_next_pid (pid);
      process = test_process_spawn (TEST_PROCESS_CHILD);
      if (test_process_get_pid (process) == pid)
        return process;

      /* Someone else forked in between: try again. */
      test_process_free (process);
    }

  g_error ("Could not make a process with pid %d", (int) pid);
}

static void
assert_items (ProcwatchProcessMonitor *monitor,
              ProcwatchProcess        *first,
              ...)
{
  GListModel *model = G_LIST_MODEL (monitor);
  ProcwatchProcess *expected;
  va_list args;
  guint i = 0;

  va_start (args, first);
  for (expected = first; expected != NULL; expected = va_arg (args, ProcwatchProcess *))
    {
      g_autoptr(ProcwatchProcess) item = g_list_model_get_item (model, i++);

      g_assert_true (item == expected);
    }
  va_end (args);

  g_assert_cmpuint (g_list_model_get_n_items (model), ==, i);
}

/* The pid of a watched process is reaped and reused before the monitor has
 * seen the reap: lookup, watch_pid_inode, send_signal and unwatch_process
 * each tell the two apart. */
static void
reuse_before_dispatch (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
  g_autoptr(ProcwatchProcess) old_process = NULL;
  g_autoptr(ProcwatchProcess) new_process = NULL;
  g_autoptr(ProcwatchProcess) found = NULL;
  g_autoptr(GError) error = NULL;
  TestProcess *old_target = test_process_spawn (TEST_PROCESS_CHILD);
  TestProcess *new_target;
  GPid pid = test_process_get_pid (old_target);
  guint64 old_inode = pidfs_inode_of_pid (pid);
  guint64 new_inode;
  gboolean inodes = backend_is_pidfd (monitor) && old_inode != 0;
  int status;

  old_process = watch_pid (monitor, pid);
  test_process_exit (old_target, 0);
  test_process_reap (old_target);
  test_process_free (old_target);
  new_target = spawn_with_pid (pid);
  new_inode = pidfs_inode_of_pid (pid);
  g_test_message ("pid %d now belongs to a new process (pidfs inode %" G_GUINT64_FORMAT
                  ", was %" G_GUINT64_FORMAT ")", (int) pid, new_inode, old_inode);

  new_process = watch_pid (monitor, pid);
  g_assert_true (new_process != old_process);
  assert_items (monitor, old_process, new_process, NULL);

  found = procwatch_process_monitor_lookup (monitor, pid);
  g_assert_true (found == new_process);
  g_clear_object (&found);

  if (inodes)
    {
      g_assert_cmpuint (new_inode, !=, old_inode);
      g_assert_cmpuint (procwatch_process_get_inode (old_process), ==, old_inode);
      g_assert_cmpuint (procwatch_process_get_inode (new_process), ==, new_inode);

      /* A stale inode; the right one gives the process watched already. */
      assert_watch_pid_inode_fails (monitor, pid, old_inode, G_IO_ERROR_NOT_FOUND);
      found = procwatch_process_monitor_watch_pid_inode (monitor, pid, new_inode, &error);
      g_assert_no_error (error);
      g_assert_true (found == new_process);
      g_clear_object (&found);
    }
  else
    {
      g_assert_cmpuint (procwatch_process_get_inode (old_process), ==, 0);
      g_assert_cmpuint (procwatch_process_get_inode (new_process), ==, 0);
    }

  /* The old process is gone; its pid's new owner is never hit. */
  g_assert_cmpint (procwatch_process_get_state (old_process), ==, PROCWATCH_PROCESS_STATE_RUNNING);
  assert_send_signal_fails (old_process, SIGKILL, G_IO_ERROR_NOT_FOUND);
  assert_send_signal_fails (old_process, 0, G_IO_ERROR_NOT_FOUND);
  g_assert_true (child_is_running (pid));

  /* Stopping the old one by its object leaves the new one watched. */
  g_assert_true (procwatch_process_monitor_unwatch_process (monitor, old_process));
  g_assert_false (procwatch_process_monitor_unwatch_process (monitor, old_process));
  assert_items (monitor, new_process, NULL);
  found = procwatch_process_monitor_lookup (monitor, pid);
  g_assert_true (found == new_process);
  g_clear_object (&found);

  g_assert_true (procwatch_process_send_signal (new_process, SIGTERM, &error));
  g_assert_no_error (error);
  test_run_until_count (NULL, &recorder->n_exited, 1);
  g_assert_true (g_array_index (recorder->events, TestEvent, 0).process == new_process);
  assert_status_properties (new_process, TRUE, -1, SIGTERM);
  status = test_process_reap (new_target);
  g_assert_true (WIFSIGNALED (status) && WTERMSIG (status) == SIGTERM);
  test_run_until_count (NULL, &recorder->n_reaped, 1);
  test_drain_context (NULL);
  g_assert_cmpuint (recorder->events->len, ==, 2);
  g_assert_cmpint (procwatch_process_get_state (old_process), ==, PROCWATCH_PROCESS_STATE_RUNNING);
  test_process_free (new_target);
}

/* A process unwatched while it ran, then reaped, its pid reused: its
 * object reaches nothing. */
static void
reuse_after_unwatch (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
  g_autoptr(ProcwatchProcess) old_process = NULL;
  TestProcess *old_target = test_process_spawn (TEST_PROCESS_CHILD);
  TestProcess *new_target;
  GPid pid = test_process_get_pid (old_target);

  old_process = watch_pid (monitor, pid);
  g_assert_true (procwatch_process_monitor_unwatch_process (monitor, old_process));
  test_process_exit (old_target, 0);
  test_process_reap (old_target);
  test_process_free (old_target);
  new_target = spawn_with_pid (pid);

  assert_send_signal_fails (old_process, SIGKILL, G_IO_ERROR_CLOSED);
  assert_dup_pidfd_fails (old_process, G_IO_ERROR_CLOSED);
  assert_wait_ends (old_process, G_IO_ERROR_CLOSED);
  g_assert_null (procwatch_process_monitor_lookup (monitor, pid));
  g_assert_true (child_is_running (pid));
  g_assert_cmpuint (recorder->events->len, ==, 0);
  test_process_free (new_target);
}

/* The list model, followed as a view would: a mirror kept from
 * "items-changed" alone, checked against the model at each emission. */
typedef struct
{
  guint position;
  guint removed;
  guint added;
} Change;

typedef struct
{
  GListModel *model;
  GPtrArray *mirror;    /* ProcwatchProcess, owned */
  GArray *changes;      /* Change */
  ProcwatchProcess *last_removed;
} Observer;

static void
assert_mirror_is_model (Observer *observer)
{
  guint i;

  g_assert_cmpuint (observer->mirror->len, ==, g_list_model_get_n_items (observer->model));
  for (i = 0; i < observer->mirror->len; i++)
    {
      g_autoptr(ProcwatchProcess) item = g_list_model_get_item (observer->model, i);

      g_assert_true (item == observer->mirror->pdata[i]);
    }
}

static void
on_items_changed (GListModel *model,
                  guint       position,
                  guint       removed,
                  guint       added,
                  Observer   *observer)
{
  Change change = { position, removed, added };
  guint i;

  g_array_append_val (observer->changes, change);
  g_assert_cmpuint (position + removed, <=, observer->mirror->len);
  if (removed == 1)
    observer->last_removed = observer->mirror->pdata[position];
  g_ptr_array_remove_range (observer->mirror, position, removed);
  for (i = 0; i < added; i++)
    g_ptr_array_insert (observer->mirror, position + i, g_list_model_get_item (model, position + i));

  assert_mirror_is_model (observer);
}

/* A "reaped" process left the list just before. */
static void
on_reaped_unlisted (ProcwatchProcessMonitor *monitor,
                    ProcwatchProcess        *process,
                    Observer                *observer)
{
  g_assert_true (observer->last_removed == process);
  g_assert_false (g_ptr_array_find (observer->mirror, process, NULL));
}

static Observer *
observer_new (ProcwatchProcessMonitor *monitor)
{
  Observer *observer = g_new0 (Observer, 1);

  observer->model = G_LIST_MODEL (monitor);
  observer->mirror = g_ptr_array_new_with_free_func (g_object_unref);
  observer->changes = g_array_new (FALSE, FALSE, sizeof (Change));
  g_signal_connect (monitor, "items-changed", G_CALLBACK (on_items_changed), observer);
  g_signal_connect (monitor, "reaped", G_CALLBACK (on_reaped_unlisted), observer);
  return observer;
}

static void
observer_free (Observer *observer)
{
  g_signal_handlers_disconnect_by_data (observer->model, observer);
  g_ptr_array_unref (observer->mirror);
  g_array_unref (observer->changes);
  g_free (observer);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Observer, observer_free)

/* Checks and forgets the changes seen since the last call. */
static void
assert_changes (Observer *observer,
                guint     n_changes,
                ...)
{
  va_list args;
  guint i;

  g_assert_cmpuint (observer->changes->len, ==, n_changes);
  va_start (args, n_changes);
  for (i = 0; i < n_changes; i++)
    {
      Change *change = &g_array_index (observer->changes, Change, i);

      g_assert_cmpuint (change->position, ==, va_arg (args, guint));
      g_assert_cmpuint (change->removed, ==, va_arg (args, guint));
      g_assert_cmpuint (change->added, ==, va_arg (args, guint));
    }
  va_end (args);
  g_array_set_size (observer->changes, 0);
}

static void
count_changes (GListModel *model,
               guint       position,
               guint       removed,
               guint       added,
               guint      *count)
{
  (*count)++;
}

/* The basics: item type, order, out of range, watching twice, close once,
 * nothing on dispose. */
static void
test_model_basics (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(ProcwatchProcessMonitor) disposed = procwatch_process_monitor_new ();
  g_autoptr(Observer) observer = observer_new (monitor);
  GListModel *model = G_LIST_MODEL (monitor);
  ProcwatchProcess *processes[3];
  TestProcess *targets[3];
  guint disposed_changes = 0;
  guint i;

  g_assert_true (g_list_model_get_item_type (model) == PROCWATCH_TYPE_PROCESS);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 0);
  g_assert_null (g_list_model_get_item (model, 0));

  for (i = 0; i < G_N_ELEMENTS (targets); i++)
    {
      targets[i] = test_process_spawn (i == 1 ? TEST_PROCESS_GRANDCHILD : TEST_PROCESS_CHILD);
      processes[i] = watch_pid (monitor, test_process_get_pid (targets[i]));
      assert_changes (observer, 1, i, 0, 1);
    }
  assert_items (monitor, processes[0], processes[1], processes[2], NULL);
  g_assert_null (g_list_model_get_item (model, 3));
  g_assert_null (g_list_model_get_item (model, G_MAXUINT));
  {
    g_autoptr(GObject) object = g_list_model_get_object (model, 2);

    g_assert_true (object == G_OBJECT (processes[2]));
  }

  /* Watched already: no change. */
  for (i = 0; i < G_N_ELEMENTS (targets); i++)
    {
      g_autoptr(ProcwatchProcess) again = watch_pid (monitor, test_process_get_pid (targets[i]));

      g_assert_true (again == processes[i]);
    }
  assert_changes (observer, 0);

  procwatch_process_monitor_close (monitor);
  assert_changes (observer, 1, 0, 3, 0);
  procwatch_process_monitor_close (monitor);
  assert_changes (observer, 0);
  test_drain_context (NULL);
  assert_changes (observer, 0);

  /* Dispose emits nothing. */
  for (i = 0; i < G_N_ELEMENTS (targets); i++)
    g_object_unref (watch_pid (disposed, test_process_get_pid (targets[i])));
  g_signal_connect (disposed, "items-changed", G_CALLBACK (count_changes), &disposed_changes);
  g_clear_object (&disposed);
  g_assert_cmpuint (disposed_changes, ==, 0);

  for (i = 0; i < G_N_ELEMENTS (targets); i++)
    {
      g_object_unref (processes[i]);
      test_process_free (targets[i]);
    }
}

/* One process of the random run: watched (in the shadow list) or not. */
typedef struct
{
  TestProcess *target;
  ProcwatchProcess *process;
} Entry;

static void
entry_free (Entry *entry)
{
  g_clear_pointer (&entry->target, test_process_free);
  g_clear_object (&entry->process);
  g_free (entry);
}

static void
assert_mirror_is_shadow (Observer  *observer,
                         GPtrArray *shadow)
{
  guint i;

  g_assert_cmpuint (observer->mirror->len, ==, shadow->len);
  for (i = 0; i < shadow->len; i++)
    g_assert_true (observer->mirror->pdata[i] == ((Entry *) shadow->pdata[i])->process);
}

/* Watches @entry's process by one of the ways to watch a new process. */
static void
random_watch (ProcwatchProcessMonitor *monitor,
              Entry                   *entry)
{
  GPid pid = test_process_get_pid (entry->target);
  guint64 inode;

  switch (g_test_rand_int_range (0, 3))
    {
    case 0:
      if (test_have_pidfd ())
        {
          entry->process = test_watch_by_pidfd (monitor, pid);
          return;
        }
      break;

    case 1:
      inode = pidfs_inode_of_pid (pid);
      if (backend_is_pidfd (monitor) && inode != 0)
        {
          g_autoptr(GError) error = NULL;

          entry->process = procwatch_process_monitor_watch_pid_inode (monitor, pid, inode, &error);
          g_assert_no_error (error);
          return;
        }
      break;

    default:
      break;
    }

  entry->process = watch_pid (monitor, pid);
}

#define MODEL_MAX_WATCHED 40

/* The list model through random operations, against a shadow list of what
 * must be watched: watch a new process, watch one again, unwatch by pid or
 * by object, end and reap some. PROCWATCH_TEST_MODEL_OPS sets the count
 * (1,000 by default, 400 on the /proc backends, whose probes back off to a
 * second); the seed is GTest's (--seed replays a run). */
static void
test_model_random (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
  g_autoptr(Observer) observer = observer_new (monitor);
  g_autoptr(GPtrArray) shadow = g_ptr_array_new_with_free_func ((GDestroyNotify) entry_free);
  const char *ops_env = g_getenv ("PROCWATCH_TEST_MODEL_OPS");
  guint n_ops = ops_env != NULL ? (guint) g_ascii_strtoull (ops_env, NULL, 10)
                                : backend_is_pidfd (monitor) ? 1000 : 400;
  guint counts[5] = { 0 };
  guint n_fds = test_count_open_fds ();
  guint op;

  for (op = 0; op < n_ops; op++)
    {
      int choice = g_test_rand_int_range (0, 100);
      guint position = shadow->len > 0 ? g_test_rand_int_range (0, shadow->len) : 0;
      Entry *entry;

      if (shadow->len == 0 || (choice < 30 && shadow->len < MODEL_MAX_WATCHED))
        {
          entry = g_new0 (Entry, 1);
          entry->target = test_process_spawn (g_test_rand_int_range (0, 4) == 0
                                              ? TEST_PROCESS_GRANDCHILD : TEST_PROCESS_CHILD);
          random_watch (monitor, entry);
          g_ptr_array_add (shadow, entry);
          assert_changes (observer, 1, shadow->len - 1, 0, 1);
          counts[0]++;
        }
      else if (choice < 45)
        {
          g_autoptr(ProcwatchProcess) again = NULL;

          entry = shadow->pdata[position];
          if (test_have_pidfd () && g_test_rand_bit ())
            again = test_watch_by_pidfd (monitor, test_process_get_pid (entry->target));
          else
            again = watch_pid (monitor, test_process_get_pid (entry->target));
          g_assert_true (again == entry->process);
          assert_changes (observer, 0);
          counts[1]++;
        }
      else if (choice < 75)
        {
          entry = shadow->pdata[position];
          if (choice < 60)
            g_assert_true (procwatch_process_monitor_unwatch (monitor, test_process_get_pid (entry->target)));
          else
            g_assert_true (procwatch_process_monitor_unwatch_process (monitor, entry->process));
          assert_changes (observer, 1, position, 1, 0);
          g_ptr_array_remove_index (shadow, position);
          counts[choice < 60 ? 2 : 3]++;
        }
      else
        {
          /* Up to three end (exit or killed) and are reaped; they leave
           * the list in whatever order the monitor sees them. */
          guint n_end = g_test_rand_int_range (1, 4);
          guint target_reaped;
          guint i;

          n_end = MIN (n_end, shadow->len);
          target_reaped = recorder->n_reaped + n_end;

          for (i = 0; i < n_end; i++)
            {
              entry = g_ptr_array_steal_index (shadow, g_test_rand_int_range (0, shadow->len));
              if (g_test_rand_bit ())
                test_process_exit (entry->target, g_test_rand_int_range (0, 256));
              else
                test_process_kill (entry->target, SIGKILL);
              test_process_reap (entry->target);
              entry_free (entry);
            }

          test_run_until_count (NULL, &recorder->n_reaped, target_reaped);
          g_assert_cmpuint (observer->changes->len, ==, n_end);
          for (i = 0; i < n_end; i++)
            {
              Change *change = &g_array_index (observer->changes, Change, i);

              g_assert_cmpuint (change->removed, ==, 1);
              g_assert_cmpuint (change->added, ==, 0);
            }
          g_array_set_size (observer->changes, 0);
          counts[4] += n_end;
        }

      assert_mirror_is_shadow (observer, shadow);
      g_assert_cmpuint (recorder->n_exited, ==, recorder->n_reaped);
    }

  g_test_message ("%u operations: %u watched, %u watched again, %u unwatched by pid, "
                  "%u by object, %u ended and reaped; %u left",
                  n_ops, counts[0], counts[1], counts[2], counts[3], counts[4], shadow->len);

  procwatch_process_monitor_close (monitor);
  if (shadow->len > 0)
    assert_changes (observer, 1, 0, shadow->len, 0);
  assert_changes (observer, 0);
  g_assert_cmpuint (observer->mirror->len, ==, 0);
  g_ptr_array_set_size (shadow, 0);
  g_assert_cmpuint (test_count_open_fds (), ==, n_fds);
}

/* Handlers of "items-changed" that change the list themselves. */
typedef struct
{
  ProcwatchProcessMonitor *monitor;
  ProcwatchProcess *victim;   /* unwatched at the first removal, or NULL */
  gboolean close_at_removal;
  gboolean unwatch_added;
  gboolean close_at_addition;
  guint calls;
} Meddler;

static void
meddle (GListModel *model,
        guint       position,
        guint       removed,
        guint       added,
        Meddler    *meddler)
{
  meddler->calls++;

  if (removed > 0 && meddler->victim != NULL)
    {
      ProcwatchProcess *victim = g_steal_pointer (&meddler->victim);

      g_assert_true (procwatch_process_monitor_unwatch_process (meddler->monitor, victim));
      g_object_unref (victim);
    }
  else if (removed > 0 && meddler->close_at_removal)
    {
      meddler->close_at_removal = FALSE;
      procwatch_process_monitor_close (meddler->monitor);
    }
  else if (added > 0 && meddler->unwatch_added)
    {
      g_autoptr(ProcwatchProcess) item = g_list_model_get_item (model, position);

      meddler->unwatch_added = FALSE;
      g_assert_true (procwatch_process_monitor_unwatch_process (meddler->monitor, item));
    }
  else if (added > 0 && meddler->close_at_addition)
    {
      meddler->close_at_addition = FALSE;
      procwatch_process_monitor_close (meddler->monitor);
    }
}

static void
test_model_reentrant (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
  g_autoptr(Observer) observer = observer_new (monitor);
  Meddler meddler = { monitor, NULL, FALSE, FALSE, FALSE, 0 };
  ProcwatchProcess *processes[4];
  TestProcess *targets[4];
  guint i;

  /* After the observer: it sees each change before the meddler makes the
   * next, as GTK's own models do. */
  g_signal_connect (monitor, "items-changed", G_CALLBACK (meddle), &meddler);

  for (i = 0; i < G_N_ELEMENTS (targets); i++)
    {
      targets[i] = test_process_spawn (TEST_PROCESS_CHILD);
      processes[i] = watch_pid (monitor, test_process_get_pid (targets[i]));
    }
  assert_changes (observer, 4, 0, 0, 1, 1, 0, 1, 2, 0, 1, 3, 0, 1);

  /* Unwatching the first unwatches the last from the handler. */
  meddler.victim = g_object_ref (processes[3]);
  g_assert_true (procwatch_process_monitor_unwatch_process (monitor, processes[0]));
  assert_changes (observer, 2, 0, 1, 0, 2, 1, 0);
  assert_items (monitor, processes[1], processes[2], NULL);

  /* A new process unwatched from the handler of its own addition. */
  {
    g_autoptr(TestProcess) target = test_process_spawn (TEST_PROCESS_CHILD);
    g_autoptr(ProcwatchProcess) process = NULL;

    meddler.unwatch_added = TRUE;
    process = procwatch_process_monitor_watch_pid (monitor, test_process_get_pid (target), NULL);
    g_assert_nonnull (process);
    assert_changes (observer, 2, 2, 0, 1, 2, 1, 0);
    assert_items (monitor, processes[1], processes[2], NULL);
    assert_send_signal_fails (process, 0, G_IO_ERROR_CLOSED);
  }

  /* The same with a wait that starts the watch: it fails, it cannot hang. */
  {
    g_autoptr(TestProcess) target = test_process_spawn (TEST_PROCESS_CHILD);
    g_auto(Wait) wait = { 0 };

    meddler.unwatch_added = TRUE;
    procwatch_process_monitor_wait_async (monitor, test_process_get_pid (target), NULL,
                                          on_monitor_wait_done, &wait);
    g_assert_false (wait.done);
    assert_changes (observer, 2, 2, 0, 1, 2, 1, 0);
    test_run_until (NULL, &wait.done);
    g_assert_error (wait.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  }

  /* The reap of one closes the monitor from the handler: the list empties
   * at once, and nothing is emitted after close. */
  meddler.close_at_removal = TRUE;
  test_process_exit (targets[2], 0);
  test_process_reap (targets[2]);
  test_run_until_count (NULL, &observer->changes->len, 2);
  assert_changes (observer, 2, 1, 1, 0, 0, 1, 0);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (monitor)), ==, 0);
  test_drain_context (NULL);
  g_assert_cmpuint (recorder->n_reaped, ==, 0);

  for (i = 0; i < G_N_ELEMENTS (targets); i++)
    {
      g_object_unref (processes[i]);
      test_process_free (targets[i]);
    }
}

/* A monitor closed from the handler of an addition. */
static void
test_model_close_at_addition (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(Observer) observer = observer_new (monitor);
  g_autoptr(TestProcess) first = test_process_spawn (TEST_PROCESS_CHILD);
  g_autoptr(TestProcess) second = test_process_spawn (TEST_PROCESS_CHILD);
  g_autoptr(ProcwatchProcess) kept = watch_pid (monitor, test_process_get_pid (first));
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GError) error = NULL;
  Meddler meddler = { monitor, NULL, FALSE, FALSE, TRUE, 0 };

  g_signal_connect (monitor, "items-changed", G_CALLBACK (meddle), &meddler);
  assert_changes (observer, 1, 0, 0, 1);

  process = procwatch_process_monitor_watch_pid (monitor, test_process_get_pid (second), &error);
  assert_changes (observer, 2, 1, 0, 1, 0, 2, 0);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (monitor)), ==, 0);
  if (process != NULL)
    assert_send_signal_fails (process, 0, G_IO_ERROR_CLOSED);
  else
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CLOSED);
  assert_send_signal_fails (kept, 0, G_IO_ERROR_CLOSED);
}

/* A child forked without exec has an inert copy: closing it there emits
 * nothing and changes nothing in the parent's list. */
static void
test_model_forked_copy (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(Observer) observer = observer_new (monitor);
  g_autoptr(TestProcess) target = test_process_spawn (TEST_PROCESS_CHILD);
  g_autoptr(ProcwatchProcess) process = watch_pid (monitor, test_process_get_pid (target));
  int status;
  pid_t pid;

  assert_changes (observer, 1, 0, 0, 1);

  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      g_autoptr(GError) signal_error = NULL;
      g_autoptr(GError) pidfd_error = NULL;
      gboolean ok;

      /* The child's copy is closed: nothing of the parent's watches is
       * reachable through it, by the list or by the process. */
      ok = g_list_model_get_n_items (G_LIST_MODEL (monitor)) == 0 &&
           g_list_model_get_item (G_LIST_MODEL (monitor), 0) == NULL &&
           procwatch_process_monitor_lookup (monitor, test_process_get_pid (target)) == NULL &&
           !procwatch_process_send_signal (process, 0, &signal_error) &&
           g_error_matches (signal_error, G_IO_ERROR, G_IO_ERROR_CLOSED) &&
           procwatch_process_dup_pidfd (process, &pidfd_error) < 0 &&
           g_error_matches (pidfd_error, G_IO_ERROR, G_IO_ERROR_CLOSED);

      procwatch_process_monitor_close (monitor);
      ok = ok && observer->changes->len == 0 &&
           !procwatch_process_monitor_unwatch_process (monitor, process) &&
           observer->changes->len == 0;
      _exit (ok ? 0 : 1);
    }

  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  assert_changes (observer, 0);
  assert_items (monitor, process, NULL);
  g_assert_true (procwatch_process_send_signal (process, 0, NULL));

  procwatch_process_monitor_close (monitor);
  assert_changes (observer, 1, 0, 1, 0);
}

static void
on_forked_exited (ProcwatchProcessMonitor *monitor,
                  ProcwatchProcess        *process,
                  gpointer                 user_data)
{
  int *exit_status = user_data;

  /* A child's status is promised at "exited": only if the monitor knows
   * the process is its own child, which it tells by its own pid. */
  *exit_status = procwatch_process_has_status (process) &&
                 procwatch_process_get_if_exited (process)
                   ? procwatch_process_get_exit_status (process) : -1;
}

/* After fork () without exec, a monitor made in the child belongs to the
 * child: it dispatches there and knows the child's children as its own.
 * The library caches its own pid, so this holds only if the cache is
 * renewed in a fork's child. */
static void
test_model_forked_child_monitor (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestProcess) target = test_process_spawn (TEST_PROCESS_CHILD);
  g_autoptr(ProcwatchProcess) process = watch_pid (monitor, test_process_get_pid (target));
  int status;
  pid_t pid;

  /* The parent's monitor has dispatched: the parent's pid is cached. */
  test_process_exit (target, 0);
  while (procwatch_process_get_state (process) == PROCWATCH_PROCESS_STATE_RUNNING)
    g_main_context_iteration (NULL, TRUE);

  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      g_autoptr(ProcwatchProcessMonitor) own = procwatch_process_monitor_new ();
      g_autoptr(ProcwatchProcess) grandchild = NULL;
      int go[2];
      int exit_status = -2;
      pid_t inner;
      char byte = 0;

      if (pipe (go) < 0)
        _exit (2);
      inner = fork ();
      if (inner < 0)
        _exit (2);
      if (inner == 0)
        {
          close (go[1]);
          _exit (read (go[0], &byte, 1) == 1 ? 7 : 8);
        }
      close (go[0]);

      grandchild = procwatch_process_monitor_watch_pid (own, inner, NULL);
      if (grandchild == NULL)
        _exit (3);
      g_signal_connect (own, "exited", G_CALLBACK (on_forked_exited), &exit_status);
      if (write (go[1], &byte, 1) != 1)
        _exit (4);
      while (exit_status == -2)
        g_main_context_iteration (NULL, TRUE);

      _exit (exit_status == 7 ? 0 : 5);
    }

  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
}

/* A process watched by pid, reaped before the main loop runs, then handed
 * over again as a pidfd (fd passing, a bus sending ProcessFD): the pidfd
 * names no pid any more, yet it is the process already watched. */
static void
test_pid_zero_watched_before (gconstpointer data)
{
  TestProcessKind kind = GPOINTER_TO_INT (data);
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
  g_autoptr(TestProcess) target = NULL;
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(ProcwatchProcess) again = NULL;
  g_autoptr(GError) error = NULL;
  GPid pid;
  int pidfd;

  if (test_skip_without_pidfd ())
    return;
  /* The pidfd is not the monitor's: only a pidfs inode tells they name
   * the same process (Linux 6.9+). */
  if (!(procwatch_process_monitor_get_features (monitor) & PROCWATCH_FEATURES_INODE))
    {
      g_test_skip ("without pidfs inodes (Linux < 6.9) a pidfd of a reaped process "
                   "opened apart from the monitor's cannot be told to be the one watched");
      return;
    }

  target = test_process_spawn (kind);
  pid = test_process_get_pid (target);
  pidfd = procwatch_pidfd_open (pid, 0);
  g_assert_no_errno (pidfd);
  process = watch_pid (monitor, pid);

  test_process_exit (target, 4);
  test_process_reap (target);

  again = procwatch_process_monitor_watch_pidfd (monitor, pidfd, &error);
  g_assert_no_error (error);
  g_assert_true (again == process);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (monitor)), ==, 1);

  test_run_until_count (NULL, &recorder->n_reaped, 1);
  test_drain_context (NULL);
  g_assert_cmpuint (recorder->n_exited, ==, 1);
  g_assert_cmpuint (recorder->n_reaped, ==, 1);
  g_assert_cmpuint (recorder->events->len, ==, 2);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (monitor)), ==, 0);
  close (pidfd);
}

typedef void (*FixtureFunc) (Fixture *fixture, gconstpointer data);

static void
add_for_each_kind (const char  *name,
                   FixtureFunc  func)
{
  g_autofree char *child = g_strdup_printf ("/process/child/%s", name);
  g_autofree char *grandchild = g_strdup_printf ("/process/non-child/%s", name);

  g_test_add (child, Fixture, GINT_TO_POINTER (TEST_PROCESS_CHILD),
              fixture_set_up_target, func, test_fixture_tear_down);
  g_test_add (grandchild, Fixture, GINT_TO_POINTER (TEST_PROCESS_GRANDCHILD),
              fixture_set_up_target, func, test_fixture_tear_down);
}

int
main (int   argc,
      char *argv[])
{
  test_init (&argc, &argv);

  add_for_each_kind ("inode", test_inode);
  add_for_each_kind ("name", test_name);
  g_test_add_func ("/process/name-lengths", test_name_lengths);
  add_for_each_kind ("status-exit", test_status_exit);
  add_for_each_kind ("status-signal", test_status_signal);
  add_for_each_kind ("dup-pidfd", test_dup_pidfd);
  add_for_each_kind ("send-signal", test_send_signal);
  add_for_each_kind ("send-signal-by-pidfd", test_send_signal_by_pidfd);
  add_for_each_kind ("send-signal-exit-not-dispatched", test_send_signal_exit_not_dispatched);
  add_for_each_kind ("wait", test_wait);
  add_for_each_kind ("wait-exited", test_wait_exited);
  add_for_each_kind ("wait-cancel", test_wait_cancel);
  add_for_each_kind ("unwatch-process", test_unwatch_process);
  add_for_each_kind ("after-close", test_after_close);
  add_for_each_kind ("after-reap", test_after_reap);
  add_for_each_kind ("lookup", test_lookup);
  add_for_each_kind ("watch-pid-inode", test_watch_pid_inode);
  g_test_add_func ("/process/send-signal/permission-denied", test_send_signal_permission_denied);
  g_test_add_func ("/process/send-signal/thread", test_send_signal_thread);
  g_test_add_func ("/process/pid-0/reaped", test_pid_zero_reaped);
  g_test_add_func ("/process/pid-0/running", test_pid_zero_running);
  g_test_add_data_func ("/process/pid-0/child/watched-before-reap",
                        GINT_TO_POINTER (TEST_PROCESS_CHILD), test_pid_zero_watched_before);
  g_test_add_data_func ("/process/pid-0/non-child/watched-before-reap",
                        GINT_TO_POINTER (TEST_PROCESS_GRANDCHILD), test_pid_zero_watched_before);
  g_test_add_data_func ("/process/pid-reuse/before-dispatch", reuse_before_dispatch,
                        test_in_pid_namespace);
  g_test_add_data_func ("/process/pid-reuse/after-unwatch", reuse_after_unwatch,
                        test_in_pid_namespace);
  g_test_add_func ("/process/model/basics", test_model_basics);
  g_test_add_func ("/process/model/random", test_model_random);
  g_test_add_func ("/process/model/reentrant", test_model_reentrant);
  g_test_add_func ("/process/model/close-at-addition", test_model_close_at_addition);
  g_test_add_func ("/process/model/forked-copy", test_model_forked_copy);
  g_test_add_func ("/process/model/forked-child-monitor", test_model_forked_child_monitor);

  return g_test_run ();
}
