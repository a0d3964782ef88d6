/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <gio/gio.h>

#include "procwatch-cgroup-files-private.h"
#include "procwatch-i18n-private.h"
#include "procwatch-proc-files-private.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

void
procwatch_cgroup_mount_free (ProcwatchCgroupMount *mount)
{
  g_free (mount->mount_point);
  g_free (mount->root);
  g_free (mount);
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static char *
unescape_field (const char *field)
{
  GString *out = g_string_new (NULL);
  const char *p;

  for (p = field; *p != '\0'; p++)
    {
      if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' &&
          p[2] >= '0' && p[2] <= '7' && p[3] >= '0' && p[3] <= '7')
        {
          g_string_append_c (out, (char) (((p[1] - '0') << 6) | ((p[2] - '0') << 3) | (p[3] - '0')));
          p += 3;
        }
      else
        g_string_append_c (out, *p);
    }

  return g_string_free (out, FALSE);
}

/* Every cgroup2 mount in a /proc/self/mountinfo text, in mount order.
 * A line is "ID PARENT MAJ:MIN ROOT MOUNT-POINT OPTIONS [TAGS...] - TYPE
 * SOURCE SUPER-OPTIONS": the type comes after the "-" that ends the
 * optional tags. */
GPtrArray *
procwatch_cgroup_parse_mountinfo (const char *text,
                                  gsize       length)
{
  g_autoptr(GPtrArray) mounts = g_ptr_array_new_with_free_func ((GDestroyNotify) procwatch_cgroup_mount_free);
  g_autofree char *copy = g_strndup (text, length);
  g_auto(GStrv) lines = g_strsplit (copy, "\n", -1);
  guint i;

  for (i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) fields = g_strsplit (lines[i], " ", -1);
      guint n_fields = g_strv_length (fields);
      ProcwatchCgroupMount *mount;
      guint sep;

      if (n_fields < 7)
        continue;

      for (sep = 6; sep < n_fields && strcmp (fields[sep], "-") != 0; sep++)
        ;
      if (sep + 1 >= n_fields || strcmp (fields[sep + 1], "cgroup2") != 0)
        continue;

      mount = g_new0 (ProcwatchCgroupMount, 1);
      mount->root = unescape_field (fields[3]);
      mount->mount_point = unescape_field (fields[4]);
      g_ptr_array_add (mounts, mount);
    }

  return g_steal_pointer (&mounts);
}

/* @path with empty and "." components dropped, starting with "/"; NULL if
 * a component is "..": a path must name its cgroup directly. */
static char *
normalize (const char *path)
{
  g_auto(GStrv) components = g_strsplit (path, "/", -1);
  GString *out = g_string_new (NULL);
  guint i;

  for (i = 0; components[i] != NULL; i++)
    {
      if (strcmp (components[i], "..") == 0)
        {
          g_string_free (out, TRUE);
          return NULL;
        }
      if (components[i][0] == '\0' || strcmp (components[i], ".") == 0)
        continue;
      g_string_append_c (out, '/');
      g_string_append (out, components[i]);
    }

  if (out->len == 0)
    g_string_append_c (out, '/');

  return g_string_free (out, FALSE);
}

/* The rest of @path below @prefix ("/" for @prefix itself), or NULL if
 * @path is not @prefix or below it. Both normalized. */
static const char *
path_below (const char *path,
            const char *prefix)
{
  gsize length = strlen (prefix);

  if (strcmp (prefix, "/") == 0)
    return path;
  if (strncmp (path, prefix, length) != 0)
    return NULL;
  if (path[length] == '\0')
    return "/";
  return path[length] == '/' ? path + length : NULL;
}

static char *
join (const char *a,
      const char *b)
{
  if (strcmp (b, "/") == 0)
    return g_strdup (a);
  if (strcmp (a, "/") == 0)
    return g_strdup (b);
  return g_strconcat (a, b, NULL);
}

/* What @path names: an absolute path under a cgroup2 mount point, or else
 * a path relative to the cgroup v2 root as /proc/<pid>/cgroup writes it
 * (with or without its leading "/"). Sets @relative to the latter form and
 * @absolute to where it is here. */
gboolean
procwatch_cgroup_resolve (GPtrArray   *mounts,
                          const char  *path,
                          char       **relative,
                          char       **absolute,
                          GError     **error)
{
  g_autofree char *normalized = NULL;
  guint i;

  if (mounts->len == 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           _("Cannot watch cgroups: cgroup v2 is not mounted here"));
      return FALSE;
    }

  normalized = normalize (path);
  if (normalized == NULL || path[0] == '\0')
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   /* Translators: %s is the path given. */
                   _("Cannot watch cgroup %s: a cgroup path must not be empty or contain \"..\""),
                   path);
      return FALSE;
    }

  for (i = 0; i < mounts->len; i++)
    {
      ProcwatchCgroupMount *mount = g_ptr_array_index (mounts, i);
      const char *below = path_below (normalized, mount->mount_point);

      if (below != NULL && path[0] == '/')
        {
          *relative = join (mount->root, below);
          *absolute = g_steal_pointer (&normalized);
          return TRUE;
        }
    }

  for (i = 0; i < mounts->len; i++)
    {
      ProcwatchCgroupMount *mount = g_ptr_array_index (mounts, i);
      const char *below = path_below (normalized, mount->root);
      struct stat st;

      if (below == NULL)
        continue;

      *absolute = join (mount->mount_point, below);
      if (stat (*absolute, &st) == 0 || errno != ENOENT)
        {
          *relative = g_steal_pointer (&normalized);
          return TRUE;
        }
      g_clear_pointer (absolute, g_free);
    }

  if (path[0] == '/' && access (normalized, F_OK) == 0)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                 /* Translators: the first %s is the path given, the second where cgroup v2 is mounted. */
                 _("Cannot watch cgroup %s: it is not under the cgroup v2 mount %s"),
                 path, ((ProcwatchCgroupMount *) g_ptr_array_index (mounts, 0))->mount_point);
  else
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                 /* Translators: %s is the path given. */
                 _("Cannot watch cgroup %s: no such cgroup"), path);
  return FALSE;
}

