/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * procwatch: wait for any processes to exit (and be reaped), printing one
 * line per event. A superset of util-linux waitpid(1) — same options, same
 * exit statuses, PID:INODE — with pidwait(1)'s selection by name and
 * timeout(1)'s way of running a command.
 */

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib-unix.h>
#include <gio-procwatch/procwatch.h>

#include "procwatch-output.h"
#include "procwatch-select.h"

/* The exit statuses of waitpid(1). */
enum
{
  TOOL_EXIT_OK = 0,
  TOOL_EXIT_FAILURE = 1,
  TOOL_EXIT_UNSUPPORTED = 2,
  TOOL_EXIT_TIMEOUT = 3,
};

/* File descriptors kept free for everything but the watched processes. */
#define FD_MARGIN 64

typedef struct
{
  GMainLoop *loop;
  ProcwatchProcessMonitor *monitor;
  GHashTable *targets;   /* ProcwatchProcess → ToolTarget */

  gboolean json;
  gboolean quiet;
  gboolean verbose;
  gboolean wait_reaped;
  gboolean allow_exited;

  guint needed;
  guint finished;
  gboolean done;
  gboolean failed;
  int exit_code;

  GPid command_pid;   /* 0 unless running a COMMAND */
} Tool;

typedef enum
{
  WATCH_OK,
  WATCH_GONE,          /* no longer exists: fine with -e */
  WATCH_FAILED,
  WATCH_UNSUPPORTED,   /* the kernel lacks what is needed */
} WatchResult;

static const char usage_line[] =
  "Usage: procwatch [OPTION…] PID[:INODE]…\n"
  "       procwatch [OPTION…] -n PATTERN…\n"
  "       procwatch [OPTION…] -- COMMAND [ARG…]\n";

static void
target_free (ToolTarget *target)
{
  g_free (target->name);
  g_free (target);
}

static void G_GNUC_PRINTF (1, 2)
warn (const char *format,
      ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  fprintf (stderr, "procwatch: %s\n", message);
}

static int
usage_error (const char *message)
{
  fprintf (stderr, "procwatch: %s\n%sTry 'procwatch --help' for more information.\n",
           message, usage_line);
  return TOOL_EXIT_FAILURE;
}

static int
status_to_exit_code (int wait_status)
{
  if (WIFEXITED (wait_status))
    return WEXITSTATUS (wait_status);
  if (WIFSIGNALED (wait_status))
    return 128 + WTERMSIG (wait_status);
  return TOOL_EXIT_FAILURE;
}

static void
finish (Tool *tool)
{
  tool->done = TRUE;
  g_main_loop_quit (tool->loop);
}

static void
on_event (Tool             *tool,
          ProcwatchProcess *process,
          const char       *event,
          gboolean          final)
{
  ToolTarget *target = g_hash_table_lookup (tool->targets, process);

  /* Events after the last one awaited (-c, or several in one batch) and
   * reaps nobody asked for are not printed. */
  if (tool->done || target == NULL || (!tool->wait_reaped && !final))
    return;

  if (!tool->quiet)
    tool_print_event (stdout, tool->json, event, target, process);

  if (final && ++tool->finished >= tool->needed)
    finish (tool);
}

static void
on_exited (ProcwatchProcessMonitor *monitor,
           ProcwatchProcess        *process,
           Tool                    *tool)
{
  on_event (tool, process, "exited", !tool->wait_reaped);
}

static void
on_reaped (ProcwatchProcessMonitor *monitor,
           ProcwatchProcess        *process,
           Tool                    *tool)
{
  on_event (tool, process, "reaped", tool->wait_reaped);
}

static gboolean
on_timeout (gpointer user_data)
{
  Tool *tool = user_data;

  if (tool->verbose)
    warn ("timeout expired");

  /* Like timeout(1), a command that outlives the time is asked to stop;
   * procwatch does not wait for it. */
  if (tool->command_pid > 0)
    kill (tool->command_pid, SIGTERM);

  tool->exit_code = TOOL_EXIT_TIMEOUT;
  finish (tool);
  return G_SOURCE_REMOVE;
}

static WatchResult
classify_error (const GError *error)
{
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    return WATCH_GONE;
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED))
    return WATCH_UNSUPPORTED;
  return WATCH_FAILED;
}

