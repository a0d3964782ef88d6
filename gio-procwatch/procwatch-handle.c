/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * What every backend does alike with the handles it opens: filling them,
 * closing them, polling them, and the errors of opening them.
 */

#include "config.h"

#include <errno.h>
#include <linux/kcmp.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <gio/gio.h>

#include "procwatch-backend-private.h"
#include "procwatch-i18n-private.h"
#include "procwatch-self-private.h"

/* Fills @handle with what a backend has opened. */
void
procwatch_handle_set (ProcwatchHandle *handle,
                      int              fd,
                      GPid             pid,
                      guint64          inode)
{
  handle->fd = fd;
  handle->pid = pid;
  handle->inode = inode;
}

/* The inode the application is told of: 0 where it is only known to the
 * library. */
guint64
procwatch_handle_get_public_inode (const ProcwatchHandle *handle)
{
  return handle->inode_identity_only ? 0 : handle->inode;
}

void
procwatch_handle_close (ProcwatchHandle *handle)
{
  if (handle->fd >= 0)
    close (handle->fd);
  if (handle->pidfd >= 0)
    close (handle->pidfd);

  handle->fd = -1;
  handle->pidfd = -1;
}

int
procwatch_handle_get_pidfd (const ProcwatchBackend *backend,
                            const ProcwatchHandle  *handle)
{
  return backend->handle_fd_is_pidfd ? handle->fd : handle->pidfd;
}

/* Whether two handles hold one open pidfd: one a duplicate of the other,
 * or received over a socket. Before Linux 6.9 a pidfd has no pidfs inode
 * and, once its process is reaped, no pid either: then this is all that can
 * tell that two pidfds name one process. kcmp() needs CONFIG_KCMP (Debian's
 * kernels have it); where it is missing or filtered they are unlike. */
gboolean
procwatch_handle_same_pidfd (const ProcwatchBackend *backend,
                             const ProcwatchHandle  *a,
                             const ProcwatchHandle  *b)
{
  int fd_a = procwatch_handle_get_pidfd (backend, a);
  int fd_b = procwatch_handle_get_pidfd (backend, b);
  pid_t self = procwatch_self_pid ();

  return fd_a >= 0 && fd_b >= 0 &&
         syscall (SYS_kcmp, self, self, KCMP_FILE, fd_a, fd_b) == 0;
}

/* The epoll events that @fd shows now. */
guint32
procwatch_fd_poll (int fd)
{
  struct pollfd pfd = { fd, POLLIN, 0 };

  if (poll (&pfd, 1, 0) != 1)
    return 0;

  return (pfd.revents & POLLIN ? EPOLLIN : 0) |
         (pfd.revents & POLLHUP ? EPOLLHUP : 0) |
         (pfd.revents & POLLERR ? EPOLLERR : 0);
}

/* The same for a handle, for a backend asked to look for itself
 * (read_state() with no events). */
guint32
procwatch_handle_poll (const ProcwatchHandle *handle)
{
  return procwatch_fd_poll (handle->fd);
}

/* GLib's mapping of errno, except where the API documents otherwise: a
 * process that is gone (ESRCH) is not found. */
void
procwatch_set_error_from_errno (GError     **error,
                                int          saved_errno,
                                GPid         pid,
                                const char  *what)
{
  g_set_error (error, G_IO_ERROR,
               saved_errno == ESRCH ? G_IO_ERROR_NOT_FOUND : g_io_error_from_errno (saved_errno),
               /* Translators: %d is a process id; the first %s says what
                * failed (a system call such as "pidfd_open", or a message
                * such as "cannot open /proc/42"), the second is the
                * system's error message. */
               _("Cannot watch process %d: %s: %s"),
               (int) pid, what, g_strerror (saved_errno));
}
