/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * How procwatch prints an event. Text lines are for people and simple
 * scripts ("PID EVENT NAME [STATUS]", the name escaped so that it is one
 * word); JSON Lines carry the same and more with stable keys. A process name
 * is up to 15 arbitrary bytes, so both forms escape it rather than trust it.
 */

#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include "procwatch-output.h"

/* "SIGKILL", "SIGRTMIN+3", or "SIG42" for a number glibc has no name for. */
char *
tool_signal_name (int sig)
{
  const char *abbrev = sigabbrev_np (sig);

  if (abbrev != NULL)
    return g_strconcat ("SIG", abbrev, NULL);

  if (sig >= SIGRTMIN && sig <= SIGRTMAX)
    return sig == SIGRTMIN ? g_strdup ("SIGRTMIN")
                           : g_strdup_printf ("SIGRTMIN+%d", sig - SIGRTMIN);

  return g_strdup_printf ("SIG%d", sig);
}

/* "exit 3", "killed by SIGKILL", "killed by SIGSEGV (core dumped)". */
char *
tool_describe_status (int wait_status)
{
  g_autofree char *signal_name = NULL;

  if (WIFEXITED (wait_status))
    return g_strdup_printf ("exit %d", WEXITSTATUS (wait_status));

  if (WIFSIGNALED (wait_status))
    {
      signal_name = tool_signal_name (WTERMSIG (wait_status));
      return g_strdup_printf ("killed by %s%s", signal_name,
                              WCOREDUMP (wait_status) ? " (core dumped)" : "");
    }

  return g_strdup_printf ("status 0x%x", (unsigned) wait_status);
}

/* One word on a terminal: printable characters stay, anything else (spaces,
 * control characters, invalid UTF-8, the backslash itself) becomes \xHH. */
void
tool_append_escaped (GString    *out,
                     const char *name)
{
  const char *p = name;
  const char *end = name + strlen (name);

  while (p < end)
    {
      guchar c = (guchar) *p;
      gunichar ch;

      if (c > 0x20 && c < 0x7f && c != '\\')
        {
          g_string_append_c (out, (char) c);
          p++;
          continue;
        }

      ch = c >= 0x80 ? g_utf8_get_char_validated (p, end - p) : (gunichar) -1;
      if (ch != (gunichar) -1 && ch != (gunichar) -2 && g_unichar_isgraph (ch))
        {
          const char *next = g_utf8_next_char (p);

          g_string_append_len (out, p, next - p);
          p = next;
          continue;
        }

      g_string_append_printf (out, "\\x%02x", c);
      p++;
    }
}

/* A JSON string for any bytes: valid UTF-8 is kept, each invalid byte turns
 * into U+FFFD, and what JSON forbids raw is escaped. */
void
tool_json_append_string (GString    *out,
                         const char *bytes,
                         gssize      length)
{
  const char *p = bytes;
  const char *end;

  if (length < 0)
    length = strlen (bytes);
  end = bytes + length;

  g_string_append_c (out, '"');

  while (p < end)
    {
      guchar c = (guchar) *p;

      if (c < 0x80)
        {
          switch (c)
            {
            case '"':  g_string_append (out, "\\\""); break;
            case '\\': g_string_append (out, "\\\\"); break;
            case '\b': g_string_append (out, "\\b"); break;
            case '\f': g_string_append (out, "\\f"); break;
            case '\n': g_string_append (out, "\\n"); break;
            case '\r': g_string_append (out, "\\r"); break;
            case '\t': g_string_append (out, "\\t"); break;
            default:
              if (c < 0x20 || c == 0x7f)
                g_string_append_printf (out, "\\u%04x", c);
              else
                g_string_append_c (out, (char) c);
            }
          p++;
        }
      else
        {
          gunichar ch = g_utf8_get_char_validated (p, end - p);

          if (ch == (gunichar) -1 || ch == (gunichar) -2)
            {
              g_string_append (out, "\\ufffd");
              p++;
            }
          else
            {
              const char *next = g_utf8_next_char (p);

              g_string_append_len (out, p, next - p);
              p = next;
            }
        }
    }

  g_string_append_c (out, '"');
}

static void
append_json_status (GString *out,
                    int      wait_status)
{
  gboolean exited = WIFEXITED (wait_status);
  gboolean signaled = WIFSIGNALED (wait_status);

  g_string_append_printf (out, "{\"raw\":%d,\"exited\":%s,\"exit_code\":", wait_status,
                          exited ? "true" : "false");
  if (exited)
    g_string_append_printf (out, "%d", WEXITSTATUS (wait_status));
  else
    g_string_append (out, "null");

  g_string_append (out, ",\"signal\":");
  if (signaled)
    {
      g_autofree char *name = tool_signal_name (WTERMSIG (wait_status));

      g_string_append_printf (out, "%d,\"signal_name\":", WTERMSIG (wait_status));
      tool_json_append_string (out, name, -1);
    }
  else
    g_string_append (out, "null,\"signal_name\":null");

  g_string_append_printf (out, ",\"core_dumped\":%s}",
                          signaled && WCOREDUMP (wait_status) ? "true" : "false");
}

/* The keys every JSON record starts with, in this order. */
static void
append_json_head (GString          *line,
                  const char       *event,
                  const ToolTarget *target,
                  ProcwatchProcess *process)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  gint64 monotonic = g_get_monotonic_time ();
  g_autofree char *time = g_date_time_format (now, "%Y-%m-%dT%H:%M:%S.%fZ");

  g_string_append (line, "{\"time\":");
  tool_json_append_string (line, time, -1);
  g_string_append_printf (line, ",\"monotonic_us\":%" G_GINT64_FORMAT ",\"event\":", monotonic);
  tool_json_append_string (line, event, -1);
  g_string_append_printf (line, ",\"pid\":%d,\"inode\":", (int) target->pid);
  if (procwatch_process_get_inode (process) != 0)
    g_string_append_printf (line, "%" G_GUINT64_FORMAT, procwatch_process_get_inode (process));
  else
    g_string_append (line, "null");

  g_string_append (line, ",\"name\":");
  if (target->name != NULL)
    tool_json_append_string (line, target->name, -1);
  else
    g_string_append (line, "null");
}