static void
report_watching (Tool             *tool,
                 const ToolTarget *target)
{
  g_autoptr(GString) line = g_string_new ("watching ");

  if (!tool->verbose)
    return;

  g_string_append_printf (line, "%d", (int) target->pid);
  if (target->inode != 0)
    g_string_append_printf (line, ":%" G_GUINT64_FORMAT, target->inode);
  g_string_append_c (line, ' ');
  if (target->name != NULL)
    tool_append_escaped (line, target->name);
  else
    g_string_append_c (line, '?');

  warn ("%s", line->str);
}

/* Remembers @target for @process, unless it is watched already: a process
 * named twice is watched, and counted, once. Takes @target's name. */
static void
add_target (Tool             *tool,
            ProcwatchProcess *process,
            ToolTarget       *target)
{
  if (g_hash_table_contains (tool->targets, process))
    {
      g_clear_pointer (&target->name, g_free);
      return;
    }

  report_watching (tool, target);
  g_hash_table_insert (tool->targets, g_object_ref (process), g_memdup2 (target, sizeof *target));
}

/* Watches by number, leaving it to the library to find a way: for kernels or
 * sandboxes without pidfd_open, and for its precise errors. */
static WatchResult
watch_by_pid (Tool         *tool,
              ToolTarget   *target,
              GError      **error)
{
  g_autoptr(ProcwatchProcess) process = NULL;

  process = procwatch_process_monitor_watch_pid (tool->monitor, target->pid, error);
  if (process == NULL)
    {
      g_clear_pointer (&target->name, g_free);
      return classify_error (*error);
    }

  if (target->name == NULL)
    target->name = tool_read_comm (target->pid);
  add_target (tool, process, target);
  return WATCH_OK;
}

/* Why pidfd_open() failed for @pid, as the error and result of watching it.
 * With no PID:INODE to check, a process that may still be watched by number
 * (no pidfds here, or a thread) returns WATCH_OK with no error set. */
static WatchResult
pidfd_open_error (GPid      pid,
                  guint64   want_inode,
                  int       saved_errno,
                  GError  **error)
{
  if (saved_errno == ESRCH)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   "process %d: no such process", (int) pid);
      return WATCH_GONE;
    }

  if (want_inode != 0 && (saved_errno == ENOSYS || saved_errno == EPERM))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   "process %d: checking a PID:INODE needs pidfds (pidfd_open: %s)",
                   (int) pid, g_strerror (saved_errno));
      return WATCH_UNSUPPORTED;
    }

  if (saved_errno == EMFILE || saved_errno == ENFILE || saved_errno == ENOMEM)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                   "process %d: %s", (int) pid, g_strerror (saved_errno));
      return WATCH_FAILED;
    }

  /* No pidfds here, or a thread: the library knows better. */
  if (want_inode == 0)
    return WATCH_OK;

  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
               "process %d: %s", (int) pid, g_strerror (saved_errno));
  return WATCH_FAILED;
}

/* Reads the pidfs inode of @pidfd into @target and, for a PID:INODE,
 * checks that the pid still belongs to the process it names. */
static WatchResult
check_inode (int          pidfd,
             guint64      want_inode,
             ToolTarget  *target,
             GError     **error)
{
  gboolean has_inode = tool_pidfd_inode (pidfd, &target->inode);

  if (want_inode != 0 && !has_inode)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   "process %d: checking a PID:INODE needs pidfs (Linux 6.9 or newer)",
                   (int) target->pid);
      return WATCH_UNSUPPORTED;
    }

  if (want_inode != 0 && target->inode != want_inode)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   "process %d:%" G_GUINT64_FORMAT " is gone: pid %d now belongs to another "
                   "process (%d:%" G_GUINT64_FORMAT ")",
                   (int) target->pid, want_inode, (int) target->pid, (int) target->pid,
                   target->inode);
      return WATCH_GONE;
    }

  return WATCH_OK;
}

/* Hands @pidfd to the monitor. A backend without pidfds watches by number
 * instead; the process is then checked to be the one the pidfd pins:
 * unreaped now, it owned the pid all along. */
static ProcwatchProcess *
watch_pidfd_or_pid (Tool     *tool,
                    int       pidfd,
                    GPid      pid,
                    GError  **error)
{
  ProcwatchProcess *process;

  process = procwatch_process_monitor_watch_pidfd (tool->monitor, pidfd, error);
  if (process != NULL || !g_error_matches (*error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED))
    return process;

  g_clear_error (error);
  process = procwatch_process_monitor_watch_pid (tool->monitor, pid, error);
  if (process != NULL && !g_hash_table_contains (tool->targets, process) &&
      tool_pidfd_is_reaped (pidfd))
    {
      procwatch_process_monitor_unwatch (tool->monitor, pid);
      g_clear_object (&process);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   "process %d: no such process", (int) pid);
    }

  return process;
}

