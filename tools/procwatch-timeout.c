/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * timeout(1)'s part of procwatch: the timeout and what it sends (-t, -s,
 * -k), --send, and the COMMAND, run as timeout(1) runs it. Signals go to
 * the watched processes through the library, never by pid alone.
 */

#include <errno.h>
#include <signal.h>
#include <sys/wait.h>

#include <glib-unix.h>
#include <glib/gi18n.h>

#include "procwatch-cgroups.h"
#include "procwatch-options.h"
#include "procwatch-output.h"
#include "procwatch-timeout.h"

typedef enum
{
  SIGNAL_SENT,
  SIGNAL_GONE,     /* it has exited already: nothing left to stop */
  SIGNAL_FAILED,
} SignalResult;

static int
status_to_exit_code (int wait_status)
{
  if (WIFEXITED (wait_status))
    return WEXITSTATUS (wait_status);
  if (WIFSIGNALED (wait_status))
    return 128 + WTERMSIG (wait_status);
  return TOOL_EXIT_FAILURE;
}

/* Sends @sig to @process through the library: through its pidfd, so never
 * to a process that has its pid since (without pidfds the library re-checks
 * the pid just before kill(), a window of microseconds). Each signal is a
 * JSON record; a failure other than "it has exited already" is an error. */
static SignalResult
signal_target (Tool             *tool,
               ProcwatchProcess *process,
               int               sig,
               const char       *why)
{
  ToolTarget *target = g_hash_table_lookup (tool->targets, process);
  g_autofree char *name = sig > 0 ? tool_signal_name (sig) : g_strdup ("signal 0");
  g_autoptr(GError) error = NULL;
  gboolean sent = procwatch_process_send_signal (process, sig, &error);

  if (tool->json && !tool->done)
    tool_print_signal (stdout, target, process, sig, why, sent ? NULL : error->message);

  if (sent)
    {
      tool_debug (tool, "sent %s to PID %d (%s)", name, (int) target->pid, why);
      return SIGNAL_SENT;
    }

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    {
      tool_debug (tool, "PID %d has exited: %s not sent (%s)", (int) target->pid, name, why);
      return SIGNAL_GONE;
    }

  tool_warn (_("cannot send %s to PID %d: %s"), name, (int) target->pid, error->message);
  return SIGNAL_FAILED;
}

/* Sends @sig to every watched process still running, first watched first,
 * and into the apps (and cgroups, with --signal-cgroups); with @stopping,
 * they are then awaited after the timeout. One that cannot be signalled
 * is given up. Returns how many were signalled. */
static guint
signal_running (Tool       *tool,
                int         sig,
                const char *why,
                gboolean    stopping)
{
  guint n_sent = tool_signal_cgroups (tool, sig, why, stopping);
  guint i;

  for (i = 0; i < tool->order->len && !tool->done; i++)
    {
      ProcwatchProcess *process = g_ptr_array_index (tool->order, i);
      ToolTarget *target = g_hash_table_lookup (tool->targets, process);

      if (target == NULL || procwatch_process_get_state (process) != PROCWATCH_PROCESS_STATE_RUNNING)
        continue;

      switch (signal_target (tool, process, sig, why))
        {
        case SIGNAL_SENT:
          n_sent++;
          if (stopping && !target->stopping)
            {
              target->stopping = TRUE;
              tool->n_stopping++;
            }
          break;
        case SIGNAL_FAILED:
          tool_drop_target (tool, process);
          break;
        case SIGNAL_GONE:
        default:
          break;
        }
    }

  return n_sent;
}

static gboolean
on_kill_after (gpointer user_data)
{
  Tool *tool = user_data;

  signal_running (tool, SIGKILL, "kill-after", FALSE);
  return G_SOURCE_REMOVE;
}

/* -k: KILL for whoever still runs some time after the first signal. Armed
 * once, as timeout(1) does: a later signal does not put it off. */
static void
arm_kill_after (Tool *tool)
{
  if (tool->kill_after_ms == 0 || tool->kill_after_armed)
    return;

  tool->kill_after_armed = TRUE;
  g_timeout_add (tool->kill_after_ms, on_kill_after, tool);
}

