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
 * timeout, the signals and the COMMAND are procwatch-timeout.c's, and what
 * both do to a run (watching a process, dropping it, finishing) is
 * procwatch-run.c's.
 */

#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include <gio/gio.h>
#include <glib/gi18n.h>
#include <gio-procwatch/procwatch.h>

#include "procwatch-options.h"
#include "procwatch-output.h"
#include "procwatch-select.h"
#include "procwatch-timeout.h"
#include "procwatch-tool.h"

/* File descriptors kept free for everything but the watched processes. */
#define FD_MARGIN 64

/* An --app: the instances it had when watching started, counted as one. */
typedef struct
{
  Tool *tool;
  char *app_id;
  GPtrArray *instances;   /* ProcwatchCgroup */
  guint n_populated;      /* instances not seen empty yet */
  gboolean stopping;      /* signalled at the timeout: awaited still */
  gboolean over;          /* every instance empty, or given up */
  gboolean dropped;       /* not signalled: given up */
} ToolApp;

static void
tool_app_free (ToolApp *app)
{
  g_free (app->app_id);
  g_ptr_array_unref (app->instances);
  g_free (app);
}

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

/* A cgroup is empty: it counts as one process finished. It is not
 * signalled, so after the timeout it is no longer awaited. */
static void
on_cgroup_empty (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  ProcwatchCgroup *cgroup = PROCWATCH_CGROUP (source);
  Tool *tool = user_data;

  if (!procwatch_cgroup_wait_empty_finish (cgroup, result, NULL) || tool->done)
    return;

  if (!tool->quiet)
    tool_print_cgroup (stdout, tool->json, procwatch_cgroup_get_path (cgroup), NULL);

  /* Signalled at the timeout, it is awaited; else not any more. */
  if (tool->timed_out)
    {
      if (g_hash_table_remove (tool->stopping_cgroups, cgroup) && --tool->n_stopping == 0)
        tool_finish (tool);
      return;
    }

  if (++tool->finished >= tool->needed)
    tool_finish (tool);
}

/* An instance of an app is empty; the app is done when all are. */
static void
on_app_instance_empty (GObject      *source,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  ProcwatchCgroup *cgroup = PROCWATCH_CGROUP (source);
  ToolApp *app = user_data;
  Tool *tool = app->tool;

  if (!procwatch_cgroup_wait_empty_finish (cgroup, result, NULL) || tool->done)
    return;

  if (!tool->quiet)
    tool_print_cgroup (stdout, tool->json, procwatch_cgroup_get_path (cgroup), app->app_id);

  if (--app->n_populated > 0 || app->over)
    return;
  app->over = TRUE;

  if (tool->timed_out)
    {
      if (app->stopping && --tool->n_stopping == 0)
        tool_finish (tool);
      return;
    }

  if (++tool->finished >= tool->needed)
    tool_finish (tool);
}

/* One cgroup signal under way; @app NULL for a --cgroup(-of). */
typedef struct
{
  Tool *tool;
  ToolApp *app;
  int sig;
  const char *why;
} CgroupSignal;

/* A cgroup that could not be signalled might never empty: it (or its app)
 * is given up, and the exit status tells (1). */
static void
drop_cgroup (Tool            *tool,
             ToolApp         *app,
             ProcwatchCgroup *cgroup)
{
  gboolean was_stopping;

  tool->failed = TRUE;
  if (app != NULL)
    {
      if (app->over)
        return;
      was_stopping = app->stopping;
      app->over = app->dropped = TRUE;
      tool->n_apps--;
    }
  else
    {
      was_stopping = g_hash_table_remove (tool->stopping_cgroups, cgroup);
      tool->n_dropped_cgroups++;
    }

  if (tool->timed_out)
    {
      if (was_stopping && --tool->n_stopping == 0)
        tool_finish (tool);
      return;
    }

  /* Nothing left to wait for is done too. */
  tool->needed = tool_count_needed (tool, tool->count);
  if (tool->finished >= tool->needed)
    tool_finish (tool);
}