static void
set_not_cgroup_error (GError     **error,
                      const char  *relative,
                      const char  *absolute)
{
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
               /* Translators: the first %s is a cgroup path, the second a directory. */
               _("Cannot watch cgroup %s: %s is not a cgroup v2 directory"),
               relative, absolute);
}

/* ENOTDIR here means a file stood in the path before its end (a missing
 * cgroup); a file at its end is caught by the caller. */
static void
set_open_error (GError     **error,
                int          saved_errno,
                const char  *relative)
{
  GIOErrorEnum code = saved_errno == ENOTDIR ? G_IO_ERROR_NOT_FOUND
                                             : g_io_error_from_errno (saved_errno);

  g_set_error (error, G_IO_ERROR, code,
               /* Translators: the first %s is a cgroup path, the second the system's error message. */
               _("Cannot watch cgroup %s: %s"),
               relative, g_strerror (saved_errno));
}

/* Opens the cgroup.events of the cgroup at @absolute, which must be in a
 * cgroup2 file system, and gives its id: the inode number of its
 * directory, which the kernel uses as the cgroup id. */
int
procwatch_cgroup_open_events (const char  *relative,
                              const char  *absolute,
                              guint64     *id,
                              GError     **error)
{
  struct statfs sfs;
  struct stat st;
  int dir_fd;
  int fd;
  int saved_errno;

  dir_fd = open (absolute, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0)
    {
      saved_errno = errno;
      /* A file that exists (cgroup.procs, say) is a path given wrongly,
       * not a cgroup that is missing. */
      if (saved_errno == ENOTDIR && stat (absolute, &st) == 0 && !S_ISDIR (st.st_mode))
        set_not_cgroup_error (error, relative, absolute);
      else
        set_open_error (error, saved_errno, relative);
      return -1;
    }

  if (fstatfs (dir_fd, &sfs) != 0 || sfs.f_type != CGROUP2_SUPER_MAGIC ||
      fstat (dir_fd, &st) != 0)
    {
      close (dir_fd);
      set_not_cgroup_error (error, relative, absolute);
      return -1;
    }

  fd = openat (dir_fd, "cgroup.events", O_RDONLY | O_CLOEXEC);
  saved_errno = errno;
  close (dir_fd);

  /* Every cgroup has the file but the root, which is never empty. */
  if (fd < 0 && saved_errno == ENOENT)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   /* Translators: %s is a cgroup path. */
                   _("Cannot watch cgroup %s: it is the root cgroup, which is never empty"),
                   relative);
      return -1;
    }

  if (fd < 0)
    {
      set_open_error (error, saved_errno, relative);
      return -1;
    }

  *id = st.st_ino;
  return fd;
}

/* Whether @relative, a path as /proc/<pid>/cgroup writes it, names the
 * cgroup whose id is @id here: a path read by pid is checked so before it
 * is remembered for the id, as the process may have moved meanwhile. False
 * where it cannot be told (no cgroup2 mounted here). */
gboolean
procwatch_cgroup_path_has_id (const char *relative,
                              guint64     id)
{
  g_autoptr(GPtrArray) mounts = procwatch_cgroup_read_mounts (NULL);
  g_autofree char *resolved = NULL;
  g_autofree char *absolute = NULL;
  struct statfs sfs;
  struct stat st;

  return mounts != NULL &&
         procwatch_cgroup_resolve (mounts, relative, &resolved, &absolute, NULL) &&
         g_strcmp0 (resolved, relative) == 0 &&
         statfs (absolute, &sfs) == 0 && sfs.f_type == CGROUP2_SUPER_MAGIC &&
         stat (absolute, &st) == 0 && S_ISDIR (st.st_mode) && st.st_ino == id;
}

/* 1 or 0 from the "populated" line of a cgroup.events text; -1 if none. */
int
procwatch_cgroup_parse_populated (const char *text,
                                  gsize       length)
{
  const char *value;
  gsize value_length;

  if (!procwatch_proc_find_line (text, length, "populated ", &value, &value_length) ||
      value_length != 1 || (value[0] != '0' && value[0] != '1'))
    return -1;

  return value[0] - '0';
}

/* What cgroup.events says now: 1 or 0, or -1 with errno set (ENODEV once
 * the cgroup has been removed). pread(), not read(): every wake-up reads
 * the whole file afresh, and reading is what re-arms the notification. */
int
procwatch_cgroup_read_populated (int events_fd)
{
  char text[256];
  gssize length;
  int populated;

  do
    length = pread (events_fd, text, sizeof text - 1, 0);
  while (length < 0 && errno == EINTR);

  if (length < 0)
    return -1;

  populated = procwatch_cgroup_parse_populated (text, length);
  if (populated < 0)
    errno = EINVAL;
  return populated;
}

/* The cgroup2 mounts of our mount namespace; none is not an error. */
GPtrArray *
procwatch_cgroup_read_mounts (GError **error)
{
  g_autofree char *text = NULL;
  gsize length;
  g_autoptr(GError) local_error = NULL;

  if (!g_file_get_contents ("/proc/self/mountinfo", &text, &length, &local_error))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   /* Translators: %s is the system's error message. */
                   _("Cannot watch cgroups: cannot find where cgroup v2 is mounted: %s"),
                   local_error->message);
      return NULL;
    }

  return procwatch_cgroup_parse_mountinfo (text, length);
}