static gboolean
on_timeout (gpointer user_data)
{
  Tool *tool = user_data;

  tool_verbose_line (tool, _("Timeout expired"));

  tool->timed_out = TRUE;
  tool->exit_code = tool->command != NULL ? TOOL_EXIT_COMMAND_TIMEOUT : TOOL_EXIT_TIMEOUT;

  /* As timeout(1): with -s (with a COMMAND, TERM by default), the
   * processes still running are signalled and waited for; -k makes sure
   * they end. */
  if (tool->timeout_signal >= 0 && signal_running (tool, tool->timeout_signal, "timeout", TRUE) > 0)
    arm_kill_after (tool);

  if (tool->n_stopping == 0)
    tool_finish (tool);
  return G_SOURCE_REMOVE;
}

void
tool_start_timeout (Tool  *tool,
                    guint  timeout_ms)
{
  g_timeout_add (timeout_ms, on_timeout, tool);
}

/* --send: to every process watched, once all are held, so none can be
 * mistaken for a process that took its pid since. */
void
tool_send_signal (Tool *tool,
                  int   sig)
{
  if (signal_running (tool, sig, "send", FALSE) > 0)
    arm_kill_after (tool);
}

/* The command is our child and nobody else reaps it: its status is known
 * at "exited", and we reap it then, which the monitor reports as "reaped". */
static void
on_command_exited (ProcwatchProcessMonitor *monitor,
                   ProcwatchProcess        *process,
                   Tool                    *tool)
{
  GPid pid = procwatch_process_get_pid (process);
  gboolean known = TRUE;
  int wait_status = 0;
  pid_t ret;

  if (process != tool->command)
    return;

  do
    ret = waitpid (pid, &wait_status, 0);
  while (ret < 0 && errno == EINTR);

  if (ret != pid && (known = procwatch_process_has_status (process)))
    wait_status = procwatch_process_get_status (process);

  /* timeout(1)'s: once the time is up, 124, unless KILL ended it. */
  if (tool->timed_out)
    tool->exit_code = known && WIFSIGNALED (wait_status) && WTERMSIG (wait_status) == SIGKILL
                      ? 128 + SIGKILL : TOOL_EXIT_COMMAND_TIMEOUT;
  else
    tool->exit_code = known ? status_to_exit_code (wait_status) : TOOL_EXIT_FAILURE;
}

/* A supervisor stopping procwatch means to stop the command: passed on, as
 * timeout(1) does, -k then following; the command's end then ends
 * procwatch. SIGINT from a terminal reaches the whole process group
 * already. */
static void
forward_signal (Tool *tool,
                int   sig)
{
  if (tool->command != NULL && signal_target (tool, tool->command, sig, "forward") == SIGNAL_SENT)
    arm_kill_after (tool);
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

/* The name the kernel gives the command: the base name of the file it
 * runs, cut to 15 bytes (TASK_COMM_LEN). Not read from /proc: g_spawn
 * returns as soon as the child has left our memory, which exec does before
 * it renames the child, so /proc may still say "procwatch". */
static char *
command_name (const char *program)
{
  g_autofree char *path = g_find_program_in_path (program);
  g_autofree char *base = g_path_get_basename (path != NULL ? path : program);

  return g_strndup (base, 15);
}

int
tool_run_command (Tool   *tool,
                  char  **command_argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(ProcwatchProcess) command = NULL;
  g_autofree char *name = NULL;
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
      /* Translators: the first %s is a command, the second why it cannot run. */
      tool_warn (_("cannot run '%s': %s"), command_argv[0], error->message);
      return g_error_matches (error, G_SPAWN_ERROR, G_SPAWN_ERROR_NOENT) ? 127 : 126;
    }

  g_signal_connect_after (tool->monitor, "exited", G_CALLBACK (on_command_exited), tool);

  name = command_name (command_argv[0]);
  switch (tool_watch_target (tool, pid, 0, name, &error))
    {
    case WATCH_OK:
      break;
    default:
      tool_warn (_("could not open PID %d: %s"), (int) pid, error->message);
      kill (pid, SIGTERM);
      return g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED) ? TOOL_EXIT_UNSUPPORTED
                                                                           : TOOL_EXIT_FAILURE;
    }

  command = procwatch_process_monitor_lookup (tool->monitor, pid);
  tool->command = command;
  tool->needed = 1;
  g_main_loop_run (tool->loop);

  return tool->exit_code;
}