static void
on_cgroup_signalled (GObject      *source,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  ProcwatchCgroup *cgroup = PROCWATCH_CGROUP (source);
  g_autofree CgroupSignal *call = user_data;
  Tool *tool = call->tool;
  g_autofree char *name = tool_signal_name (call->sig);
  g_autoptr(GError) error = NULL;
  const char *path = procwatch_cgroup_get_path (cgroup);
  gboolean sent = procwatch_cgroup_send_signal_finish (cgroup, result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || tool->done)
    return;

  if (tool->json)
    tool_print_cgroup_signal (stdout, path, call->app != NULL ? call->app->app_id : NULL,
                              call->sig, call->why, sent ? NULL : error->message);

  if (sent)
    tool_debug (tool, "sent %s to cgroup %s (%s)", name, path, call->why);
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    tool_debug (tool, "%s", error->message);
  /* A freeze held up (a process in uninterruptible sleep): nothing was
   * sent, but KILL (-k) goes through cgroup.kill, which needs no freeze,
   * so the cgroup is still waited for. */
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT))
    tool_warn (_("cannot send %s: %s"), name, error->message);
  else
    {
      /* The library's message names the cgroup, and why (also that
       * procwatch is in it itself). */
      tool_warn (_("cannot send %s: %s"), name, error->message);
      drop_cgroup (tool, call->app, cgroup);
    }
}

static void
send_to_cgroup (Tool            *tool,
                ToolApp         *app,
                ProcwatchCgroup *cgroup,
                int              sig,
                const char      *why)
{
  CgroupSignal *call = g_new0 (CgroupSignal, 1);

  call->tool = tool;
  call->app = app;
  call->sig = sig;
  call->why = why;
  procwatch_cgroup_send_signal_async (cgroup, sig, tool->cancellable, on_cgroup_signalled, call);
}

/* Every app (and with --signal-cgroups every cgroup) still populated gets
 * @sig in each of its cgroups, all at once. Returns how many were sent. */
guint
tool_signal_cgroups (Tool       *tool,
                     int         sig,
                     const char *why,
                     gboolean    stopping)
{
  guint n_sent = 0;
  guint i, j;

  for (i = 0; i < tool->apps->len && !tool->done; i++)
    {
      ToolApp *app = g_ptr_array_index (tool->apps, i);

      if (app->over)
        continue;
      for (j = 0; j < app->instances->len; j++)
        {
          ProcwatchCgroup *cgroup = g_ptr_array_index (app->instances, j);

          if (!procwatch_cgroup_get_populated (cgroup))
            continue;
          send_to_cgroup (tool, app, cgroup, sig, why);
          n_sent++;
        }
      if (stopping && !app->stopping)
        {
          app->stopping = TRUE;
          tool->n_stopping++;
        }
    }

  for (i = 0; tool->signal_cgroups && i < tool->cgroups->len && !tool->done; i++)
    {
      ProcwatchCgroup *cgroup = g_ptr_array_index (tool->cgroups, i);

      if (!procwatch_cgroup_get_populated (cgroup))
        continue;
      send_to_cgroup (tool, NULL, cgroup, sig, why);
      n_sent++;
      if (stopping && g_hash_table_add (tool->stopping_cgroups, cgroup))
        tool->n_stopping++;
    }

  return n_sent;
}

/* --app: every instance running now, each watched as a cgroup; an
 * instance gone between the two is skipped. Returns -1 to go on, or the
 * exit status to stop with. */