/* Opens the process's pidfd ourselves: the pidfs inode can then be checked
 * against PID:INODE before the library sees the process, with no window in
 * which the pid could be reused, and printed for --verbose. @name, if not
 * NULL, is the process's name, known without reading /proc. */
static WatchResult
watch_target (Tool        *tool,
              GPid         pid,
              guint64      want_inode,
              const char  *name,
              GError     **error)
{
  g_autoptr(ProcwatchProcess) process = NULL;
  ToolTarget target = { pid, 0, NULL };
  WatchResult result;
  int fd;

  fd = tool_pidfd_open (pid);
  if (fd < 0)
    {
      result = pidfd_open_error (pid, want_inode, errno, error);
      if (result == WATCH_OK)
        {
          target.name = g_strdup (name);
          return watch_by_pid (tool, &target, error);
        }
      return result;
    }

  result = check_inode (fd, want_inode, &target, error);
  if (result != WATCH_OK)
    {
      close (fd);
      return result;
    }

  /* The name is read by number; it is the process's own only while the
   * pidfd shows the pid still taken by it. */
  if (name != NULL)
    target.name = g_strdup (name);
  else if ((target.name = tool_read_comm (pid)) != NULL && tool_pidfd_is_reaped (fd))
    g_clear_pointer (&target.name, g_free);

  process = watch_pidfd_or_pid (tool, fd, pid, error);
  close (fd);

  if (process == NULL)
    {
      g_free (target.name);
      return classify_error (*error);
    }

  add_target (tool, process, &target);
  return WATCH_OK;
}

/* Each watched process holds one file descriptor in the monitor. */
static void
ensure_fd_limit (guint n_processes,
                 gboolean verbose)
{
  struct rlimit limit;

  if (getrlimit (RLIMIT_NOFILE, &limit) != 0)
    return;

  if (limit.rlim_cur == RLIM_INFINITY || (rlim_t) n_processes + FD_MARGIN <= limit.rlim_cur ||
      limit.rlim_cur == limit.rlim_max)
    return;

  if (verbose)
    warn ("raising the open file limit from %llu to %llu",
          (unsigned long long) limit.rlim_cur, (unsigned long long) limit.rlim_max);

  limit.rlim_cur = limit.rlim_max;
  if (setrlimit (RLIMIT_NOFILE, &limit) != 0)
    warn ("cannot raise the open file limit: %s", g_strerror (errno));
}

/* Where "--" ends the options: the argument after it starts the COMMAND.
 * An option's own argument may be "--" (-n --), so those are skipped. */
static int
find_command_separator (int    argc,
                        char **argv)
{
  static const char *const long_with_argument[] = { "--timeout", "--count", "--name", NULL };
  static const char short_with_argument[] = "tcn";
  int i;

  for (i = 1; i < argc; i++)
    {
      const char *arg = argv[i];

      if (strcmp (arg, "--") == 0)
        return i;

      if (g_str_has_prefix (arg, "--"))
        {
          if (g_strv_contains (long_with_argument, arg))
            i++;
        }
      else if (arg[0] == '-' && arg[1] != '\0')
        {
          const char *c;

          /* A cluster like -vt: the first option taking an argument takes
           * the rest of the word, or the next word. */
          for (c = arg + 1; *c != '\0'; c++)
            {
              if (strchr (short_with_argument, *c) != NULL)
                {
                  if (c[1] == '\0')
                    i++;
                  break;
                }
            }
        }
    }

  return -1;
}

static gboolean
parse_timeout (const char  *text,
               guint       *milliseconds,
               GError     **error)
{
  char *end = NULL;
  double seconds = g_ascii_strtod (text, &end);

  if (end == text || *end != '\0' || !isfinite (seconds) || seconds < 0)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "invalid timeout '%s': expected a number of seconds", text);
      return FALSE;
    }

  /* Rounded up, so that a small timeout is never none; 0 means none. */
  *milliseconds = (guint) MIN (ceil (seconds * 1000.0), (double) G_MAXUINT);
  return TRUE;
}

