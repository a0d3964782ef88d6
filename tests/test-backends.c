/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * The backends' own decisions, below the monitor: how they are chosen, how
 * the procfs backend reads poll results (it cannot run on a mainline
 * kernel), how /proc/<pid>/stat is parsed, and what each backend that runs
 * here says about a process whose leader thread exited first.
 */

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procwatch-backend-private.h"
#include "procwatch-linux-private.h"
#include "procwatch-probe-scheduler-private.h"
#include "procwatch-proc-files-private.h"
#include "procwatch-test-seam-private.h"
#include "procwatch-test-util.h"

static void
test_procfs_detection (void)
{
  g_autoptr(GError) error = NULL;
  struct pollfd pfd;
  gboolean supported;
  int fd;

  /* The patch's rule: a live task's directory must not poll readable. */
  g_assert_true (procwatch_procfs_supported_by (0));
  g_assert_false (procwatch_procfs_supported_by (POLLIN));
  g_assert_false (procwatch_procfs_supported_by (POLLIN | POLLRDNORM));
  g_assert_false (procwatch_procfs_supported_by (POLLNVAL));

  /* And the probe applies it to this kernel's /proc/self. */
  fd = open ("/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  g_assert_cmpint (fd, >=, 0);
  pfd.fd = fd;
  pfd.events = POLLIN;
  pfd.revents = 0;
  g_assert_cmpint (poll (&pfd, 1, 0), >=, 0);
  close (fd);

  supported = procwatch_backend_procfs.is_supported (&error);
  g_assert_cmpint (supported, ==, procwatch_procfs_supported_by (pfd.revents));
  if (!supported)
    {
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
      g_test_message ("procfs backend unavailable here, as expected on mainline: %s",
                      error->message);
    }
}

static void
test_procfs_revents (void)
{
  const struct
  {
    guint32 revents;
    ProcwatchProcessState state;
  } cases[] = {
    { 0, PROCWATCH_PROCESS_STATE_RUNNING },
    { EPOLLIN, PROCWATCH_PROCESS_STATE_EXITED },
    { EPOLLIN | EPOLLRDNORM, PROCWATCH_PROCESS_STATE_EXITED },
    { EPOLLRDNORM, PROCWATCH_PROCESS_STATE_EXITED },
    { EPOLLIN | EPOLLRDNORM | EPOLLERR, PROCWATCH_PROCESS_STATE_REAPED },
    { EPOLLERR, PROCWATCH_PROCESS_STATE_REAPED },
  };
  gsize i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++)
    g_assert_cmpint (procwatch_procfs_state_from_revents (cases[i].revents), ==, cases[i].state);

  /* Interest once exited is none: POLLERR, the reap, is always reported. */
  g_assert_cmpuint (procwatch_backend_procfs.events_for (&procwatch_backend_procfs,
                                                         PROCWATCH_PROCESS_STATE_EXITED), ==, 0);
  g_assert_cmpuint (procwatch_backend_procfs.events_for (&procwatch_backend_procfs,
                                                         PROCWATCH_PROCESS_STATE_RUNNING), ==, EPOLLIN);
}

static void
test_stat_parser (void)
{
  const struct
  {
    const char *text;
    int state;   /* -1: not parseable */
  } cases[] = {
    { "123 (bash) S 1 123 123 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 100 0 0\n", PROCWATCH_PROCESS_STATE_RUNNING },
    { "123 (bash) Z 1 123 123 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 100 0 0\n", PROCWATCH_PROCESS_STATE_EXITED },
    /* A zombie leader whose other thread lives: the process has not exited. */
    { "123 (app) Z 1 123 123 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 2 0 100 0 0\n", PROCWATCH_PROCESS_STATE_RUNNING },
    /* Names made to fool a parser that stops at the first ')'. */
    { "123 (x) Z 1 1) S 1 123 123 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 100 0 0\n", PROCWATCH_PROCESS_STATE_RUNNING },
    { "123 ()) S 1 123 123 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 100 0 0\n", PROCWATCH_PROCESS_STATE_RUNNING },
    { "123 (() Z 1 123 123 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 100 0 0\n", PROCWATCH_PROCESS_STATE_EXITED },
    { "123 (a\nb) S 1 123 123 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 100 0 0\n", PROCWATCH_PROCESS_STATE_RUNNING },
    { "123 ( ) Z ) X 1 123 123 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 100 0 0\n", PROCWATCH_PROCESS_STATE_EXITED },
    /* Broken input. */
    { "", -1 },
    { "123 (bash", -1 },
    { "123 (bash)", -1 },
    { "123 (bash) ", -1 },
    { "123 (bash) S", -1 },
    { "123 (bash) S 1 2 3", -1 },
    { "123 (bash) 5 1 123 123 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 100 0 0\n", -1 },
    { "123 (bash) S 1 123 123 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 x 0 100 0 0\n", -1 },
    { "123 (bash) S 1 123 123 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 99999999999999 0\n", -1 },
  };
  gsize i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_test_message ("stat: %s", cases[i].text);
      g_assert_cmpint (procwatch_proc_task_state_from_stat (cases[i].text, strlen (cases[i].text)),
                       ==, cases[i].state);
    }
}