static int
watch_app (Tool       *tool,
           const char *app_id,
           gboolean   *unsupported)
{
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) paths = procwatch_cgroup_find_app_instances (app_id, NULL, &error);
  ToolApp *app;
  guint i;

  if (paths == NULL)
    {
      tool_warn ("%s", error->message);
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED))
        {
          *unsupported = TRUE;
          return tool->allow_exited ? -1 : TOOL_EXIT_UNSUPPORTED;
        }
      return TOOL_EXIT_FAILURE;
    }

  app = g_new0 (ToolApp, 1);
  app->tool = tool;
  app->app_id = g_strdup (app_id);
  app->instances = g_ptr_array_new_with_free_func (g_object_unref);
  g_ptr_array_add (tool->apps, app);
  tool->n_apps++;

  for (i = 0; paths[i] != NULL; i++)
    {
      g_autoptr(GError) watch_error = NULL;
      ProcwatchCgroup *cgroup = procwatch_process_monitor_watch_cgroup (tool->monitor, paths[i],
                                                                        &watch_error);

      if (cgroup == NULL && g_error_matches (watch_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        {
          tool_debug (tool, "%s: that instance is gone", watch_error->message);
          continue;
        }
      if (cgroup == NULL)
        {
          tool_warn ("%s", watch_error->message);
          return TOOL_EXIT_FAILURE;
        }

      tool_debug (tool, "watching cgroup %s of app %s", paths[i], app_id);
      g_ptr_array_add (app->instances, cgroup);
    }

  if (app->instances->len == 0)
    {
      g_ptr_array_remove (tool->apps, app);
      tool->n_apps--;
      if (tool->allow_exited)
        {
          if (tool->verbose)
            tool_warn (_("app %s is not running, skipping"), app_id);
          return -1;
        }
      tool_warn (_("app %s is not running"), app_id);
      return TOOL_EXIT_FAILURE;
    }

  /* Only once all are in, so that an empty one cannot end it early. */
  app->n_populated = app->instances->len;
  for (i = 0; i < app->instances->len; i++)
    procwatch_cgroup_wait_empty_async (g_ptr_array_index (app->instances, i), tool->cancellable,
                                       on_app_instance_empty, app);
  return -1;
}

/* Watches the cgroup @path, once however many paths name it. Returns
 * -1 to go on, or the exit status to stop with. */
static int
watch_cgroup (Tool       *tool,
              const char *path,
              gboolean   *unsupported)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(ProcwatchCgroup) cgroup = procwatch_process_monitor_watch_cgroup (tool->monitor, path,
                                                                              &error);

  if (cgroup == NULL)
    {
      /* Gone is what -e allows, as for a process: said only when asked. */
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND) && tool->allow_exited)
        {
          tool_debug (tool, "%s, skipping", error->message);
          return -1;
        }
      /* The library's message names the cgroup. */
      tool_warn ("%s", error->message);
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED))
        {
          *unsupported = TRUE;
          return tool->allow_exited ? -1 : TOOL_EXIT_UNSUPPORTED;
        }
      return TOOL_EXIT_FAILURE;
    }

  if (g_ptr_array_find (tool->cgroups, cgroup, NULL))
    return -1;

  tool_debug (tool, "watching cgroup %s", procwatch_cgroup_get_path (cgroup));
  g_ptr_array_add (tool->cgroups, g_object_ref (cgroup));
  procwatch_cgroup_wait_empty_async (cgroup, tool->cancellable, on_cgroup_empty, tool);
  return -1;
}

/* --cgroup-of: the cgroup @text (PID[:INODE]) is in, as the library read
 * it when it started watching that process, which it then stops watching
 * unless the process is awaited itself. */
static int
watch_cgroup_of (Tool       *tool,
                 const char *text,
                 gboolean   *unsupported)
{
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  guint64 inode;
  GPid pid;

  if (!tool_parse_pid_arg (text, &pid, &inode))
    {
      tool_warn (_("failed to parse PID argument '%s': %s"), text, g_strerror (errno));
      return TOOL_EXIT_FAILURE;
    }

  if (inode != 0)
    process = procwatch_process_monitor_watch_pid_inode (tool->monitor, pid, inode, &error);
  else
    process = procwatch_process_monitor_watch_pid (tool->monitor, pid, &error);

  if (process == NULL)
    {
      WatchResult result = tool_classify_error (error);

      if (result == WATCH_GONE && tool->allow_exited)
        {
          if (tool->verbose)
            tool_warn (_("PID %d has exited, skipping"), (int) pid);
          return -1;
        }
      tool_warn (_("could not open PID %d: %s"), (int) pid, error->message);
      if (result == WATCH_UNSUPPORTED)
        {
          *unsupported = TRUE;
          return tool->allow_exited ? -1 : TOOL_EXIT_UNSUPPORTED;
        }
      return TOOL_EXIT_FAILURE;
    }

  path = g_strdup (procwatch_process_get_cgroup (process));
  if (!g_hash_table_contains (tool->targets, process))
    procwatch_process_monitor_unwatch_process (tool->monitor, process);

  if (path == NULL)
    {
      tool_warn (_("PID %d is in no cgroup v2"), (int) pid);
      *unsupported = TRUE;
      return tool->allow_exited ? -1 : TOOL_EXIT_UNSUPPORTED;
    }

  return watch_cgroup (tool, path, unsupported);
}

