/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 */

#include "config.h"

#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gio/gio.h>

#include "procwatch-backend.h"

static const ProcwatchBackend *
choose_backend (void)
{
  if (procwatch_backend_pidfd_probe ())
    return &procwatch_backend_pidfd;

  return NULL;
}

/* Returns the backend that works on this kernel, probed once per process;
 * NULL if none does. */
const ProcwatchBackend *
procwatch_backend_get_default (void)
{
  static const ProcwatchBackend *backend;
  static gsize initialized;

  if (g_once_init_enter (&initialized))
    {
      backend = choose_backend ();
      g_once_init_leave (&initialized, 1);
    }

  return backend;
}

/* Whether @newer, opened after @older, refers to the same process. A pid
 * cannot be reused before its process is reaped, so without pidfs inodes it
 * is enough that @older still is not reaped now that @newer is open. */
gboolean
procwatch_backend_same_process (const ProcwatchBackend *backend,
                                const ProcwatchHandle  *older,
                                const ProcwatchHandle  *newer)
{
  if (older->inode != 0 && newer->inode != 0)
    return older->inode == newer->inode;

  return older->pid == newer->pid &&
         older->pid > 0 &&
         backend->read_state (backend, older, 0) != PROCWATCH_PROCESS_STATE_REAPED;
}

void
procwatch_handle_close (ProcwatchHandle *handle)
{
  if (handle->fd >= 0)
    close (handle->fd);

  handle->fd = -1;
}

void
procwatch_set_error_from_errno (GError     **error,
                                int          saved_errno,
                                GPid         pid,
                                const char  *what)
{
  GIOErrorEnum code;

  switch (saved_errno)
    {
    case ESRCH:
    case ENOENT:
      code = G_IO_ERROR_NOT_FOUND;
      break;

    case EMFILE:
    case ENFILE:
      code = G_IO_ERROR_TOO_MANY_OPEN_FILES;
      break;

    case ENOSYS:
      code = G_IO_ERROR_NOT_SUPPORTED;
      break;

    default:
      code = g_io_error_from_errno (saved_errno);
      break;
    }

  g_set_error (error, G_IO_ERROR, code,
               "Cannot watch process %d: %s: %s",
               (int) pid, what, g_strerror (saved_errno));
}

/* The waitpid()-style status of what waitid() reported, or -1 if the
 * report is not of a terminated process. */
int
procwatch_wait_status_from_siginfo (const siginfo_t *info)
{
  switch (info->si_code)
    {
    case CLD_EXITED:
      return (info->si_status & 0xff) << 8;

    case CLD_KILLED:
      return info->si_status & 0x7f;

    case CLD_DUMPED:
      return (info->si_status & 0x7f) | WCOREFLAG;

    default:
      return -1;
    }
}
