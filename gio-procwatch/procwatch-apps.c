/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 */

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <gio/gio.h>

#include "procwatch-apps-private.h"
#include "procwatch-cgroup-files-private.h"
#include "procwatch-i18n-private.h"
#include "procwatch-proc-files-private.h"

/* What a desktop file id or a D-Bus name may be made of, which covers
 * every application id the standard knows; dots only between elements. */
gboolean
procwatch_app_id_is_valid (const char *app_id)
{
  gsize length;
  const char *p;

  if (app_id == NULL)
    return FALSE;

  length = strlen (app_id);
  if (length == 0 || length > 255 || app_id[0] == '.' || app_id[length - 1] == '.')
    return FALSE;

  for (p = app_id; *p != '\0'; p++)
    {
      if (*p == '.' && p[1] == '.')
        return FALSE;
      if (!g_ascii_isalnum (*p) && *p != '.' && *p != '_' && *p != '-')
        return FALSE;
    }

  return TRUE;
}

/* systemd's unit name escaping, \xNN; NULL where it is broken, or where
 * it gives a NUL: the result is a C string, and a NUL inside would cut it
 * short into another, valid, id (`Calc\x00.evil` read as `Calc`). Every
 * other byte is left to procwatch_app_id_is_valid (). */
static char *
unescape_unit_part (const char *text,
                    gsize       length)
{
  GString *out = g_string_sized_new (length);
  gsize i;
  int byte;

  for (i = 0; i < length; i++)
    {
      if (text[i] != '\\')
        {
          g_string_append_c (out, text[i]);
          continue;
        }

      if (i + 3 >= length ||
          text[i + 1] != 'x' || !g_ascii_isxdigit (text[i + 2]) || !g_ascii_isxdigit (text[i + 3]))
        break;
      byte = g_ascii_xdigit_value (text[i + 2]) * 16 + g_ascii_xdigit_value (text[i + 3]);
      if (byte == 0)
        break;
      g_string_append_c (out, (char) byte);
      i += 3;
    }

  if (i < length)
    {
      g_string_free (out, TRUE);
      return NULL;
    }

  return g_string_free (out, FALSE);
}

/* The rule, from the standard's two forms
 *   app-[<launcher>-]<id>-<random>.scope
 *   app-[<launcher>-]<id>[@<random>].service
 * and its escaping of every `-` of the id as `\x2d`: once the random part
 * is off, a `-` left can only be the one after the launcher, so there is
 * at most one; the id is what follows it (or all of it), and the name is
 * an application's only if that id, unescaped, is a valid one. A launcher
 * is never guessed from a list of known ones (gnome, flatpak, …), so new
 * launchers need no change here. */
char *
procwatch_app_id_from_path (const char *path)
{
  const char *name = strrchr (path, '/');
  const char *start;
  const char *end;
  const char *dash;
  g_autofree char *app_id = NULL;

  name = name != NULL ? name + 1 : path;
  if (!g_str_has_prefix (name, "app-"))
    return NULL;
  start = name + strlen ("app-");

  if (g_str_has_suffix (name, ".scope"))
    {
      end = name + strlen (name) - strlen (".scope");
      /* The random part: after the last `-`, never empty. */
      for (dash = end; dash > start && dash[-1] != '-'; dash--)
        ;
      if (dash == start || dash == end)
        return NULL;
      end = dash - 1;
    }
  else if (g_str_has_suffix (name, ".service"))
    {
      const char *at;

      end = name + strlen (name) - strlen (".service");
      at = memchr (start, '@', end - start);
      if (at != NULL)
        end = at;
    }
  else
    return NULL;

  dash = memchr (start, '-', end - start);
  if (dash != NULL)
    {
      if (dash == start || memchr (dash + 1, '-', end - dash - 1) != NULL)
        return NULL;
      start = dash + 1;
    }

  app_id = unescape_unit_part (start, end - start);
  if (!procwatch_app_id_is_valid (app_id))
    return NULL;

  return g_steal_pointer (&app_id);
}

/* The cgroup of the user manager of @uid (`…/user@UID.service`) that
 * @own_cgroup is in, or NULL. */
char *
procwatch_apps_find_user_manager (const char *own_cgroup,
                                  guint       uid)
{
  g_autofree char *component = g_strdup_printf ("/user@%u.service", uid);
  const char *p = own_cgroup;

  while ((p = strstr (p, component)) != NULL)
    {
      const char *after = p + strlen (component);

      if (*after == '\0' || *after == '/')
        return g_strndup (own_cgroup, after - own_cgroup);
      p = after;
    }

  return NULL;
}