static int
watch_cgroups (Tool        *tool,
               ToolOptions *options,
               gboolean    *unsupported)
{
  guint i;
  int exit_code;

  for (i = 0; i < options->cgroup_of->len; i++)
    if ((exit_code = watch_cgroup_of (tool, g_ptr_array_index (options->cgroup_of, i),
                                      unsupported)) >= 0)
      return exit_code;

  for (i = 0; i < options->cgroups->len; i++)
    if ((exit_code = watch_cgroup (tool, g_ptr_array_index (options->cgroups, i),
                                   unsupported)) >= 0)
      return exit_code;

  for (i = 0; i < options->apps->len; i++)
    if ((exit_code = watch_app (tool, g_ptr_array_index (options->apps, i), unsupported)) >= 0)
      return exit_code;

  return -1;
}

/* A bus request awaited while the main context runs. Held by the caller
 * and by the callback: a timeout may stop the wait, and the request's
 * callback then comes later, to this alone. */
typedef struct
{
  GAsyncResult *result;
} BusRequest;

static void
bus_request_clear (BusRequest *request)
{
  g_clear_object (&request->result);
}

static void
bus_request_unref (BusRequest *request)
{
  g_rc_box_release_full (request, (GDestroyNotify) bus_request_clear);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BusRequest, bus_request_unref)

static void
on_bus_request_done (GObject      *source,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  BusRequest *request = user_data;

  request->result = g_object_ref (result);
  bus_request_unref (request);
}

/* The callback's reference is the second one. */
static BusRequest *
bus_request_new (void)
{
  return g_rc_box_acquire (g_rc_box_new0 (BusRequest));
}

/* Runs the main context until @request is answered, or -t expires: the
 * bus may be slow, and -t bounds the whole run. */
static GAsyncResult *
await_bus_request (Tool        *tool,
                   BusRequest  *request,
                   GError     **error)
{
  while (request->result == NULL && !tool->timed_out)
    g_main_context_iteration (NULL, TRUE);

  if (request->result == NULL)
    g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT, _("Timeout expired"));
  return request->result;
}

/* The process that owns the bus name @name: its unique name from the bus,
 * then the library asks the bus for that connection's process. */
static ProcwatchProcess *
watch_bus_name_owner (Tool             *tool,
                      GDBusConnection  *bus,
                      const char       *name,
                      GError          **error)
{
  g_autoptr(BusRequest) owner_request = bus_request_new ();
  g_autoptr(BusRequest) sender_request = NULL;
  g_autoptr(GVariant) reply = NULL;
  GAsyncResult *result;
  const char *owner;

  g_dbus_connection_call (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                          "org.freedesktop.DBus", "GetNameOwner", g_variant_new ("(s)", name),
                          G_VARIANT_TYPE ("(s)"), G_DBUS_CALL_FLAGS_NONE, -1, tool->cancellable,
                          on_bus_request_done, owner_request);
  if ((result = await_bus_request (tool, owner_request, error)) == NULL ||
      (reply = g_dbus_connection_call_finish (bus, result, error)) == NULL)
    return NULL;

  g_variant_get (reply, "(&s)", &owner);
  tool_debug (tool, "bus name %s is owned by %s", name, owner);

  /* The bus answers its own name, org.freedesktop.DBus, with that name:
   * the bus is no connection, and has no connection's credentials. */
  if (!g_dbus_is_unique_name (owner))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           _("it is owned by the bus itself, not by a connection"));
      return NULL;
    }

  sender_request = bus_request_new ();
  procwatch_process_monitor_watch_dbus_sender_async (tool->monitor, bus, owner,
                                                     tool->cancellable, on_bus_request_done,
                                                     sender_request);
  if ((result = await_bus_request (tool, sender_request, error)) == NULL)
    return NULL;

  return procwatch_process_monitor_watch_dbus_sender_finish (tool->monitor, result, error);
}