/* The command is our child and nobody else reaps it: its status is known
 * at "exited", and we reap it then, which the monitor reports as "reaped". */
static void
on_command_exited (ProcwatchProcessMonitor *monitor,
                   ProcwatchProcess        *process,
                   Tool                    *tool)
{
  GPid pid = procwatch_process_get_pid (process);
  int wait_status = 0;
  pid_t ret;

  if (pid != tool->command_pid)
    return;

  do
    ret = waitpid (pid, &wait_status, 0);
  while (ret < 0 && errno == EINTR);

  if (ret == pid)
    tool->exit_code = status_to_exit_code (wait_status);
  else if (procwatch_process_has_status (process))
    tool->exit_code = status_to_exit_code (procwatch_process_get_status (process));
  else
    tool->exit_code = TOOL_EXIT_FAILURE;
}

/* A supervisor stopping procwatch means to stop the command: passed on, as
 * timeout(1) does; the command's end then ends procwatch. SIGINT from a
 * terminal reaches the whole process group already. */
static void
forward_signal (Tool *tool,
                int   sig)
{
  if (tool->command_pid > 0)
    kill (tool->command_pid, sig);
}

static gboolean
on_sigterm (gpointer user_data)
{
  forward_signal (user_data, SIGTERM);
  return G_SOURCE_CONTINUE;
}

static gboolean
on_sighup (gpointer user_data)
{
  forward_signal (user_data, SIGHUP);
  return G_SOURCE_CONTINUE;
}

/* The name the kernel gives the command: the base name of the file it
 * runs, cut to 15 bytes (TASK_COMM_LEN). Not read from /proc: g_spawn
 * returns as soon as the child has left our memory, which exec does before
 * it renames the child, so /proc may still say "procwatch". */
static char *
command_name (const char *program)
{
  g_autofree char *path = g_find_program_in_path (program);
  g_autofree char *base = g_path_get_basename (path != NULL ? path : program);

  return g_strndup (base, 15);
}

static int
run_command (Tool   *tool,
             char  **command_argv)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *name = NULL;
  GPid pid;

  /* Installed first: a signal that comes once the command runs is passed on. */
  g_unix_signal_add (SIGTERM, on_sigterm, tool);
  g_unix_signal_add (SIGHUP, on_sighup, tool);

  /* Not GSubprocess: it reaps from GLib's worker thread, racing the monitor
   * for the status and leaving "exited" without one. */
  if (!g_spawn_async (NULL, command_argv, NULL,
                      G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_CHILD_INHERITS_STDIN,
                      NULL, NULL, &pid, &error))
    {
      warn ("cannot run '%s': %s", command_argv[0], error->message);
      return g_error_matches (error, G_SPAWN_ERROR, G_SPAWN_ERROR_NOENT) ? 127 : 126;
    }

  tool->command_pid = pid;
  g_signal_connect_after (tool->monitor, "exited", G_CALLBACK (on_command_exited), tool);

  name = command_name (command_argv[0]);
  switch (watch_target (tool, pid, 0, name, &error))
    {
    case WATCH_OK:
      break;
    default:
      warn ("%s", error->message);
      kill (pid, SIGTERM);
      return g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED) ? TOOL_EXIT_UNSUPPORTED
                                                                           : TOOL_EXIT_FAILURE;
    }

  tool->needed = 1;
  g_main_loop_run (tool->loop);

  return tool->exit_code;
}

/* The PID and PID:INODE arguments, appended to @pids and @inodes. Returns
 * -1, or the exit status for a bad one. */
static int
collect_pid_args (char   **pid_args,
                  GArray  *pids,
                  GArray  *inodes)
{
  guint i;

  for (i = 0; pid_args != NULL && pid_args[i] != NULL; i++)
    {
      g_autofree char *message = NULL;
      guint64 inode;
      GPid pid;

      if (!tool_parse_pid_arg (pid_args[i], &pid, &inode))
        {
          message = g_strdup_printf ("'%s' is not a process id (PID or PID:INODE)", pid_args[i]);
          return usage_error (message);
        }

      g_array_append_val (pids, pid);
      g_array_append_val (inodes, inode);
    }

  return -1;
}

/* The processes whose names match @patterns, appended to @pids with no
 * inode to check; *@n_named says how many. Returns -1, or the exit status
 * for a bad pattern or, without -e, a pattern that matches nothing. */
