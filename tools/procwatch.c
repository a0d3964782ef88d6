/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * procwatch: wait for processes to exit, printing a line per event.
 */

#include <signal.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <string.h>

#include <gio-procwatch/procwatch.h>

typedef struct
{
  GMainLoop *loop;
  guint remaining;
  gboolean wait_reaped;
  int exit_code;
  GPid command_pid;
} Watcher;

static char *
describe_status (ProcwatchProcess *process)
{
  if (procwatch_process_get_if_exited (process))
    return g_strdup_printf ("exit %d", procwatch_process_get_exit_status (process));

  if (procwatch_process_get_if_signaled (process))
    {
      int sig = procwatch_process_get_term_sig (process);
      const char *abbrev = sigabbrev_np (sig);

      return g_strdup_printf ("killed by SIG%s%s", abbrev ? abbrev : "?",
                              WCOREDUMP (procwatch_process_get_status (process)) ? " (core dumped)" : "");
    }

  return g_strdup ("status unknown");
}

static void
report (ProcwatchProcess *process,
        const char       *event)
{
  g_autofree char *status = describe_status (process);

  g_print ("%d %s %s\n", (int) procwatch_process_get_pid (process), event, status);
}

static void
finish_one (Watcher          *watcher,
            ProcwatchProcess *process)
{
  if (procwatch_process_get_pid (process) == watcher->command_pid &&
      procwatch_process_has_status (process))
    {
      int status = procwatch_process_get_status (process);

      watcher->exit_code = WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
    }

  if (--watcher->remaining == 0)
    g_main_loop_quit (watcher->loop);
}

static void
on_exited (ProcwatchProcessMonitor *monitor,
           ProcwatchProcess        *process,
           Watcher                 *watcher)
{
  report (process, "exited");

  if (!watcher->wait_reaped)
    finish_one (watcher, process);
}

static void
on_reaped (ProcwatchProcessMonitor *monitor,
           ProcwatchProcess        *process,
           Watcher                 *watcher)
{
  report (process, "reaped");

  if (watcher->wait_reaped)
    finish_one (watcher, process);
}

static gboolean
parse_pid (const char *text,
           GPid       *pid)
{
  guint64 value;

  if (!g_ascii_string_to_unsigned (text, 10, 1, G_MAXINT, &value, NULL))
    return FALSE;

  *pid = (GPid) value;
  return TRUE;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
  g_autoptr(GSubprocess) command = NULL;
  g_autoptr(GMainLoop) loop = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) arguments = NULL;
  gboolean reaped = FALSE;
  gboolean print_backend = FALSE;
  Watcher watcher = { 0 };
  const GOptionEntry entries[] = {
    { "reaped", 0, 0, G_OPTION_ARG_NONE, &reaped, "Also wait until each process is reaped", NULL },
    { "backend", 0, 0, G_OPTION_ARG_NONE, &print_backend, "Print the detection mechanism in use", NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &arguments, NULL, "PID… | -- COMMAND…" },
    { NULL }
  };
  guint i;

  context = g_option_context_new ("- wait for processes to exit");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("procwatch: %s\n", error->message);
      return 1;
    }

  monitor = procwatch_process_monitor_new ();
  loop = g_main_loop_new (NULL, FALSE);
  watcher.loop = loop;
  watcher.wait_reaped = reaped;

  if (print_backend)
    g_print ("backend: %s\n", procwatch_process_monitor_get_backend (monitor));

  if (arguments == NULL || arguments[0] == NULL)
    {
      g_printerr ("procwatch: no process given\n");
      return 1;
    }

  g_signal_connect (monitor, "exited", G_CALLBACK (on_exited), &watcher);
  g_signal_connect (monitor, "reaped", G_CALLBACK (on_reaped), &watcher);

  if (!g_ascii_isdigit (arguments[0][0]))
    {
      g_autoptr(ProcwatchProcess) process = NULL;

      command = g_subprocess_newv ((const char * const *) arguments, G_SUBPROCESS_FLAGS_NONE, &error);
      if (command == NULL)
        {
          g_printerr ("procwatch: %s\n", error->message);
          return 127;
        }

      if (!parse_pid (g_subprocess_get_identifier (command), &watcher.command_pid) ||
          (process = procwatch_process_monitor_watch_pid (monitor, watcher.command_pid, &error)) == NULL)
        {
          g_printerr ("procwatch: %s\n", error ? error->message : "cannot watch the command");
          return 1;
        }

      watcher.remaining = 1;
    }
  else
    {
      g_autoptr(GHashTable) processes = g_hash_table_new_full (NULL, NULL, g_object_unref, NULL);

      for (i = 0; arguments[i] != NULL; i++)
        {
          ProcwatchProcess *process;
          GPid pid;

          if (!parse_pid (arguments[i], &pid))
            {
              g_printerr ("procwatch: '%s' is not a process id\n", arguments[i]);
              return 1;
            }

          process = procwatch_process_monitor_watch_pid (monitor, pid, &error);
          if (process == NULL)
            {
              g_printerr ("procwatch: %s\n", error->message);
              return 1;
            }

          g_hash_table_add (processes, process);
        }

      /* A pid given twice is one process. */
      watcher.remaining = g_hash_table_size (processes);
    }

  g_main_loop_run (loop);

  return watcher.exit_code;
}
