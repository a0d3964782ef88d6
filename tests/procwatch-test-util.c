/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procwatch-io.h"
#include "procwatch-linux-private.h"
#include "procwatch-test-util.h"

#define TEST_DEADLINE_SECONDS 60

struct _TestProcess
{
  TestProcessKind kind;
  GPid pid;            /* the target */
  GPid parent_pid;     /* the intermediate parent, or 0 */
  int control_fd;      /* test → target: exit code byte, or EOF */
  int reap_fd;         /* test → intermediate parent: reap now */
  int report_fd;       /* intermediate parent → test: target pid, then status */
  gboolean reaped;
};

/* Runs in a forked process: only async-signal-safe calls. */
/* Dies with its parent, and keeps off the test's output, so that a failed
 * test leaves nothing running that would hold the test runner's pipes. */
static void
detach_from_test (pid_t parent)
{
  int null_fd;

  prctl (PR_SET_PDEATHSIG, SIGKILL);
  if (getppid () != parent)
    _exit (104);

  null_fd = open ("/dev/null", O_RDWR | O_CLOEXEC);
  if (null_fd >= 0)
    {
      dup2 (null_fd, STDOUT_FILENO);
      dup2 (null_fd, STDERR_FILENO);
      close (null_fd);
    }
}

/* Closes every fd above stderr but @keep (ascending), so that no forked
 * process holds on to pipe ends that belong to other test processes. */
static void
keep_only_fds (const int *keep,
               int        n_keep)
{
  unsigned int next = 3;
  int i;

  for (i = 0; i < n_keep; i++)
    {
      if ((unsigned int) keep[i] > next)
        syscall (SYS_close_range, next, (unsigned int) keep[i] - 1, 0);
      next = keep[i] + 1;
    }

  syscall (SYS_close_range, next, ~0U, 0);
}

static int
compare_ints (const void *a,
              const void *b)
{
  return *(const int *) a - *(const int *) b;
}

G_GNUC_NORETURN static void
run_target (int control_fd)
{
  unsigned char code = 0;

  keep_only_fds (&control_fd, 1);

  if (!io_read_all (control_fd, &code, 1))
    _exit (0);

  _exit (code);
}

G_GNUC_NORETURN static void
run_intermediate_parent (int      control_read,
                         int      reap_read,
                         int      report_write,
                         gboolean autoreap)
{
  pid_t parent = getpid ();
  pid_t target;
  char command;
  int status = 0;
  int keep[3] = { control_read, reap_read, report_write };

  qsort (keep, 3, sizeof (int), compare_ints);
  keep_only_fds (keep, 3);

  if (autoreap)
    signal (SIGCHLD, SIG_IGN);

  target = fork ();
  if (target < 0)
    _exit (102);
  if (target == 0)
    {
      detach_from_test (parent);
      run_target (control_read);
    }

  close (control_read);
  io_write_all (report_write, &target, sizeof target);

  for (;;)
    {
      siginfo_t info;

      if (!io_read_all (reap_read, &command, 1))
        {
          kill (target, SIGKILL);
          command = 'r';
        }

      if (command == 'w')
        {
          /* Until the target has exited, leaving it a zombie. */
          while (waitid (P_PID, target, &info, WEXITED | WNOWAIT) < 0 && errno == EINTR)
            ;
          io_write_all (report_write, "w", 1);
          continue;
        }

      if (!autoreap)
        {
          while (waitpid (target, &status, 0) < 0)
            if (errno != EINTR)
              _exit (103);
        }

      io_write_all (report_write, &status, sizeof status);
      _exit (0);
    }
}

