/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 */

#include <stdlib.h>

#include <gio-procwatch/procwatch.h>

static void
on_exited (ProcwatchProcessMonitor *monitor,
           ProcwatchProcess        *process,
           gpointer                 user_data)
{
  g_print ("%d exited\n", procwatch_process_get_pid (process));
}

static void
on_reaped (ProcwatchProcessMonitor *monitor,
           ProcwatchProcess        *process,
           gpointer                 user_data)
{
  GMainLoop *loop = user_data;
  int pid = procwatch_process_get_pid (process);

  if (procwatch_process_get_if_exited (process))
    g_print ("%d reaped: exit code %d\n", pid, procwatch_process_get_exit_status (process));
  else if (procwatch_process_get_if_signaled (process))
    g_print ("%d reaped: killed by signal %d\n", pid, procwatch_process_get_term_sig (process));
  else
    g_print ("%d reaped: status unknown\n", pid);

  g_main_loop_quit (loop);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GError) error = NULL;

  if (argc != 2)
    {
      g_printerr ("Usage: %s PID\n", argv[0]);
      return 2;
    }

  g_signal_connect (monitor, "exited", G_CALLBACK (on_exited), NULL);
  g_signal_connect (monitor, "reaped", G_CALLBACK (on_reaped), loop);

  process = procwatch_process_monitor_watch_pid (monitor, atoi (argv[1]), &error);
  if (process == NULL)
    {
      g_printerr ("%s\n", error->message);
      return 1;
    }

  g_print ("watching %d with the %s backend\n",
           procwatch_process_get_pid (process),
           procwatch_process_monitor_get_backend (monitor));

  g_main_loop_run (loop);
  return 0;
}
