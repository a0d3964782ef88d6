/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * procwatch: wait for any processes to exit (and be reaped), printing one
 * line per event. A superset of util-linux waitpid(1) — same options, same
 * messages and exit statuses, PID:INODE; run as "waitpid", it is that tool —
 * with pidwait(1)'s selection by name, timeout(1)'s way of running a
 * command, and timeout(1)'s signals for stopping processes and waiting for
 * them (--send, -s, -k) without ever signalling a reused pid.
 *
 * This file finds the processes to watch and reports their events; the
 * cgroups and apps are procwatch-cgroups.c's, the D-Bus names
 * procwatch-bus.c's, the timeout, the signals and the COMMAND
 * procwatch-timeout.c's, and what all do to a run (watching a process,
 * dropping it, finishing) is procwatch-run.c's.
 */

#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include <gio/gio.h>
#include <glib/gi18n.h>
#include <gio-procwatch/procwatch.h>

#include "procwatch-bus.h"
#include "procwatch-cgroups.h"
#include "procwatch-options.h"
#include "procwatch-output.h"
#include "procwatch-select.h"
#include "procwatch-timeout.h"
#include "procwatch-tool.h"

/* File descriptors kept free for everything but the watched processes. */
#define FD_MARGIN 64

static void
target_free (ToolTarget *target)
{
  g_free (target->name);
  g_free (target->file_handle);
  g_free (target);
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

  if (!final)
    return;

  /* After the timeout, only the processes signalled then are awaited. */
  if (tool->timed_out)
    {
      if (target->stopping)
        {
          target->stopping = FALSE;
          if (--tool->n_stopping == 0)
            tool_finish (tool);
        }
      return;
    }

  /* waitpid holds one pidfd per argument: a process named twice finishes
   * twice, and is counted twice. procwatch counts processes. */
  for (guint i = 0; i < (tool->waitpid_mode ? target->n_args : 1); i++)
    {
      if (tool->finished >= tool->needed)
        break;
      tool_verbose_line (tool, _("PID %d finished"), (int) target->pid);
      tool->finished++;
    }

  if (tool->finished >= tool->needed)
    tool_finish (tool);
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



/* Each watched process holds one file descriptor in the monitor. */
static void
ensure_fd_limit (Tool  *tool,
                 guint  n_processes)
{
  struct rlimit limit;

  if (getrlimit (RLIMIT_NOFILE, &limit) != 0)
    return;

  if (limit.rlim_cur == RLIM_INFINITY || (rlim_t) n_processes + FD_MARGIN <= limit.rlim_cur ||
      limit.rlim_cur == limit.rlim_max)
    return;

  tool_debug (tool, "raising the open file limit from %llu to %llu",
         (unsigned long long) limit.rlim_cur, (unsigned long long) limit.rlim_max);

  limit.rlim_cur = limit.rlim_max;
  if (setrlimit (RLIMIT_NOFILE, &limit) != 0)
    tool_warn (_("cannot raise the open file limit: %s"), g_strerror (errno));
}

/* The PID, PID:INODE and @BASE64 arguments, appended to @pids and @inodes;
 * @tokens gets each @BASE64 argument at its index (NULL for the others):
 * a token is handed to the library as it is, which opens it on any
 * backend, never turned into a PID:INODE, which only pidfds can check.
 * Returns -1, or the exit status for a bad one. */
static int
collect_pid_args (Tool      *tool,
                  GPtrArray *pid_args,
                  GArray    *pids,
                  GArray    *inodes,
                  GPtrArray *tokens)
{
  guint i;

  for (i = 0; i < pid_args->len; i++)
    {
      const char *text = g_ptr_array_index (pid_args, i);
      const char *token = NULL;
      guint64 inode = 0;
      GPid pid = 0;

      if (text[0] == '@')
        token = text;
      else if (!tool_parse_pid_arg (text, &pid, &inode))
        {
          tool_warn (_("failed to parse PID argument '%s': %s"), text, g_strerror (errno));
          return TOOL_EXIT_FAILURE;
        }

      g_array_append_val (pids, pid);
      g_array_append_val (inodes, inode);
      g_ptr_array_add (tokens, (gpointer) token);
    }

  return -1;
}

/* pgrep(1)'s test for a name pattern that cannot match: longer than the 15
 * bytes of a comm, and with none of the regex characters that most often
 * make a long pattern shorter. */
static gboolean
is_long_match (const char *pattern)
{
  return strlen (pattern) > 15 && strpbrk (pattern, "|[") == NULL;
}

/* A pattern that matched nothing, as pidwait(1) reports it: not at all
 * with -q (the exit status says it), else pgrep's warning for a pattern no
 * name can match, after procwatch's own line unless -e skips it. */
static void
report_no_match (Tool           *tool,
                 const char     *pattern,
                 ToolMatchFlags  match_flags)
{
  if (tool->allow_exited)
    tool_debug (tool, "no process matches '%s', skipping", pattern);

  if (tool->quiet)
    return;

  if (!tool->allow_exited)
    tool_warn (_("no process matches '%s'"), pattern);

  if (!(match_flags & TOOL_MATCH_FULL) && is_long_match (pattern))
    tool_warn (_("pattern that searches for process name longer than 15 characters will result "
            "in zero matches\nTry `%s -f' option to match against the complete command line."),
          tool_program_name);
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
  guint n_patterns = g_strv_length ((char **) patterns);
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
        return tool_usage_error (error->message);
      tool_warn ("%s", error->message);
      return TOOL_EXIT_FAILURE;
    }

  for (i = 0; i < n_patterns; i++)
    {
      if (matched[i])
        continue;
      report_no_match (tool, patterns[i], match_flags);
      if (!tool->allow_exited)
        return TOOL_EXIT_FAILURE;
    }

  for (i = 0; i < found->len; i++)
    {
      g_array_append_val (pids, g_array_index (found, GPid, i));
      g_array_append_val (inodes, no_inode);
    }
  *n_named = found->len;
  return -1;
}

