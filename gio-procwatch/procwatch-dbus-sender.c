/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 */

#include "config.h"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>

#include <glib/gstdio.h>
#include <gio/gunixfdlist.h>

#include "procwatch-dbus-sender-private.h"
#include "procwatch-i18n-private.h"
#include "procwatch-linux-private.h"

/* One lookup. @pid is what the bus told the first time (fallback only). */
typedef struct
{
  char *sender;
  int pidfd;
  guint32 pid;
  ProcwatchDBusSenderVia via;
} Lookup;

static void
lookup_free (Lookup *lookup)
{
  g_free (lookup->sender);
  if (lookup->pidfd >= 0)
    g_close (lookup->pidfd, NULL);
  g_free (lookup);
}

#ifdef PROCWATCH_TEST_SEAM
static GQuark
via_quark (void)
{
  return g_quark_from_static_string ("procwatch-dbus-sender-via");
}

void
procwatch_dbus_sender_set_via (GTask                  *task,
                               ProcwatchDBusSenderVia  via)
{
  g_object_set_qdata (G_OBJECT (task), via_quark (), GINT_TO_POINTER (via));
}

ProcwatchDBusSenderVia
procwatch_dbus_sender_get_via (GAsyncResult *result)
{
  return GPOINTER_TO_INT (g_object_get_qdata (G_OBJECT (result), via_quark ()));
}
#endif

static void
return_pidfd (GTask                  *task,
              int                     pidfd,
              ProcwatchDBusSenderVia  via)
{
  Lookup *lookup = g_task_get_task_data (task);

  lookup->pidfd = pidfd;
  lookup->via = via;
  g_task_return_boolean (task, TRUE);
}

/* pidfd_open() for a pid a bus or a socket told; ESRCH means the process
 * is gone, which callers report in their own terms. */
static int
open_told_pid (guint32   pid,
               int      *saved_errno,
               GError  **error)
{
  int pidfd = procwatch_pidfd_open ((pid_t) pid, 0);

  *saved_errno = pidfd < 0 ? errno : 0;
  if (pidfd < 0 && *saved_errno != ESRCH)
    g_set_error (error, G_IO_ERROR, g_io_error_from_errno (*saved_errno),
                 _("Cannot open a pidfd for process %u: %s"), pid, g_strerror (*saved_errno));

  return pidfd;
}

/* The fd of the unix socket under a peer-to-peer connection. */
static int
get_peer_socket_fd (GDBusConnection  *connection,
                    GError          **error)
{
  GIOStream *stream = g_dbus_connection_get_stream (connection);
  GSocket *socket;

  if (!G_IS_SOCKET_CONNECTION (stream) ||
      g_socket_get_family (g_socket_connection_get_socket (G_SOCKET_CONNECTION (stream))) !=
        G_SOCKET_FAMILY_UNIX)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           _("The D-Bus connection is not on a unix socket: its peer cannot be told"));
      return -1;
    }

  /* Closed here (by g_dbus_connection_close()); a connection the peer
   * closed is told by check_peer_connected(), GDBus or not. */
  socket = g_socket_connection_get_socket (G_SOCKET_CONNECTION (stream));
  if (g_socket_is_closed (socket))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CLOSED,
                           _("The D-Bus connection is closed"));
      return -1;
    }

  return g_socket_get_fd (socket);
}

/* SO_PEERPIDFD: the peer's pidfd, from the kernel. Returns -1 with no
 * error set where the kernel does not know the option (before 6.5): the
 * caller then falls back to SO_PEERCRED. */
static int
open_peer_pidfd (int      fd,
                 GError **error)
{
  int pidfd = -1;
  socklen_t len = sizeof pidfd;
  int saved_errno;

  if (getsockopt (fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) == 0)
    return pidfd;

  saved_errno = errno;
  if (saved_errno == ENOPROTOOPT)
    return -1;

  /* A peer already reaped has no pidfd to give: ESRCH from Linux 6.16,
   * EINVAL before (6.5 - 6.15: a pid with no task left). */
  if (saved_errno == ESRCH || saved_errno == EINVAL)
    g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CLOSED, _("The D-Bus peer has exited"));
  else
    g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                 _("Cannot get a pidfd for the D-Bus peer: %s"), g_strerror (saved_errno));
  return -1;
}

