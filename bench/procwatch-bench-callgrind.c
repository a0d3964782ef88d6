/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * procwatch-bench callgrind and callgrind-inner: instructions counted by
 * callgrind (bench/README.md, section 5). The outer command holds the
 * processes and their pidfds and runs the inner one under valgrind, which
 * counts only the span each mode names: idle iterations, one exit, one child,
 * or one list-model operation.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procwatch-bench-harness.h"

#ifdef HAVE_VALGRIND_CALLGRIND_H
# include <valgrind/callgrind.h>
#else
# define CALLGRIND_TOGGLE_COLLECT do { } while (0)
#endif

extern char **environ;

/* 5. Instructions, counted by callgrind
 *
 * valgrind 3.19 does not know pidfd_open, so the pidfds are opened before
 * valgrind starts and inherited; the preloaded shim answers the backend's
 * one probe, pidfd_open (getpid ()), with a pidfd also opened beforehand. */

/* The exit's full cost (issue 27, target 1): GLib 2.74 dispatches a
 * non-recursive source between block_source () and unblock_source (), and
 * the re-added poll record writes the context's wakeup eventfd, so every
 * such dispatch is followed by one more, empty, main-loop iteration. Left
 * alone, that iteration ran at the start of the next exit's loop, merged
 * into the iteration that dispatched it (only its eventfd read counted),
 * and after the last exit not at all. Now each exit is followed by
 * settle_context (): it iterates without blocking as long as anything is
 * pending on the context, inside the counted span, for every peer alike.
 * Whether something is pending is asked with collection off (a poll () of
 * the fds the context polled last, its wakeup eventfd among them: GLib
 * signals that for every change that needs an iteration), so that a context
 * with nothing pending, a recursive source's, pays for no probing
 * iteration. The iterations run in settle_iteration (), whose inclusive
 * cost callgrind's output gives on its own: the trailing part. */

__attribute__ ((noinline)) static gboolean
settle_iteration (GMainContext *context)
{
  return g_main_context_iteration (context, FALSE);
}

/* Returns the number of iterations it ran; called with collection on. */
static guint
settle_context (GMainContext *context)
{
  guint n = 0;

  for (;;)
    {
      gboolean pending;

      CALLGRIND_TOGGLE_COLLECT;
      pending = context_has_pending ();
      CALLGRIND_TOGGLE_COLLECT;
      if (!pending || n >= 100)
        break;
      settle_iteration (context);
      n++;
    }

  return n;
}

/* Whether a callgrind function name is @function or a clone the compiler
 * made of it ("settle_iteration.isra.0"). */
static gboolean
callgrind_name_is (const char *name,
                   const char *function)
{
  gsize length = strlen (function);

  return strncmp (name, function, length) == 0 && (name[length] == '\0' || name[length] == '.');
}

/* The inclusive instructions of every call to @function in a callgrind
 * output (the cost line after each "calls=" line of a "cfn=" naming it),
 * or -1 if it was never called. */
static gint64
callgrind_inclusive (const char *output,
                     const char *function)
{
  g_auto(GStrv) lines = g_strsplit (output, "\n", -1);
  g_autofree char *id = NULL;
  gboolean in_call = FALSE;
  gboolean after_calls = FALSE;
  gint64 total = -1;
  guint i;

  for (i = 0; lines[i] != NULL; i++)
    {
      const char *line = lines[i];

      if (after_calls)
        {
          const char *cost = strchr (line, ' ');

          if (in_call && cost != NULL)
            total = MAX (total, 0) + g_ascii_strtoll (cost + 1, NULL, 10);
          after_calls = FALSE;
          in_call = FALSE;
          continue;
        }

      if (g_str_has_prefix (line, "fn=") || g_str_has_prefix (line, "cfn="))
        {
          const char *name = strchr (line, '=') + 1;
          const char *space = strchr (name, ' ');

          /* "(id) name" defines an id, "(id)" refers to one. */
          if (id == NULL && space != NULL && callgrind_name_is (space + 1, function))
            id = g_strndup (name, space - name);
          if (line[0] == 'c')
            in_call = (id != NULL && (g_str_equal (name, id) ||
                                      (g_str_has_prefix (name, id) && name[strlen (id)] == ' '))) ||
                      (space != NULL && callgrind_name_is (space + 1, function));
        }
      else if (g_str_has_prefix (line, "calls="))
        {
          after_calls = TRUE;
        }
    }

  return total;
}

