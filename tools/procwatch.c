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
    return classify_error (*error);

  target->name = tool_read_comm (target->pid);
  add_target (tool, process, target);
  return WATCH_OK;
}

/* Opens the process's pidfd ourselves: the pidfs inode can then be checked
 * against PID:INODE before the library sees the process, with no window in
 * which the pid could be reused, and printed for --verbose. */
static WatchResult
watch_target (Tool        *tool,
              GPid         pid,
              guint64      want_inode,
              GError     **error)
{
  g_autoptr(ProcwatchProcess) process = NULL;
  ToolTarget target = { pid, 0, NULL };
  int saved_errno;
  gboolean has_inode;
  int fd;

  fd = tool_pidfd_open (pid);
  if (fd < 0)
    {
      saved_errno = errno;

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
        return watch_by_pid (tool, &target, error);

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                   "process %d: %s", (int) pid, g_strerror (saved_errno));
      return WATCH_FAILED;
    }

  has_inode = tool_pidfd_inode (fd, &target.inode);

  if (want_inode != 0 && !has_inode)
    {
      close (fd);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   "process %d: checking a PID:INODE needs pidfs (Linux 6.9 or newer)", (int) pid);
      return WATCH_UNSUPPORTED;
    }

  if (want_inode != 0 && target.inode != want_inode)
    {
      close (fd);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   "process %d:%" G_GUINT64_FORMAT " is gone: pid %d now belongs to another "
                   "process (%d:%" G_GUINT64_FORMAT ")",
                   (int) pid, want_inode, (int) pid, (int) pid, target.inode);
      return WATCH_GONE;
    }

  /* The name is read by number; it is the process's own only while the
   * pidfd shows the pid still taken by it. */
  target.name = tool_read_comm (pid);
  if (target.name != NULL && tool_pidfd_is_reaped (fd))
    g_clear_pointer (&target.name, g_free);

  process = procwatch_process_monitor_watch_pidfd (tool->monitor, fd, error);
  if (process == NULL && g_error_matches (*error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED))
    {
      /* A backend without pidfds: watched by number, then checked to be the
       * process the pidfd pins. Unreaped now, it owned the pid all along. */
      g_clear_error (error);
      process = procwatch_process_monitor_watch_pid (tool->monitor, pid, error);
      if (process != NULL && !g_hash_table_contains (tool->targets, process) &&
          tool_pidfd_is_reaped (fd))
        {
          procwatch_process_monitor_unwatch (tool->monitor, pid);
          g_clear_object (&process);
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                       "process %d: no such process", (int) pid);
        }
    }
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