/* SO_PEERCRED: the pid the peer had when it connected, opened now. It may
 * belong to another process by then: check_peer_connected() rules that
 * out afterwards. */
static int
open_peer_by_cred (int      fd,
                   GError **error)
{
  struct ucred cred = { 0, };
  socklen_t len = sizeof cred;
  g_autoptr(GError) local_error = NULL;
  int saved_errno;
  int pidfd;

  if (getsockopt (fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
    {
      saved_errno = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                   _("Cannot get the credentials of the D-Bus peer: %s"),
                   g_strerror (saved_errno));
      return -1;
    }

  /* 0: the peer's pid does not exist in our pid namespace. */
  if (cred.pid <= 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           _("The D-Bus peer has no pid in this pid namespace"));
      return -1;
    }

  pidfd = open_told_pid ((guint32) cred.pid, &saved_errno, &local_error);
  if (pidfd < 0 && saved_errno == ESRCH)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_CLOSED,
                 _("The D-Bus peer (process %d) has exited"), (int) cred.pid);
  else if (pidfd < 0)
    g_propagate_error (error, g_steal_pointer (&local_error));

  return pidfd;
}

/* A peer that has died has closed its end: then the pid SO_PEERCRED told
 * may already belong to another process. Checked after the pidfd was
 * opened, so a pidfd opened before the hang-up refers to the peer. With
 * SO_PEERPIDFD it only keeps the two ways' answers the same. */
static gboolean
check_peer_connected (int      fd,
                      GError **error)
{
  struct pollfd hangup = { .fd = fd, .events = POLLRDHUP, .revents = 0 };

  if (poll (&hangup, 1, 0) > 0 && (hangup.revents & (POLLHUP | POLLRDHUP | POLLERR)) != 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CLOSED, _("The D-Bus peer has hung up"));
      return FALSE;
    }

  return TRUE;
}

/* Peer to peer: the socket knows who connected. */
static void
open_peer (GTask *task)
{
  ProcwatchDBusSenderVia via = PROCWATCH_DBUS_SENDER_VIA_PEER_PIDFD;
  g_autoptr(GError) error = NULL;
  int pidfd;
  int fd;

  fd = get_peer_socket_fd (g_task_get_source_object (task), &error);
  if (fd < 0)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  pidfd = open_peer_pidfd (fd, &error);
  if (pidfd < 0 && error == NULL)
    {
      via = PROCWATCH_DBUS_SENDER_VIA_PEER_CRED;
      pidfd = open_peer_by_cred (fd, &error);
    }

  if (pidfd >= 0 && !check_peer_connected (fd, &error))
    {
      g_close (pidfd, NULL);
      pidfd = -1;
    }

  if (pidfd < 0)
    g_task_return_error (task, g_steal_pointer (&error));
  else
    return_pidfd (task, pidfd, via);
}

static void
ask_bus (GTask               *task,
         GAsyncReadyCallback  callback)
{
  Lookup *lookup = g_task_get_task_data (task);

  g_dbus_connection_call_with_unix_fd_list (g_task_get_source_object (task),
                                            "org.freedesktop.DBus",
                                            "/org/freedesktop/DBus",
                                            "org.freedesktop.DBus",
                                            "GetConnectionCredentials",
                                            g_variant_new ("(s)", lookup->sender),
                                            G_VARIANT_TYPE ("(a{sv})"),
                                            G_DBUS_CALL_FLAGS_NONE,
                                            -1,
                                            NULL,
                                            g_task_get_cancellable (task),
                                            callback,
                                            g_object_ref (task));
}

/* The reply's ProcessFD (a new fd, or -1) and ProcessID (0 if absent);
 * FALSE with @error for an error reply, passed on as the bus sent it
 * (NameHasNoOwner is G_DBUS_ERROR_NAME_HAS_NO_OWNER). */
