/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * How procwatch finds the processes to watch. Names are matched the way
 * pgrep(1) and pidwait(1) match them: POSIX extended regular expressions
 * against the 15-byte comm, or against the whole command line with -f.
 */

#include <errno.h>
#include <inttypes.h>
#include <regex.h>
#include <string.h>
#include <unistd.h>

#include <glib/gi18n.h>

#include "procwatch-select.h"

/* "PID" or "PID:INODE", read as util-linux waitpid(1) reads them (its
 * ul_parse_pid_str()): strtoimax(3) rules, so leading blanks and '+' pass;
 * a pid and an inode must be positive. On failure sets errno as waitpid
 * does, for its message: ERANGE for a number out of range, else EINVAL. */
gboolean
tool_parse_pid_arg (const char *text,
                    GPid       *pid,
                    guint64    *inode)
{
  const char *inode_text;
  char *end = NULL;
  intmax_t value;

  *inode = 0;
  errno = 0;
  value = strtoimax (text, &end, 10);
  if (end == text)
    return (errno = EINVAL, FALSE);
  if (errno == ERANGE || value < 1 || value > G_MAXINT32)
    return (errno = ERANGE, FALSE);

  if (*end == ':')
    {
      inode_text = end + 1;
      /* strtoumax would take "-1" as a huge number. */
      if (*inode_text == '\0')
        return (errno = EINVAL, FALSE);
      if (strtoimax (inode_text, NULL, 10) < 0)
        return (errno = ERANGE, FALSE);
      errno = 0;
      *inode = strtoumax (inode_text, &end, 10);
      if (errno == ERANGE)
        return FALSE;
      if (end == inode_text)
        return (errno = EINVAL, FALSE);
      if (*end == '\0' && *inode == 0)
        return (errno = ERANGE, FALSE);
    }

  if (*end != '\0')
    return (errno = EINVAL, FALSE);

  *pid = (GPid) value;
  return TRUE;
}

static char *
read_proc_file (GPid        pid,
                const char *file,
                gsize      *length)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/%s", (int) pid, file);
  char *contents = NULL;

  if (!g_file_get_contents (path, &contents, length, NULL))
    return NULL;

  return contents;
}

/* The name as the kernel keeps it (comm, at most 15 bytes), without the
 * newline /proc appends; NULL if the process is gone. */
char *
tool_read_comm (GPid pid)
{
  gsize length;
  char *comm = read_proc_file (pid, "comm", &length);

  if (comm != NULL && length > 0 && comm[length - 1] == '\n')
    comm[length - 1] = '\0';

  return comm;
}

/* The arguments joined by spaces, as pgrep -f sees them; the comm for a
 * process without any (a kernel thread, a zombie). */
static char *
read_command_line (GPid pid)
{
  gsize length = 0;
  char *cmdline = read_proc_file (pid, "cmdline", &length);
  gsize i;

  if (cmdline == NULL || length == 0)
    {
      g_free (cmdline);
      return tool_read_comm (pid);
    }

  if (cmdline[length - 1] == '\0')
    length--;
  for (i = 0; i < length; i++)
    if (cmdline[i] == '\0')
      cmdline[i] = ' ';
  cmdline[length] = '\0';

  return cmdline;
}

static void
free_regexes (GArray *regexes)
{
  guint i;

  for (i = 0; i < regexes->len; i++)
    regfree (&g_array_index (regexes, regex_t, i));
  g_array_unref (regexes);
}

static GArray *
compile_patterns (const char * const  *patterns,
                  ToolMatchFlags       flags,
                  GError             **error)
{
  GArray *regexes = g_array_new (FALSE, TRUE, sizeof (regex_t));
  int cflags = REG_EXTENDED | REG_NOSUB;
  guint i;

  if (flags & TOOL_MATCH_IGNORE_CASE)
    cflags |= REG_ICASE;

  for (i = 0; patterns[i] != NULL; i++)
    {
      g_autofree char *anchored = NULL;
      regex_t regex;
      int ret;

      if (flags & TOOL_MATCH_EXACT)
        anchored = g_strdup_printf ("^(%s)$", patterns[i]);

      ret = regcomp (&regex, anchored != NULL ? anchored : patterns[i], cflags);
      if (ret != 0)
        {
          char message[256];

          regerror (ret, &regex, message, sizeof message);
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       /* Translators: the first %s is a regular expression, the
                        * second what regerror(3) says is wrong with it. */
                       _("invalid pattern '%s': %s"), patterns[i], message);
          free_regexes (regexes);
          return NULL;
        }

      g_array_append_val (regexes, regex);
    }

  return regexes;
}

/* The processes (never this one) whose name matches any of @patterns, in
 * /proc order; @matched[i] tells whether pattern i matched any. */
GArray *
tool_find_by_name (const char * const  *patterns,
                   ToolMatchFlags       flags,
                   gboolean            *matched,
                   GError             **error)
{
  g_autoptr(GArray) pids = g_array_new (FALSE, FALSE, sizeof (GPid));
  g_autoptr(GDir) dir = NULL;
  GArray *regexes;
  GPid self = getpid ();
  const char *entry;

  regexes = compile_patterns (patterns, flags, error);
  if (regexes == NULL)
    return NULL;

  dir = g_dir_open ("/proc", 0, error);
  if (dir == NULL)
    {
      free_regexes (regexes);
      return NULL;
    }

  while ((entry = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *subject = NULL;
      gboolean any = FALSE;
      guint64 value;
      GPid pid;
      guint i;

      if (!g_ascii_string_to_unsigned (entry, 10, 1, G_MAXINT32, &value, NULL))
        continue;

      pid = (GPid) value;
      if (pid == self)
        continue;

      subject = (flags & TOOL_MATCH_FULL) ? read_command_line (pid) : tool_read_comm (pid);
      if (subject == NULL)
        continue;   /* gone while we looked */

      for (i = 0; i < regexes->len; i++)
        {
          if (regexec (&g_array_index (regexes, regex_t, i), subject, 0, NULL, 0) == 0)
            {
              matched[i] = TRUE;
              any = TRUE;
            }
        }

      if (any)
        g_array_append_val (pids, pid);
    }

  free_regexes (regexes);
  return g_steal_pointer (&pids);
}