static int
run_command (Tool   *tool,
             char  **command_argv)
{
  g_autoptr(GError) error = NULL;
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

  switch (watch_target (tool, pid, 0, &error))
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
  guint n_patterns = patterns != NULL ? g_strv_length ((char **) patterns) : 0;
  guint n_named = 0;
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

  if (n_patterns > 0)
    {
      g_autofree gboolean *matched = g_new0 (gboolean, n_patterns);
      g_autoptr(GError) error = NULL;
      g_autoptr(GArray) found = tool_find_by_name (patterns, match_flags, matched, &error);
      const guint64 no_inode = 0;

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
      n_named = found->len;
    }

  if (count > pids->len)
    {
      g_autofree char *message = g_strdup_printf ("cannot wait for %u of %u processes",
                                                  count, pids->len);
      return usage_error (message);
    }

  ensure_fd_limit (pids->len, tool->verbose);

  for (i = 0; i < pids->len; i++)
    {
      g_autoptr(GError) error = NULL;
      GPid pid = g_array_index (pids, GPid, i);
      /* A process found by name that ended since is what -e allows. */
      gboolean named = i >= pids->len - n_named;

      switch (watch_target (tool, pid, g_array_index (inodes, guint64, i), &error))
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
          unsupported = TRUE;
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

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
  g_autoptr(GMainLoop) loop = NULL;
  g_autoptr(GHashTable) targets = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) pid_args = NULL;
  g_auto(GStrv) patterns = NULL;
  g_autofree char *timeout_text = NULL;
  char **command_argv = NULL;
  gboolean full = FALSE;
  gboolean exact = FALSE;
  gboolean ignore_case = FALSE;
  gboolean version = FALSE;
  ToolMatchFlags match_flags = 0;
  guint timeout_ms = 0;
  int count = -1;
  int separator;
  int parse_argc;
  Tool tool = { 0 };
  int exit_code;
  const GOptionEntry entries[] = {
    { "timeout", 't', 0, G_OPTION_ARG_STRING, &timeout_text,
      "Give up after SECONDS (fractional) and exit 3", "SECONDS" },
    { "count", 'c', 0, G_OPTION_ARG_INT, &count,
      "Return once N of the processes have exited", "N" },
    { "exited", 'e', 0, G_OPTION_ARG_NONE, &tool.allow_exited,
      "Do not fail on a process that is already gone", NULL },
    { "reaped", 0, 0, G_OPTION_ARG_NONE, &tool.wait_reaped,
      "Also wait until each process has been reaped", NULL },
    { "name", 'n', 0, G_OPTION_ARG_STRING_ARRAY, &patterns,
      "Also watch processes whose name matches PATTERN", "PATTERN" },
    { "full", 'f', 0, G_OPTION_ARG_NONE, &full,
      "Match PATTERN against the full command line", NULL },
    { "exact", 'x', 0, G_OPTION_ARG_NONE, &exact,
      "Match PATTERN against the whole name only", NULL },
    { "ignore-case", 'i', 0, G_OPTION_ARG_NONE, &ignore_case,
      "Match PATTERN ignoring case", NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &tool.json,
      "Print events as JSON Lines", NULL },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &tool.quiet,
      "Print no events, as waitpid(1)", NULL },
    { "verbose", 'v', 0, G_OPTION_ARG_NONE, &tool.verbose,
      "Report each process watched (PID:INODE) on stderr", NULL },
    { "version", 'V', 0, G_OPTION_ARG_NONE, &version,
      "Print the version and exit", NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &pid_args, NULL, NULL },
    { NULL }
  };

  setlocale (LC_ALL, "");

  separator = find_command_separator (argc, argv);
  parse_argc = separator >= 0 ? separator : argc;
  if (separator >= 0)
    {
      command_argv = argv + separator + 1;
      argv[separator] = NULL;
    }

  context = g_option_context_new ("PID[:INODE]… | -- COMMAND [ARG…]");
  g_option_context_set_summary (context,
                                "Wait for any processes to exit, like waitpid(1) and pidwait(1).");
  g_option_context_set_description (context, description);
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &parse_argc, &argv, &error))
    return usage_error (error->message);

  if (version)
    {
      printf ("procwatch (gio-procwatch) %s\n", PROCWATCH_VERSION_S);
      return TOOL_EXIT_OK;
    }

  if (timeout_text != NULL && !parse_timeout (timeout_text, &timeout_ms, &error))
    return usage_error (error->message);

  if (count != -1 && count < 1)
    return usage_error ("invalid count: expected a positive number");

  if (tool.quiet && tool.json)
    return usage_error ("--quiet and --json cannot be combined");

  if (command_argv != NULL)
    {
      if (command_argv[0] == NULL)
        return usage_error ("no COMMAND after '--'");
      if (pid_args != NULL || patterns != NULL)
        return usage_error ("PIDs and --name cannot be combined with a COMMAND");
    }
  else if (pid_args == NULL && patterns == NULL)
    return usage_error ("no process given");

  if (full)
    match_flags |= TOOL_MATCH_FULL;
  if (exact)
    match_flags |= TOOL_MATCH_EXACT;
  if (ignore_case)
    match_flags |= TOOL_MATCH_IGNORE_CASE;

  monitor = procwatch_process_monitor_new ();
  loop = g_main_loop_new (NULL, FALSE);
  targets = g_hash_table_new_full (NULL, NULL, g_object_unref, (GDestroyNotify) target_free);
  tool.monitor = monitor;
  tool.loop = loop;
  tool.targets = targets;

  if (tool.verbose)
    warn ("backend %s", procwatch_process_monitor_get_backend (monitor));

  if (g_strcmp0 (procwatch_process_monitor_get_backend (monitor), "none") == 0)
    {
      warn ("this system offers no way to watch processes (no pidfd_open, no /proc)");
      return TOOL_EXIT_UNSUPPORTED;
    }

  g_signal_connect (monitor, "exited", G_CALLBACK (on_exited), &tool);
  g_signal_connect (monitor, "reaped", G_CALLBACK (on_reaped), &tool);

  if (timeout_ms > 0)
    g_timeout_add (timeout_ms, on_timeout, &tool);

  if (command_argv != NULL)
    exit_code = run_command (&tool, command_argv);
  else
    exit_code = watch_processes (&tool, pid_args, (const char * const *) patterns,
                                 match_flags, count > 0 ? (guint) count : 0);

  g_signal_handlers_disconnect_by_data (monitor, &tool);
  return exit_code;
}
