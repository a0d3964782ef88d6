/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * One run's targets: watching them, dropping them, finishing the run, and
 * the run's own lines for -v and --debug. procwatch.c and
 * procwatch-timeout.c both call here and this room calls neither of them,
 * so that each room leans only on those below it.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <gio/gio.h>
#include <glib/gi18n.h>
#include <gio-procwatch/procwatch.h>

#include "procwatch-options.h"
#include "procwatch-output.h"
#include "procwatch-select.h"
#include "procwatch-tool.h"

/* procwatch's own diagnostics, for --debug. */
void
tool_debug (Tool       *tool,
            const char *format,
            ...)
{
  g_autofree char *message = NULL;
  va_list args;

  if (!tool->debug)
    return;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  tool_warn ("%s", message);
}

/* What waitpid -v prints on standard output: "PID 4242 finished",
 * "Timeout expired". With --json they go to standard error instead, so that
 * standard output stays JSON Lines. */
void
tool_verbose_line (Tool       *tool,
                   const char *format,
                   ...)
{
  FILE *out = tool->json ? stderr : stdout;
  va_list args;

  if (!tool->verbose)
    return;

  va_start (args, format);
  if (format != NULL)
    vfprintf (out, format, args);
  va_end (args);
  fputc ('\n', out);
  fflush (out);
}

void
tool_finish (Tool *tool)
{
  tool->done = TRUE;
  g_main_loop_quit (tool->loop);
}

/* How many "finished" end the wait: one per process, or for waitpid one
 * per argument naming it; at most --count. */
guint
tool_count_needed (Tool    *tool,
                   guint64  count)
{
  GHashTableIter iter;
  ToolTarget *target;
  guint needed = 0;

  g_hash_table_iter_init (&iter, tool->targets);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &target))
    needed += tool->waitpid_mode ? target->n_args : 1;
  needed += tool->cgroups->len - tool->n_dropped_cgroups + tool->n_apps;

  return count > 0 ? (guint) MIN ((guint64) needed, count) : needed;
}

/* Stops waiting for a process that could not be signalled: it might never
 * end. The exit status tells (1). */
void
tool_drop_target (Tool             *tool,
                  ProcwatchProcess *process)
{
  ToolTarget *target = g_hash_table_lookup (tool->targets, process);
  gboolean was_stopping = target->stopping;

  procwatch_process_monitor_unwatch_process (tool->monitor, process);
  g_hash_table_remove (tool->targets, process);
  tool->failed = TRUE;

  if (tool->timed_out)
    {
      if (was_stopping && --tool->n_stopping == 0)
        tool_finish (tool);
      return;
    }

  tool->needed = tool_count_needed (tool, tool->count);
  if (tool->needed > 0 && tool->finished >= tool->needed)
    tool_finish (tool);
}

WatchResult
tool_classify_error (const GError *error)
{
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    return WATCH_GONE;
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED))
    return WATCH_UNSUPPORTED;
  return WATCH_FAILED;
}

static void
report_watching (Tool             *tool,
                 const ToolTarget *target,
                 ProcwatchProcess *process)
{
  g_autoptr(GString) line = g_string_new ("watching ");
  guint64 inode = procwatch_process_get_inode (process);

  if (!tool->debug)
    return;

  g_string_append_printf (line, "%d", (int) target->pid);
  if (inode != 0)
    g_string_append_printf (line, ":%" G_GUINT64_FORMAT, inode);
  g_string_append_c (line, ' ');
  if (target->name != NULL)
    tool_append_escaped (line, target->name);
  else
    g_string_append_c (line, '?');

  tool_debug (tool, "%s", line->str);
}

/* Remembers @target for @process, unless it is watched already: a process
 * named twice is watched, and counted, once. Takes @target's name. */
void
tool_add_target (Tool             *tool,
                 ProcwatchProcess *process,
                 ToolTarget       *target)
{
  ToolTarget *known = g_hash_table_lookup (tool->targets, process);

  if (known != NULL)
    {
      known->n_args++;
      g_clear_pointer (&target->name, g_free);
      return;
    }

  target->n_args = 1;
  /* Made while the process is watched: once reaped, it has none. */
  if (tool->json)
    {
      g_autoptr(GBytes) token = procwatch_process_dup_file_handle (process, NULL);

      if (token != NULL)
        target->file_handle = g_base64_encode (g_bytes_get_data (token, NULL),
                                               g_bytes_get_size (token));
    }
  report_watching (tool, target, process);
  g_hash_table_insert (tool->targets, g_object_ref (process), g_memdup2 (target, sizeof *target));
  g_ptr_array_add (tool->order, g_object_ref (process));
}