TestProcess *
test_process_spawn (TestProcessKind kind)
{
  TestProcess *self = g_new0 (TestProcess, 1);
  pid_t self_pid = getpid ();
  int control[2];
  int reap[2];
  int report[2];
  pid_t pid;

  self->kind = kind;
  self->reap_fd = -1;
  self->report_fd = -1;

  g_assert_no_errno (pipe2 (control, O_CLOEXEC));

  if (kind == TEST_PROCESS_CHILD)
    {
      pid = fork ();
      g_assert_cmpint (pid, >=, 0);
      if (pid == 0)
        {
          detach_from_test (self_pid);
          run_target (control[0]);
        }

      self->pid = pid;
    }
  else
    {
      g_assert_no_errno (pipe2 (reap, O_CLOEXEC));
      g_assert_no_errno (pipe2 (report, O_CLOEXEC));

      pid = fork ();
      g_assert_cmpint (pid, >=, 0);
      if (pid == 0)
        detach_from_test (self_pid);
      if (pid == 0)
        run_intermediate_parent (control[0], reap[0], report[1],
                                 kind == TEST_PROCESS_GRANDCHILD_AUTOREAP);

      close (reap[0]);
      close (report[1]);
      self->parent_pid = pid;
      self->reap_fd = reap[1];
      self->report_fd = report[0];
      g_assert_true (io_read_all (self->report_fd, &self->pid, sizeof self->pid));
    }

  close (control[0]);
  self->control_fd = control[1];

  return self;
}

GPid
test_process_get_pid (TestProcess *self)
{
  return self->pid;
}

void
test_process_exit (TestProcess *self,
                   int          code)
{
  unsigned char byte = code;

  g_assert_cmpint (write (self->control_fd, &byte, 1), ==, 1);
}

void
test_process_kill (TestProcess *self,
                   int          sig)
{
  g_assert_no_errno (kill (self->pid, sig));
}

/* Until the target is a zombie (or gone, for the auto-reaped kind). Its
 * parent waits for that without reaping it. */
void
test_process_await_exit (TestProcess *self)
{
  siginfo_t info;
  char ack;

  if (self->kind == TEST_PROCESS_CHILD)
    {
      g_assert_no_errno (waitid (P_PID, self->pid, &info, WEXITED | WNOWAIT));
      return;
    }

  g_assert_cmpint (write (self->reap_fd, "w", 1), ==, 1);
  g_assert_true (io_read_all (self->report_fd, &ack, 1));
  g_assert_cmpint (ack, ==, 'w');
}

/* Reaps the target and returns its wait status. */
int
test_process_reap (TestProcess *self)
{
  int status = 0;

  g_assert_false (self->reaped);
  self->reaped = TRUE;

  if (self->kind == TEST_PROCESS_CHILD)
    {
      g_assert_cmpint (waitpid (self->pid, &status, 0), ==, self->pid);
      return status;
    }

  g_assert_cmpint (write (self->reap_fd, "r", 1), ==, 1);
  g_assert_true (io_read_all (self->report_fd, &status, sizeof status));
  g_assert_cmpint (waitpid (self->parent_pid, NULL, 0), ==, self->parent_pid);

  return status;
}

void
test_process_free (TestProcess *self)
{
  if (!self->reaped)
    {
      kill (self->pid, SIGKILL);
      if (self->kind == TEST_PROCESS_CHILD)
        {
          waitpid (self->pid, NULL, 0);
        }
      else
        {
          close (self->reap_fd);
          self->reap_fd = -1;
          waitpid (self->parent_pid, NULL, 0);
        }
    }

  close (self->control_fd);
  if (self->reap_fd >= 0)
    close (self->reap_fd);
  if (self->report_fd >= 0)
    close (self->report_fd);
  g_free (self);
}

static gboolean
on_deadline (gpointer user_data)
{
  g_error ("Timed out after %d s waiting for an event", TEST_DEADLINE_SECONDS);
  return G_SOURCE_REMOVE;
}

void
test_run_until (GMainContext   *context,
                const gboolean *flag)
{
  GSource *deadline = g_timeout_source_new_seconds (TEST_DEADLINE_SECONDS);

  g_source_set_callback (deadline, on_deadline, NULL, NULL);
  g_source_attach (deadline, context);

  while (!*flag)
    g_main_context_iteration (context, TRUE);

  g_source_destroy (deadline);
  g_source_unref (deadline);
}

