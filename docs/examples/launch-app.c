/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * launch-app: start a program as a desktop launcher does, through GAppInfo,
 * and say when it has quit and how (docs/launching-apps.md).
 *
 *   launch-app COMMAND [ARGUMENT...]
 */

#include <gio/gio.h>
#include <gio-procwatch/procwatch.h>

typedef struct {
  ProcwatchProcessMonitor *monitor;
  GHashTable *names;  /* ProcwatchProcess → the name of its app */
  GMainLoop *loop;
} Launcher;

static void
on_launched (GAppLaunchContext *context,
             GAppInfo          *info,
             GVariant          *platform_data,
             gpointer           user_data)
{
  Launcher *launcher = user_data;
  const char *name = g_app_info_get_name (info);
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GError) error = NULL;
  gint32 pid = 0;

  /* An app started over D-Bus activation has no pid to report. */
  if (!g_variant_lookup (platform_data, "pid", "i", &pid) || pid <= 0)
    return;

  process = procwatch_process_monitor_watch_pid (launcher->monitor, pid, &error);
  if (process == NULL)
    {
      /* It quit, and its new parent collected it, before we could watch. */
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        g_print ("%s (process %d) quit at once\n", name, pid);
      else
        g_printerr ("Cannot watch %s: %s\n", name, error->message);
      return;
    }

  g_print ("%s started as process %d\n", name, pid);
  g_hash_table_insert (launcher->names, g_steal_pointer (&process), g_strdup (name));
}

static void
on_exited (ProcwatchProcessMonitor *monitor,
           ProcwatchProcess        *process,
           gpointer                 user_data)
{
  Launcher *launcher = user_data;

  g_print ("%s (process %d) has quit\n",
           (const char *) g_hash_table_lookup (launcher->names, process),
           procwatch_process_get_pid (process));
}

static void
on_reaped (ProcwatchProcessMonitor *monitor,
           ProcwatchProcess        *process,
           gpointer                 user_data)
{
  Launcher *launcher = user_data;
  const char *name = g_hash_table_lookup (launcher->names, process);
  int pid = procwatch_process_get_pid (process);

  /* Not our child: its status is known once it has been reaped (Linux 6.15
   * and newer). */
  if (procwatch_process_get_if_exited (process))
    g_print ("%s (process %d) is gone: exit code %d\n", name, pid,
             procwatch_process_get_exit_status (process));
  else if (procwatch_process_get_if_signaled (process))
    g_print ("%s (process %d) is gone: killed by signal %d\n", name, pid,
             procwatch_process_get_term_sig (process));
  else
    g_print ("%s (process %d) is gone: status unknown\n", name, pid);

  g_hash_table_remove (launcher->names, process);
  if (g_hash_table_size (launcher->names) == 0)
    g_main_loop_quit (launcher->loop);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(GHashTable) names = g_hash_table_new_full (NULL, NULL, g_object_unref, g_free);
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  Launcher launcher = { monitor, names, loop };
  g_autoptr(GAppLaunchContext) context = g_app_launch_context_new ();
  g_autoptr(GAppInfo) app = NULL;
  g_autofree char *commandline = NULL;
  g_autofree char *name = NULL;
  g_autoptr(GError) error = NULL;
  GString *quoted = g_string_new (NULL);
  int i;

  if (argc < 2)
    {
      g_printerr ("Usage: %s COMMAND [ARGUMENT...]\n", argv[0]);
      return 2;
    }

  for (i = 1; i < argc; i++)
    {
      g_autofree char *arg = g_shell_quote (argv[i]);

      g_string_append_printf (quoted, "%s%s", i > 1 ? " " : "", arg);
    }
  commandline = g_string_free (quoted, FALSE);
  name = g_path_get_basename (argv[1]);

  g_signal_connect (monitor, "exited", G_CALLBACK (on_exited), &launcher);
  g_signal_connect (monitor, "reaped", G_CALLBACK (on_reaped), &launcher);

  /* GAppInfo starts the program detached: GLib forks twice, so that the
   * session's reaper, not we, becomes its parent. "launched" tells its pid
   * before launch returns. */
  g_signal_connect (context, "launched", G_CALLBACK (on_launched), &launcher);

  app = g_app_info_create_from_commandline (commandline, name, G_APP_INFO_CREATE_NONE, &error);
  if (app == NULL || !g_app_info_launch (app, NULL, context, &error))
    {
      g_printerr ("Cannot start %s: %s\n", argv[1], error->message);
      return 1;
    }

  if (g_hash_table_size (names) > 0)
    g_main_loop_run (loop);
  return 0;
}
