/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * watch-app: say when the process PID has quit, and when its app — every
 * process of its cgroup, such as the systemd scope GNOME Shell starts each
 * app in — is gone (docs/apps.md, docs/launching-apps.md).
 *
 *   watch-app PID
 */

#include <gio/gio.h>
#include <gio-procwatch/procwatch.h>

typedef struct {
  GMainLoop *loop;
  int status;
} App;

static void
on_empty (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  ProcwatchCgroup *cgroup = PROCWATCH_CGROUP (source);
  App *app = user_data;
  g_autoptr(GError) error = NULL;

  if (procwatch_cgroup_wait_empty_finish (cgroup, result, &error))
    g_print ("%s is empty: the app is gone\n", procwatch_cgroup_get_path (cgroup));
  else
    {
      g_printerr ("Cannot wait for %s: %s\n", procwatch_cgroup_get_path (cgroup), error->message);
      app->status = 1;
    }
  g_main_loop_quit (app->loop);
}

static void
on_exited (ProcwatchProcessMonitor *monitor,
           ProcwatchProcess        *process,
           gpointer                 user_data)
{
  g_print ("process %d has quit\n", procwatch_process_get_pid (process));
}

/* The cgroup v2 path of this process, as /proc/self/cgroup has it. */
static char *
own_cgroup (void)
{
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;

  if (!g_file_get_contents ("/proc/self/cgroup", &contents, NULL, NULL))
    return NULL;
  lines = g_strsplit (contents, "\n", -1);
  for (char **line = lines; *line != NULL; line++)
    if (g_str_has_prefix (*line, "0::"))
      return g_strdup (*line + 3);
  return NULL;
}

/* Watches the cgroup @process was in when watching started: its app's
 * scope when the app was started in one of its own. */
static ProcwatchCgroup *
watch_app (ProcwatchProcessMonitor  *monitor,
           ProcwatchProcess         *process,
           GError                  **error)
{
  const char *path = procwatch_process_get_cgroup (process);
  g_autofree char *ours = own_cgroup ();

  if (path == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, "No cgroup v2 here");
      return NULL;
    }
  /* Not started in a scope of its own: its cgroup holds us too, and would
   * not be empty before we are gone. */
  if (g_strcmp0 (path, ours) == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "The app shares our cgroup %s", path);
      return NULL;
    }
  return procwatch_process_monitor_watch_cgroup (monitor, path, error);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(ProcwatchCgroup) cgroup = NULL;
  g_autoptr(GError) error = NULL;
  App app = { loop, 0 };

  if (argc != 2)
    {
      g_printerr ("Usage: %s PID\n", argv[0]);
      return 2;
    }

  g_signal_connect (monitor, "exited", G_CALLBACK (on_exited), NULL);
  process = procwatch_process_monitor_watch_pid (monitor, atoi (argv[1]), &error);
  if (process != NULL)
    cgroup = watch_app (monitor, process, &error);
  if (cgroup == NULL)
    {
      g_printerr ("Cannot watch the app of process %s: %s\n", argv[1], error->message);
      return 1;
    }

  g_print ("process %d is in %s\n", procwatch_process_get_pid (process),
           procwatch_cgroup_get_path (cgroup));
  procwatch_cgroup_wait_empty_async (cgroup, NULL, on_empty, &app);
  g_main_loop_run (loop);
  return app.status;
}