/* "could not open", naming the argument: @token if it was an @BASE64,
 * else @pid. */
static void
warn_cannot_open (GPid          pid,
                  const char   *token,
                  const GError *error)
{
  if (token != NULL)
    tool_warn (_("could not open process '%s': %s"), token, error->message);
  else
    tool_warn (_("could not open PID %d: %s"), (int) pid, error->message);
}

/* How a process that cannot be watched ends the run: waitpid(1) stops at
 * the first; procwatch -e reports it and watches the others. */
static int
watch_failed (Tool         *tool,
              GPid          pid,
              const char   *token,
              const GError *error,
              int           exit_code)
{
  warn_cannot_open (pid, token, error);
  if (!tool->allow_exited || tool->waitpid_mode)
    return exit_code;
  return -1;
}

/* Watches every process in @pids, or the one that @tokens names at the
 * same index; the last @n_named were found by name. Returns -1 to go on
 * (*@unsupported set if -e let a missing kernel feature pass), or the exit
 * status to stop with. */
static int
watch_all (Tool      *tool,
           GArray    *pids,
           GArray    *inodes,
           GPtrArray *tokens,
           guint      n_named,
           gboolean  *unsupported)
{
  guint i;

  for (i = 0; i < pids->len; i++)
    {
      g_autoptr(GError) error = NULL;
      GPid pid = g_array_index (pids, GPid, i);
      const char *token = i < tokens->len ? g_ptr_array_index (tokens, i) : NULL;
      /* A process found by name that ended since is what -e allows. */
      gboolean named = i >= pids->len - n_named;
      WatchResult result;
      int exit_code = -1;

      if (token != NULL)
        result = tool_watch_token (tool, token, &error);
      else
        result = tool_watch_target (tool, pid, g_array_index (inodes, guint64, i), NULL, &error);

      switch (result)
        {
        case WATCH_OK:
          break;

        case WATCH_GONE:
          /* A reaped process's token, as a gone PID: skipped, said with -v. */
          if (tool->allow_exited || named)
            {
              if (tool->verbose && token != NULL)
                tool_warn (_("process '%s' has exited, skipping"), token);
              else if (tool->verbose)
                tool_warn (_("PID %d has exited, skipping"), (int) pid);
              break;
            }
          warn_cannot_open (pid, token, error);
          return TOOL_EXIT_FAILURE;

        case WATCH_UNSUPPORTED:
          *unsupported = TRUE;
          exit_code = watch_failed (tool, pid, token, error, TOOL_EXIT_UNSUPPORTED);
          break;

        case WATCH_FAILED:
        default:
          tool->failed = TRUE;
          exit_code = watch_failed (tool, pid, token, error, TOOL_EXIT_FAILURE);
          break;
        }

      if (exit_code >= 0)
        return exit_code;
    }

  return -1;
}

/* waitpid(1)'s check, made before the PIDs are read. */
static int
check_count (guint64 count,
             guint   n_processes)
{
  if (count <= n_processes)
    return -1;

  /* %llu: xgettext cannot expand G_GUINT64_FORMAT inside a message. */
  tool_warn (_("can't wait for %llu of %u PIDs"), (unsigned long long) count, n_processes);
  return TOOL_EXIT_FAILURE;
}