void
test_run_until_count (GMainContext *context,
                      const guint  *counter,
                      guint         target)
{
  GSource *deadline = g_timeout_source_new_seconds (TEST_DEADLINE_SECONDS);

  g_source_set_callback (deadline, on_deadline, NULL, NULL);
  g_source_attach (deadline, context);

  while (*counter < target)
    g_main_context_iteration (context, TRUE);

  g_source_destroy (deadline);
  g_source_unref (deadline);
}

void
test_drain_context (GMainContext *context)
{
  while (g_main_context_iteration (context, FALSE))
    ;
}

guint
test_count_open_fds (void)
{
  DIR *dir = opendir ("/proc/self/fd");
  struct dirent *entry;
  guint count = 0;

  g_assert_nonnull (dir);
  while ((entry = readdir (dir)) != NULL)
    if (entry->d_name[0] != '.')
      count++;
  closedir (dir);

  return count - 1;   /* the directory's own fd */
}

struct _TestParkedThread
{
  GThread *thread;
  GAsyncQueue *tids;      /* thread → test: its task id */
  GAsyncQueue *release;   /* test → thread: end now */
  GPid tid;
};

static gpointer
run_parked_thread (gpointer data)
{
  TestParkedThread *self = data;

  g_async_queue_push (self->tids, GINT_TO_POINTER ((int) syscall (SYS_gettid)));
  g_async_queue_pop (self->release);

  return NULL;
}

TestParkedThread *
test_parked_thread_new (void)
{
  TestParkedThread *self = g_new0 (TestParkedThread, 1);

  self->tids = g_async_queue_new ();
  self->release = g_async_queue_new ();
  self->thread = g_thread_new ("parked", run_parked_thread, self);
  self->tid = GPOINTER_TO_INT (g_async_queue_pop (self->tids));

  return self;
}

GPid
test_parked_thread_get_tid (TestParkedThread *self)
{
  return self->tid;
}

void
test_parked_thread_release (TestParkedThread *self)
{
  g_async_queue_push (self->release, GINT_TO_POINTER (1));
  g_thread_join (self->thread);
  g_async_queue_unref (self->tids);
  g_async_queue_unref (self->release);
  g_free (self);
}

static void
record (TestRecorder          *recorder,
        ProcwatchProcess      *process,
        ProcwatchProcessState  state)
{
  TestEvent event = { 0 };

  event.pid = procwatch_process_get_pid (process);
  event.process = g_object_ref (process);
  event.state = state;
  event.had_status = procwatch_process_has_status (process);
  event.status = event.had_status ? procwatch_process_get_status (process) : 0;
  event.thread = g_thread_self ();

  /* The object's state is already the one the signal announces. */
  g_assert_cmpint (procwatch_process_get_state (process), ==, state);

  g_array_append_val (recorder->events, event);
}

static void
on_exited (ProcwatchProcessMonitor *monitor,
           ProcwatchProcess        *process,
           TestRecorder            *recorder)
{
  guint i;

  /* Never after its own "reaped" (pids may repeat: objects do not). */
  for (i = 0; i < recorder->events->len; i++)
    g_assert_false (g_array_index (recorder->events, TestEvent, i).process == process &&
                    g_array_index (recorder->events, TestEvent, i).state ==
                    PROCWATCH_PROCESS_STATE_REAPED);

  record (recorder, process, PROCWATCH_PROCESS_STATE_EXITED);
  recorder->n_exited++;
}

static void
on_reaped (ProcwatchProcessMonitor *monitor,
           ProcwatchProcess        *process,
           TestRecorder            *recorder)
{
  record (recorder, process, PROCWATCH_PROCESS_STATE_REAPED);
  recorder->n_reaped++;
}

static void
clear_event (TestEvent *event)
{
  g_clear_object (&event->process);
}