/* A real process whose name imitates the end of a zombie's stat line. */
static void
test_stat_of_tricky_name (void)
{
  static const char *const names[] = { "x) Z 1 1 1", ")", "(", "a\nZ) Z", " ) Z 1" };
  gsize i;

  for (i = 0; i < G_N_ELEMENTS (names); i++)
    {
      char path[64];
      int control[2];
      int ready[2];
      pid_t pid;
      int stat_fd;
      char byte;

      g_assert_no_errno (pipe2 (control, O_CLOEXEC));
      g_assert_no_errno (pipe2 (ready, O_CLOEXEC));
      pid = fork ();
      g_assert_cmpint (pid, >=, 0);
      if (pid == 0)
        {
          close (control[1]);
          prctl (PR_SET_NAME, names[i]);
          /* Until the test closes the control pipe; a broken pipe fails
           * it through the exit status. */
          if (write (ready[1], "n", 1) != 1 || read (control[0], &byte, 1) < 0)
            _exit (1);
          _exit (0);
        }

      close (ready[1]);
      g_assert_cmpint (read (ready[0], &byte, 1), ==, 1);
      close (ready[0]);
      g_snprintf (path, sizeof path, "/proc/%d/stat", pid);
      stat_fd = open (path, O_RDONLY | O_CLOEXEC);
      g_assert_cmpint (stat_fd, >=, 0);
      g_assert_cmpint (procwatch_proc_read_task_state (stat_fd), ==, PROCWATCH_PROCESS_STATE_RUNNING);

      close (control[1]);
      g_assert_no_errno (waitid (P_PID, pid, &(siginfo_t) { 0 }, WEXITED | WNOWAIT));
      g_assert_cmpint (procwatch_proc_read_task_state (stat_fd), ==, PROCWATCH_PROCESS_STATE_EXITED);
      g_assert_cmpint (waitpid (pid, NULL, 0), ==, pid);
      g_assert_cmpint (procwatch_proc_read_task_state (stat_fd), ==, PROCWATCH_PROCESS_STATE_REAPED);

      close (stat_fd);
      close (control[0]);
    }
}

static void
test_choose (void)
{
  g_assert_true (procwatch_backend_choose ("poll") == &procwatch_backend_poll);
  g_assert_true (procwatch_backend_choose (NULL) == procwatch_backend_choose (""));

  if (g_test_subprocess ())
    {
      const ProcwatchBackend *backend;

      g_log_set_always_fatal (G_LOG_FATAL_MASK);
      backend = procwatch_backend_choose ("carrier-pigeon");

      g_assert_nonnull (backend);
      g_assert_true (backend == procwatch_backend_choose (NULL));

      if (!procwatch_backend_procfs.is_supported (NULL))
        g_assert_true (procwatch_backend_choose ("procfs") == procwatch_backend_choose (NULL));
      return;
    }

  /* Asking for what cannot be had warns, naming why, then chooses. */
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr ("*PROCWATCH_BACKEND=carrier-pigeon names no backend*");
  if (!procwatch_backend_procfs.is_supported (NULL))
    g_test_trap_assert_stderr ("*PROCWATCH_BACKEND=procfs is not available: *pollable*");
}

typedef struct
{
  pid_t leader;
  int report;
  int control;
} LeaderExit;

/* In the watched process: waits until the leader thread has exited, says
 * so, then exits the process when told. Nothing announces a leader's exit
 * while other threads live on (its thread pidfd stays quiet too), so its
 * stat file is looked at now and then, for a bounded time. */