static gboolean
read_credentials (GDBusConnection  *connection,
                  GAsyncResult     *result,
                  int              *pidfd,
                  guint32          *pid,
                  GError          **error)
{
  g_autoptr(GUnixFDList) fds = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) credentials = NULL;
  gint32 handle;

  *pidfd = -1;
  *pid = 0;

  reply = g_dbus_connection_call_with_unix_fd_list_finish (connection, &fds, result, error);
  if (reply == NULL)
    {
      if (error != NULL && *error != NULL)
        g_dbus_error_strip_remote_error (*error);
      return FALSE;
    }

  g_variant_get (reply, "(@a{sv})", &credentials);
  g_variant_lookup (credentials, "ProcessID", "u", pid);

  if (g_variant_lookup (credentials, "ProcessFD", "h", &handle) &&
      fds != NULL && handle >= 0 && handle < g_unix_fd_list_get_length (fds))
    {
      *pidfd = g_unix_fd_list_get (fds, handle, error);
      if (*pidfd < 0)
        return FALSE;
    }

  return TRUE;
}

static void
on_bus_rechecked (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Lookup *lookup = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  int pidfd;
  guint32 pid;

  if (!read_credentials (G_DBUS_CONNECTION (source), result, &pidfd, &pid, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (pidfd >= 0)
    g_close (pidfd, NULL);

  /* A unique name is never given to another connection, and a
   * connection's pid is fixed when it connects: a different answer means a
   * bus we do not understand. */
  if (pid != lookup->pid)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED,
                               _("The message bus first told process %u for %s, then %u"),
                               lookup->pid, lookup->sender, pid);
      return;
    }

  /* The pidfd stays in lookup->pidfd, opened before the name was seen to
   * exist still. */
  lookup->via = PROCWATCH_DBUS_SENDER_VIA_PROCESS_ID;
  g_task_return_boolean (task, TRUE);
}

static void
on_bus_answered (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Lookup *lookup = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  int pidfd;
  int saved_errno;

  if (!read_credentials (G_DBUS_CONNECTION (source), result, &pidfd, &lookup->pid, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  if (pidfd >= 0)
    {
      return_pidfd (task, pidfd, PROCWATCH_DBUS_SENDER_VIA_PROCESS_FD);
      return;
    }

  if (lookup->pid == 0)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                               _("The message bus does not tell the process of %s"),
                               lookup->sender);
      return;
    }

  pidfd = open_told_pid (lookup->pid, &saved_errno, &error);
  if (pidfd < 0 && saved_errno == ESRCH)
    {
      /* Its connection is closing; the bus has not noticed yet. */
      g_task_return_new_error (task, G_DBUS_ERROR, G_DBUS_ERROR_NAME_HAS_NO_OWNER,
                               _("The process %u of %s has exited"), lookup->pid, lookup->sender);
      return;
    }
  if (pidfd < 0)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  /* The pid may have been reused between the bus's answer and the
   * pidfd_open(): if the name still exists now, the connection was still
   * open after the pidfd was made, so its process had not been reaped. */
  lookup->pidfd = pidfd;
  ask_bus (task, on_bus_rechecked);
}

void
procwatch_dbus_sender_open_pidfd_async (GDBusConnection     *connection,
                                        const char          *sender,
                                        GCancellable        *cancellable,
                                        GAsyncReadyCallback  callback,
                                        gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  Lookup *lookup;

  task = g_task_new (connection, cancellable, callback, user_data);
  g_task_set_source_tag (task, procwatch_dbus_sender_open_pidfd_async);

  lookup = g_new0 (Lookup, 1);
  lookup->sender = g_strdup (sender);
  lookup->pidfd = -1;
  g_task_set_task_data (task, lookup, (GDestroyNotify) lookup_free);

  if (sender == NULL)
    open_peer (task);
  else
    ask_bus (task, on_bus_answered);
}

int
procwatch_dbus_sender_open_pidfd_finish (GAsyncResult            *result,
                                         ProcwatchDBusSenderVia  *via,
                                         GError                 **error)
{
  Lookup *lookup = g_task_get_task_data (G_TASK (result));
  int pidfd;

  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) ==
                        procwatch_dbus_sender_open_pidfd_async, -1);

  *via = lookup->via;
  if (!g_task_propagate_boolean (G_TASK (result), error))
    return -1;

  pidfd = lookup->pidfd;
  lookup->pidfd = -1;

  return pidfd;
}