/* The inner process's tally, sent to the outer after its last request. */
#define CTL_TALLY (-2)

typedef struct
{
  guint exit_iterations;    /* up to the callbacks, all exits */
  guint settle_iterations;  /* after them (settle_context) */
} InnerTally;

static void
inner_send_tally (const InnerTally *tally)
{
  int marker = CTL_TALLY;

  io_write_all (opt_ctl_fd, &marker, sizeof marker);
  io_write_all (opt_ctl_fd, tally, sizeof *tally);
}

/* The pidfd of a child of the inner process, opened by the outer one (no
 * pidfd_open under valgrind 3.19), goes back with SCM_RIGHTS. */
static void
send_fd (int socket_fd,
         int fd)
{
  char byte = 'f';
  struct iovec iov = { &byte, 1 };
  union { struct cmsghdr header; char space[CMSG_SPACE (sizeof (int))]; } control;
  struct msghdr message = { 0 };
  struct cmsghdr *header;

  memset (&control, 0, sizeof control);
  message.msg_iov = &iov;
  message.msg_iovlen = 1;
  message.msg_control = control.space;
  message.msg_controllen = sizeof control.space;
  header = CMSG_FIRSTHDR (&message);
  header->cmsg_level = SOL_SOCKET;
  header->cmsg_type = SCM_RIGHTS;
  header->cmsg_len = CMSG_LEN (sizeof (int));
  memcpy (CMSG_DATA (header), &fd, sizeof (int));

  while (sendmsg (socket_fd, &message, 0) < 0)
    if (errno != EINTR)
      g_error ("procwatch-bench: sendmsg: %s", g_strerror (errno));
}

static int
receive_fd (int socket_fd)
{
  char byte;
  struct iovec iov = { &byte, 1 };
  union { struct cmsghdr header; char space[CMSG_SPACE (sizeof (int))]; } control;
  struct msghdr message = { 0 };
  struct cmsghdr *header;
  int fd = -1;

  message.msg_iov = &iov;
  message.msg_iovlen = 1;
  message.msg_control = control.space;
  message.msg_controllen = sizeof control.space;
  while (recvmsg (socket_fd, &message, MSG_CMSG_CLOEXEC) < 0)
    if (errno != EINTR)
      return -1;

  header = CMSG_FIRSTHDR (&message);
  if (header != NULL && header->cmsg_type == SCM_RIGHTS)
    memcpy (&fd, CMSG_DATA (header), sizeof (int));
  return fd;
}

/* The pidfds of the @n sleepers, at @base and up, inheritable. */
static void
callgrind_hand_over (BenchSleepers *sleepers,
                     int            base,
                     guint          n)
{
  guint i;

  for (i = 0; i < n; i++)
    {
      int fd = bench_pidfd_open (g_array_index (sleepers->pids, GPid, i));

      if (fd < 0 || (fd != base + (int) i && dup2 (fd, base + i) < 0))
        g_error ("procwatch-bench: cannot hand over pidfd %u: %s", i, g_strerror (errno));
      if (fd != base + (int) i)
        close (fd);
      fcntl (base + i, F_SETFD, 0);
    }
}

/* In the forked child: this program's callgrind-inner under valgrind, with
 * the shim preloaded and ctl[1] to talk back on. */
