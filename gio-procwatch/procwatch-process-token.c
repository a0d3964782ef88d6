/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * Process tokens: a pidfs file handle (Linux 6.14+) names one process and
 * no other, ever; the kernel opens it into a pidfd while the process is
 * running or a zombie and refuses (ESTALE) once it is reaped, or when the
 * process is not visible from the caller's pid namespace. pidfs inode
 * numbers start again at every boot, so the token carries the boot id, and
 * a token of another boot names nothing.
 *
 * The token, all integers little-endian:
 *
 *   offset  size  what
 *        0     4  "PWFH"
 *        4     4  format version, 1
 *        8     4  the handle type the kernel gave (pidfs: 254)
 *       12    16  the boot id, /proc/sys/kernel/random/boot_id as bytes
 *       28     4  the length of the kernel's handle, 1 to MAX_HANDLE_SZ
 *       32     n  the kernel's handle
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "procwatch-backend-private.h"
#include "procwatch-process-token-private.h"
#include "procwatch-i18n-private.h"
#include "procwatch-linux-private.h"
#include "procwatch-proc-files-private.h"

#define TOKEN_MAGIC "PWFH"
#define TOKEN_VERSION 1
#define TOKEN_HEADER_SIZE 32
#define BOOT_ID_SIZE 16

typedef struct
{
  struct file_handle handle;
  unsigned char bytes[MAX_HANDLE_SZ];
} HandleBuffer;

/* The boot id, read once: it does not change while we run, and a token
 * made or opened afterwards needs no file descriptor for it. */
G_LOCK_DEFINE_STATIC (boot_id);
static guint8 known_boot_id[BOOT_ID_SIZE];
static gboolean boot_id_known;

/* The boot id as 16 bytes, from its text form
 * (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx). */
static gboolean
parse_boot_id (char    *text,
               guint8   boot_id[BOOT_ID_SIZE],
               GError **error)
{
  const char *p;
  guint n = 0;

  for (p = text; *p != '\0' && *p != '\n' && n < BOOT_ID_SIZE * 2; p++)
    {
      int digit = g_ascii_xdigit_value (*p);

      if (*p == '-')
        continue;
      if (digit < 0)
        break;
      if (n % 2 == 0)
        boot_id[n / 2] = digit << 4;
      else
        boot_id[n / 2] |= digit;
      n++;
    }

  if (n != BOOT_ID_SIZE * 2)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("Cannot read the boot id: “%s” is no boot id"), g_strchomp (text));
      return FALSE;
    }

  return TRUE;
}

/* Out of file descriptors is said so: NOT_SUPPORTED would tell the caller
 * that this kernel has no file handles. */
static gboolean
read_boot_id (guint8   boot_id[BOOT_ID_SIZE],
              GError **error)
{
  char text[64];
  gboolean known;
  gssize length;

  G_LOCK (boot_id);
  known = boot_id_known;
  if (known)
    memcpy (boot_id, known_boot_id, BOOT_ID_SIZE);
  G_UNLOCK (boot_id);
  if (known)
    return TRUE;

  length = procwatch_proc_read_file ("/proc/sys/kernel/random/boot_id", text, sizeof text);
  if (length < 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_IO_ERROR,
                   saved_errno == EMFILE || saved_errno == ENFILE
                     ? G_IO_ERROR_TOO_MANY_OPEN_FILES : G_IO_ERROR_NOT_SUPPORTED,
                   _("Cannot read the boot id: %s"), g_strerror (saved_errno));
      return FALSE;
    }

  if (!parse_boot_id (text, boot_id, error))
    return FALSE;

  G_LOCK (boot_id);
  memcpy (known_boot_id, boot_id, BOOT_ID_SIZE);
  boot_id_known = TRUE;
  G_UNLOCK (boot_id);

  return TRUE;
}

static void
put_le32 (guint8  *where,
          guint32  value)
{
  value = GUINT32_TO_LE (value);
  memcpy (where, &value, sizeof value);
}

static guint32
get_le32 (const guint8 *where)
{
  guint32 value;

  memcpy (&value, where, sizeof value);
  return GUINT32_FROM_LE (value);
}

