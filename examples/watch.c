/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * watch: say when processes exit and when they are reaped.
 *
 *   watch PID...
 *
 * The processes need not be children of watch. Build it with
 *   cc watch.c -o watch $(pkg-config --cflags --libs gio-procwatch-1.0)
 */

#include <stdlib.h>

#include <gio-procwatch/procwatch.h>

static void
print_event (ProcwatchProcess *process,
             const char       *event)
{
  int pid = procwatch_process_get_pid (process);

  /* The status of a child is known when it exits; that of another process
   * once it has been reaped (Linux 6.15 and newer). */
  if (procwatch_process_get_if_exited (process))
    g_print ("%d %s, exit code %d\n", pid, event, procwatch_process_get_exit_status (process));
  else if (procwatch_process_get_if_signaled (process))
    g_print ("%d %s, killed by signal %d\n", pid, event, procwatch_process_get_term_sig (process));
  else
    g_print ("%d %s\n", pid, event);
}

static void
on_exited (ProcwatchProcessMonitor *monitor,
           ProcwatchProcess        *process,
           gpointer                 user_data)
{
  print_event (process, "exited");
}

static void
on_reaped (ProcwatchProcessMonitor *monitor,
           ProcwatchProcess        *process,
           gpointer                 user_data)
{
  GHashTable *watched = user_data;

  print_event (process, "reaped");
  g_hash_table_remove (watched, process);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(GHashTable) watched = g_hash_table_new_full (NULL, NULL, g_object_unref, NULL);
  int i;

  if (argc < 2)
    {
      g_printerr ("Usage: %s PID...\n", argv[0]);
      return 2;
    }

  g_signal_connect (monitor, "exited", G_CALLBACK (on_exited), NULL);
  g_signal_connect (monitor, "reaped", G_CALLBACK (on_reaped), watched);

  for (i = 1; i < argc; i++)
    {
      g_autoptr(ProcwatchProcess) process = NULL;
      g_autoptr(GError) error = NULL;

      process = procwatch_process_monitor_watch_pid (monitor, atoi (argv[i]), &error);
      if (process == NULL)
        {
          g_printerr ("%s\n", error->message);
          return 1;
        }

      /* The same pid twice is the same process object. */
      g_print ("watching %d\n", procwatch_process_get_pid (process));
      g_hash_table_add (watched, g_steal_pointer (&process));
    }

  /* Signals arrive from the main context the monitor was created in. */
  while (g_hash_table_size (watched) > 0)
    g_main_context_iteration (NULL, TRUE);

  return 0;
}