static int
watch_processes (Tool        *tool,
                 ToolOptions *options)
{
  g_autoptr(GArray) pids = g_array_new (FALSE, FALSE, sizeof (GPid));
  g_autoptr(GArray) inodes = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr(GPtrArray) tokens = g_ptr_array_new ();
  const char * const *patterns = (const char * const *) options->patterns->pdata;
  gboolean unsupported = FALSE;
  guint n_named;
  int exit_code;

  guint n_others = options->cgroups->len + options->cgroup_of->len + options->dbus_names->len +
                   options->apps->len;

  /* Without names the count is known before the PIDs are read. */
  if (patterns[0] == NULL && (exit_code = check_count (options->count,
                                                       options->pid_args->len + n_others)) >= 0)
    return exit_code;

  exit_code = collect_pid_args (tool, options->pid_args, pids, inodes, tokens);
  if (exit_code >= 0)
    return exit_code;

  exit_code = collect_named (tool, patterns, options->match_flags, pids, inodes, &n_named);
  if (exit_code >= 0)
    return exit_code;

  if ((exit_code = check_count (options->count, pids->len + n_others)) >= 0)
    return exit_code;

  ensure_fd_limit (tool, pids->len + n_others);

  /* Nothing ends the wait before all is watched: events may come while
   * the bus is asked, and an empty cgroup is reported at once. */
  tool->needed = G_MAXUINT;

  if ((exit_code = tool_watch_bus_names (tool, options, &unsupported)) >= 0)
    return exit_code;

  /* The time ran out while the bus was asked: only those signalled at the
   * timeout are awaited, as the timeout set up. */
  if (!tool->timed_out)
    {
      exit_code = watch_all (tool, pids, inodes, tokens, n_named, &unsupported);
      if (exit_code >= 0)
        return exit_code;

      if ((exit_code = tool_watch_cgroups (tool, options, &unsupported)) >= 0)
        return exit_code;

      tool->needed = tool_count_needed (tool, options->count);
      if (tool->finished >= tool->needed)
        tool->done = TRUE;

      /* --send: each process is held before any is signalled, so none can
       * be mistaken for a process that took its pid since. */
      if (options->send_signal >= 0)
        tool_send_signal (tool, options->send_signal);
    }

  if (tool->needed > 0 && !tool->done)
    g_main_loop_run (tool->loop);

  if (tool->exit_code != TOOL_EXIT_OK)
    return tool->exit_code;
  if (unsupported)
    return TOOL_EXIT_UNSUPPORTED;
  if (tool->failed)
    return TOOL_EXIT_FAILURE;
  return TOOL_EXIT_OK;
}

/* With the monitor set up, runs the COMMAND or watches the processes. */
static int
run (Tool        *tool,
     ToolOptions *options)
{
  ProcwatchProcessMonitor *monitor = tool->monitor;
  int exit_code;

  tool_debug (tool, "backend %s", procwatch_process_monitor_get_backend (monitor));

  if (g_strcmp0 (procwatch_process_monitor_get_backend (monitor), "none") == 0)
    {
      tool_warn (_("this system offers no way to watch processes (no pidfd_open, no /proc)"));
      return TOOL_EXIT_UNSUPPORTED;
    }

  g_signal_connect (monitor, "exited", G_CALLBACK (on_exited), tool);
  g_signal_connect (monitor, "reaped", G_CALLBACK (on_reaped), tool);

  if (options->timeout_ms > 0)
    tool_start_timeout (tool, options->timeout_ms);

  if (options->command_argv != NULL)
    exit_code = tool_run_command (tool, options->command_argv);
  else
    exit_code = watch_processes (tool, options);

  g_cancellable_cancel (tool->cancellable);
  g_signal_handlers_disconnect_by_data (monitor, tool);
  return exit_code;
}

int
main (int   argc,
      char *argv[])
{
  g_auto(ToolOptions) options = { 0 };
  g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
  g_autoptr(GMainLoop) loop = NULL;
  g_autoptr(GHashTable) targets = NULL;
  g_autoptr(GPtrArray) order = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GPtrArray) cgroups = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GPtrArray) apps = g_ptr_array_new_with_free_func ((GDestroyNotify) tool_app_free);
  g_autoptr(GHashTable) stopping_cgroups = g_hash_table_new (NULL, NULL);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  Tool tool = { 0 };
  int exit_code;

  setlocale (LC_ALL, "");
  /* The library's domain, which holds the tool's messages too; UTF-8 as
   * the library's GError messages that the tool prints are. */
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  exit_code = tool_parse_options (argc, argv, &options);
  if (exit_code >= 0)
    return exit_code;

  monitor = procwatch_process_monitor_new ();
  loop = g_main_loop_new (NULL, FALSE);
  targets = g_hash_table_new_full (NULL, NULL, g_object_unref, (GDestroyNotify) target_free);
  tool.monitor = monitor;
  tool.loop = loop;
  tool.targets = targets;
  tool.waitpid_mode = options.waitpid_mode;
  tool.json = options.json;
  tool.quiet = options.quiet;
  tool.verbose = options.verbose;
  tool.debug = options.debug;
  tool.wait_reaped = options.wait_reaped;
  tool.allow_exited = options.allow_exited;
  tool.timeout_signal = options.timeout_signal;
  tool.kill_after_ms = options.kill_after_ms;
  tool.count = options.count;
  tool.order = order;
  tool.cgroups = cgroups;
  tool.cancellable = cancellable;
  tool.apps = apps;
  tool.signal_cgroups = options.signal_cgroups;
  tool.stopping_cgroups = stopping_cgroups;

  return run (&tool, &options);
}