static int
collect_named (Tool                *tool,
               const char * const  *patterns,
               ToolMatchFlags       match_flags,
               GArray              *pids,
               GArray              *inodes,
               guint               *n_named)
{
  guint n_patterns = patterns != NULL ? g_strv_length ((char **) patterns) : 0;
  g_autofree gboolean *matched = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) found = NULL;
  const guint64 no_inode = 0;
  guint i;

  *n_named = 0;
  if (n_patterns == 0)
    return -1;

  matched = g_new0 (gboolean, n_patterns);
  found = tool_find_by_name (patterns, match_flags, matched, &error);
  if (found == NULL)
    {
      if (g_error_matches (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE))
        return usage_error (error->message);
      warn ("%s", error->message);
      return TOOL_EXIT_FAILURE;
    }

  for (i = 0; i < n_patterns; i++)
    {
      if (matched[i])
        continue;
      if (!tool->allow_exited)
        {
          warn ("no process matches '%s'", patterns[i]);
          return TOOL_EXIT_FAILURE;
        }
      if (tool->verbose)
        warn ("no process matches '%s', skipping", patterns[i]);
    }

  for (i = 0; i < found->len; i++)
    {
      g_array_append_val (pids, g_array_index (found, GPid, i));
      g_array_append_val (inodes, no_inode);
    }
  *n_named = found->len;
  return -1;
}

/* Watches every process in @pids; the last @n_named were found by name.
 * Returns -1 to go on (*@unsupported set if -e let a missing kernel feature
 * pass), or the exit status to stop with. */
static int
watch_all (Tool     *tool,
           GArray   *pids,
           GArray   *inodes,
           guint     n_named,
           gboolean *unsupported)
{
  guint i;

  for (i = 0; i < pids->len; i++)
    {
      g_autoptr(GError) error = NULL;
      GPid pid = g_array_index (pids, GPid, i);
      /* A process found by name that ended since is what -e allows. */
      gboolean named = i >= pids->len - n_named;

      switch (watch_target (tool, pid, g_array_index (inodes, guint64, i), NULL, &error))
        {
        case WATCH_OK:
          break;

        case WATCH_GONE:
          if (tool->allow_exited || named)
            {
              if (tool->verbose)
                warn ("%s, skipping", error->message);
              break;
            }
          warn ("%s", error->message);
          return TOOL_EXIT_FAILURE;

        case WATCH_UNSUPPORTED:
          warn ("%s", error->message);
          *unsupported = TRUE;
          if (!tool->allow_exited)
            return TOOL_EXIT_UNSUPPORTED;
          break;

        case WATCH_FAILED:
        default:
          warn ("%s", error->message);
          tool->failed = TRUE;
          if (!tool->allow_exited)
            return TOOL_EXIT_FAILURE;
          break;
        }
    }

  return -1;
}

static int
watch_processes (Tool                *tool,
                 char               **pid_args,
                 const char * const  *patterns,
                 ToolMatchFlags       match_flags,
                 guint                count)
{
  g_autoptr(GArray) pids = g_array_new (FALSE, FALSE, sizeof (GPid));
  g_autoptr(GArray) inodes = g_array_new (FALSE, FALSE, sizeof (guint64));
  gboolean unsupported = FALSE;
  guint n_named;
  int exit_code;

  exit_code = collect_pid_args (pid_args, pids, inodes);
  if (exit_code >= 0)
    return exit_code;

  exit_code = collect_named (tool, patterns, match_flags, pids, inodes, &n_named);
  if (exit_code >= 0)
    return exit_code;

  if (count > pids->len)
    {
      g_autofree char *message = g_strdup_printf ("cannot wait for %u of %u processes",
                                                  count, pids->len);
      return usage_error (message);
    }

  ensure_fd_limit (pids->len, tool->verbose);

  exit_code = watch_all (tool, pids, inodes, n_named, &unsupported);
  if (exit_code >= 0)
    return exit_code;

  tool->needed = g_hash_table_size (tool->targets);
  if (count > 0)
    tool->needed = MIN (tool->needed, count);

  if (tool->needed > 0)
    g_main_loop_run (tool->loop);

  if (tool->exit_code != TOOL_EXIT_OK)
    return tool->exit_code;
  if (unsupported)
    return TOOL_EXIT_UNSUPPORTED;
  if (tool->failed)
    return TOOL_EXIT_FAILURE;
  return TOOL_EXIT_OK;
}