static void *
outlive_leader (void *data)
{
  LeaderExit *state = data;
  char path[64];
  char text[1024];
  gint64 num_threads;
  char task_state = 'R';
  char byte;
  int fd;
  int i;

  g_snprintf (path, sizeof path, "/proc/%d/task/%d/stat", state->leader, state->leader);
  fd = open (path, O_RDONLY | O_CLOEXEC);

  for (i = 0; fd >= 0 && i < 60000 && task_state != 'Z'; i++)
    {
      gssize length = pread (fd, text, sizeof text - 1, 0);

      if (length <= 0 || !procwatch_proc_parse_stat (text, length, &task_state, &num_threads))
        break;
      if (task_state != 'Z')
        g_usleep (1000);
    }

  if (write (state->report, task_state == 'Z' ? "L" : "-", 1) != 1 ||
      read (state->control, &byte, 1) < 0)
    _exit (1);
  _exit (5);
}

static void
test_leader_exits_first (void)
{
  const ProcwatchBackend *const candidates[] = { &procwatch_backend_pidfd, &procwatch_backend_poll };
  gsize i;

  for (i = 0; i < G_N_ELEMENTS (candidates); i++)
    {
      const ProcwatchBackend *backend = candidates[i];
      ProcwatchHandle handle = PROCWATCH_HANDLE_INIT;
      g_autoptr(GError) error = NULL;
      int report[2];
      int control[2];
      siginfo_t info;
      pid_t pid;
      char byte;
      int status = 0;

      if (!backend->is_supported (NULL))
        continue;

      g_assert_no_errno (pipe2 (report, O_CLOEXEC));
      g_assert_no_errno (pipe2 (control, O_CLOEXEC));
      pid = fork ();
      g_assert_cmpint (pid, >=, 0);
      if (pid == 0)
        {
          static LeaderExit state;
          pthread_t thread;

          state.leader = getpid ();
          state.report = report[1];
          state.control = control[0];
          pthread_create (&thread, NULL, outlive_leader, &state);
          pthread_exit (NULL);
        }

      g_assert_cmpint (read (report[0], &byte, 1), ==, 1);
      if (byte != 'L')
        {
          waitpid (pid, NULL, 0);
          g_test_skip ("The leader thread was not seen to exit");
          return;
        }

      /* The leader is a zombie, the process is not. */
      g_assert_true (backend->open_pid (backend, pid, &handle, &error));
      g_assert_no_error (error);
      g_assert_cmpint (backend->read_state (backend, &handle, 0), ==, PROCWATCH_PROCESS_STATE_RUNNING);

      g_assert_cmpint (write (control[1], "x", 1), ==, 1);
      g_assert_no_errno (waitid (P_PID, pid, &info, WEXITED | WNOWAIT));
      g_assert_cmpint (backend->read_state (backend, &handle, 0), ==, PROCWATCH_PROCESS_STATE_EXITED);
      g_assert_true (backend->read_status (backend, &handle, PROCWATCH_PROCESS_STATE_EXITED, &status));
      g_assert_cmpint (status, ==, 5 << 8);

      g_assert_cmpint (waitpid (pid, NULL, 0), ==, pid);
      g_assert_cmpint (backend->read_state (backend, &handle, 0), ==, PROCWATCH_PROCESS_STATE_REAPED);

      procwatch_handle_close (&handle);
      close (report[0]);
      close (report[1]);
      close (control[0]);
      close (control[1]);
    }
}

/* SIGSYS for every system call that starts a process or thread. There is
 * no check of the architecture: this program makes native calls only. */
static gboolean
forbid_new_processes (void)
{
  static const long forbidden[] = {
    SYS_clone,
#ifdef SYS_clone3
    SYS_clone3,
#endif
#ifdef SYS_fork
    SYS_fork,
#endif
#ifdef SYS_vfork
    SYS_vfork,
#endif
  };
  struct sock_filter filter[2 * G_N_ELEMENTS (forbidden) + 2];
  struct sock_fprog program = { .len = G_N_ELEMENTS (filter), .filter = filter };
  guint n = 0;
  gsize i;

  filter[n++] = (struct sock_filter) BPF_STMT (BPF_LD | BPF_W | BPF_ABS,
                                               offsetof (struct seccomp_data, nr));
  for (i = 0; i < G_N_ELEMENTS (forbidden); i++)
    {
      filter[n++] = (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, forbidden[i], 0, 1);
      filter[n++] = (struct sock_filter) BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_TRAP);
    }
  filter[n++] = (struct sock_filter) BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  g_assert_cmpuint (n, ==, G_N_ELEMENTS (filter));

  return prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
         prctl (PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) == 0;
}