G_GNUC_NORETURN static void
callgrind_exec_inner (const char *self_path,
                      const char *peer,
                      int         base,
                      const int  *ctl)
{
  int self_fd = bench_pidfd_open (getpid ());
  g_autofree char *self_arg = g_strdup_printf ("%d", self_fd);
  g_autofree char *out_arg = g_strdup_printf ("--callgrind-out-file=%s", opt_out);
  g_autofree char *n_arg = g_strdup_printf ("--n=%d", opt_n);
  g_autofree char *iters_arg = g_strdup_printf ("--iters=%d", opt_iters);
  g_autofree char *base_arg = g_strdup_printf ("--fd-base=%d", base);
  g_autofree char *ctl_arg = g_strdup_printf ("--ctl-fd=%d", ctl[1]);
  g_autofree char *mode_arg = g_strdup_printf ("--mode=%s", opt_mode);
  g_autofree char *peer_arg = g_strdup_printf ("--peers=%s", peer);

  fcntl (self_fd, F_SETFD, 0);
  fcntl (ctl[1], F_SETFD, 0);
  close (ctl[0]);
  g_setenv ("PROCWATCH_BENCH_SELF_PIDFD", self_arg, TRUE);
  g_setenv ("LD_PRELOAD", opt_shim, TRUE);
  execl (opt_valgrind, opt_valgrind, "--tool=callgrind", "--collect-atstart=no", "-q",
         out_arg, self_path, "callgrind-inner", mode_arg, peer_arg, n_arg, iters_arg,
         base_arg, ctl_arg, (char *) NULL);
  _exit (127);
}

/* Answers the inner process's requests on @ctl_fd until it closes it;
 * TRUE if it sent its tally (into @tally). */
static gboolean
callgrind_serve (int            ctl_fd,
                 BenchSleepers *sleepers,
                 int            base,
                 gboolean       child_mode,
                 InnerTally    *tally)
{
  gboolean have_tally = FALSE;
  int index;

  /* In exit mode the inner process asks for one death at a time, and hears
   * back once the process has been reaped: it then finds exit and reap
   * together, one wake-up per process for every peer, whatever the timing. */
  while (io_read_all (ctl_fd, &index, sizeof index))
    if (index == CTL_TALLY)
      {
        if (!io_read_all (ctl_fd, tally, sizeof *tally))
          break;
        have_tally = TRUE;
      }
    else if (child_mode)
      {
        /* The inner process's child, index its pid: its pidfd goes back. */
        int pidfd = bench_pidfd_open (index);

        if (pidfd < 0)
          g_error ("procwatch-bench: pidfd_open (%d): %s", index, g_strerror (errno));
        send_fd (ctl_fd, pidfd);
        close (pidfd);
      }
    else if (index >= 0 && index < opt_n)
      {
        struct pollfd hangup = { base + index, 0, 0 };

        kill (g_array_index (sleepers->pids, GPid, index), SIGKILL);
        /* Until the reap: the pidfd hangs up (Linux 6.9+); before 6.9
         * nothing wakes us, and signal 0 is asked every millisecond. */
        while (!(poll (&hangup, 1, 1) == 1 && (hangup.revents & POLLHUP)) &&
               !(syscall (SYS_pidfd_send_signal, base + index, 0, NULL, 0) < 0 &&
                 errno == ESRCH))
          ;
        io_write_all (ctl_fd, "r", 1);
      }

  return have_tally;
}

/* The record of a finished run from callgrind's @output; @tally is the
 * inner process's, or NULL if it sent none. */
static int
callgrind_report (const char       *output,
                  const char       *peer,
                  const InnerTally *tally)
{
  g_autofree char *extra = NULL;
  const char *summary;

  summary = strstr (output, "\nsummary:");
  if (summary == NULL)
    summary = strstr (output, "\ntotals:");
  if (summary == NULL)
    return 1;

  /* exit and child modes: the part after the callbacks on its own. */
  if (tally != NULL)
    {
      gint64 trailing = callgrind_inclusive (output, "settle_iteration");

      extra = g_strdup_printf (", \"trailing_instructions\": %" G_GINT64_FORMAT ", "
                               "\"exit_iterations\": %u, \"settle_iterations\": %u",
                               MAX (trailing, 0), tally->exit_iterations,
                               tally->settle_iterations);
    }

  print_line ("{\"bench\": \"callgrind\", \"label\": \"%s\", \"mode\": \"%s\", \"peer\": \"%s\", "
              "\"n\": %d, \"iters\": %d, \"instructions\": %s%s}",
              opt_label != NULL ? opt_label : "", opt_mode, peer, opt_n,
              opt_iters, g_strstrip (g_strndup (strchr (summary, ':') + 1,
                                                strcspn (strchr (summary, ':') + 1, "\n"))),
              extra != NULL ? extra : "");
  return 0;
}