GBytes *
procwatch_process_token_encode (int       pidfd,
                              GPid      pid,
                              GError  **error)
{
  HandleBuffer name;
  guint8 boot_id[BOOT_ID_SIZE];
  guint8 *token;
  int mount_id;
  int saved_errno;

  memset (&name, 0, sizeof name);
  name.handle.handle_bytes = MAX_HANDLE_SZ;
  if (procwatch_pidfd_pidfs_hidden () ||
      name_to_handle_at (pidfd, "", &name.handle, &mount_id, AT_EMPTY_PATH) != 0)
    {
      saved_errno = procwatch_pidfd_pidfs_hidden () ? EOPNOTSUPP : errno;
      /* EOPNOTSUPP: pidfs cannot export handles (before 6.14), or the
       * pidfd is an anonymous inode (before 6.9); ENOSYS, EPERM: filtered. */
      g_set_error (error, G_IO_ERROR,
                   saved_errno == ENOMEM ? G_IO_ERROR_FAILED : G_IO_ERROR_NOT_SUPPORTED,
                   _("Cannot make a file handle of process %d: %s"),
                   (int) pid, g_strerror (saved_errno));
      return NULL;
    }

  if (!read_boot_id (boot_id, error))
    return NULL;

  token = g_malloc0 (TOKEN_HEADER_SIZE + name.handle.handle_bytes);
  memcpy (token, TOKEN_MAGIC, 4);
  put_le32 (token + 4, TOKEN_VERSION);
  put_le32 (token + 8, (guint32) name.handle.handle_type);
  memcpy (token + 12, boot_id, BOOT_ID_SIZE);
  put_le32 (token + 28, name.handle.handle_bytes);
  memcpy (token + TOKEN_HEADER_SIZE, name.handle.f_handle, name.handle.handle_bytes);

  return g_bytes_new_take (token, TOKEN_HEADER_SIZE + name.handle.handle_bytes);
}

/* Parses @token into @name; false, with INVALID_ARGUMENT, for anything
 * that is not a token of this format. */
static gboolean
decode (GBytes        *token,
        HandleBuffer  *name,
        guint8         boot_id[BOOT_ID_SIZE],
        GError       **error)
{
  gsize size;
  const guint8 *data = g_bytes_get_data (token, &size);
  guint32 length;

  if (size < TOKEN_HEADER_SIZE || memcmp (data, TOKEN_MAGIC, 4) != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("Not a process file handle (%" G_GSIZE_FORMAT " bytes)"), size);
      return FALSE;
    }

  if (get_le32 (data + 4) != TOKEN_VERSION)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("Process file handle of unknown format version %u"), get_le32 (data + 4));
      return FALSE;
    }

  length = get_le32 (data + 28);
  if (length == 0 || length > MAX_HANDLE_SZ || size != TOKEN_HEADER_SIZE + length)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("Process file handle of %" G_GSIZE_FORMAT " bytes says it holds %u "
                     "bytes of handle"), size, length);
      return FALSE;
    }

  memset (name, 0, sizeof *name);
  name->handle.handle_type = (int) get_le32 (data + 8);
  name->handle.handle_bytes = length;
  memcpy (name->handle.f_handle, data + TOKEN_HEADER_SIZE, length);
  memcpy (boot_id, data + 12, BOOT_ID_SIZE);

  return TRUE;
}

int
procwatch_process_token_open (GBytes  *token,
                            GError **error)
{
  HandleBuffer name;
  guint8 token_boot_id[BOOT_ID_SIZE];
  guint8 boot_id[BOOT_ID_SIZE];
  GIOErrorEnum code;
  int saved_errno;
  int mount_fd;
  int fd;

  if (!decode (token, &name, token_boot_id, error))
    return -1;

  if (!read_boot_id (boot_id, error))
    return -1;

  /* The same inode numbers name other processes after a reboot. */
  if (memcmp (boot_id, token_boot_id, BOOT_ID_SIZE) != 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                           _("The process file handle is from another boot"));
      return -1;
    }

  if (procwatch_pidfd_pidfs_hidden ())
    {
      fd = -1;
      errno = EOPNOTSUPP;
    }
  else
    {
      fd = open_by_handle_at (FD_PIDFS_ROOT, &name.handle, O_RDONLY | O_CLOEXEC);
    }
  if (fd < 0 && errno == EBADF)
    {
      /* Before 6.17 the mount fd must be on pidfs: any pidfd will do. */
      mount_fd = procwatch_pidfd_open (getpid (), 0);
      if (mount_fd >= 0)
        {
          fd = open_by_handle_at (mount_fd, &name.handle, O_RDONLY | O_CLOEXEC);
          saved_errno = errno;
          close (mount_fd);
          errno = saved_errno;
        }
    }
  if (fd >= 0)
    return fd;

  saved_errno = errno;
  switch (saved_errno)
    {
    /* Reaped; not visible from this pid namespace (the kernel cannot tell
     * the two apart); or a handle that pidfs does not know. */
    case ESTALE:
    case ESRCH:
    case ENOENT:
    case EINVAL:
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("The process of the file handle is gone or not visible from here: %s"),
                   g_strerror (saved_errno));
      return -1;

    case EPERM:
    case EACCES:
      code = G_IO_ERROR_PERMISSION_DENIED;
      break;

    case EMFILE:
    case ENFILE:
      code = G_IO_ERROR_TOO_MANY_OPEN_FILES;
      break;

    default:
      /* ENOSYS, EOPNOTSUPP, EBADF: no pidfs file handles here. */
      code = G_IO_ERROR_NOT_SUPPORTED;
      break;
    }

  g_set_error (error, G_IO_ERROR, code,
               _("Cannot open the process file handle: %s"), g_strerror (saved_errno));
  return -1;
}