static const char description[] =
  "Waits until the given processes have exited and prints one line per event:\n"
  "\n"
  "  PID EVENT NAME [STATUS]         e.g. \"4242 exited sleep exit 0\"\n"
  "\n"
  "EVENT is \"exited\" (the process terminated; it is a zombie) or, with --reaped,\n"
  "also \"reaped\" (its parent collected it; the pid is free). NAME is the process\n"
  "name when watching started, with spaces and unprintable bytes written as \\xHH.\n"
  "STATUS (\"exit 3\", \"killed by SIGKILL (core dumped)\") is printed where the\n"
  "kernel tells it: for a child at once, for others once reaped (Linux 6.15+).\n"
  "\n"
  "PATTERN is a POSIX extended regular expression matched against the process\n"
  "name (comm), as pgrep(1) and pidwait(1) do; --name may be given many times.\n"
  "\n"
  "PID:INODE, as printed by --verbose or lsfd, pins a process by its pidfs inode\n"
  "(Linux 6.9+): if the pid now belongs to another process, it is refused.\n"
  "\n"
  "With -- COMMAND, runs COMMAND and watches it; COMMAND's exit status becomes\n"
  "procwatch's (128+N if killed by signal N). SIGTERM and SIGHUP sent to\n"
  "procwatch are passed on to it. On timeout COMMAND gets SIGTERM and procwatch\n"
  "exits 3 without waiting for it.\n"
  "\n"
  "Exit status:\n"
  "  0  every watched process exited (or N of them, with --count)\n"
  "  1  failure: a process cannot be watched or does not exist, or bad usage\n"
  "  2  the kernel lacks what is needed (pidfds; pidfs for PID:INODE)\n"
  "  3  the timeout expired\n"
  "  With -- COMMAND: COMMAND's status; 126 if it cannot be run, 127 if not found.\n"
  "\n"
  "See procwatch(1) for the JSON keys and more.";

/* What the command line asks for, beyond the settings kept in Tool. */
typedef struct
{
  char **pid_args;
  char **patterns;
  char *timeout_text;
  char **command_argv;   /* within argv: not freed */
  gboolean full;
  gboolean exact;
  gboolean ignore_case;
  gboolean version;
  int count;
  guint timeout_ms;
  ToolMatchFlags match_flags;
} ToolOptions;

static void
tool_options_clear (ToolOptions *options)
{
  g_clear_pointer (&options->pid_args, g_strfreev);
  g_clear_pointer (&options->patterns, g_strfreev);
  g_clear_pointer (&options->timeout_text, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (ToolOptions, tool_options_clear)

/* Parses the options before "--" into @tool and @options; what follows
 * "--" is the COMMAND. Returns -1 to go on, or the exit status. */
static int
parse_command_line (int          argc,
                    char        *argv[],
                    Tool        *tool,
                    ToolOptions *options)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  int separator;
  int parse_argc;
  const GOptionEntry entries[] = {
    { "timeout", 't', 0, G_OPTION_ARG_STRING, &options->timeout_text,
      "Give up after SECONDS (fractional) and exit 3", "SECONDS" },
    { "count", 'c', 0, G_OPTION_ARG_INT, &options->count,
      "Return once N of the processes have exited", "N" },
    { "exited", 'e', 0, G_OPTION_ARG_NONE, &tool->allow_exited,
      "Do not fail on a process that is already gone", NULL },
    { "reaped", 0, 0, G_OPTION_ARG_NONE, &tool->wait_reaped,
      "Also wait until each process has been reaped", NULL },
    { "name", 'n', 0, G_OPTION_ARG_STRING_ARRAY, &options->patterns,
      "Also watch processes whose name matches PATTERN", "PATTERN" },
    { "full", 'f', 0, G_OPTION_ARG_NONE, &options->full,
      "Match PATTERN against the full command line", NULL },
    { "exact", 'x', 0, G_OPTION_ARG_NONE, &options->exact,
      "Match PATTERN against the whole name only", NULL },
    { "ignore-case", 'i', 0, G_OPTION_ARG_NONE, &options->ignore_case,
      "Match PATTERN ignoring case", NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &tool->json,
      "Print events as JSON Lines", NULL },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &tool->quiet,
      "Print no events, as waitpid(1)", NULL },
    { "verbose", 'v', 0, G_OPTION_ARG_NONE, &tool->verbose,
      "Report each process watched (PID:INODE) on stderr", NULL },
    { "version", 'V', 0, G_OPTION_ARG_NONE, &options->version,
      "Print the version and exit", NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &options->pid_args, NULL, NULL },
    { NULL }
  };

  separator = find_command_separator (argc, argv);
  parse_argc = separator >= 0 ? separator : argc;
  if (separator >= 0)
    {
      options->command_argv = argv + separator + 1;
      argv[separator] = NULL;
    }

  context = g_option_context_new ("PID[:INODE]… | -- COMMAND [ARG…]");
  g_option_context_set_summary (context,
                                "Wait for any processes to exit, like waitpid(1) and pidwait(1).");
  g_option_context_set_description (context, description);
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &parse_argc, &argv, &error))
    return usage_error (error->message);

  return -1;
}