int
cmd_callgrind (char *self_path)
{
  BenchSleepers sleepers = { 0 };
  const char *peer = opt_peers != NULL ? opt_peers : "monitor";
  int ctl[2] = { -1, -1 };
  int base = -1;
  int status;
  pid_t pid;
  guint i;
  g_autofree char *output = NULL;
  gboolean child_mode = g_strcmp0 (opt_mode, "child") == 0;
  InnerTally tally = { 0 };
  gboolean have_tally = FALSE;

  if (opt_valgrind == NULL || opt_shim == NULL || opt_out == NULL || opt_mode == NULL)
    {
      g_printerr ("procwatch-bench callgrind: --valgrind, --shim, --out and --mode are needed\n");
      return 2;
    }

  bench_raise_fd_limit ();
  if (!child_mode && !bench_sleepers_spawn (&sleepers, opt_n))
    return 1;

  /* Handed over as one consecutive range, above the few fds of our own. */
  base = 64;
  callgrind_hand_over (&sleepers, base, (guint) (child_mode ? 0 : opt_n));

  g_assert (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ctl) == 0);

  fflush (stdout);
  pid = fork ();
  g_assert (pid >= 0);
  if (pid == 0)
    callgrind_exec_inner (self_path, peer, base, ctl);

  close (ctl[1]);

  have_tally = callgrind_serve (ctl[0], &sleepers, base, child_mode, &tally);
  close (ctl[0]);
  for (i = 0; i < (guint) (child_mode ? 0 : opt_n); i++)
    close (base + i);

  waitpid (pid, &status, 0);
  if (!child_mode)
    bench_sleepers_finish (&sleepers);

  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0 ||
      !g_file_get_contents (opt_out, &output, NULL, NULL))
    {
      g_printerr ("procwatch-bench: callgrind run failed\n");
      return 1;
    }

  return callgrind_report (output, peer, have_tally ? &tally : NULL);
}

/* Returns the main-loop iterations it ran. Always inline, as
 * epoll_run_until (): it runs inside the counted span of every exit, where
 * a call would count its prologue. */
G_ALWAYS_INLINE static inline guint
inner_reaped (int       epoll_fd,
              FdWatch  *watches,
              Counter  *counter,
              guint     n_reaped)
{
  guint n = 0;

  if (epoll_fd >= 0)
    epoll_run_until (epoll_fd, watches, counter, n_reaped);
  else
    for (; counter->n_reaped < n_reaped; n++)
      g_main_context_iteration (NULL, TRUE);

  return n;
}

/* The list model's operations one by one, N watched processes throughout:
 * the pidfds of opt_n processes are handed over; the first opt_n - opt_iters
 * are watched, and each of opt_iters repetitions removes a random one (mode
 * "listexit": its death, asked of the outer process, which returns once it
 * has been reaped; "listunwatch": unwatch_process) and watches the next
 * pidfd in its place ("listwatch"). Only the operation the mode names is
 * counted: instructions do not depend on caches or on other work, so they
 * show how the library's own work grows with N. */