/* For a test whose body runs under a seccomp filter, in a subprocess of
 * its own: TRUE in that subprocess where there are pidfds, FALSE in the
 * test's own process once the subprocess has passed (or the test is
 * skipped). */
static gboolean
in_filtered_subprocess (void)
{
  if (!g_test_subprocess ())
    {
      if (prctl (PR_GET_SECCOMP, 0, 0, 0, 0) < 0)
        {
          g_test_skip ("This kernel has no seccomp");
          return FALSE;
        }

      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
      g_test_trap_assert_passed ();
      return FALSE;
    }

  if (!test_have_pidfd ())
    {
      g_test_skip ("No pidfds here");
      return FALSE;
    }

  return TRUE;
}

/* The pidfd backend tells whether a reap hangs a pidfd up without starting a
 * process of its own, which a thread of the application reaping with
 * waitpid (-1, ..., __WALL) could take: the question is asked, and a real
 * process watched to its reap, where starting one kills the test. */
static void
test_pidfd_starts_no_process (void)
{
  const ProcwatchBackend *backend = &procwatch_backend_pidfd;
  ProcwatchHandle handle = PROCWATCH_HANDLE_INIT;
  g_autoptr(GError) error = NULL;
  int control[2];
  pid_t pid;

  if (!in_filtered_subprocess ())
    return;

  /* The one process the test needs, started before the filter. */
  g_assert_no_errno (pipe2 (control, O_CLOEXEC));
  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      char byte;

      close (control[1]);
      _exit (read (control[0], &byte, 1) == 0 ? 3 : 4);
    }
  close (control[0]);

  g_assert_true (forbid_new_processes ());

  g_assert_true (backend->is_supported (&error));
  g_assert_no_error (error);

  g_assert_true (backend->open_pid (backend, pid, &handle, &error));
  g_assert_no_error (error);
  g_assert_cmpint (backend->read_state (backend, &handle, 0), ==, PROCWATCH_PROCESS_STATE_RUNNING);

  close (control[1]);
  g_assert_cmpint (waitpid (pid, NULL, 0), ==, pid);
  g_assert_cmpint (backend->read_state (backend, &handle, 0), ==, PROCWATCH_PROCESS_STATE_REAPED);
  procwatch_handle_close (&handle);

  /* Not exit(): LeakSanitizer, where built in, clones at exit to check for
   * leaks, and the filter stays to the end. */
  _exit (0);
}

/* PIDFD_GET_INFO's ioctl fails with ENOTTY, as on kernels before 6.11
 * (6.11 and 6.12 answer EINVAL); nothing else changes. */
static gboolean
refuse_pidfd_get_info (void)
{
  struct sock_filter filter[] = {
    BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, nr)),
    BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, SYS_ioctl, 0, 3),
    BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, args[1])),
    BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, (guint32) PROCWATCH_PIDFD_GET_INFO, 0, 1),
    BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOTTY),
    BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog program = { .len = G_N_ELEMENTS (filter), .filter = filter };

  return prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
         prctl (PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) == 0;
}

/* Without PIDFD_GET_INFO (before Linux 6.13), a watch tells a child of ours
 * from a process that is not, and an exit is taken, without reading the
 * parent from /proc/<pid>/status: waitid () on the pidfd finds a child or
 * says ECHILD. Each /proc file costs a path walk and leaves a dentry and an
 * inode that the kernel keeps as long as the process lives (bench/README.md,
 * the scale row). The kernel is asked PIDFD_GET_INFO once, not at every
 * watch and exit. The child's exit still comes with its status, the other
 * process's without one. */
