/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * stop-app: ask every running instance of the app APP_ID to quit (TERM),
 * kill what is left of it after 5 seconds (KILL), and say when it is gone
 * (docs/apps.md, docs/launching-apps.md).
 *
 *   stop-app APP_ID
 */

#include <signal.h>

#include <gio/gio.h>
#include <gio-procwatch/procwatch.h>

typedef struct {
  GMainLoop *loop;
  const char *app_id;
  GPtrArray *instances;
  guint n_left;
  int status;
} App;

static void
on_signalled (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  ProcwatchCgroup *cgroup = PROCWATCH_CGROUP (source);
  App *app = user_data;
  g_autoptr(GError) error = NULL;

  /* Gone meanwhile is no failure: it is what we want. */
  if (!procwatch_cgroup_send_signal_finish (cgroup, result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    {
      g_printerr ("Cannot signal %s: %s\n", procwatch_cgroup_get_path (cgroup), error->message);
      app->status = 1;
    }
}

/* Every process of every instance gets @signum at once: none escapes by
 * forking, and no pid reused meanwhile is hit. */
static void
signal_all (App *app,
            int  signum)
{
  guint i;

  for (i = 0; i < app->instances->len; i++)
    {
      ProcwatchCgroup *cgroup = g_ptr_array_index (app->instances, i);

      if (procwatch_cgroup_get_populated (cgroup))
        procwatch_cgroup_send_signal_async (cgroup, signum, NULL, on_signalled, app);
    }
}

static gboolean
on_grace_over (gpointer user_data)
{
  App *app = user_data;

  g_print ("killing what is left of %s\n", app->app_id);
  signal_all (app, SIGKILL);
  return G_SOURCE_REMOVE;
}

static void
on_empty (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  ProcwatchCgroup *cgroup = PROCWATCH_CGROUP (source);
  App *app = user_data;
  g_autoptr(GError) error = NULL;

  if (procwatch_cgroup_wait_empty_finish (cgroup, result, &error))
    g_print ("%s is empty\n", procwatch_cgroup_get_path (cgroup));
  else
    {
      g_printerr ("Cannot wait for %s: %s\n", procwatch_cgroup_get_path (cgroup), error->message);
      app->status = 1;
    }
  if (--app->n_left == 0)
    g_main_loop_quit (app->loop);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
  g_autoptr(GMainLoop) loop = NULL;
  g_autoptr(GPtrArray) instances = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) paths = NULL;
  App app = { 0 };
  guint i;

  if (argc != 2)
    {
      g_printerr ("Usage: %s APP_ID\n", argv[0]);
      return 2;
    }

  /* Its units in our systemd user manager: app-gnome-APP_ID-4242.scope,
   * app-flatpak-APP_ID-12.scope, app-APP_ID@1.service… */
  paths = procwatch_cgroup_find_app_instances (argv[1], NULL, &error);
  if (paths == NULL)
    {
      g_printerr ("Cannot find %s: %s\n", argv[1], error->message);
      return 1;
    }

  monitor = procwatch_process_monitor_new ();
  instances = g_ptr_array_new_with_free_func (g_object_unref);
  for (i = 0; paths[i] != NULL; i++)
    {
      ProcwatchCgroup *cgroup = procwatch_process_monitor_watch_cgroup (monitor, paths[i], &error);

      /* Not found: that instance quit since it was found. */
      if (cgroup == NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        {
          g_printerr ("Cannot watch %s: %s\n", paths[i], error->message);
          return 1;
        }
      g_clear_error (&error);
      if (cgroup != NULL)
        g_ptr_array_add (instances, cgroup);
    }

  if (instances->len == 0)
    {
      g_printerr ("%s is not running\n", argv[1]);
      return 1;
    }

  loop = g_main_loop_new (NULL, FALSE);
  app.loop = loop;
  app.app_id = argv[1];
  app.instances = instances;
  app.n_left = instances->len;

  for (i = 0; i < instances->len; i++)
    {
      ProcwatchCgroup *cgroup = g_ptr_array_index (instances, i);

      g_print ("stopping %s\n", procwatch_cgroup_get_path (cgroup));
      procwatch_cgroup_wait_empty_async (cgroup, NULL, on_empty, &app);
    }
  signal_all (&app, SIGTERM);
  g_timeout_add_seconds (5, on_grace_over, &app);

  g_main_loop_run (loop);
  g_print ("%s is gone\n", argv[1]);
  return app.status;
}