static void
format_json (GString          *line,
             const char       *event,
             const ToolTarget *target,
             ProcwatchProcess *process)
{
  append_json_head (line, event, target, process);

  g_string_append (line, ",\"status\":");
  if (procwatch_process_has_status (process))
    append_json_status (line, procwatch_process_get_status (process));
  else
    g_string_append (line, "null");

  g_string_append (line, ",\"core_dumped\":");
  if (procwatch_process_has_status (process))
    g_string_append (line, procwatch_process_get_core_dumped (process) ? "true" : "false");
  else
    g_string_append (line, "null");

  g_string_append (line, ",\"file_handle\":");
  if (target->file_handle != NULL)
    tool_json_append_string (line, target->file_handle, -1);
  else
    g_string_append (line, "null");

  g_string_append (line, "}\n");
}

static void
format_text (GString          *line,
             const char       *event,
             const ToolTarget *target,
             ProcwatchProcess *process)
{
  g_string_append_printf (line, "%d %s ", (int) target->pid, event);

  if (target->name != NULL && target->name[0] != '\0')
    tool_append_escaped (line, target->name);
  else
    g_string_append_c (line, '?');

  if (procwatch_process_has_status (process))
    {
      g_autofree char *status = tool_describe_status (procwatch_process_get_status (process));

      g_string_append_printf (line, " %s", status);
    }

  g_string_append_c (line, '\n');
}

static void
write_line (FILE    *out,
            GString *line)
{
  fwrite (line->str, 1, line->len, out);
  fflush (out);
}

/* The end of a "signal" record, for a process or a cgroup. */
static void
append_signal_tail (GString    *line,
                    int         sig,
                    const char *why,
                    const char *error)
{
  g_autofree char *name = sig > 0 ? tool_signal_name (sig) : NULL;

  g_string_append_printf (line, ",\"signal\":%d,\"signal_name\":", sig);
  if (name != NULL)
    tool_json_append_string (line, name, -1);
  else
    g_string_append (line, "null");
  g_string_append (line, ",\"why\":");
  tool_json_append_string (line, why, -1);
  g_string_append (line, ",\"error\":");
  if (error != NULL)
    tool_json_append_string (line, error, -1);
  else
    g_string_append (line, "null");
  g_string_append (line, "}\n");
}

/* A "signal" record: @sig sent to @process because of @why ("send",
 * "timeout", "kill-after", "forward"), and @error if it could not be. */
void
tool_print_signal (FILE             *out,
                   const ToolTarget *target,
                   ProcwatchProcess *process,
                   int               sig,
                   const char       *why,
                   const char       *error)
{
  g_autoptr(GString) line = g_string_new (NULL);

  append_json_head (line, "signal", target, process);
  append_signal_tail (line, sig, why, error);
  write_line (out, line);
}

/* Written and flushed at once: whoever reads the other end acts on each
 * event as it happens. */
void
tool_print_event (FILE             *out,
                  gboolean          json,
                  const char       *event,
                  const ToolTarget *target,
                  ProcwatchProcess *process)
{
  g_autoptr(GString) line = g_string_new (NULL);

  if (json)
    format_json (line, event, target, process);
  else
    format_text (line, event, target, process);

  write_line (out, line);
}

/* A cgroup found empty: "- cgroup-emptied PATH", so that the event stays
 * the second field as in a process's line, or a JSON record with the
 * cgroup's path where a process's has its pid. */
/* The head of a cgroup's record; "app_id" only for an app's instance. */
static void
append_cgroup_head (GString    *line,
                    const char *event,
                    const char *path,
                    const char *app_id)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *time = g_date_time_format (now, "%Y-%m-%dT%H:%M:%S.%fZ");

  g_string_append (line, "{\"time\":");
  tool_json_append_string (line, time, -1);
  g_string_append_printf (line, ",\"monotonic_us\":%" G_GINT64_FORMAT ",\"event\":",
                          g_get_monotonic_time ());
  tool_json_append_string (line, event, -1);
  g_string_append (line, ",\"cgroup\":");
  tool_json_append_string (line, path, -1);
  if (app_id != NULL)
    {
      g_string_append (line, ",\"app_id\":");
      tool_json_append_string (line, app_id, -1);
    }
}

void
tool_print_cgroup (FILE       *out,
                   gboolean    json,
                   const char *path,
                   const char *app_id)
{
  g_autoptr(GString) line = g_string_new (NULL);

  if (json)
    {
      append_cgroup_head (line, "cgroup-emptied", path, app_id);
      g_string_append (line, "}\n");
    }
  else
    {
      g_string_append (line, "- cgroup-emptied ");
      tool_append_escaped (line, path);
      g_string_append_c (line, '\n');
    }

  write_line (out, line);
}

/* JSON only, as for a process's signals. */
void
tool_print_cgroup_signal (FILE       *out,
                          const char *path,
                          const char *app_id,
                          int         sig,
                          const char *why,
                          const char *error)
{
  g_autoptr(GString) line = g_string_new (NULL);

  append_cgroup_head (line, "signal", path, app_id);
  append_signal_tail (line, sig, why, error);
  write_line (out, line);
}