TestRecorder *
test_recorder_new (ProcwatchProcessMonitor *monitor)
{
  TestRecorder *recorder = g_new0 (TestRecorder, 1);

  recorder->monitor = monitor;
  recorder->events = g_array_new (FALSE, TRUE, sizeof (TestEvent));
  g_array_set_clear_func (recorder->events, (GDestroyNotify) clear_event);
  g_signal_connect (monitor, "exited", G_CALLBACK (on_exited), recorder);
  g_signal_connect (monitor, "reaped", G_CALLBACK (on_reaped), recorder);

  return recorder;
}

void
test_recorder_free (TestRecorder *recorder)
{
  if (recorder->monitor != NULL)
    g_signal_handlers_disconnect_by_data (recorder->monitor, recorder);
  g_array_unref (recorder->events);
  g_free (recorder);
}

guint
test_recorder_count (TestRecorder          *recorder,
                     GPid                   pid,
                     ProcwatchProcessState  state)
{
  guint count = 0;
  guint i;

  for (i = 0; i < recorder->events->len; i++)
    {
      TestEvent *event = &g_array_index (recorder->events, TestEvent, i);

      if (event->pid == pid && event->state == state)
        count++;
    }

  return count;
}

TestEvent *
test_recorder_find (TestRecorder          *recorder,
                    GPid                   pid,
                    ProcwatchProcessState  state)
{
  guint i;

  for (i = 0; i < recorder->events->len; i++)
    {
      TestEvent *event = &g_array_index (recorder->events, TestEvent, i);

      if (event->pid == pid && event->state == state)
        return event;
    }

  return NULL;
}

void
test_init (int    *argc,
           char ***argv)
{
  g_test_init (argc, argv, NULL);

  /* Orphans of a failed test stay our zombies instead of going to pid 1. */
  g_assert_no_errno (prctl (PR_SET_CHILD_SUBREAPER, 1));
}

void
test_add_for_each_kind (const char    *prefix,
                        const char    *name,
                        GTestDataFunc  func)
{
  g_autofree char *child = g_strdup_printf ("%s/child/%s", prefix, name);
  g_autofree char *grandchild = g_strdup_printf ("%s/non-child/%s", prefix, name);

  g_test_add_data_func (child, GINT_TO_POINTER (TEST_PROCESS_CHILD), func);
  g_test_add_data_func (grandchild, GINT_TO_POINTER (TEST_PROCESS_GRANDCHILD), func);
}

gboolean
test_have_pidfd (void)
{
  int pidfd = procwatch_pidfd_open (getpid (), 0);

  if (pidfd < 0)
    return FALSE;

  close (pidfd);
  return TRUE;
}

static gboolean
kernel_keeps_exit_status (void)
{
  struct procwatch_pidfd_info info;
  int pidfd;
  pid_t pid;
  int ret;

  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    _exit (42);

  pidfd = procwatch_pidfd_open (pid, 0);
  if (pidfd < 0)
    {
      waitpid (pid, NULL, 0);
      return FALSE;
    }
  g_assert_cmpint (waitpid (pid, NULL, 0), ==, pid);

  memset (&info, 0, sizeof info);
  info.mask = PIDFD_INFO_EXIT;
  ret = ioctl (pidfd, PROCWATCH_PIDFD_GET_INFO, &info);
  close (pidfd);

  return ret == 0 && (info.mask & PIDFD_INFO_EXIT) != 0 && info.exit_code == 42 << 8;
}

gboolean
test_kernel_keeps_exit_status (void)
{
  static int keeps = -1;

  if (keeps < 0)
    keeps = kernel_keeps_exit_status ();

  return keeps;
}

gboolean
test_raise_fd_limit (rlim_t needed)
{
  struct rlimit limit;

  g_assert_no_errno (getrlimit (RLIMIT_NOFILE, &limit));
  if (limit.rlim_cur >= needed)
    return TRUE;
  if (limit.rlim_max < needed)
    return FALSE;

  limit.rlim_cur = needed;
  g_assert_no_errno (setrlimit (RLIMIT_NOFILE, &limit));
  return TRUE;
}