static int
callgrind_list_inner (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
  g_autoptr(GPtrArray) held = g_ptr_array_new_with_free_func (g_object_unref);
  GMainContext *context = g_main_context_default ();
  const char *self_fd = g_getenv ("PROCWATCH_BENCH_SELF_PIDFD");
  gboolean count_exit = g_str_equal (opt_mode, "listexit");
  gboolean count_unwatch = g_str_equal (opt_mode, "listunwatch");
  gboolean count_watch = g_str_equal (opt_mode, "listwatch");
  int watched = opt_n - opt_iters;
  Counter counter = { 0 };
  int next = 0;
  int i;

  g_assert (watched >= 1);

  monitor = procwatch_process_monitor_new ();
  g_signal_connect (monitor, "items-changed", G_CALLBACK (on_list_items_changed), NULL);
  g_signal_connect (monitor, "reaped", G_CALLBACK (on_counter_reaped), &counter);
  if (self_fd != NULL)
    {
      g_object_unref (procwatch_process_monitor_watch_pidfd (monitor, atoi (self_fd), NULL));
      procwatch_process_monitor_unwatch (monitor, getpid ());
    }

  for (next = 0; next < watched; next++)
    {
      g_autoptr(GError) error = NULL;
      ProcwatchProcess *process = procwatch_process_monitor_watch_pidfd (monitor, opt_fd_base + next,
                                                                         &error);

      if (process == NULL)
        g_error ("procwatch-bench: %s", error->message);
      g_object_set_data (G_OBJECT (process), "bench-index", GINT_TO_POINTER (next + 1));
      g_ptr_array_add (held, process);
      close (opt_fd_base + next);
    }

  while (g_main_context_iteration (context, FALSE))
    ;

  for (i = 0; i < opt_iters; i++)
    {
      guint index = g_random_int_range (0, held->len);
      ProcwatchProcess *process = g_ptr_array_index (held, index);
      g_autoptr(GError) error = NULL;

      if (count_exit || !count_unwatch)
        {
          /* Told by the index of its pidfd, which is what the outer holds. */
          int victim = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (process), "bench-index")) - 1;
          char reaped;

          io_write_all (opt_ctl_fd, &victim, sizeof victim);
          io_read_all (opt_ctl_fd, &reaped, 1);
          if (count_exit)
            CALLGRIND_TOGGLE_COLLECT;
          while (counter.n_reaped < (guint) i + 1)
            g_main_context_iteration (context, TRUE);
          if (count_exit)
            CALLGRIND_TOGGLE_COLLECT;
        }
      else
        {
          CALLGRIND_TOGGLE_COLLECT;
          procwatch_process_monitor_unwatch_process (monitor, process);
          CALLGRIND_TOGGLE_COLLECT;
        }
      g_ptr_array_remove_index_fast (held, index);

      if (count_watch)
        CALLGRIND_TOGGLE_COLLECT;
      process = procwatch_process_monitor_watch_pidfd (monitor, opt_fd_base + next, &error);
      if (count_watch)
        CALLGRIND_TOGGLE_COLLECT;
      if (process == NULL)
        g_error ("procwatch-bench: %s", error->message);
      g_object_set_data (G_OBJECT (process), "bench-index", GINT_TO_POINTER (next + 1));
      g_ptr_array_add (held, process);
      close (opt_fd_base + next);
      next++;
    }

  close (opt_ctl_fd);
  return 0;
}

/* Mode "child" (issue 27, target 2): one child of the process under
 * valgrind at a time, killed inside the counted span, which ends once
 * everything has settled. "monitor": watched with watch_pidfd (its pidfd
 * opened by the outer process), reaped by the "exited" handler
 * (waitpid ()), counted to "reaped"; "childwatch": g_child_watch_add (),
 * which reaps it itself (on its pidfd, as natively: the shim hands GLib's
 * pidfd_open the one the outer process opened), counted to its callback.
 * One child at a time: without pidfds GLib would call waitpid () on every
 * watched child at each SIGCHLD. */

typedef struct
{
  guint n_exited;
  guint n_reaped;
} ChildTally;

static void
on_child_mode_exited (ProcwatchProcessMonitor *monitor,
                      ProcwatchProcess        *process,
                      ChildTally              *tally)
{
  int status;

  while (waitpid (procwatch_process_get_pid (process), &status, 0) < 0 && errno == EINTR)
    ;
  tally->n_exited++;
}

static void
on_child_mode_reaped (ProcwatchProcessMonitor *monitor,
                      ProcwatchProcess        *process,
                      ChildTally              *tally)
{
  tally->n_reaped++;
}

static void
on_child_mode_watch (GPid     pid,
                     int      status,
                     gpointer user_data)
{
  ChildTally *tally = user_data;

  tally->n_exited++;
  tally->n_reaped++;
}

static GPid
spawn_sleeping_child (void)
{
  const char *argv[] = { "sleep", "3600", NULL };
  pid_t pid;
  int error = posix_spawn (&pid, "/bin/sleep", NULL, NULL, (char **) argv, environ);

  if (error != 0)
    g_error ("procwatch-bench: cannot start /bin/sleep: %s", g_strerror (error));
  return pid;
}

