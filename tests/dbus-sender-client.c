/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * procwatch-dbus-test-client ADDRESS DESTINATION|- MODE [INTERFACE.METHOD]
 *
 * A D-Bus caller for the tests: connects to ADDRESS (a message bus when
 * DESTINATION is a bus name, a peer when it is "-"), then, by MODE:
 *   call       calls org.gioprocwatch.Test.Hello on /org/gioprocwatch/Test
 *              with (pid, pidfs inode of itself), or INTERFACE.METHOD with
 *              no arguments on /, prints "called", and waits for its stdin
 *              to close;
 *   call-exit  calls, then exits at once;
 *   connect    prints its unique name (or "connected") and waits for its
 *              stdin to close;
 *   hangup     closes its connection, prints "closed", and waits for its
 *              stdin to close: alive, but hung up.
 * Exits 0 when all went well, 1 otherwise.
 */

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include <gio/gio.h>

#include "procwatch-linux-private.h"

/* Its own identity as the test checks it: pidfs inode, or 0 without pidfs
 * (before Linux 6.9 a pidfd is an anonymous inode, whose number all share). */
static guint64
own_inode (void)
{
  struct statfs fs;
  struct stat st;
  int pidfd = procwatch_pidfd_open (getpid (), 0);
  guint64 inode = 0;

  if (pidfd >= 0 && fstatfs (pidfd, &fs) == 0 && fs.f_type == PIDFS_MAGIC &&
      fstat (pidfd, &st) == 0)
    inode = st.st_ino;
  if (pidfd >= 0)
    close (pidfd);

  return inode;
}

static void
wait_for_stdin_eof (void)
{
  char buffer[64];

  while (fread (buffer, 1, sizeof buffer, stdin) > 0)
    ;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GDBusConnection) connection = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) error = NULL;
  const char *destination;
  const char *mode;
  g_autofree char *interface = g_strdup (argc > 4 ? argv[4] : "org.gioprocwatch.Test.Hello");
  char *method;
  gboolean bus;

  if (argc < 4)
    {
      fprintf (stderr, "usage: %s ADDRESS DESTINATION|- call|call-exit|connect|hangup [METHOD]\n",
               argv[0]);
      return 1;
    }

  bus = strcmp (argv[2], "-") != 0;
  destination = bus ? argv[2] : NULL;
  mode = argv[3];

  connection = g_dbus_connection_new_for_address_sync (argv[1],
                                                       G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                                                       (bus ? G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION : 0),
                                                       NULL, NULL, &error);
  if (connection == NULL)
    {
      fprintf (stderr, "client: cannot connect: %s\n", error->message);
      return 1;
    }

  if (strcmp (mode, "connect") == 0)
    {
      printf ("%s\n", bus ? g_dbus_connection_get_unique_name (connection) : "connected");
      fflush (stdout);
      wait_for_stdin_eof ();
      return 0;
    }

  if (strcmp (mode, "hangup") == 0)
    {
      if (!g_dbus_connection_close_sync (connection, NULL, &error))
        {
          fprintf (stderr, "client: cannot close: %s\n", error->message);
          return 1;
        }
      printf ("closed\n");
      fflush (stdout);
      wait_for_stdin_eof ();
      return 0;
    }

  method = strrchr (interface, '.');
  if (method == NULL)
    return 1;
  *method++ = '\0';
  reply = g_dbus_connection_call_sync (connection, destination,
                                       argc > 4 ? "/" : "/org/gioprocwatch/Test",
                                       interface, method,
                                       argc > 4 ? NULL : g_variant_new ("(ut)", (guint32) getpid (),
                                                                        own_inode ()),
                                       NULL, G_DBUS_CALL_FLAGS_NONE, -1, NULL, &error);
  if (reply == NULL)
    {
      fprintf (stderr, "client: %s failed: %s\n", method, error->message);
      return 1;
    }

  if (strcmp (mode, "call") == 0)
    {
      printf ("called\n");
      fflush (stdout);
      wait_for_stdin_eof ();
    }

  return 0;
}