static gboolean
debug_has (const char *key)
{
  const char *debug = g_getenv ("PROCWATCH_DEBUG");

  return debug != NULL && strstr (debug, key) != NULL;
}

gboolean
test_simulating_no_pidfs (void)
{
  return debug_has ("no-pidfs");
}

static gboolean
simulating_no_pollhup (void)
{
  return debug_has ("no-pollhup") || test_simulating_no_pidfs ();
}

gushort
test_pidfd_revents (int fd)
{
  struct pollfd pfd = { fd, POLLIN, 0 };

  g_assert_no_errno (poll (&pfd, 1, 0));
  if (simulating_no_pollhup ())
    pfd.revents &= ~POLLHUP;

  return pfd.revents;
}

/* Asked of the kernel, not of its version: distributions backport. */
static gboolean
kernel_reports_reap_hangup (void)
{
  gushort revents;
  int pidfd;
  pid_t pid;

  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    _exit (0);

  pidfd = procwatch_pidfd_open (pid, 0);
  g_assert_cmpint (waitpid (pid, NULL, 0), ==, pid);
  if (pidfd < 0)
    return FALSE;
  revents = test_pidfd_revents (pidfd);
  close (pidfd);

  return (revents & POLLHUP) != 0;
}

gboolean
test_kernel_reports_reap_hangup (void)
{
  static int reports = -1;

  if (reports < 0)
    reports = kernel_reports_reap_hangup ();

  return reports;
}

