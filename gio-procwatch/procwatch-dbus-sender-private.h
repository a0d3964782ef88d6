/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * Who is calling: a pidfd for the process behind a D-Bus caller, asked of
 * the message bus (a unique name) or of the socket (a peer-to-peer
 * connection). The monitor watches that pidfd; nothing here watches.
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* How the pidfd was found; tests assert which way a bus or kernel offers. */
typedef enum {
  PROCWATCH_DBUS_SENDER_VIA_NONE,
  /* The bus sent ProcessFD (dbus-daemon 1.16, dbus-broker 34+): no race. */
  PROCWATCH_DBUS_SENDER_VIA_PROCESS_FD,
  /* The bus sent ProcessID only: pidfd_open, then the bus asked again. */
  PROCWATCH_DBUS_SENDER_VIA_PROCESS_ID,
  /* SO_PEERPIDFD (Linux 6.5+): no race. */
  PROCWATCH_DBUS_SENDER_VIA_PEER_PIDFD,
  /* SO_PEERCRED's pid: pidfd_open, then the socket checked for a hang-up. */
  PROCWATCH_DBUS_SENDER_VIA_PEER_CRED,
} ProcwatchDBusSenderVia;

void                   procwatch_dbus_sender_open_pidfd_async  (GDBusConnection     *connection,
                                                                const char          *sender,
                                                                GCancellable        *cancellable,
                                                                GAsyncReadyCallback  callback,
                                                                gpointer             user_data);
/* Returns a new O_CLOEXEC pidfd the caller owns, or -1 with @error set. */
int                    procwatch_dbus_sender_open_pidfd_finish (GAsyncResult        *result,
                                                                ProcwatchDBusSenderVia *via,
                                                                GError             **error);

#ifdef PROCWATCH_TEST_SEAM
/* The way recorded on the monitor's task of a watch_dbus_sender_async call,
 * read back by tests from the GAsyncResult their callback receives. */
void                   procwatch_dbus_sender_set_via           (GTask               *task,
                                                                ProcwatchDBusSenderVia via);
ProcwatchDBusSenderVia procwatch_dbus_sender_get_via           (GAsyncResult        *result);
#endif

G_END_DECLS
