/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * procwatch's cgroups: --cgroup, --cgroup-of and --app watched until
 * empty, and signalled at the timeout (--signal-cgroups, and every app)
 * through the library, so that no process of them escapes by forking.
 */

#include <errno.h>

#include <gio/gio.h>
#include <glib/gi18n.h>
#include <gio-procwatch/procwatch.h>

#include "procwatch-cgroups.h"
#include "procwatch-options.h"
#include "procwatch-output.h"

/* An --app: the instances it had when watching started, counted as one. */
struct _ToolApp
{
  Tool *tool;
  char *app_id;
  GPtrArray *instances;   /* ProcwatchCgroup */
  guint n_populated;      /* instances not seen empty yet */
  gboolean stopping;      /* signalled at the timeout: awaited still */
  gboolean over;          /* every instance empty, or given up */
  gboolean dropped;       /* not signalled: given up */
};

void
tool_app_free (ToolApp *app)
{
  g_free (app->app_id);
  g_ptr_array_unref (app->instances);
  g_free (app);
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

int
tool_watch_cgroups (Tool        *tool,
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