static int
callgrind_child_inner (void)
{
  const char *peer = opt_peers != NULL ? opt_peers : "monitor";
  gboolean is_monitor = g_str_equal (peer, "monitor");
  g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
  GMainContext *context = g_main_context_default ();
  const char *self_fd = g_getenv ("PROCWATCH_BENCH_SELF_PIDFD");
  ChildTally children = { 0 };
  InnerTally tally = { 0 };
  int i;

  if (!is_monitor && !g_str_equal (peer, "childwatch"))
    g_error ("procwatch-bench: mode child knows the peers monitor and childwatch");

  /* valgrind handles every signal itself, so a SIGCHLD (ignored by
   * default, which never interrupts a syscall natively) would end the main
   * loop's poll () early with EINTR, an iteration more at random. Neither
   * peer needs it: both wait on the child's pidfd (GLib 2.74 too). */
  {
    sigset_t chld;

    sigemptyset (&chld);
    sigaddset (&chld, SIGCHLD);
    pthread_sigmask (SIG_BLOCK, &chld, NULL);
  }

  g_main_context_set_poll_func (context, recording_poll);

  if (is_monitor)
    {
      monitor = procwatch_process_monitor_new ();
      g_signal_connect (monitor, "exited", G_CALLBACK (on_child_mode_exited), &children);
      g_signal_connect (monitor, "reaped", G_CALLBACK (on_child_mode_reaped), &children);
      if (self_fd != NULL)
        {
          g_object_unref (procwatch_process_monitor_watch_pidfd (monitor, atoi (self_fd), NULL));
          procwatch_process_monitor_unwatch (monitor, getpid ());
        }
    }

  for (i = 0; i < opt_n; i++)
    {
      GPid pid = spawn_sleeping_child ();
      int pidfd;

      io_write_all (opt_ctl_fd, &pid, sizeof pid);
      pidfd = receive_fd (opt_ctl_fd);
      if (pidfd < 0)
        g_error ("procwatch-bench: no pidfd for child %d", (int) pid);

      if (is_monitor)
        {
          g_autoptr(GError) error = NULL;
          ProcwatchProcess *process;

          process = procwatch_process_monitor_watch_pidfd (monitor, pidfd, &error);
          if (process == NULL)
            g_error ("procwatch-bench: %s", error->message);
          g_object_unref (process);
        }
      else
        {
          /* GLib's own pidfd_open, answered by the shim: without it GLib
           * would fall back to SIGCHLD and its worker thread, which it
           * does not use natively (2.74 and later). */
          g_autofree char *pair = g_strdup_printf ("%d:%d", (int) pid, pidfd);

          g_setenv ("PROCWATCH_BENCH_CHILD_PIDFD", pair, TRUE);
          g_child_watch_add (pid, on_child_mode_watch, &children);
          g_unsetenv ("PROCWATCH_BENCH_CHILD_PIDFD");
        }
      close (pidfd);

      while (g_main_context_iteration (context, FALSE))
        ;

      CALLGRIND_TOGGLE_COLLECT;
      kill (pid, SIGKILL);
      for (; children.n_reaped < (guint) i + 1; tally.exit_iterations++)
        g_main_context_iteration (context, TRUE);
      tally.settle_iterations += settle_context (context);
      CALLGRIND_TOGGLE_COLLECT;

      g_assert (children.n_exited == (guint) i + 1);
    }

  inner_send_tally (&tally);
  close (opt_ctl_fd);
  return 0;
}

/* Watches the handed-over pidfds with a counting monitor; with
 * "monitor-held", @held keeps their ProcwatchProcess objects. */
static ProcwatchProcessMonitor *
inner_watch_monitor (const char *peer,
                     Counter    *counter,
                     GPtrArray  *held)
{
  const char *self_fd = g_getenv ("PROCWATCH_BENCH_SELF_PIDFD");
  ProcwatchProcessMonitor *monitor;
  int i;

  monitor = counting_monitor_new (counter);
  if (self_fd != NULL)
    {
      g_autoptr(GError) error = NULL;
      ProcwatchProcess *process;

      process = procwatch_process_monitor_watch_pidfd (monitor, atoi (self_fd), &error);
      if (process == NULL)
        g_error ("procwatch-bench: %s", error->message);
      g_object_unref (process);
      procwatch_process_monitor_unwatch (monitor, getpid ());
    }

  for (i = 0; i < opt_n; i++)
    {
      g_autoptr(GError) error = NULL;
      ProcwatchProcess *process;

      process = procwatch_process_monitor_watch_pidfd (monitor, opt_fd_base + i, &error);
      if (process == NULL)
        g_error ("procwatch-bench: %s", error->message);
      if (g_str_equal (peer, "monitor-held"))
        g_ptr_array_add (held, process);
      else
        g_object_unref (process);
      close (opt_fd_base + i);
    }

  return monitor;
}