/* Whether a process is in the cgroup @name below @dir_fd (or below it):
 * systemd removes a unit's cgroup soon after it empties, but an empty one
 * is no instance that runs. */
static gboolean
is_populated_at (int         dir_fd,
                 const char *name)
{
  g_autofree char *path = g_strconcat (name, "/cgroup.events", NULL);
  int fd = openat (dir_fd, path, O_RDONLY | O_CLOEXEC);
  int populated;

  if (fd < 0)
    return FALSE;
  populated = procwatch_cgroup_read_populated (fd);
  close (fd);
  return populated == 1;
}

/* Takes @dir_fd. A unit of the app is not looked into: what is below it
 * is part of it. Cgroups that go meanwhile are passed over. */
static void
find_below (int         dir_fd,
            const char *relative,
            const char *app_id,
            GPtrArray  *found)
{
  DIR *dir = fdopendir (dir_fd);
  struct dirent *entry;

  if (dir == NULL)
    {
      close (dir_fd);
      return;
    }

  while ((entry = readdir (dir)) != NULL)
    {
      g_autofree char *path = NULL;
      g_autofree char *entry_app_id = NULL;
      int child_fd;

      if (entry->d_type != DT_DIR || entry->d_name[0] == '.')
        continue;

      path = g_strconcat (relative, strcmp (relative, "/") == 0 ? "" : "/", entry->d_name, NULL);
      entry_app_id = procwatch_app_id_from_path (entry->d_name);
      if (entry_app_id != NULL && strcmp (entry_app_id, app_id) == 0)
        {
          if (is_populated_at (dirfd (dir), entry->d_name))
            g_ptr_array_add (found, g_steal_pointer (&path));
          continue;
        }

      child_fd = openat (dirfd (dir), entry->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (child_fd >= 0)
        find_below (child_fd, path, app_id, found);
    }

  closedir (dir);
}

static int
compare_paths (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static char *
read_own_cgroup (void)
{
  g_autofree char *text = NULL;
  gsize length;

  if (!g_file_get_contents ("/proc/self/cgroup", &text, &length, NULL))
    return NULL;

  return procwatch_proc_find_cgroup_v2 (text, length);
}

GStrv
procwatch_apps_find (const char  *app_id,
                     const char  *under,
                     GError     **error)
{
  g_autoptr(GPtrArray) mounts = NULL;
  g_autoptr(GPtrArray) found = NULL;
  g_autofree char *manager = NULL;
  g_autofree char *relative = NULL;
  g_autofree char *absolute = NULL;
  g_autoptr(GError) local_error = NULL;
  int dir_fd;

  if (!procwatch_app_id_is_valid (app_id))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   /* Translators: %s is what was given as an application id. */
                   _("Cannot find instances of “%s”: it is not a valid application id"),
                   app_id);
      return NULL;
    }

  if ((mounts = procwatch_cgroup_read_mounts (error)) == NULL)
    return NULL;
  if (mounts->len == 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           _("Cannot find applications: cgroup v2 is not mounted here"));
      return NULL;
    }

  if (under == NULL)
    {
      g_autofree char *own = read_own_cgroup ();

      if (own != NULL)
        manager = procwatch_apps_find_user_manager (own, getuid ());
      if (manager == NULL)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                       /* Translators: %u is a user id, %s a cgroup path. */
                       _("Cannot find applications: this process is not in the cgroup of a systemd user manager (user@%u.service) but in %s"),
                       (guint) getuid (), own != NULL ? own : "?");
          return NULL;
        }
      under = manager;
    }

  if (!procwatch_cgroup_resolve (mounts, under, &relative, &absolute, &local_error))
    {
      g_set_error (error, G_IO_ERROR, local_error->code,
                   /* Translators: %s is a cgroup path, then why it cannot be read. */
                   _("Cannot find applications under %s: %s"), under, local_error->message);
      return NULL;
    }

  dir_fd = open (absolute, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0)
    {
      int saved_errno = errno;

      GIOErrorEnum code = saved_errno == ENOTDIR ? G_IO_ERROR_NOT_FOUND
                                                 : g_io_error_from_errno (saved_errno);

      g_set_error (error, G_IO_ERROR, code,
                   /* Translators: %s is a cgroup path, then the system's error message. */
                   _("Cannot find applications under %s: %s"), under, g_strerror (saved_errno));
      return NULL;
    }

  found = g_ptr_array_new_with_free_func (g_free);
  find_below (dir_fd, relative, app_id, found);
  g_ptr_array_sort (found, compare_paths);
  g_ptr_array_add (found, NULL);

  return (GStrv) g_ptr_array_free (g_steal_pointer (&found), FALSE);
}