/* With --debug, who has the pid that a PID:INODE named: the library said
 * only that it is another process. Looked up by watching it for a moment,
 * unless it is one of ours already. */
static void
report_stale_inode (Tool    *tool,
                    GPid     pid,
                    guint64  want_inode)
{
  g_autoptr(ProcwatchProcess) owner = NULL;

  if (!tool->debug)
    return;

  owner = procwatch_process_monitor_watch_pid (tool->monitor, pid, NULL);
  if (owner == NULL || procwatch_process_get_inode (owner) == 0)
    return;

  tool_debug (tool, "process %d:%" G_GUINT64_FORMAT " is gone: pid %d now belongs to another "
         "process (%d:%" G_GUINT64_FORMAT ")", (int) pid, want_inode, (int) pid, (int) pid,
         procwatch_process_get_inode (owner));

  if (!g_hash_table_contains (tool->targets, owner))
    procwatch_process_monitor_unwatch_process (tool->monitor, owner);
}

/* The library's name of @process is valid UTF-8, made so; event lines show
 * a name's very bytes, escaped. Read again, they are that process's when
 * they read as the library's name, which the library checked to be taken
 * while the process held the pid. */
char *
tool_target_name (ProcwatchProcess *process,
                  GPid              pid)
{
  const char *name = procwatch_process_get_name (process);
  g_autofree char *raw = NULL;
  g_autofree char *valid = NULL;

  if (name == NULL)
    return NULL;

  raw = tool_read_comm (pid);
  if (raw != NULL && strcmp ((valid = g_utf8_make_valid (raw, -1)), name) == 0)
    return g_steal_pointer (&raw);

  return g_strdup (name);
}

/* Watches @pid, or with a PID:INODE only the process that inode names: the
 * library compares it on the very handle it then watches, so a pid reused
 * in between is refused, not watched. @name, if not NULL, is the process's
 * name, known without reading /proc. */
static WatchResult
open_target (Tool        *tool,
             GPid         pid,
             guint64      want_inode,
             const char  *name,
             GError     **error)
{
  g_autoptr(ProcwatchProcess) process = NULL;
  ToolTarget target = { pid, NULL, 0, FALSE };
  WatchResult result;

  if (want_inode != 0)
    process = procwatch_process_monitor_watch_pid_inode (tool->monitor, pid, want_inode, error);
  else
    process = procwatch_process_monitor_watch_pid (tool->monitor, pid, error);

  if (process == NULL)
    {
      result = tool_classify_error (*error);
      if (result == WATCH_GONE)
        {
          if (want_inode != 0)
            report_stale_inode (tool, pid, want_inode);
          /* For waitpid(1) the process is gone, in its words. */
          g_clear_error (error);
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, g_strerror (ESRCH));
        }
      return result;
    }

  target.name = name != NULL ? g_strdup (name) : tool_target_name (process, pid);
  tool_add_target (tool, process, &target);
  return WATCH_OK;
}

WatchResult
tool_watch_target (Tool        *tool,
                   GPid         pid,
                   guint64      want_inode,
                   const char  *name,
                   GError     **error)
{
  WatchResult result = open_target (tool, pid, want_inode, name, error);

  /* waitpid -v says this for every PID:INODE it cannot open. */
  if (result != WATCH_OK && want_inode != 0 && tool->verbose)
    /* %llu: xgettext cannot expand G_GUINT64_FORMAT inside a message. */
    tool_warn (_("pidfd inode %llu not found for PID %d"), (unsigned long long) want_inode,
               (int) pid);

  return result;
}

/* Watches the process that an @BASE64 argument's token names: the library
 * opens the token into a pidfd, which every backend can watch. */
WatchResult
tool_watch_token (Tool        *tool,
                  const char  *text,
                  GError     **error)
{
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GBytes) token = NULL;
  ToolTarget target = { 0, NULL, 0, FALSE };
  guchar *bytes;
  gsize size;

  bytes = g_base64_decode (text + 1, &size);
  token = g_bytes_new_take (bytes, size);
  process = procwatch_process_monitor_watch_file_handle (tool->monitor, token, error);
  if (process == NULL)
    return tool_classify_error (*error);

  target.pid = procwatch_process_get_pid (process);
  target.name = tool_target_name (process, target.pid);
  tool_add_target (tool, process, &target);
  return WATCH_OK;
}