/* The floor on the handed-over pidfds: returns its epoll fd for "epoll";
 * for "epollsource" the fd goes on the main loop in @epoll_source, and
 * -1 is returned. */
static int
inner_watch_epoll (const char  *peer,
                   Counter     *counter,
                   FdWatch     *watches,
                   EpollSource *epoll_source)
{
  int epoll_fd = epoll_create1 (EPOLL_CLOEXEC);
  int i;

  for (i = 0; i < opt_n; i++)
    {
      struct epoll_event event = { .events = EPOLLIN, .data.u32 = i };

      watches[i].fd = opt_fd_base + i;
      watches[i].counter = counter;
      epoll_ctl (epoll_fd, EPOLL_CTL_ADD, watches[i].fd, &event);
    }

  if (g_str_equal (peer, "epollsource"))
    {
      epoll_source->epoll_fd = epoll_fd;
      epoll_source->watches = watches;
      g_unix_fd_add (epoll_fd, G_IO_IN, on_epoll_ready, epoll_source);
      epoll_fd = -1;
    }

  return epoll_fd;
}

int
cmd_callgrind_inner (void)
{
  const char *peer = opt_peers != NULL ? opt_peers : "monitor";
  g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
  g_autofree FdWatch *watches = g_new0 (FdWatch, MAX (opt_n, 1));
  GMainContext *context = g_main_context_default ();
  Counter counter = { 0 };
  EpollSource epoll_source = { -1, NULL };
  /* "monitor-held": the caller keeps its ProcwatchProcess objects, so that
   * their finalization falls outside the measured span. */
  g_autoptr(GPtrArray) held = g_ptr_array_new_with_free_func (g_object_unref);
  int epoll_fd = -1;
  int i;

  if (g_str_has_prefix (opt_mode, "list"))
    return callgrind_list_inner ();
  if (g_str_equal (opt_mode, "child"))
    return callgrind_child_inner ();

  /* Exit mode asks it whether anything is pending (settle_context). */
  if (g_str_equal (opt_mode, "exit"))
    g_main_context_set_poll_func (context, recording_poll);

  if (g_str_has_prefix (peer, "monitor"))
    monitor = inner_watch_monitor (peer, &counter, held);
  else if (g_str_has_prefix (peer, "epoll") && g_str_equal (opt_mode, "exit"))
    epoll_fd = inner_watch_epoll (peer, &counter, watches, &epoll_source);
  else if (g_str_equal (peer, "fdsource"))
    {
      for (i = 0; i < opt_n; i++)
        g_unix_fd_add (opt_fd_base + i, G_IO_IN, on_idle_fd, NULL);
    }

  if (g_str_equal (opt_mode, "iter"))
    {
      g_autoptr(GSource) idle = g_idle_source_new ();

      g_source_set_callback (idle, keep_idle, NULL, NULL);
      g_source_attach (idle, context);

      for (i = 0; i < 5; i++)
        g_main_context_iteration (context, FALSE);

      CALLGRIND_TOGGLE_COLLECT;
      for (i = 0; i < opt_iters; i++)
        g_main_context_iteration (context, FALSE);
      CALLGRIND_TOGGLE_COLLECT;
    }
  else
    {
      InnerTally tally = { 0 };

      while (g_main_context_iteration (context, FALSE))
        ;

      /* Counted: from the wake-up on the exit to everything settled; not
       * the request to the outer process and its answer. */
      for (i = 0; i < opt_n; i++)
        {
          char reaped;

          io_write_all (opt_ctl_fd, &i, sizeof i);
          io_read_all (opt_ctl_fd, &reaped, 1);
          CALLGRIND_TOGGLE_COLLECT;
          tally.exit_iterations += inner_reaped (epoll_fd, watches, &counter, i + 1);
          tally.settle_iterations += settle_context (context);
          CALLGRIND_TOGGLE_COLLECT;
        }
      inner_send_tally (&tally);
    }

  close (opt_ctl_fd);
  return 0;
}