/* Checks the options against each other and converts them. Returns -1 to
 * go on, or the exit status. */
static int
check_options (Tool        *tool,
               ToolOptions *options)
{
  g_autoptr(GError) error = NULL;

  if (options->timeout_text != NULL &&
      !parse_timeout (options->timeout_text, &options->timeout_ms, &error))
    return usage_error (error->message);

  if (options->count != -1 && options->count < 1)
    return usage_error ("invalid count: expected a positive number");

  if (tool->quiet && tool->json)
    return usage_error ("--quiet and --json cannot be combined");

  if (options->command_argv != NULL)
    {
      if (options->command_argv[0] == NULL)
        return usage_error ("no COMMAND after '--'");
      if (options->pid_args != NULL || options->patterns != NULL)
        return usage_error ("PIDs and --name cannot be combined with a COMMAND");
    }
  else if (options->pid_args == NULL && options->patterns == NULL)
    return usage_error ("no process given");

  if (options->full)
    options->match_flags |= TOOL_MATCH_FULL;
  if (options->exact)
    options->match_flags |= TOOL_MATCH_EXACT;
  if (options->ignore_case)
    options->match_flags |= TOOL_MATCH_IGNORE_CASE;

  return -1;
}

/* With the monitor set up, runs the COMMAND or watches the processes. */
static int
run (Tool        *tool,
     ToolOptions *options)
{
  ProcwatchProcessMonitor *monitor = tool->monitor;
  int exit_code;

  if (tool->verbose)
    warn ("backend %s", procwatch_process_monitor_get_backend (monitor));

  if (g_strcmp0 (procwatch_process_monitor_get_backend (monitor), "none") == 0)
    {
      warn ("this system offers no way to watch processes (no pidfd_open, no /proc)");
      return TOOL_EXIT_UNSUPPORTED;
    }

  g_signal_connect (monitor, "exited", G_CALLBACK (on_exited), tool);
  g_signal_connect (monitor, "reaped", G_CALLBACK (on_reaped), tool);

  if (options->timeout_ms > 0)
    g_timeout_add (options->timeout_ms, on_timeout, tool);

  if (options->command_argv != NULL)
    exit_code = run_command (tool, options->command_argv);
  else
    exit_code = watch_processes (tool, options->pid_args,
                                 (const char * const *) options->patterns,
                                 options->match_flags,
                                 options->count > 0 ? (guint) options->count : 0);

  g_signal_handlers_disconnect_by_data (monitor, tool);
  return exit_code;
}

int
main (int   argc,
      char *argv[])
{
  g_auto(ToolOptions) options = { .count = -1 };
  g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
  g_autoptr(GMainLoop) loop = NULL;
  g_autoptr(GHashTable) targets = NULL;
  Tool tool = { 0 };
  int exit_code;

  setlocale (LC_ALL, "");

  exit_code = parse_command_line (argc, argv, &tool, &options);
  if (exit_code >= 0)
    return exit_code;

  if (options.version)
    {
      printf ("procwatch (gio-procwatch) %s\n", PROCWATCH_VERSION_S);
      return TOOL_EXIT_OK;
    }

  exit_code = check_options (&tool, &options);
  if (exit_code >= 0)
    return exit_code;

  monitor = procwatch_process_monitor_new ();
  loop = g_main_loop_new (NULL, FALSE);
  targets = g_hash_table_new_full (NULL, NULL, g_object_unref, (GDestroyNotify) target_free);
  tool.monitor = monitor;
  tool.loop = loop;
  tool.targets = targets;

  return run (&tool, &options);
}