/* --dbus-name: each owner is a process like those named by PID, watched
 * before any of those so that none of their events comes while the bus
 * is being asked. Returns -1 to go on (*@unsupported set if -e let a
 * missing kernel feature pass), or the exit status to stop with. */
static int
watch_bus_names (Tool        *tool,
                 ToolOptions *options,
                 gboolean    *unsupported)
{
  GBusType bus_type = options->system_bus ? G_BUS_TYPE_SYSTEM : G_BUS_TYPE_SESSION;
  g_autoptr(BusRequest) connect_request = NULL;
  g_autoptr(GDBusConnection) bus = NULL;
  g_autoptr(GError) error = NULL;
  GAsyncResult *result;
  guint i;

  if (options->dbus_names->len == 0)
    return -1;

  connect_request = bus_request_new ();

  g_bus_get (bus_type, tool->cancellable, on_bus_request_done, connect_request);
  if ((result = await_bus_request (tool, connect_request, &error)) != NULL)
    bus = g_bus_get_finish (result, &error);
  if (tool->timed_out)
    return -1;
  if (bus == NULL)
    {
      tool_warn (options->system_bus ? _("cannot connect to the system bus: %s")
                                     : _("cannot connect to the session bus: %s"), error->message);
      return TOOL_EXIT_FAILURE;
    }
  /* The bus going away ends nothing: the owners are watched by pidfd. */
  g_dbus_connection_set_exit_on_close (bus, FALSE);

  for (i = 0; i < options->dbus_names->len; i++)
    {
      const char *name = g_ptr_array_index (options->dbus_names, i);
      g_autoptr(ProcwatchProcess) process = NULL;
      ToolTarget target = { 0, NULL, 0, FALSE };

      g_clear_error (&error);
      process = watch_bus_name_owner (tool, bus, name, &error);
      if (process == NULL)
        {
          gboolean no_owner = g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_NAME_HAS_NO_OWNER);
          gboolean not_supported = g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);

          /* The timeout has had its say; nothing more is watched. */
          if (tool->timed_out)
            return -1;

          /* An owner that is gone (or was just leaving) is what -e allows. */
          if (tool->allow_exited &&
              (no_owner || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND)))
            {
              tool_debug (tool, "bus name %s has no owner, skipping", name);
              continue;
            }

          if (no_owner)
            /* Translators: %s is a D-Bus name such as org.example.App. */
            tool_warn (_("no process owns the bus name '%s'"), name);
          else
            tool_warn (_("cannot watch the owner of bus name '%s': %s"), name, error->message);

          /* As for a process given by PID: -e reports an owner that
           * cannot be watched and goes on; the exit status tells. */
          if (tool->allow_exited)
            {
              if (not_supported)
                *unsupported = TRUE;
              else
                tool->failed = TRUE;
              continue;
            }
          return not_supported ? TOOL_EXIT_UNSUPPORTED : TOOL_EXIT_FAILURE;
        }

      target.pid = procwatch_process_get_pid (process);
      target.name = tool_target_name (process, target.pid);
      tool_add_target (tool, process, &target);
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

  if ((exit_code = watch_bus_names (tool, options, &unsupported)) >= 0)
    return exit_code;

  /* The time ran out while the bus was asked: only those signalled at the
   * timeout are awaited, as the timeout set up. */
  if (!tool->timed_out)
    {
      exit_code = watch_all (tool, pids, inodes, tokens, n_named, &unsupported);
      if (exit_code >= 0)
        return exit_code;

      if ((exit_code = watch_cgroups (tool, options, &unsupported)) >= 0)
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