gboolean
test_kernel_has_pollable_proc (void)
{
  struct pollfd pfd = { .events = POLLIN };
  int ready;

  pfd.fd = open ("/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  g_assert_no_errno (pfd.fd);
  ready = poll (&pfd, 1, 0);
  g_assert_no_errno (ready);
  g_assert_no_errno (close (pfd.fd));

  return ready == 0;
}

const char *
test_expected_backend (void)
{
  const char *expected = g_getenv ("PROCWATCH_TEST_EXPECT_BACKEND");

  if (g_strcmp0 (expected, "poll") == 0 && g_getenv ("PROCWATCH_BACKEND") == NULL &&
      test_kernel_has_pollable_proc ())
    return "procfs";

  return expected;
}

gboolean
test_kernel_has_file_handles (void)
{
  struct
  {
    struct file_handle handle;
    unsigned char bytes[MAX_HANDLE_SZ];
  } name;
  int pidfd;
  int mount_id;
  int fd = -1;

  /* The handles are pidfs's. */
  if (test_simulating_no_pidfs ())
    return FALSE;

  pidfd = procwatch_pidfd_open (getpid (), 0);
  if (pidfd < 0)
    return FALSE;

  memset (&name, 0, sizeof name);
  name.handle.handle_bytes = MAX_HANDLE_SZ;
  if (name_to_handle_at (pidfd, "", &name.handle, &mount_id, AT_EMPTY_PATH) == 0)
    {
      /* pidfs: the inode number, 8 bytes. */
      g_assert_cmpuint (name.handle.handle_bytes, ==, 8);
      fd = open_by_handle_at (pidfd, &name.handle, O_RDONLY | O_CLOEXEC);
    }
  close (pidfd);
  if (fd < 0)
    return FALSE;

  close (fd);
  return TRUE;
}

gboolean
test_status_known_after_reap (ProcwatchProcessMonitor *monitor)
{
  return test_kernel_keeps_exit_status () &&
         g_str_equal (procwatch_process_monitor_get_backend (monitor), "pidfd");
}

ProcwatchProcess *
test_watch_by_pidfd (ProcwatchProcessMonitor *monitor,
                     GPid                     pid)
{
  g_autoptr(GError) error = NULL;
  ProcwatchProcess *process;
  int pidfd = procwatch_pidfd_open (pid, 0);

  g_assert_no_errno (pidfd);
  process = procwatch_process_monitor_watch_pidfd (monitor, pidfd, &error);
  g_assert_no_error (error);
  close (pidfd);

  return process;
}

gboolean
test_skip_without_pidfd (void)
{
  if (test_have_pidfd ())
    return FALSE;

  g_test_skip ("pidfd_open() is not available here");
  return TRUE;
}

void
test_skip_for_system (const char *format,
                      ...)
{
  g_autofree char *reason = NULL;
  va_list args;

  va_start (args, format);
  reason = g_strdup_vprintf (format, args);
  va_end (args);

  if (g_strcmp0 (g_getenv ("PROCWATCH_TEST_REQUIRE_ALL"), "") > 0)
    g_test_fail_printf ("%s, and PROCWATCH_TEST_REQUIRE_ALL is set", reason);
  else
    g_test_skip (reason);
}

/* Writes @text in one write(): /proc files take no temporary file, as
 * g_file_set_contents() would make. Sets errno on failure. */
gboolean
test_write_proc_file (const char *path,
                      const char *text)
{
  int fd = open (path, O_WRONLY | O_CLOEXEC);
  gssize length = (gssize) strlen (text);
  gboolean ok;

  if (fd < 0)
    return FALSE;

  ok = write (fd, text, length) == length;
  close (fd);
  return ok;
}

/* unshare (@flags), for a user other than root inside a new user namespace
 * of which it is root, as `unshare --map-root-user` does: unprivileged users
 * may have pid and mount namespaces that way. */
int
test_unshare (int flags)
{
  uid_t uid = geteuid ();
  gid_t gid = getegid ();
  char map[64];

  if (uid == 0)
    return unshare (flags);

  if (unshare (CLONE_NEWUSER | flags) != 0)
    return -1;

  snprintf (map, sizeof map, "0 %u 1", (unsigned int) uid);
  if (!test_write_proc_file ("/proc/self/uid_map", map) ||
      !test_write_proc_file ("/proc/self/setgroups", "deny"))
    return -1;

  snprintf (map, sizeof map, "0 %u 1", (unsigned int) gid);
  return test_write_proc_file ("/proc/self/gid_map", map) ? 0 : -1;
}

/* A /proc of our own. Only /proc is made private, not "/": the new proc
 * is mounted on it, so only its propagation matters, and in a plain chroot
 * "/" is no mount point, which MS_PRIVATE refuses (EINVAL). */
const char *
test_mount_private_proc (const char *options)
{
  /* A type string although none is used: valgrind checks that it is one. */
  if (mount ("none", "/proc", "none", MS_REC | MS_PRIVATE, NULL) != 0)
    return "making /proc private";
  if (mount ("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, options) != 0)
    return "mounting /proc";
  return NULL;
}

static void
report_setup (int         fd,
              const char *failed)
{
  char message[256];
  int length;

  if (failed == NULL)
    return;

  length = snprintf (message, sizeof message, "%s: %s", failed, strerror (errno));
  if (length > 0 && write (fd, message, MIN ((size_t) length, sizeof message - 1)) < 0)
    _exit (1);
}

/* Whether unshare (@flags) and then @setup succeed here: tried in a
 * throw-away child (with CLONE_NEWPID, in its first child, the new
 * namespace's pid 1), so that a test can skip, saying why in *@why, where
 * a chroot, a container or a missing privilege refuses what it needs. */
gboolean
test_can_unshare (int                  flags,
                  TestNamespaceSetup   setup,
                  gconstpointer        user_data,
                  char               **why)
{
  char message[256];
  gssize length;
  int fds[2];
  int status;
  pid_t pid;

  g_assert_no_errno (pipe2 (fds, O_CLOEXEC));
  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      pid_t init;

      close (fds[0]);
      if (test_unshare (flags) != 0)
        {
          report_setup (fds[1], "unshare");
          _exit (0);
        }

      init = (flags & CLONE_NEWPID) != 0 ? fork () : 0;
      if (init < 0)
        report_setup (fds[1], "starting a process in the new pid namespace");
      else if (init == 0)
        report_setup (fds[1], setup != NULL ? setup (user_data) : NULL);
      else
        waitpid (init, NULL, 0);
      _exit (0);
    }

  close (fds[1]);
  do
    length = read (fds[0], message, sizeof message - 1);
  while (length < 0 && errno == EINTR);
  close (fds[0]);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);

  if (length <= 0)
    return TRUE;

  message[length] = '\0';
  *why = g_strdup (message);
  return FALSE;
}

static const char *
mount_namespace_proc (gconstpointer user_data)
{
  return test_mount_private_proc (NULL);
}

gboolean
test_can_pid_namespace (char **why)
{
  return test_can_unshare (CLONE_NEWPID | CLONE_NEWNS, mount_namespace_proc, NULL, why);
}

void
test_run_in_pid_namespace (void (*scenario) (void))
{
  int status = 0;
  pid_t init;

  if (test_unshare (CLONE_NEWPID | CLONE_NEWNS) != 0)
    g_error ("unshare: %s", g_strerror (errno));

  init = fork ();
  g_assert_cmpint (init, >=, 0);
  if (init == 0)
    {
      pid_t runner;
      pid_t reaped;

      if (mount_namespace_proc (NULL) != NULL)
        _exit (90);

      runner = fork ();
      if (runner == 0)
        {
          /* exit(), not _exit(): leak checkers run here. */
          scenario ();
          exit (0);
        }

      while ((reaped = wait (&status)) != runner)
        if (reaped < 0 && errno != EINTR)
          _exit (91);

      _exit (WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status));
    }

  /* _exit(): LeakSanitizer cannot stop the world of a process whose new
   * children land in another pid namespace; the scenario checked itself. */
  g_assert_cmpint (waitpid (init, &status, 0), ==, init);
  _exit (WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status));
}