static void
test_pidfd_without_get_info (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
  g_autoptr(TestRecorder) recorder = NULL;
  g_autoptr(TestProcess) child = NULL;
  g_autoptr(TestProcess) other = NULL;
  g_autoptr(ProcwatchProcess) child_process = NULL;
  g_autoptr(ProcwatchProcess) other_process = NULL;
  g_autoptr(GError) error = NULL;
  guint parent_reads, info_asks;
  TestEvent *event;

  if (!in_filtered_subprocess ())
    return;

  g_assert_true (refuse_pidfd_get_info ());

  monitor = procwatch_process_monitor_new ();
  if (g_strcmp0 (procwatch_process_monitor_get_backend (monitor), "pidfd") != 0)
    {
      g_test_skip ("The monitor does not use the pidfd backend here (PROCWATCH_BACKEND?)");
      return;
    }
  recorder = test_recorder_new (monitor);
  child = test_process_spawn (TEST_PROCESS_CHILD);
  other = test_process_spawn (TEST_PROCESS_GRANDCHILD);

  parent_reads = procwatch_test_seam_parent_reads;
  info_asks = procwatch_test_seam_pidfd_info_asks;

  child_process = procwatch_process_monitor_watch_pid (monitor, test_process_get_pid (child),
                                                       &error);
  g_assert_no_error (error);
  other_process = procwatch_process_monitor_watch_pid (monitor, test_process_get_pid (other),
                                                       &error);
  g_assert_no_error (error);

  test_process_exit (child, 3);
  test_process_exit (other, 4);
  test_run_until_count (NULL, &recorder->n_exited, 2);

  event = test_recorder_find (recorder, test_process_get_pid (child),
                              PROCWATCH_PROCESS_STATE_EXITED);
  g_assert_nonnull (event);
  g_assert_true (event->had_status);
  g_assert_true (WIFEXITED (event->status));
  g_assert_cmpint (WEXITSTATUS (event->status), ==, 3);
  event = test_recorder_find (recorder, test_process_get_pid (other),
                              PROCWATCH_PROCESS_STATE_EXITED);
  g_assert_nonnull (event);
  g_assert_false (event->had_status);

  test_process_reap (child);
  test_process_reap (other);
  test_run_until_count (NULL, &recorder->n_reaped, 2);

  g_assert_cmpuint (procwatch_test_seam_parent_reads - parent_reads, ==, 0);
  g_assert_cmpuint (procwatch_test_seam_pidfd_info_asks - info_asks, ==, 0);
}

/* README: a poll-backend dispatch "reads at most 256" due probes, so that
 * many due at once cannot stall the main loop; the rest follow in the next
 * dispatches, none lost and none taken twice. */
static void
test_probe_batch (void)
{
  const guint n = 1000;
  GSource *source = g_timeout_source_new (G_MAXUINT);
  ProcwatchProbeScheduler *scheduler;
  g_autofree ProcwatchProbe *probes = g_new0 (ProcwatchProbe, n);
  g_autofree guint *times_taken = g_new0 (guint, n);
  guint total = 0;
  guint dispatches = 0;
  guint i;

  /* No backoff step: every probe is due as soon as it is scheduled. */
  scheduler = procwatch_probe_scheduler_new (source, 0, 0, 0, 0);
  for (i = 0; i < n; i++)
    {
      probes[i].data = GUINT_TO_POINTER (i);
      procwatch_probe_schedule (scheduler, &probes[i], TRUE);
    }

  while (total < n)
    {
      g_autoptr(GPtrArray) due = g_ptr_array_new ();
      guint j;

      procwatch_probe_scheduler_take_due (scheduler, due);
      dispatches++;
      g_assert_cmpuint (due->len, ==, MIN (256, n - total));
      for (j = 0; j < due->len; j++)
        times_taken[GPOINTER_TO_UINT (g_ptr_array_index (due, j))]++;
      total += due->len;
    }

  g_assert_cmpuint (dispatches, ==, 4);
  for (i = 0; i < n; i++)
    {
      g_assert_cmpuint (times_taken[i], ==, 1);
      g_assert_false (procwatch_probe_is_scheduled (&probes[i]));
    }

  procwatch_probe_scheduler_free (scheduler);
  g_source_unref (source);
}

int
main (int   argc,
      char *argv[])
{
  test_init (&argc, &argv);

  g_test_add_func ("/backends/procfs/detection", test_procfs_detection);
  g_test_add_func ("/backends/procfs/revents", test_procfs_revents);
  g_test_add_func ("/backends/stat/parser", test_stat_parser);
  g_test_add_func ("/backends/stat/tricky-names", test_stat_of_tricky_name);
  g_test_add_func ("/backends/choose", test_choose);
  g_test_add_func ("/backends/leader-exits-first", test_leader_exits_first);
  g_test_add_func ("/backends/pidfd/starts-no-process", test_pidfd_starts_no_process);
  g_test_add_func ("/backends/pidfd/without-get-info", test_pidfd_without_get_info);
  g_test_add_func ("/backends/probe-scheduler/batch", test_probe_batch);

  return g_test_run ();
}