void
test_set_next_pid (GPid pid)
{
  g_autofree char *last = g_strdup_printf ("%d", (int) pid - 1);

  g_assert_true (test_write_proc_file ("/proc/sys/kernel/ns_last_pid", last));
}

void
test_in_pid_namespace (gconstpointer scenario)
{
  g_autofree char *why = NULL;

  if (g_test_subprocess ())
    test_run_in_pid_namespace ((void (*) (void)) scenario);

  if (!test_can_pid_namespace (&why))
    {
      g_test_skip_printf ("cannot create a pid namespace with its own /proc here (%s): "
                          "pid reuse cannot be forced", why);
      return;
    }

  g_test_trap_subprocess (NULL, 120 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

void
test_fixture_set_up (TestFixture   *fixture,
                     gconstpointer  data)
{
  fixture->kind = GPOINTER_TO_INT (data);
  fixture->monitor = procwatch_process_monitor_new ();
  fixture->recorder = test_recorder_new (fixture->monitor);
}

void
test_fixture_set_up_target (TestFixture   *fixture,
                            gconstpointer  data)
{
  test_fixture_set_up (fixture, data);
  fixture->target = test_process_spawn (fixture->kind);
  fixture->pid = test_process_get_pid (fixture->target);
}

void
test_fixture_tear_down (TestFixture   *fixture,
                        gconstpointer  data)
{
  g_clear_pointer (&fixture->target, test_process_free);
  g_clear_pointer (&fixture->recorder, test_recorder_free);
  g_clear_object (&fixture->monitor);
}

gboolean
test_fixture_is_child (TestFixture *fixture)
{
  return fixture->kind == TEST_PROCESS_CHILD;
}

void
test_fixture_assert_silent_to_the_end (TestFixture  *fixture,
                                       TestRecorder *sentinel)
{
  test_process_exit (fixture->target, 0);
  test_process_reap (fixture->target);

  test_run_until_count (NULL, &sentinel->n_reaped, 1);
  test_drain_context (NULL);
  g_assert_cmpuint (fixture->recorder->events->len, ==, 0);
}
